#!/usr/bin/env python3
"""Checks the PTX of tests/gpu/fp32_purity.cu: in every FP32 kernel the only
double-precision instructions are those of the once-per-tile flush of the
seven partial sums into double (cvt.f64.f32, add.f64, moves and stores);
no f64 multiply, fma, division, comparison or special function, which would
mean a stray double literal or call in per-sample code."""
import re
import sys

ALLOWED = {"cvt.f64.f32", "add.f64", "mov.f64", "st.global.f64", "st.f64", "ld.f64", ".reg"}
ptx = open(sys.argv[1]).read()
entries = re.split(r"\.entry\s+", ptx)[1:]
if not entries:
    sys.exit("no kernels in " + sys.argv[1])
bad = []
for e in entries:
    name = e.split("(")[0]
    ops = [l.split()[0] for l in e.split("\n") if ".f64" in l and l.strip()]
    stray = sorted({o for o in ops if o not in ALLOWED})
    adds = ops.count("add.f64")
    if stray or adds > 5:
        bad.append(f"{name}: {stray} add.f64 x{adds}")
if bad:
    sys.exit("double-precision arithmetic in FP32 per-sample code:\n" + "\n".join(bad))
print(f"{len(entries)} FP32 kernels: no stray double arithmetic")
