#!/usr/bin/python3
"""SciPy peer of the streamed `stribeck identify` (bench/identify_stream.sh):
the simscape-cylinder fit of an HDF5 log as a user without Stribeck writes it.
h5py reads velocity, pressure_a, pressure_b and force of every experiment
whole; scipy.optimize.least_squares (method "trf", analytic Jacobian, one
start, bounds as the model's ranges) fits F_pr, f_cfr, K_brk, f_vfr, c_v with
v_th held at 1e-4. Times the whole script (read + fit) from outside
(/usr/bin/time -v); prints the estimates and the fit time.

    /usr/bin/python3 bench/peers/scipy_identify_h5.py LOG.h5
"""
import sys
import time

import h5py
import numpy as np
import scipy
from scipy.optimize import least_squares

V_TH = 1e-4


def read(path):
    v, P, y = [], [], []
    with h5py.File(path, "r") as f:
        groups = [g for g in f.values() if isinstance(g, h5py.Group) and "velocity" in g]
        for g in groups:
            v.append(g["velocity"][...])
            P.append(g["pressure_a"][...] + (g["pressure_b"][...] if "pressure_b" in g else 0.0))
            y.append(g["force"][...])
    return np.concatenate(v), np.concatenate(P), np.concatenate(y)


def main():
    t0 = time.perf_counter()
    v, P, y = read(sys.argv[1])
    av = np.abs(v)
    sg = np.sign(v)
    slow = av <= V_TH
    t1 = time.perf_counter()

    def force(p):
        F_pr, f_cfr, K_brk, f_vfr, c_v = p
        fc = F_pr + f_cfr * P
        outer = fc * (1 + (K_brk - 1) * np.exp(-c_v * av)) * sg + f_vfr * v
        k = (fc * (1 + (K_brk - 1) * np.exp(-c_v * V_TH)) + f_vfr * V_TH) / V_TH
        return np.where(slow, k * v, outer)

    def resid(p):
        return y - force(p)

    def jac(p):
        F_pr, f_cfr, K_brk, f_vfr, c_v = p
        fc = F_pr + f_cfr * P
        e = np.where(slow, np.exp(-c_v * V_TH), np.exp(-c_v * av))
        s = np.where(slow, v / V_TH, sg)          # what multiplies the Coulomb-type terms
        a = np.where(slow, V_TH, av)              # |v| inside the exponential
        d_fc = (1 + (K_brk - 1) * e) * s
        J = np.empty((v.size, 5))
        J[:, 0] = d_fc
        J[:, 1] = P * d_fc
        J[:, 2] = fc * e * s
        J[:, 3] = v
        J[:, 4] = -fc * (K_brk - 1) * a * e * s
        return -J

    x0 = np.array([10.0, 1e-5, 1.2, 100.0, 10.0])
    lo = np.array([0.0, 0.0, 1.0, 0.0, 0.0])
    hi = np.full(5, np.inf)
    r = least_squares(resid, x0, jac=jac, bounds=(lo, hi), method="trf", ftol=1e-10, xtol=1e-10, gtol=1e-12)
    t2 = time.perf_counter()
    rmse = np.sqrt(np.mean(r.fun ** 2))
    print(f"scipy {scipy.__version__} least_squares trf analytic: samples {v.size}, read {t1 - t0:.2f} s, "
          f"fit {t2 - t1:.2f} s, nfev {r.nfev}, rmse {rmse:.6f}, status {r.status}")
    print("F_pr {:.6g} f_cfr {:.6g} K_brk {:.6g} f_vfr {:.6g} c_v {:.6g}".format(*r.x))


if __name__ == "__main__":
    main()
