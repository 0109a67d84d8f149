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
    got_sc = stribeck.eval("simscape-translational", P, velocity=v64, vector_math=False)
    assert np.max(np.abs(got_sc - ref) / scale) < 1e-13
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}, load {os.getloadavg()[0]:.1f}, "
          f"NumPy {np.__version__}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# {n:.0e} samples, simscape-translational")
    # Interleaved rounds: every candidate once per round, best of the rounds (the machine is shared).
    cands = [
        ("NumPy float64 (peer)", lambda: numpy_law(v64, **P)),
        ("NumPy float32 (peer)", lambda: numpy_law(v32, **P)),
        ("stribeck.eval float64 (default: vector_math=True)",
         lambda: stribeck.eval("simscape-translational", P, velocity=v64)),
        ("stribeck.eval float64, vector_math=False (bit-identical to the CLI)",
         lambda: stribeck.eval("simscape-translational", P, velocity=v64, vector_math=False)),
        ("stribeck.eval float32", lambda: stribeck.eval("simscape-translational", P, velocity=v32)),
    ]
    rounds = int(os.environ.get("ROUNDS", "7"))
    times = {name: math.inf for name, _ in cands}
    for _ in range(rounds):
        for name, f in cands:
            times[name] = min(times[name], best(f, 1))
    t_np = times["NumPy float64 (peer)"]
    print(f"# best of {rounds} interleaved rounds; load after: {os.getloadavg()[0]:.1f}")
    print("| call | time | samples/s | vs NumPy float64 |")
    print("|---|---|---|---|")
    for name, _ in cands:
        t = times[name]
        print(f"| {name} | {t * 1e3:.1f} ms | {n / t:.3g} | {t_np / t:.1f}x |")
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
