#!/usr/bin/env python3
"""Peer for bench_eval: the `stribeck eval` pipeline (CSV -> force -> CSV) in
NumPy, as a user without Stribeck would write it: np.loadtxt, the
simscape-cylinder law vectorised, np.savetxt with 17 significant digits (so
values round-trip like stribeck's shortest-round-trip output).

usage: eval_numpy.py INPUT OUTPUT [NAME=VALUE ...]   (simscape-cylinder parameters)
"""
import sys

import numpy as np

DEFAULTS = {"F_pr": 10.0, "f_cfr": 1e-6, "K_brk": 1.0, "f_vfr": 100.0, "c_v": 10.0, "v_th": 1e-4}


def simscape_cylinder(v, p_a, p_b, F_pr, f_cfr, K_brk, f_vfr, c_v, v_th):
    f_c = F_pr + f_cfr * (p_a + p_b)
    av = np.abs(v)
    outer = f_c * (1 + (K_brk - 1) * np.exp(-c_v * av)) * np.sign(v) + f_vfr * v
    k = (f_c * (1 + (K_brk - 1) * np.exp(-c_v * v_th)) + f_vfr * v_th) / v_th
    return np.where(av > v_th, outer, k * v)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    params = dict(DEFAULTS)
    for a in sys.argv[3:]:
        name, value = a.split("=", 1)
        params[name] = float(value)
    with open(src) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(src, delimiter=",", skiprows=1, ndmin=2)
    col = {name: i for i, name in enumerate(header)}
    force = simscape_cylinder(data[:, col["velocity"]], data[:, col["pressure_a"]],
                              data[:, col["pressure_b"]], **params)
    np.savetxt(dst, np.column_stack([data, force]), fmt="%.17g", delimiter=",",
               header=",".join(header + ["model_force"]), comments="")


if __name__ == "__main__":
    main()
