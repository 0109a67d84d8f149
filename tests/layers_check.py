#!/usr/bin/python3
"""The layers check (CTest Layers.NoFolderIncludesFromAbove, docs/architecture.md).

  tests/layers_check.py [SOURCE_DIR]

Reads every #include of the layer folders' sources and headers, maps each to
the folder it names (`stribeck/<folder>/...`, or a quoted path relative to the
including file), prints the folder graph with the number of includes along
each edge, and exits 1 listing FILE:LINE of every include from a folder above
the includer. Bottom to top:

  kernels < data < engine < workloads < identification < report < app, python

A folder may include from its own layer and those below; app/ and python/ are
both on the top floor and neither includes the other (nothing includes them).
Before reading the tree it checks itself on a small tree with one include of
each kind, so a checker that cannot fail does not pass.
"""
import os
import re
import sys
import tempfile

LAYERS = ["kernels", "data", "engine", "workloads", "identification", "report", "app", "python"]
RANK = {"kernels": 0, "data": 1, "engine": 2, "workloads": 3, "identification": 4, "report": 5, "app": 6, "python": 6}
SOURCE_SUFFIXES = (".hpp", ".h", ".cpp", ".cc", ".cu", ".cuh", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def allowed(src, dst):
    """May folder src include from folder dst?"""
    if src == dst:
        return True
    if dst in ("app", "python"):
        return False  # the top floor: nothing builds on it
    return RANK[dst] <= RANK[src]


def folder_of(path, root):
    rel = os.path.relpath(path, root).split(os.sep)
    return rel[0] if rel and rel[0] in RANK else None


def target_folder(spec, bracket, including_file, root):
    """The layer folder an include names, or None (standard, third-party, generated)."""
    m = re.match(r"stribeck/([^/]+)/", spec)
    if m:
        return m.group(1) if m.group(1) in RANK else None
    if bracket == '"':
        resolved = os.path.normpath(os.path.join(os.path.dirname(including_file), spec))
        if os.path.exists(resolved):
            return folder_of(resolved, root)
    return None


def scan(root):
    """Returns ({(src, dst): count}, [(file:line, src, dst, spec)] of forbidden includes)."""
    edges, offences = {}, []
    for top in LAYERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, errors="replace") as fh:
                    for number, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        dst = target_folder(m.group(2), m.group(1), path, root)
                        if dst is None:
                            continue
                        edges[(top, dst)] = edges.get((top, dst), 0) + 1
                        if not allowed(top, dst):
                            offences.append((f"{os.path.relpath(path, root)}:{number}", top, dst, m.group(2)))
    return edges, offences


def print_graph(edges):
    print("folder graph (includes along each edge; bottom to top: " + " < ".join(LAYERS[:-2]) + " < app, python):")
    for src in reversed(LAYERS):
        outgoing = [(dst, n) for (s, dst), n in edges.items() if s == src and dst != src]
        outgoing.sort(key=lambda e: (-RANK[e[0]], e[0]))
        own = edges.get((src, src), 0)
        line = ", ".join(f"{dst} {n}" for dst, n in outgoing) or "(nothing below)"
        print(f"  {src:<15} -> {line}   [{own} within]")
    two_way = sorted({tuple(sorted((s, d))) for (s, d) in edges if s != d and (d, s) in edges})
    for a, b in two_way:
        print(f"  two-way edge: {a} <-> {b}")


def self_test():
    """The checker on a tree with allowed includes and one of each forbidden kind."""
    files = {
        "data/src/ok.cpp": '#include "stribeck/kernels/a.hpp"\n#include <vector>\n',
        "engine/src/up.cpp": '#include "stribeck/workloads/sweep.hpp"\n',
        "report/src/ok.cpp": '#include "stribeck/identification/fit.hpp"\n',
        "python/m.cpp": '#include "stribeck/report/r.hpp"\n#include "../app/cli/x.hpp"\n',
        "app/cli/x.hpp": "",
        "identification/src/p.hpp": '  #  include <stribeck/python/m.hpp>\n',
    }
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as fh:
                fh.write(text)
        edges, offences = scan(tmp)
    found = sorted(o[0] for o in offences)
    expected = ["engine/src/up.cpp:1", "identification/src/p.hpp:1", "python/m.cpp:2"]
    if found != expected or edges.get(("report", "identification")) != 1:
        print(f"layers_check self-test failed: offences {found}, expected {expected}; edges {edges}")
        return False
    return True


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    if not self_test():
        return 1
    edges, offences = scan(root)
    print_graph(edges)
    if offences:
        print(f"{len(offences)} include(s) from a folder above the includer:")
        for where, src, dst, spec in offences:
            print(f"  {where}: {src}/ includes {dst}/ ({spec})")
        return 1
    print("no folder includes from a folder above it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
