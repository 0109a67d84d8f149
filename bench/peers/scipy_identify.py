#!/usr/bin/python3
"""SciPy peer of bench_identify: the same fit of one static model with
scipy.optimize.least_squares, on the CSV bench_identify wrote, from the same
start, with the same tolerances (ftol 1e-10, xtol 1e-10, gtol 1e-12) and one
start (bench_identify's default --starts 1). Times the fit only (data already
in NumPy arrays, no covariance or intervals) with a hand-written analytic
Jacobian, for method 'trf' (bounds as the model's ranges) and 'lm' (no
bounds; SciPy's lm takes none), and once 'trf' with SciPy's default 2-point
finite differences when --fd is given. Compares the parameters with the ones
bench_identify wrote next to the CSV (CSV + ".params").

    /usr/bin/python3 bench/peers/scipy_identify.py MODEL [CSV] [REPEAT] [--fd]

Every law is written here from its equation (docs/models.md), not taken from
Stribeck; the free parameters are those `stribeck identify` frees by default
(every parameter but the sign-smoothing v_th, slope, v_eps, which stay at
their defaults).
"""
import sys
import time

import numpy as np
import scipy
from scipy.optimize import least_squares

S2E = np.sqrt(2 * np.e)
SQ2 = np.sqrt(2.0)


def simscape_law(v, amp, vbrk, fc, fv):
    """F = sqrt(2e)*amp*x*exp(-x^2) + F_C*tanh(10 v/v_brk) + f_v v, x = v/(sqrt(2) v_brk);
    returns F and its derivatives by amp, v_brk, F_C (arrays or scalars), f_v."""
    x = v / (SQ2 * vbrk)
    ex = np.exp(-x * x)
    th = np.tanh(10 * v / vbrk)
    f = S2E * amp * x * ex + fc * th + fv * v
    d_amp = S2E * x * ex
    d_vbrk = S2E * amp * (1 - 2 * x * x) * ex * (-x / vbrk) + fc * (1 - th * th) * (-10 * v / vbrk**2)
    d_fc = th
    return f, d_amp, d_vbrk, d_fc


def translational(p, d):  # F_brk, v_brk, F_C, f_v
    f_brk, v_brk, f_c, f_v = p
    v = d["velocity"]
    f, da, dv, dc = simscape_law(v, f_brk - f_c, v_brk, f_c, f_v)
    return f, np.column_stack([da, dv, dc - da, v])


def cylinder_il(p, d):  # F_pr, f_cfr, R_brk, v_brk, f_v
    f_pr, f_cfr, r_brk, v_brk, f_v = p
    v, P = d["velocity"], d["pressure_a"] + d["pressure_b"]
    fc = f_pr + f_cfr * P
    f, da, dv, dc = simscape_law(v, (r_brk - 1) * fc, v_brk, fc, f_v)
    d_fc = (r_brk - 1) * da + dc
    return f, np.column_stack([d_fc, P * d_fc, fc * da, dv, v])


V_TH = 1e-4  # simscape-cylinder's default v_th (held)


def cylinder(p, d):  # F_pr, f_cfr, K_brk, f_vfr, c_v
    f_pr, f_cfr, k_brk, f_vfr, c_v = p
    v, P = d["velocity"], d["pressure_a"] + d["pressure_b"]
    fc = f_pr + f_cfr * P
    av = np.abs(v)
    outside = av > V_TH
    dec = np.exp(-c_v * av)
    dth = np.exp(-c_v * V_TH)
    # |v| > v_th: F_C (1 + (K-1) e^{-c|v|}) sign v + f_vfr v; else F_C (1 + (K-1) e^{-c v_th}) v / v_th + f_vfr v
    g = np.where(outside, (1 + (k_brk - 1) * dec) * np.sign(v), (1 + (k_brk - 1) * dth) * v / V_TH)
    dg_dk = np.where(outside, dec * np.sign(v), dth * v / V_TH)
    dg_dc = np.where(outside, -(k_brk - 1) * av * dec * np.sign(v), -(k_brk - 1) * V_TH * dth * v / V_TH)
    f = fc * g + f_vfr * v
    return f, np.column_stack([g, P * g, fc * dg_dk, v, fc * dg_dc])


SLOPE = 1e3  # 20-sim's default tanh steepness (held)


def twentysim_c(p, d):  # mu_c
    (mu_c,) = p
    fn, th = d["normal_force"], np.tanh(SLOPE * d["velocity"])
    return fn * mu_c * th, (fn * th)[:, None]


def twentysim_v(p, d):  # mu_v
    (mu_v,) = p
    fn, v = d["normal_force"], d["velocity"]
    return fn * mu_v * v, (fn * v)[:, None]


