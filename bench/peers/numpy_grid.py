#!/usr/bin/env python3
"""NumPy peer of bench/sweep_grid.cpp: the same simscape-cylinder grid and
metrics, vectorised over parameter sets and blocks of samples.

    sweep_grid --axis 8 --samples 4096 --trace-out /tmp/trace.csv
    python3 bench/peers/numpy_grid.py /tmp/trace.csv --axis 8

Prints the time, evaluations/s and the best RMSE (which must equal the
engine's, so both did the same work)."""
import argparse
import time

import numpy as np


def grid(axis):
    # Same axes and order as sweep_grid (first parameter slowest).
    F_pr = np.linspace(0.0, 60.0, axis)
    f_cfr = np.exp(np.linspace(np.log(1e-7), np.log(1e-5), axis))
    K_brk = np.linspace(1.0, 2.5, axis)
    c_v = np.exp(np.linspace(np.log(1.0), np.log(100.0), axis))
    g = np.meshgrid(F_pr, f_cfr, K_brk, c_v, indexing="ij")
    return [x.ravel() for x in g]


def run(trace, axis, block):
    dt, v, pa, pb, dx, fm = (trace[:, i] for i in range(6))
    F_pr, f_cfr, K_brk, c_v = (x[:, None] for x in grid(axis))
    f_vfr, v_th = 200.0, 1e-4
    P, n = F_pr.shape[0], v.shape[0]
    sse = np.zeros((P, 1)); maxe = np.zeros((P, 1)); peak = np.zeros((P, 1))
    sp = np.zeros((P, 1)); sn = np.zeros((P, 1)); energy = np.zeros((P, 1)); loop = np.zeros((P, 1))
    fprev = np.zeros((P, 1)); fvprev = np.zeros((P, 1))
    slope = (1.0 + (K_brk - 1.0) * np.exp(-c_v * v_th)) / v_th
    for b in range(0, n, block):
        sl = slice(b, min(b + block, n))
        vb = v[None, sl]
        av = np.abs(vb)
        fc = F_pr + f_cfr * (pa[None, sl] + pb[None, sl])
        coul = np.where(av > v_th, (1.0 + (K_brk - 1.0) * np.exp(-c_v * av)) * np.sign(vb), slope * vb)
        F = fc * coul + f_vfr * vb
        e = F - fm[None, sl]
        sse += np.sum(e * e, axis=1, keepdims=True)
        maxe = np.maximum(maxe, np.max(np.abs(e), axis=1, keepdims=True))
        peak = np.maximum(peak, np.max(np.abs(F), axis=1, keepdims=True))
        sp += np.sum(np.where(vb > 0, F, 0.0), axis=1, keepdims=True)
        sn += np.sum(np.where(vb < 0, F, 0.0), axis=1, keepdims=True)
        fv = F * vb
        fv_prev = np.concatenate([fvprev, fv[:, :-1]], axis=1)
        f_prev = np.concatenate([fprev, F[:, :-1]], axis=1)
        energy += np.sum(0.5 * (fv_prev + fv) * dt[None, sl], axis=1, keepdims=True)
        loop += np.sum(0.5 * (f_prev + F) * dx[None, sl], axis=1, keepdims=True)
        fprev, fvprev = F[:, -1:], fv[:, -1:]
    rmse = np.sqrt(sse / n)
    return rmse.min()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--axis", type=int, default=8)
    ap.add_argument("--block", type=int, default=64)
    a = ap.parse_args()
    trace = np.loadtxt(a.trace, delimiter=",", skiprows=1)
    P = a.axis ** 4
    t0 = time.perf_counter()
    best = run(trace, a.axis, a.block)
    secs = time.perf_counter() - t0
    evals = P * trace.shape[0]
    print(f"numpy {np.__version__} (1 thread, fp64, block {a.block}): {secs:.3f} s, {evals / secs:.3g} evaluations/s, "
          f"best rmse {best:.10g}")


if __name__ == "__main__":
    main()
