#!/usr/bin/python3
"""Checks design_bound.py's bound on the best test of a rig's duration
(issue 33 item 1), independently of it: exit 0 when every check holds.

For each case (bench/design_mc/CASE_rig.toml):
- the optimal measure's relative standard errors equal those of its
  information rebuilt here from the laws' ANALYTIC gradients (design_bound
  takes central differences) within 1e-5 relative;
- the certified lower bound lies below the measure's worst relative
  standard error and within 1 % of it (the optimisation converged);
- optimality (the equivalence theorem with the rig's caps on the time share
  above each speed): with the parameter weights u of the certificate, no
  allowed measure on a grid of 3,000 speeds per pressure decreases
  phi_u = sum_i u_i [M^-1]_ii faster than 2 % of phi_u per unit step from
  the optimum (phi_u is a variance: 1 % of the standard error); the minimising measure found by the greedy rule for nested
  caps (no LP solver), the caps written again from the rig;
- with a stribeck binary: `stribeck design`'s predicted worst relative
  standard errors of its design and of its reference are not below the
  bound (no test beats the best test).
Usage: check_design_bound.py [STRIBECK]   (exit 77 without NumPy, SciPy or h5py)
"""
import math
import os
import sys

try:
    import h5py  # noqa: F401  (design_mc, which holds the laws, reads logs)
    import numpy as np
    import scipy  # noqa: F401
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design_bound  # noqa: E402  (the code under test)
from design_mc import CASES  # noqa: E402


def relative_gradients(model, t, v, p):
    """Rows theta_i dF/dtheta_i of the laws, differentiated by hand."""
    if model == "simscape-cylinder":
        vth = 1e-4
        fc = t["F_pr"] + t["f_cfr"] * p
        # Below v_th the law is linear through the point at v_th.
        out = np.abs(v) > vth
        s = np.where(out, np.sign(v), 1.0)
        av = np.where(out, np.abs(v), vth)
        scale = np.where(out, 1.0, v / vth)
        e = np.exp(-t["c_v"] * av)
        body = 1 + (t["K_brk"] - 1) * e
        cols = [body * s * scale, p * body * s * scale, fc * e * s * scale,
                -fc * (t["K_brk"] - 1) * av * e * s * scale, np.where(out, v, vth * scale)]
        names = ["F_pr", "f_cfr", "K_brk", "c_v", "f_vfr"]
    else:
        wb = t["w_brk"]
        x = v / (math.sqrt(2) * wb)
        y = v / (wb / 10)
        k = math.sqrt(2 * math.e)
        ex = np.exp(-x * x)
        cols = [k * ex * x,
                k * (t["T_brk"] - t["T_C"]) * ex * (1 - 2 * x * x) * (-x / wb) + t["T_C"] * (1 - np.tanh(y) ** 2) * (-y / wb),
                -k * ex * x + np.tanh(y), v]
        names = ["T_brk", "w_brk", "T_C", "f_v"]
    return names, np.stack([c * t[n] for c, n in zip(cols, names)], axis=1)


def cap(v0, rig):
    """The largest share of a test's time at |v| >= v0 (trips from rest
    to rest within the stroke at a_max)."""
    room = rig["stroke"] - v0 * v0 / rig["a_max"]
    return 0.0 if room <= 0 else (room / v0) / (room / v0 + 2 * v0 / rig["a_max"])


def greedy_min(d, speeds, caps):
    """min d . x over x >= 0, sum x = 1, sum_{speed >= speeds[k]} x <= caps[k]
    for every k but the slowest (speeds descending): cheapest first, as much
    as every enclosing cap allows (optimal for nested caps)."""
    x = np.zeros_like(d)
    room = np.append(caps[:-1], np.inf)  # cap k minus the share already above speed k
    left = 1.0
    for j in np.argsort(d):
        put = min(left, room[j:].min())
        if put > 0:
            x[j] = put
            room[j:] -= put
            left -= put
        if left <= 0:
            break
    return float(d @ x)


def check_case(case, stribeck, failures):
    rig = design_bound.read_rig(case)
    model, truth = CASES[case]["model"], CASES[case]["truth"]
    b = design_bound.case_bound(case, 100, 200)
    scale = rig["duration"] * rig["rate"] / rig["force_noise"] ** 2
    names = None
    M = 0
    for s in b["support"]:
        names, g = relative_gradients(model, truth, np.array([s["v"]]), s["p"] + rig.get("pressure_b", 0.0))
        M = M + scale * s["share"] * g.T @ g
    Minv = np.linalg.inv(M)
    rse = np.sqrt(np.diag(Minv))
    worst = rse.max()
    for n, r in zip(names, rse):
        if abs(r / b["rse"][n] - 1) > 1e-5:
            failures.append(f"{case}: {n}'s relative std error {b['rse'][n]:.8g}, from the analytic information {r:.8g}")
    lower = b["certified_lower_bound"]
    if not (lower <= worst * (1 + 1e-9) and lower >= 0.99 * worst):
        failures.append(f"{case}: certified bound {lower:.6g} not within 1 % below the measure's worst {worst:.6g}")
    # The equivalence theorem under the caps, on a fine grid of its own.
    u = np.array([b["weights"][n] for n in names])
    speeds = np.sort(np.concatenate([rig["v_max"] * np.logspace(0, -5, 3000), [s["v"] for s in b["support"]]]))[::-1]
    caps = np.array([cap(v, rig) for v in speeds])
    W = Minv @ np.diag(u) @ Minv
    d = np.full(len(speeds), np.inf)
    for p in rig.get("pressure_levels", [0.0]):
        _, g = relative_gradients(model, truth, speeds, p + rig.get("pressure_b", 0.0))
        d = np.minimum(d, -scale * np.einsum("ji,ik,jk->j", g, W, g))
    phi = float(u @ np.diag(Minv))
    # d . w at the optimum is -phi (M^-1 is homogeneous of degree -1 in w).
    slope = greedy_min(d, speeds, caps) + phi
    if slope < -0.02 * phi:
        failures.append(f"{case}: an allowed measure decreases phi_u at {slope / phi:.3g} of phi_u per unit step "
                        "from the optimum (not optimal)")
    line = (f"{case}: worst relative std error {worst:.5g}, bound {lower:.5g}, steepest allowed descent "
            f"{slope / phi:+.2e} of phi_u")
    if stribeck:
        design, reference = design_bound.stribeck_design(stribeck, case)
        for what, x in (("design", design), ("reference", reference)):
            if x < lower * (1 - 1e-6):
                failures.append(f"{case}: stribeck design's {what} predicts {x:.6g}, below the bound {lower:.6g}")
        line += f"; reference {reference:.5g} ({reference / lower:.3g}x the bound), design {design:.5g}"
    print(line)


def main():
    stribeck = sys.argv[1] if len(sys.argv) > 1 else None
    failures = []
    for case in ("cylinder", "servo"):
        check_case(case, stribeck, failures)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
