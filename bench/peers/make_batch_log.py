#!/usr/bin/python3
"""The data of bench/batch_fit.sh: N experiments of 2,000 samples each
(1 kHz, 2 s) of the simscape-cylinder law (docs/models.md), written once as
one HDF5 log (groups e00000, e00001, ... with time, velocity, pressure_a,
pressure_b, force in SI and a `units` attribute each), for Stribeck and
the SciPy peer alike. Each experiment has its own true F_pr, f_cfr, K_brk,
f_vfr, c_v (v_th = 1e-4 m/s held), drawn from a seeded generator and kept
as group attributes true_<name>; the velocity is a 1 Hz sine of 0.1 m/s,
chamber A's pressure a 0.37 Hz sine between 10 and 70 bar (so F_pr and
f_cfr are told apart within one experiment), force noise 0.5 N.

    /usr/bin/python3 bench/peers/make_batch_log.py OUT.h5 N
"""
import sys

import h5py
import numpy as np

V_TH = 1e-4
NAMES = ("F_pr", "f_cfr", "K_brk", "f_vfr", "c_v")


def cylinder(p, v, P):
    F_pr, f_cfr, K_brk, f_vfr, c_v = p
    fc = F_pr + f_cfr * P
    av = np.abs(v)
    outer = fc * (1 + (K_brk - 1) * np.exp(-c_v * av)) * np.sign(v) + f_vfr * v
    k = (fc * (1 + (K_brk - 1) * np.exp(-c_v * V_TH)) + f_vfr * V_TH) / V_TH
    return np.where(av > V_TH, outer, k * v)


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(16)
    t = np.arange(2000) / 1000.0
    v = 0.1 * np.sin(2 * np.pi * t + 0.3)
    pa = 40e5 + 30e5 * np.sin(2 * np.pi * 0.37 * t)
    pb = np.zeros_like(t)
    with h5py.File(out, "w") as f:
        for i in range(n):
            p = (rng.uniform(5, 20), rng.uniform(0.5e-6, 2e-6), rng.uniform(1.2, 2.0), rng.uniform(50, 150),
                 rng.uniform(20, 80))
            y = cylinder(p, v, pa + pb) + rng.normal(0, 0.5, t.size)
            g = f.create_group(f"e{i:05d}")
            for name, x, unit in (("time", t, "s"), ("velocity", v, "m/s"), ("pressure_a", pa, "Pa"),
                                  ("pressure_b", pb, "Pa"), ("force", y, "N")):
                d = g.create_dataset(name, data=x)
                d.attrs["units"] = unit
            for name, x in zip(NAMES, p):
                g.attrs["true_" + name] = str(repr(float(x)))
    print(f"{out}: {n} experiments of {t.size} samples")


if __name__ == "__main__":
    main()
