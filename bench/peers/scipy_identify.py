#!/usr/bin/python3
"""SciPy peer of bench_identify: the same 5-parameter simscape-cylinder-il fit
with scipy.optimize.least_squares (method 'trf', bounds as the model's ranges),
on the CSV bench_identify wrote, from the same start. Times the fit only
(data already in memory): once with SciPy's default 2-point finite-difference
Jacobian, once with an analytic Jacobian.

    /usr/bin/python3 bench/peers/scipy_identify.py [CSV] [REPEAT]
"""
import sys
import time

import numpy as np
import scipy
from scipy.optimize import least_squares

path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/stribeck_bench_identify.csv"
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 5
d = np.loadtxt(path, delimiter=",", skiprows=1)
v, P, y = d[:, 0], d[:, 1] + d[:, 2], d[:, 3]
S2E = np.sqrt(2 * np.e)


def force(p):
    f_pr, f_cfr, r_brk, v_brk, f_v = p
    fc = f_pr + f_cfr * P
    x = v / (np.sqrt(2) * v_brk)
    return S2E * (r_brk - 1) * fc * x * np.exp(-x * x) + fc * np.tanh(10 * v / v_brk) + f_v * v


def resid(p):
    return y - force(p)


def jac(p):
    f_pr, f_cfr, r_brk, v_brk, f_v = p
    fc = f_pr + f_cfr * P
    x = v / (np.sqrt(2) * v_brk)
    ex = np.exp(-x * x)
    th = np.tanh(10 * v / v_brk)
    a = S2E * (r_brk - 1)
    d_fc = a * x * ex + th
    J = np.empty((v.size, 5))
    J[:, 0] = d_fc
    J[:, 1] = P * d_fc
    J[:, 2] = S2E * fc * x * ex
    J[:, 3] = a * fc * (1 - 2 * x * x) * ex * (-x / v_brk) + fc * (1 - th * th) * (-10 * v / v_brk**2)
    J[:, 4] = v
    return -J


x0 = np.array([30, 1e-5, 1.2, 0.01, 100])
lo = np.array([0, 0, 1, 1e-12, 0])
hi = np.full(5, np.inf)
for name, kw in (("2-point", {}), ("analytic", {"jac": jac})):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = least_squares(resid, x0, bounds=(lo, hi), method="trf", ftol=1e-10, xtol=1e-10, gtol=1e-12, **kw)
        times.append(time.perf_counter() - t0)
    times.sort()
    rmse = np.sqrt(np.mean(r.fun**2))
    print(f"scipy {scipy.__version__} least_squares trf, {name} Jacobian: samples {v.size}, "
          f"median {times[len(times)//2]:.4f} s, min {times[0]:.4f} s over {repeat} runs, nfev {r.nfev}, "
          f"rmse {rmse:.6f}, status {r.status}")
    print("  " + " ".join(f"{x:.8g}" for x in r.x))
