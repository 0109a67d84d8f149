#!/usr/bin/env python3
"""CPU peer for bench/bench_ensemble.cpp: the mass-spring-LuGre stick-slip
ensemble with numba, @njit(parallel=True, fastmath=True), prange over
trajectories, fixed-step RK4 in registers, on the threads numba is given
(NUMBA_NUM_THREADS).

Same physics and parameter grid as bench_ensemble and stick_slip_jax.py:
m = 1 kg, LuGre with the paper's parameters (sigma0 1e5, sigma1 sqrt(1e5),
sigma2 0.4, F_C 1, F_s 1.5, v_s 1e-3), spring stiffness linear 1..50 N/m x
drive velocity linear 0.01..0.3 m/s (a side x side grid), friction against
ground, state (s, v, z) from rest. With h = 2.5e-5 s the engine's stability
bound asks for one RK4 step per output step, so both integrate the same
steps.

    NUMBA_NUM_THREADS=2 python3 bench/peers/stick_slip_numba.py --trajectories 4096 --steps 10000 --h 2.5e-5

Prints RK4 steps per second (trajectories x steps / the best wall time of
--repeat calls after a JIT warm-up on a small ensemble, which is not timed)
and a checksum (sum of final velocities) to compare with bench_ensemble's.
"""
import argparse
import time

import numpy as np
from numba import njit, prange

SIGMA0, SIGMA1, SIGMA2 = 1e5, 316.2277660168379, 0.4
F_C, F_S, V_S = 1.0, 1.5, 1e-3


def grid(n, dtype):
    side = int(round(n ** 0.5))
    i = np.arange(n)
    a, b = i % side, (i // side) % side
    den = max(side - 1, 1)
    k = 1.0 + 49.0 * a / den
    vd = 0.01 + 0.29 * b / den
    return k.astype(dtype), vd.astype(dtype)


@njit(parallel=True, fastmath=True)
def ensemble(k, vd, h, steps, c, out):
    # c: sigma0, sigma1, sigma2, F_C, F_s - F_C, 1/v_s, 0.5, 1/6, 0 in the
    # working precision, so float32 runs contain no float64 arithmetic.
    sigma0, sigma1, sigma2, fc, ds, inv_vs, half, sixth, zero = c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
    h2 = h * half
    h6 = h * sixth
    for j in prange(k.size):
        kk = k[j]
        vv = vd[j]
        s = zero
        v = zero
        z = zero
        for _ in range(steps):
            # four stages of d(s, v, z)/dt, written out (the body on a spring
            # pulled at vv, LuGre friction against ground, m = 1)
            u = v * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd1 = v - sigma0 * abs(v) * z / g
            f = sigma0 * z + sigma1 * zd1 + sigma2 * v
            ds1 = vv - v
            dv1 = kk * s - f

            s2 = s + h2 * ds1
            v2 = v + h2 * dv1
            z2 = z + h2 * zd1
            u = v2 * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd2 = v2 - sigma0 * abs(v2) * z2 / g
            f = sigma0 * z2 + sigma1 * zd2 + sigma2 * v2
            ds2 = vv - v2
            dv2 = kk * s2 - f

            s3 = s + h2 * ds2
            v3 = v + h2 * dv2
            z3 = z + h2 * zd2
            u = v3 * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd3 = v3 - sigma0 * abs(v3) * z3 / g
            f = sigma0 * z3 + sigma1 * zd3 + sigma2 * v3
            ds3 = vv - v3
            dv3 = kk * s3 - f

            s4 = s + h * ds3
            v4 = v + h * dv3
            z4 = z + h * zd3
            u = v4 * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd4 = v4 - sigma0 * abs(v4) * z4 / g
            f = sigma0 * z4 + sigma1 * zd4 + sigma2 * v4
            ds4 = vv - v4
            dv4 = kk * s4 - f

            s = s + h6 * (ds1 + (ds2 + ds3) * 2 + ds4)
            v = v + h6 * (dv1 + (dv2 + dv3) * 2 + dv4)
            z = z + h6 * (zd1 + (zd2 + zd3) * 2 + zd4)
        out[j] = v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trajectories", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--h", type=float, default=2.5e-5)
    ap.add_argument("--precision", choices=("fp64", "fp32"), default="fp64")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    dtype = np.float64 if a.precision == "fp64" else np.float32
    k, vd = grid(a.trajectories, dtype)
    c = np.array([SIGMA0, SIGMA1, SIGMA2, F_C, F_S - F_C, 1.0 / V_S, 0.5, 1.0 / 6.0, 0.0], dtype=dtype)
    h = dtype(a.h)
    out = np.zeros(a.trajectories, dtype)
    ensemble(k[:4], vd[:4], h, 10, c, out[:4])  # JIT compile, not timed
    best = float("inf")
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        ensemble(k, vd, h, a.steps, c, out)
        best = min(best, time.perf_counter() - t0)
    from numba import get_num_threads

    steps = a.trajectories * a.steps
    print(f"numba {np.dtype(dtype).name} on {get_num_threads()} threads: {a.trajectories} x {a.steps} RK4 steps "
          f"in {best:.3f} s (best of {a.repeat}) = {steps / best:.3e} steps/s, "
          f"checksum {float(np.sum(out.astype(np.float64))):.9g}")


if __name__ == "__main__":
    main()
