#!/usr/bin/env python3
"""Counts the PTX instructions one trace sample costs in the sweep kernel's
unrolled inner loop, from the PTX of tests/gpu/sweep_cylinder_fp32.cu:

    nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Ikernels/include \\
        -Ikernels/cuda -ptx tests/gpu/sweep_cylinder_fp32.cu -o /tmp/sweep.ptx
    python3 tests/gpu/ptx_per_sample.py /tmp/sweep.ptx [--max N]

A sample starts at its pair of 16-byte shared loads (ld.shared.v4); the
instructions from one sample's first load to the next sample's are that
sample's cost, both arms of its branches included. Prints the count of the
second sample of the unrolled body (the first may carry loop set-up) and
its opcodes. With --max N it fails (exit 1) when the count exceeds N: the
CTest SweepKernel.Fp32SampleWithinInstructionBudget guards the ~28
instructions per evaluation that 1.2e12 evaluations/s on an H100 allows
(132 SMs x 128 lanes x 1.98 GHz / 1.2e12)."""
import argparse
import collections
import sys

ap = argparse.ArgumentParser()
ap.add_argument("ptx")
ap.add_argument("--max", type=int)
a = ap.parse_args()
lines = [l.strip() for l in open(a.ptx)]
# The opcode of each instruction (the word after a predicate guard such as @%p1).
ops = [w[1] if w[0].startswith("@") else w[0]
       for w in (l.split() for l in lines if l.endswith(";") and not l.startswith(("//", ".", "{", "}")))]
starts = [i for i, o in enumerate(ops) if o == "ld.shared.v4.f32" and i > 0 and ops[i - 1] != "ld.shared.v4.f32"]
if len(starts) < 3:
    sys.exit("no unrolled loop of packed samples in " + a.ptx)
body = ops[starts[1]:starts[2]]
print(f"{len(body)} PTX instructions per sample")
for op, n in collections.Counter(body).most_common():
    print(f"  {n:2d} {op}")
if a.max is not None and len(body) > a.max:
    sys.exit(f"{len(body)} PTX instructions per sample exceed the budget of {a.max}")
