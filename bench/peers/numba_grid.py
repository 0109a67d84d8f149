#!/usr/bin/env python3
"""numba peer of bench/sweep_grid.cpp: the same simscape-cylinder grid and
metrics as numpy_grid.py, written as the loop a user who cares about speed
would write: @njit(parallel=True, fastmath=True), prange over the parameter
sets, one pass over the trace per set, on the threads numba is given
(NUMBA_NUM_THREADS).

    sweep_grid --axis 8 --samples 4096 --trace-out /tmp/trace.csv
    NUMBA_NUM_THREADS=2 python3 bench/peers/numba_grid.py /tmp/trace.csv --axis 8

Prints the time (best of --repeat after a JIT warm-up), evaluations/s and the
best RMSE, which must equal the engine's (check_grid_numba_peer.sh)."""
import argparse
import time

import numpy as np
from numba import get_num_threads, njit, prange


def grid(axis, dtype):
    # Same axes and order as sweep_grid (first parameter slowest).
    F_pr = np.linspace(0.0, 60.0, axis)
    f_cfr = np.exp(np.linspace(np.log(1e-7), np.log(1e-5), axis))
    K_brk = np.linspace(1.0, 2.5, axis)
    c_v = np.exp(np.linspace(np.log(1.0), np.log(100.0), axis))
    g = np.meshgrid(F_pr, f_cfr, K_brk, c_v, indexing="ij")
    return [np.ascontiguousarray(x.ravel(), dtype=dtype) for x in g]


@njit(parallel=True, fastmath=True)
def sweep(dt, v, pa, pb, dx, fm, F_pr, f_cfr, K_brk, c_v, out):
    # out[p]: rmse, max |e|, peak |F|, sum F (v > 0), sum F (v < 0), energy, loop area.
    f_vfr = v.dtype.type(200.0)
    v_th = v.dtype.type(1e-4)
    one = v.dtype.type(1.0)
    half = v.dtype.type(0.5)
    n = v.size
    for p in prange(F_pr.size):
        kb1 = K_brk[p] - one
        slope = (one + kb1 * np.exp(-c_v[p] * v_th)) / v_th
        sse = v.dtype.type(0.0)
        maxe = v.dtype.type(0.0)
        peak = v.dtype.type(0.0)
        sp = v.dtype.type(0.0)
        sn = v.dtype.type(0.0)
        energy = v.dtype.type(0.0)
        loop = v.dtype.type(0.0)
        fprev = v.dtype.type(0.0)
        fvprev = v.dtype.type(0.0)
        for i in range(n):
            vi = v[i]
            av = abs(vi)
            fc = F_pr[p] + f_cfr[p] * (pa[i] + pb[i])
            if av > v_th:
                coul = (one + kb1 * np.exp(-c_v[p] * av)) * np.sign(vi)
            else:
                coul = slope * vi
            F = fc * coul + f_vfr * vi
            e = F - fm[i]
            sse += e * e
            maxe = max(maxe, abs(e))
            peak = max(peak, abs(F))
            if vi > 0:
                sp += F
            elif vi < 0:
                sn += F
            fv = F * vi
            energy += half * (fvprev + fv) * dt[i]
            loop += half * (fprev + F) * dx[i]
            fprev = F
            fvprev = fv
        out[p, 0] = np.sqrt(sse / n)
        out[p, 1] = maxe
        out[p, 2] = peak
        out[p, 3] = sp
        out[p, 4] = sn
        out[p, 5] = energy
        out[p, 6] = loop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--axis", type=int, default=8)
    ap.add_argument("--precision", choices=["fp64", "fp32"], default="fp64")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    dtype = np.float64 if a.precision == "fp64" else np.float32
    trace = np.loadtxt(a.trace, delimiter=",", skiprows=1)
    cols = [np.ascontiguousarray(trace[:, i], dtype=dtype) for i in range(6)]
    params = grid(a.axis, dtype)
    out = np.zeros((params[0].size, 7), dtype=dtype)
    sweep(*(c[:16] for c in cols), *(q[:2] for q in params), out[:2])  # JIT warm-up, not timed
    best = float("inf")
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        sweep(*cols, *params, out)
        best = min(best, time.perf_counter() - t0)
    evals = params[0].size * trace.shape[0]
    print(f"numba parallel fastmath ({get_num_threads()} threads, {a.precision}): {best:.3f} s, "
          f"{evals / best:.3g} evaluations/s, best rmse {out[:, 0].min():.10g}")


if __name__ == "__main__":
    main()
