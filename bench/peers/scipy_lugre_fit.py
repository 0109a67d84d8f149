#!/usr/bin/python3
"""SciPy simulation-error peer of `stribeck identify --model lugre`: all six
LuGre parameters by scipy.optimize.least_squares (method 'trf') over the
simulated force of every sample, the bristle state advanced by the exact
exponential update with the kernels' sub-step rule (kernels/.../bristle.hpp,
written out again here from its comment):

  between samples the velocity is linear from v0 to v1; unless both lie on
  one side of zero above 3 v_s, the interval is split into n = 1, 2, 4, ...
  (<= 256) sub-steps until none changes v by more than v_s/16; each sub-step
  h relaxes z at its midpoint velocity vm:
      z <- z + expm1(-|vm| h / z_ss(vm)) (z - sign(vm) z_ss(vm)),
      z_ss(v) = (F_C + (F_s - F_C) exp(-(v/v_s)^2)) / sigma0;
  F = sigma0 z + sigma1 (v - |v| z / z_ss(v)) + sigma2 v  (+ offset),
  from z = sign(v0) z_ss(v0) at the first sample.

Parameters are fitted as logarithms (all positive), Jacobian by SciPy's
2-point finite differences. With --fs-above-fc, F_s is fitted as F_C plus
the exponential of its coordinate, so F_s >= F_C as Stribeck's LuGre range
requires (without it a real log's optimum may have F_s < F_C: a steady
force that dips at low speed). Reads a CSV with a header naming time, velocity
and force (what `stribeck export` writes), or an HDF5 log through h5py
(--experiment NAME, default the first).

    /usr/bin/python3 bench/peers/scipy_lugre_fit.py LOG [--experiment NAME]
        [--start sigma0,sigma1,sigma2,F_C,F_s,v_s] [--offset] [--fs-above-fc] [--repeat R]
        [--starts N [--seed S]]

--starts N: a multistart of N fits, from --start and N-1 points drawn
log-uniformly (numpy seed S) from the ranges Stribeck's joint stage draws
from (docs/identification.md, "Dynamic models"), scaled by the data the same
way: force level L = half the 1-99 % spread of the force, F_C 0.01 ... 1 L,
F_s - F_C 1e-3 ... 1 L, v_s 0.5 x the 5 % quantile of the speeds ... 2 x the
largest, sigma2 1e-4 ... 2 L / largest speed, sigma0 given by --start / 100
... x 100, sigma1 1e-5 ... 1 x sigma0, the offset the mean force +- L/2; the
best is printed, "seconds" is the whole multistart.

Prints one line per parameter ("param NAME VALUE"), then "rmse X",
"cost X", "nfev N" and "seconds S" (the best of R fits, data in memory).
"""
import argparse
import math
import sys
import time

import numpy as np
from scipy.optimize import least_squares

NAMES = ["sigma0", "sigma1", "sigma2", "F_C", "F_s", "v_s"]


def read_log(path, experiment):
    if path.endswith((".h5", ".hdf5")):
        import h5py

        with h5py.File(path, "r") as f:
            groups = [k for k in f.keys() if isinstance(f[k], h5py.Group) and "time" in f[k]]
            g = f[experiment if experiment else groups[0]]
            return (np.asarray(g["time"], float), np.asarray(g["velocity"], float), np.asarray(g["force"], float))
    with open(path) as fh:  # '#' lines (export's attributes), a header, then numbers
        lines = [ln for ln in fh if not ln.startswith("#") and ln.strip()]
    header = [h.strip().split(" ")[0].split("[")[0] for h in lines[0].split(",")]
    d = np.loadtxt(lines[1:], delimiter=",", ndmin=2)
    col = {n: i for i, n in enumerate(header)}
    return d[:, col["time"]], d[:, col["velocity"]], d[:, col["force"]]


def sign(x):
    return (x > 0) - (x < 0)


