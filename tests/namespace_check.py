#!/usr/bin/python3
"""One namespace per layer (CTest Layers.OneNamespacePerLayer, docs/architecture.md).

  tests/namespace_check.py [SOURCE_DIR]

Every `namespace stribeck...` a layer folder's sources open must be its layer's
namespace or one inside it:

  kernels stribeck (the vocabulary every layer uses: stribeck::gpu, ::sweep, ::math ...)
  data stribeck::data        engine stribeck::engine    workloads stribeck::workloads
  identification stribeck::ident   report stribeck::report   app stribeck::cli
  python stribeck::python

The one exception is a block that only forward-declares classes of another
layer in that layer's namespace (`namespace stribeck::gpu { struct Workspace; }`). Exits 1 listing FILE:LINE of every other opening. Before
reading the tree it checks itself on a small tree, so a checker that cannot
fail does not pass.
"""
import os
import re
import sys
import tempfile

NAMESPACE = {"kernels": "stribeck", "data": "stribeck::data", "engine": "stribeck::engine",
             "workloads": "stribeck::workloads", "identification": "stribeck::ident", "report": "stribeck::report",
             "app": "stribeck::cli", "python": "stribeck::python"}
SOURCE_SUFFIXES = (".hpp", ".h", ".cpp", ".cc", ".cu", ".cuh", ".inc")
COMMENTS_AND_STRINGS = re.compile(r'//[^\n]*|/\*.*?\*/|R"(\w*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"', re.S)
OPENING = re.compile(r"\bnamespace\s+(stribeck(?:\s*::\s*\w+)*)\s*\{")
FORWARD_ONLY = re.compile(r"\s*(?:(?:struct|class)\s+\w+\s*;\s*)+\}")


def blank(match):
    """Comments and strings as spaces, newlines kept (line numbers stay right)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def offences_in(path, layer):
    text = COMMENTS_AND_STRINGS.sub(blank, open(path, encoding="utf-8", errors="replace").read())
    own = NAMESPACE[layer]
    out = []
    for m in OPENING.finditer(text):
        name = re.sub(r"\s+", "", m.group(1))
        if name == own or name.startswith(own + "::"):
            continue
        if FORWARD_ONLY.match(text, m.end()) and name != "stribeck":
            continue  # forward declarations of another layer's classes, in that layer's namespace
        line = text.count("\n", 0, m.start()) + 1
        out.append("%s:%d: namespace %s in %s/ (its namespace: %s)" % (path, line, name, layer, own))
    return out


def scan(root):
    offences = []
    for layer in NAMESPACE:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, layer)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    offences += offences_in(os.path.join(dirpath, name), layer)
    return offences


def self_check():
    """The checker finds each kind of offence on a small tree, and passes a good one."""
    files = {
        "data/a.hpp": "namespace stribeck::data {\nnamespace detail {}\n}\n",
        "data/b.cpp": "// namespace stribeck {\nnamespace stribeck::data::h5 { int x; }\n",
        "app/c.hpp": "namespace stribeck::workloads {\nstruct SimulateConfig;\n}\nnamespace stribeck::cli {}\n",
        "kernels/d.hpp": "namespace stribeck {\nnamespace gpu {}\n}\nnamespace stribeck::sweep {}\n",
        "workloads/e.hpp": "namespace stribeck {\nint f();\n}\n",        # offence: plain stribeck
        "engine/f.cpp": "namespace stribeck::data {\nint g();\n}\n",       # offence: another layer's
        "report/g.hpp": "namespace stribeck {\nstruct Fwd;\n}\n",          # offence: forward decl, no layer
        "workloads/h.hpp": "namespace stribeck::gpu {\nstruct Workspace;\n}\n",
    }
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)
        found = sorted(os.path.relpath(o.split(":")[0], tmp) for o in scan(tmp))
    expected = ["engine/f.cpp", "report/g.hpp", "workloads/e.hpp"]
    if found != expected:
        sys.exit("namespace_check.py: self-check failed: found offences in %s, expected %s" % (found, expected))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    self_check()
    offences = scan(root)
    for layer, ns in NAMESPACE.items():
        print("%-15s %s" % (layer, ns))
    if offences:
        print("\n".join(offences))
        print("%d namespace(s) opened outside their layer" % len(offences))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
