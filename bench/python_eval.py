#!/usr/bin/python3
"""stribeck.eval against the same law in vectorised NumPy, and the cost of a 1-sample call.

    PYTHONPATH=build/python OMP_NUM_THREADS=2 /usr/bin/python3 bench/python_eval.py [N]

Model simscape-translational (Gaussian Stribeck term, tanh Coulomb term, viscous term), the
law NumPy evaluates written from the block's documentation. Each figure is the best of
several repetitions; the NumPy peer runs in the same process, interleaved with Stribeck.
The script checks that both give the same forces (relative 1e-13 of the force scale) before
timing anything.
"""
import math
import os
import platform
import sys
import time
import timeit

import numpy as np

import stribeck

P = dict(F_brk=31.5, v_brk=0.02, F_C=20.25, f_v=150.0)


def numpy_law(v, F_brk, v_brk, F_C, f_v):
    v_st = math.sqrt(2.0) * v_brk
    x = v / v_st
    return math.sqrt(2.0 * math.e) * (F_brk - F_C) * np.exp(-x * x) * x + F_C * np.tanh(v / (v_brk / 10.0)) + f_v * v


def best(f, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return min(t)


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10_000_000
    rng = np.random.default_rng(1)
    v64 = rng.uniform(-0.5, 0.5, n)
    v32 = v64.astype(np.float32)
    ref = numpy_law(v64, **P)
    got = stribeck.eval("simscape-translational", P, velocity=v64)
    scale = P["F_brk"] + P["f_v"] * np.abs(v64)
    assert np.max(np.abs(got - ref) / scale) < 1e-13
    got_vm = stribeck.eval("simscape-translational", P, velocity=v64, vector_math=True)
    assert np.max(np.abs(got_vm - ref) / scale) < 1e-13
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}, load {os.getloadavg()[0]:.1f}, "
          f"NumPy {np.__version__}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# {n:.0e} samples, simscape-translational")
    rows = []
    t_np = best(lambda: numpy_law(v64, **P), 3)
    t_np32 = best(lambda: numpy_law(v32, **P), 3)
    t_s = best(lambda: stribeck.eval("simscape-translational", P, velocity=v64), 5)
    t_vm = best(lambda: stribeck.eval("simscape-translational", P, velocity=v64, vector_math=True), 5)
    t_32 = best(lambda: stribeck.eval("simscape-translational", P, velocity=v32), 5)
    t_np2 = best(lambda: numpy_law(v64, **P), 3)
    t_np = min(t_np, t_np2)
    rows.append(("NumPy float64 (peer)", t_np, 1.0))
    rows.append(("NumPy float32 (peer)", t_np32, t_np / t_np32))
    rows.append(("stribeck.eval float64", t_s, t_np / t_s))
    rows.append(("stribeck.eval float64, vector_math=True", t_vm, t_np / t_vm))
    rows.append(("stribeck.eval float32", t_32, t_np / t_32))
    print("| call | time | samples/s | vs NumPy float64 |")
    print("|---|---|---|---|")
    for name, t, r in rows:
        print(f"| {name} | {t * 1e3:.1f} ms | {n / t:.3g} | {r:.1f}x |")
    one = np.array([0.01])
    k = 20000
    t1 = min(timeit.repeat(lambda: stribeck.eval("simscape-translational", P, velocity=one), number=k, repeat=5)) / k
    t1np = min(timeit.repeat(lambda: numpy_law(one, **P), number=k, repeat=5)) / k
    t1d = min(timeit.repeat(lambda: stribeck.eval("simscape-translational", velocity=one), number=k, repeat=5)) / k
    print(f"| 1-sample call, params dict | {t1 * 1e6:.2f} us | | |")
    print(f"| 1-sample call, defaults | {t1d * 1e6:.2f} us | | |")
    print(f"| 1-sample NumPy law (peer) | {t1np * 1e6:.2f} us | | |")


if __name__ == "__main__":
    main()