def twentysim_cv(p, d):  # mu_c, mu_v
    mu_c, mu_v = p
    fn, v = d["normal_force"], d["velocity"]
    th = np.tanh(SLOPE * v)
    return fn * (mu_c * th + mu_v * v), np.column_stack([fn * th, fn * v])


def twentysim_scvs(p, d):  # mu_s, mu_c, mu_v, v_st
    mu_s, mu_c, mu_v, v_st = p
    fn, v = d["normal_force"], d["velocity"]
    ath = np.abs(np.tanh(SLOPE * v))
    x = v / v_st
    ex = np.exp(-x * x)
    s = np.sign(v)
    mu = mu_c + (mu_s * ath - mu_c) * ex
    f = fn * (mu * s + mu_v * v)
    J = np.column_stack(
        [fn * ath * ex * s, fn * (1 - ex) * s, fn * v, fn * (mu_s * ath - mu_c) * ex * 2 * x * x / v_st * s]
    )
    return f, J


def coulomb_viscous(p, d):  # F_C, f_v (v_eps = 0: exact sign)
    f_c, f_v = p
    v = d["velocity"]
    s = np.sign(v)
    return f_c * s + f_v * v, np.column_stack([s, v])


INF = np.inf
# model: (law, start, lower bounds, upper bounds); starts equal bench_identify's.
MODELS = {
    "simscape-translational": (translational, [20, 0.01, 15, 50], [0, 1e-12, 0, 0], [INF] * 4),
    "simscape-rotational": (translational, [20, 0.01, 15, 50], [0, 1e-12, 0, 0], [INF] * 4),
    "simscape-cylinder": (cylinder, [30, 1e-5, 1.2, 100, 20], [0, 0, 1, 0, 0], [INF] * 5),
    "simscape-cylinder-il": (cylinder_il, [30, 1e-5, 1.2, 0.01, 100], [0, 0, 1, 1e-12, 0], [INF] * 5),
    "20sim-c": (twentysim_c, [0.05], [0], [INF]),
    "20sim-v": (twentysim_v, [0.005], [0], [INF]),
    "20sim-cv": (twentysim_cv, [0.05, 0.005], [0, 0], [INF] * 2),
    "20sim-scvs": (twentysim_scvs, [0.12, 0.05, 0.005, 0.02], [0, 0, 0, 1e-12], [INF] * 4),
    "coulomb-viscous": (coulomb_viscous, [10, 50], [0, 0], [INF] * 2),
}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    fd = "--fd" in sys.argv
    model = args[0]
    path = args[1] if len(args) > 1 else f"/tmp/stribeck_bench_identify_{model}.csv"
    repeat = int(args[2]) if len(args) > 2 else 5
    law, x0, lo, hi = MODELS[model]
    raw = np.loadtxt(path, delimiter=",", skiprows=1)
    names = open(path).readline().strip().split(",")
    d = {n: np.ascontiguousarray(raw[:, i]) for i, n in enumerate(names)}
    y = d["force"]

    def resid(p):
        return y - law(p, d)[0]

    def jac(p):
        return -law(p, d)[1]

    ref = {}
    try:
        for line in open(path + ".params"):
            k, v = line.split()
            ref[k] = float(v)
    except OSError:
        pass
    runs = [("trf", "analytic", {"jac": jac, "bounds": (lo, hi)}), ("lm", "analytic", {"jac": jac})]
    if fd:
        runs.append(("trf", "2-point", {"bounds": (lo, hi)}))
    for method, jname, kw in runs:
        times, cpu = [], []
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            r = least_squares(resid, np.array(x0, float), method=method, ftol=1e-10, xtol=1e-10, gtol=1e-12, **kw)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        times.sort()
        cpu.sort()
        rmse = np.sqrt(np.mean(r.fun**2))
        diff = ""
        if ref:
            vals = list(ref.values())
            rel = max(abs(a - b) / max(abs(b), 1e-300) for a, b in zip(r.x, vals))
            diff = f", max rel. parameter difference to stribeck {rel:.2e}"
        print(
            f"scipy {scipy.__version__} {model} least_squares {method}, {jname} Jacobian: samples {y.size}, "
            f"median {times[len(times)//2]:.4f} s, min {times[0]:.4f} s over {repeat} runs, "
            f"cpu median {cpu[len(cpu)//2]:.4f} s, min {cpu[0]:.4f} s, nfev {r.nfev}, "
            f"njev {r.njev}, rmse {rmse:.6f}, status {r.status}{diff}"
        )
        print("  " + " ".join(f"{x:.8g}" for x in r.x))


if __name__ == "__main__":
    main()
