#!/usr/bin/python3
"""SciPy peer of `stribeck identify --batch` (bench/batch_fit.sh): one
simscape-cylinder fit per experiment of the log make_batch_log.py wrote, as
a user without Stribeck writes it: h5py reads velocity, pressure_a,
pressure_b and force of each experiment, scipy.optimize.least_squares
(method "trf", analytic Jacobian, one start, bounds as the model's ranges,
the tolerances of scipy_identify_h5.py) fits F_pr, f_cfr, K_brk, f_vfr, c_v
with v_th held at 1e-4 m/s. In a loop (--processes 1) or a multiprocessing
pool (--processes N, each worker reading its own experiments). Writes the
estimates and statuses (.npz) and prints the wall time (read + fit).

    /usr/bin/python3 bench/peers/scipy_batch_fit.py LOG.h5 --processes 2 -o OUT.npz
"""
import argparse
import multiprocessing
import time

import h5py
import numpy as np
import scipy
from scipy.optimize import least_squares

V_TH = 1e-4
X0 = np.array([10.0, 1e-6, 1.5, 100.0, 50.0])
LO = np.array([0.0, 0.0, 1.0, 0.0, 0.0])
HI = np.full(5, np.inf)


def fit_one(v, P, y):
    av = np.abs(v)
    sg = np.sign(v)
    slow = av <= V_TH

    def force(p):
        F_pr, f_cfr, K_brk, f_vfr, c_v = p
        fc = F_pr + f_cfr * P
        outer = fc * (1 + (K_brk - 1) * np.exp(-c_v * av)) * sg + f_vfr * v
        k = (fc * (1 + (K_brk - 1) * np.exp(-c_v * V_TH)) + f_vfr * V_TH) / V_TH
        return np.where(slow, k * v, outer)

    def jac(p):
        F_pr, f_cfr, K_brk, f_vfr, c_v = p
        fc = F_pr + f_cfr * P
        e = np.where(slow, np.exp(-c_v * V_TH), np.exp(-c_v * av))
        s = np.where(slow, v / V_TH, sg)
        a = np.where(slow, V_TH, av)
        d_fc = (1 + (K_brk - 1) * e) * s
        J = np.empty((v.size, 5))
        J[:, 0] = d_fc
        J[:, 1] = P * d_fc
        J[:, 2] = fc * e * s
        J[:, 3] = v
        J[:, 4] = -fc * (K_brk - 1) * a * e * s
        return -J

    r = least_squares(lambda p: y - force(p), X0, jac=jac, bounds=(LO, HI), method="trf", ftol=1e-10, xtol=1e-10,
                      gtol=1e-12)
    return r.x, r.status, r.nfev, np.sqrt(np.mean(r.fun ** 2))


def fit_range(args):
    path, names = args
    out = []
    with h5py.File(path, "r") as f:
        for n in names:
            g = f[n]
            v = g["velocity"][...]
            P = g["pressure_a"][...] + g["pressure_b"][...]
            y = g["force"][...]
            out.append(fit_one(v, P, y))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    t0 = time.perf_counter()
    with h5py.File(a.log, "r") as f:
        names = sorted(k for k in f.keys() if isinstance(f[k], h5py.Group))
    # chunks of 16 experiments, handed out in order
    chunks = [(a.log, names[i:i + 16]) for i in range(0, len(names), 16)]
    if a.processes == 1:
        results = [r for c in chunks for r in fit_range(c)]
    else:
        with multiprocessing.Pool(a.processes) as pool:
            results = [r for part in pool.imap(fit_range, chunks) for r in part]
    seconds = time.perf_counter() - t0
    x = np.array([r[0] for r in results])
    np.savez(a.output, names=np.array(names), x=x, status=np.array([r[1] for r in results]),
             nfev=np.array([r[2] for r in results]), rmse=np.array([r[3] for r in results]), seconds=seconds)
    print(f"scipy {scipy.__version__} least_squares trf analytic, {a.processes} process(es): {len(names)} fits in "
          f"{seconds:.2f} s = {len(names) / seconds:.2f} fits/s (median nfev {int(np.median([r[2] for r in results]))})")


if __name__ == "__main__":
    main()
