#!/usr/bin/env python3
"""Peer for bench_eval_memory: the simscape-cylinder law over samples in
memory with numba, @njit(parallel=True, fastmath=True) and prange, on the
threads numba is given (NUMBA_NUM_THREADS). Reads the inputs bench_eval_memory
wrote (raw float64: velocity, pressure_a, pressure_b, n each), times the
evaluation (best of R after a JIT warm-up) and writes the forces back for the
bench to compare.

usage: eval_numba.py INPUTS.f64 N REPEAT FORCES.f64 [NAME=VALUE ...]
prints: numba_seconds <best seconds>
"""
import sys
import time

import numpy as np
from numba import njit, prange

DEFAULTS = {"F_pr": 10.0, "f_cfr": 1e-6, "K_brk": 1.0, "f_vfr": 100.0, "c_v": 10.0, "v_th": 1e-4}


@njit(parallel=True, fastmath=True)
def simscape_cylinder(v, p_a, p_b, out, F_pr, f_cfr, K_brk, f_vfr, c_v, v_th):
    # The law as docs/models.md writes it, in the engine's form.
    kb1 = K_brk - 1.0
    slope = (1.0 + kb1 * np.exp(-c_v * v_th)) / v_th
    for i in prange(v.size):
        f_c = F_pr + f_cfr * (p_a[i] + p_b[i])
        av = abs(v[i])
        if av > v_th:
            part = np.sign(v[i]) * (1.0 + kb1 * np.exp(-c_v * av))
        else:
            part = slope * v[i]
        out[i] = f_c * part + f_vfr * v[i]


def main():
    path, n, repeat, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    params = dict(DEFAULTS)
    for a in sys.argv[5:]:
        name, value = a.split("=", 1)
        params[name] = float(value)
    x = np.fromfile(path, dtype=np.float64)
    v, p_a, p_b = x[:n], x[n:2 * n], x[2 * n:3 * n]
    out = np.empty(n)
    args = [params[k] for k in ("F_pr", "f_cfr", "K_brk", "f_vfr", "c_v", "v_th")]
    simscape_cylinder(v[:1000], p_a[:1000], p_b[:1000], out[:1000], *args)  # compile
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        simscape_cylinder(v, p_a, p_b, out, *args)
        best = min(best, time.perf_counter() - t0)
    out.tofile(dst)
    print("numba_seconds", best)


if __name__ == "__main__":
    main()