def simulate(p, t, v):
    s0, s1, s2, fc, fs, vs = p
    a_fc, a_ds, ivs = fc / s0, (fs - fc) / s0, 1.0 / vs
    exp, expm1 = math.exp, math.expm1

    def zss(x):
        q = x * ivs
        return a_fc + a_ds * exp(-q * q)

    n_samples = len(t)
    out = np.empty(n_samples)
    tl, vl = t.tolist(), v.tolist()
    v0 = vl[0]
    z = sign(v0) * zss(v0)
    vres = vs * 0.0625
    for k in range(n_samples):
        v1 = vl[k]
        if k:
            dt = tl[k] - tl[k - 1]
            dv = v1 - v0
            a0, a1 = abs(v0), abs(v1)
            n = 1
            if not (v0 * v1 > 0 and min(a0, a1) > 3 * vs):
                adv = abs(dv)
                while n < 256 and adv > n * vres:
                    n *= 2
            h = dt / n
            for i in range(n):
                vm = v0 + dv * ((i + 0.5) / n)
                zs = zss(vm)
                z = z + expm1(-abs(vm) * h / zs) * (z - sign(vm) * zs)
        zs = zss(v1)
        out[k] = s0 * z + s1 * (v1 - abs(v1) / zs * z) + s2 * v1
        v0 = v1
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--experiment", default="")
    ap.add_argument("--start", default="1e5,300,5,20,30,0.1")
    ap.add_argument("--offset", action="store_true")
    ap.add_argument("--fs-above-fc", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--starts", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    t, v, y = read_log(a.log, a.experiment)
    start = np.array([float(s) for s in a.start.split(",")])
    if a.fs_above_fc:
        start[4] -= start[3]  # the excess F_s - F_C (> 0)
    x0 = np.log(start)
    if a.offset:
        x0 = np.append(x0, 0.0)

    def params(x):
        p = np.exp(x[:6])
        if a.fs_above_fc:
            p[4] += p[3]
        return p

    def resid(x):
        p = params(x)
        f = simulate(p, t, v)
        if a.offset:
            f = f + x[6]
        r = y - f
        return r if np.all(np.isfinite(r)) else np.full_like(r, 1e150)

    starts = [x0]
    if a.starts > 1:
        rng = np.random.default_rng(a.seed)
        lvl = 0.5 * (np.quantile(y, 0.99) - np.quantile(y, 0.01))
        sp = np.abs(v[v != 0])
        vmax, vslow = sp.max(), np.quantile(sp, 0.05)
        s0 = start[0]

        def logu(lo, hi):
            return math.exp(rng.uniform(math.log(lo), math.log(hi)))

        for _ in range(a.starts - 1):
            sig0 = logu(s0 / 100, s0 * 100)
            fc, ex = logu(0.01 * lvl, lvl), logu(1e-3 * lvl, lvl)
            p = [sig0, logu(1e-5 * sig0, sig0), logu(1e-4 * lvl / vmax, 2 * lvl / vmax), fc,
                 ex if a.fs_above_fc else fc + ex, logu(0.5 * vslow, 2 * vmax)]
            x = np.log(np.array(p))
            if a.offset:
                x = np.append(x, float(np.mean(y)) + rng.uniform(-0.5, 0.5) * lvl)
            starts.append(x)

    best, res = math.inf, None
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        res = None
        for x in starts:
            r = least_squares(resid, x, method="trf", x_scale="jac", ftol=1e-12, xtol=1e-12, gtol=1e-12,
                              max_nfev=2000)
            if res is None or r.cost < res.cost:
                res = r
        best = min(best, time.perf_counter() - t0)
    p = params(res.x)
    for n, x in zip(NAMES, p):
        print(f"param {n} {x:.12g}")
    if a.offset:
        print(f"param offset {res.x[6]:.12g}")
    r = resid(res.x)
    print(f"rmse {math.sqrt(np.mean(r * r)):.12g}")
    print(f"cost {0.5 * float(np.dot(r, r)):.12g}")
    print(f"nfev {res.nfev}")
    print(f"status {res.status} {res.message}")
    print(f"seconds {best:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
