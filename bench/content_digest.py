#!/usr/bin/python3
"""sha256 of an output's content without its volatile fields (bench/layer_checksums.sh).

  content_digest.py FILE [--show]

HDF5: every group, dataset (dtype, shape, bytes) and attribute in name order,
object references as the path they point to; text: every line; JSON: the
document with sorted keys. Left out, because they differ between two runs of
the same binary or between two builds of the same code: the provenance
attributes and keys (date, toolkit_version, command_line, host, ...), timings
(any name with "seconds", "wall", "elapsed", "time_" or "_time" but the
`time` channel), thread counts, and text lines or HTML fragments naming those.
--show prints the canonical text instead of its digest, to see what differs.
"""
import hashlib
import json
import re
import sys

VOLATILE_NAMES = {
    "date", "created", "creation_time", "toolkit_version", "version", "command_line", "host", "hostname",
    "user", "threads", "git_commit", "compiler", "build", "started", "finished", "pid",
}
VOLATILE_PARTS = ("seconds", "wall", "elapsed", "time_", "_time", "per_second", "timing", "throughput")
# Text lines that carry a timing, a date, a version or a path of this run.
VOLATILE_LINE = re.compile(
    r"\d+(\.\d+)?\s*(s|ms|us)\b(?!\w)|seconds|elapsed|wall|per second|\d{4}-\d\d-\d\dT\d\d:\d\d|"
    r"toolkit_version|command_line|stribeck \d+\.\d+|threads?\b|/tmp/|load average", re.IGNORECASE)
HTML_VOLATILE_ROW = re.compile(r"<tr><td>(command|date|stribeck version|seconds|host|wall[^<]*)</td><td>[^<]*</td></tr>")
ISO_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?")


def volatile(name):
    n = name.lower()
    return n in VOLATILE_NAMES or any(p in n for p in VOLATILE_PARTS)


def canon_json(value):
    if isinstance(value, dict):
        return {k: canon_json(v) for k, v in sorted(value.items()) if not volatile(k)}
    if isinstance(value, list):
        return [canon_json(v) for v in value]
    if isinstance(value, str):
        return re.sub(r"/tmp/\S+/", "", value)  # a path of this run's work directory
    return value


def hdf5_lines(path):
    import h5py
    import numpy as np

    out = []
    f = h5py.File(path, "r")

    def value_text(v):
        if isinstance(v, h5py.Reference):
            return "ref:" + (f[v].name if v else "null")
        if isinstance(v, np.ndarray) and v.dtype == object:
            return "[" + ",".join(value_text(x) for x in v.ravel()) + "]"
        if isinstance(v, np.void) or (isinstance(v, np.ndarray) and v.dtype.names):
            return "(" + ",".join(value_text(v[n]) for n in v.dtype.names) + ")" if v.shape == () else \
                "[" + ",".join(value_text(x) for x in np.asarray(v).ravel()) + "]"
        if isinstance(v, np.ndarray):
            return f"{v.dtype.str}{v.shape}:" + hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()
        if isinstance(v, bytes):
            if v.startswith(b"{"):  # a JSON document kept as an attribute (a fit report): its timings go
                try:
                    return json.dumps(canon_json(json.loads(v)), sort_keys=True)
                except ValueError:
                    pass
            return repr(v)
        if isinstance(v, np.generic):
            return f"{v.dtype.str}:" + v.tobytes().hex()
        return repr(v)

    def attrs(name, obj):
        for key in sorted(obj.attrs.keys()):
            if volatile(key):
                continue
            out.append(f"attr {name}@{key} = {value_text(obj.attrs[key])}")

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and volatile(name.rsplit("/", 1)[-1]):
            out.append(f"dataset {name} {obj.dtype.str} {obj.shape} (volatile: values left out)")
        elif isinstance(obj, h5py.Dataset):
            if obj.dtype.kind == "O" or obj.dtype.names and any(obj.dtype[n].kind == "O" for n in obj.dtype.names):
                data = value_text(obj[()])
            else:
                data = hashlib.sha256(np.ascontiguousarray(obj[()]).tobytes()).hexdigest()
            out.append(f"dataset {name} {obj.dtype.str} {obj.shape} {data}")
        else:
            out.append(f"group {name}")
        attrs(name, obj)

    attrs("/", f)
    names = []
    f.visit(names.append)
    for name in sorted(names):
        visit(name, f[name])
    return out


def text_lines(path):
    with open(path, "r", errors="replace") as fh:
        text = fh.read()
    if path.endswith(".json") or text.lstrip().startswith(("{", "[")):
        try:
            return json.dumps(canon_json(json.loads(text)), sort_keys=True, indent=1).splitlines()
        except ValueError:
            pass
    if path.endswith((".html", ".svg")):
        return [ISO_DATE.sub("DATE", HTML_VOLATILE_ROW.sub("", line)) for line in text.splitlines()]
    return [line for line in text.splitlines() if not VOLATILE_LINE.search(line)]


def main():
    path = sys.argv[1]
    with open(path, "rb") as fh:
        is_hdf5 = fh.read(8) == b"\x89HDF\r\n\x1a\n"
    lines = hdf5_lines(path) if is_hdf5 else text_lines(path)
    if "--show" in sys.argv[2:]:
        print("\n".join(lines))
    else:
        print(hashlib.sha256("\n".join(lines).encode()).hexdigest())


if __name__ == "__main__":
    main()
