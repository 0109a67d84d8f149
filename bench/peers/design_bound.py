#!/usr/bin/python3
"""The best any test of a rig's duration can do (issue 33 item 1): a lower
bound on the worst relative standard error of a static friction law's fit.

For a static law every sample's information depends only on its (v, p):
a test of duration T at rate r has M = (T r / sigma^2) sum_j w_j g_j g_j^T,
g_j the gradient of the force in the relative parameters theta_i at the
support point j and w the share of time spent there. The worst relative
variance max_i [M^-1]_ii is convex in w, so its minimum over every measure
the rig allows is found by Frank-Wolfe and certified by the duality gap.

What the rig allows (a relaxation: every real test satisfies it): |v| <=
v_max, p one of the rig's pressures, and the time lost to motion within the
stroke S at acceleration a_max. A trip (from rest, one direction, to rest)
spends at most (S - v0^2/a)/v0 at speeds >= v0 and at least 2 v0 / a below
it, so the share of ANY test's time at |v| >= v0 is at most
h(v0) = A / (A + B), A = (S - v0^2/a)/v0, B = 2 v0/a (0 where v0^2/a >= S).
Laws are odd in v, so +v and -v carry the same information.

The bound is certified: for any weights u on the parameters (here the
softmax of the relative variances at the end), phi_u(w) = sum_i u_i
[M(w)^-1]_ii <= max_i, and by convexity phi_u(w*) >= phi_u(w) +
min_w' grad phi_u(w) . (w' - w) for the optimum w*; the minimum over w' is a
linear program over the measures the rig allows (on a grid 10x finer than
the one Frank-Wolfe moves on). sqrt of that is the printed bound.

Usage: design_bound.py [--stribeck BIN] [--cases cylinder,servo] [--json OUT]
(with --stribeck, also runs `stribeck design` on the case for the reference's
and the design's predicted worst relative standard error.)
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import tomllib

import numpy as np
from scipy import optimize, sparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from design_mc import CASE_DIR, CASES, LAWS  # noqa: E402  (the laws written from `stribeck models`)

FREE = {"simscape-cylinder": ["F_pr", "f_cfr", "K_brk", "c_v", "f_vfr"],
        "simscape-rotational": ["T_brk", "w_brk", "T_C", "f_v"]}


def gradients(model, truth, free, v, p, pb):
    """Rows theta_i dF/dtheta_i (central differences) at speeds v, pressure p."""
    law = LAWS[model]
    cols = []
    for name in free:
        h = 1e-6 * abs(truth[name])
        up, dn = dict(truth), dict(truth)
        up[name] += h
        dn[name] -= h
        cols.append(truth[name] * (law(up, v, p, pb) - law(dn, v, p, pb)) / (2 * h))
    return np.stack(cols, axis=1)


def share_cap(v0, rig):
    """h(v0): the largest share of any test's time at |v| >= v0."""
    s, a = rig["stroke"], rig["a_max"]
    room = s - v0 * v0 / a
    if room <= 0:
        return 0.0
    hi, lo = room / v0, 2 * v0 / a
    return hi / (hi + lo)


class Support:
    """Grid of (speed, pressure) points: speeds log-spaced (descending) from
    v_max down to 1e-5 v_max, every rig pressure; the cap on the time share
    above each speed."""

    def __init__(self, case, rig, n_speeds):
        model, truth = CASES[case]["model"], CASES[case]["truth"]
        self.free = FREE[model]
        self.speeds = rig["v_max"] * np.logspace(0, -5, n_speeds)
        self.pressures = rig.get("pressure_levels", [0.0])
        pb = rig.get("pressure_b", 0.0)
        self.g = np.concatenate([gradients(model, truth, self.free, self.speeds, p, pb) for p in self.pressures])
        self.speed_of = np.tile(np.arange(n_speeds), len(self.pressures))
        self.cap = np.array([share_cap(v, rig) for v in self.speeds])
        self.scale = rig["duration"] * rig["rate"] / rig["force_noise"] ** 2

    def information(self, w):
        return self.scale * (self.g.T * w) @ self.g

    def relative_variances(self, w):
        return np.diag(np.linalg.inv(self.information(w)))

    def gradient(self, w, u):
        """d/dw_j of sum_i u_i [M^-1]_ii = -scale g_j^T M^-1 U M^-1 g_j."""
        minv = np.linalg.inv(self.information(w))
        a = self.g @ minv
        return -self.scale * np.einsum("ji,i,ji->j", a, u, a)

    def best_vertex(self, d):
        """argmin over the allowed measures of d . w' (an LP): per speed the
        pressure with the least d, then over speeds with the caps on the
        time share above each speed (prefix sums X_k, speeds descending)."""
        n = len(self.speeds)
        dp = d.reshape(len(self.pressures), n)
        pick = np.argmin(dp, axis=0)
        ds = dp[pick, np.arange(n)]
        # sum_k ds_k (X_k - X_{k-1}) = sum_k X_k (ds_k - ds_{k+1}), X_{n-1} = 1.
        c = ds - np.append(ds[1:], 0.0)
        c /= max(np.abs(c).max(), 1e-300)  # HiGHS' tolerances are absolute: costs of order 1
        rows = sparse.diags([np.ones(n), -np.ones(n - 1)], [0, -1], shape=(n, n), format="csr")
        bounds = [(0.0, min(1.0, self.cap[k])) for k in range(n - 1)] + [(1.0, 1.0)]
        r = optimize.linprog(c, A_ub=-rows, b_ub=np.zeros(n), bounds=bounds, method="highs")
        if r.status != 0:
            raise RuntimeError("the rig's caps admit no measure: " + r.message)
        x = np.diff(np.concatenate([[0.0], r.x]))
        w = np.zeros_like(d)
        w[pick * n + np.arange(n)] = np.maximum(x, 0.0)
        return w


def optimise(sup, iterations, beta=400.0):
    """Fully corrective Frank-Wolfe: each round adds the allowed measure
    (an LP vertex) that the softmax-weighted worst relative variance
    decreases fastest towards, then re-weights every vertex found so far
    (min t s.t. t >= [M^-1]_ii, SLSQP on the simplex of the vertices)."""
    w = np.full(len(sup.g), 1.0 / len(sup.g))
    above = np.cumsum(w.reshape(len(sup.pressures), -1).sum(axis=0))
    if np.any(above[:-1] > sup.cap[:-1] + 1e-12):  # the slowest point holds every slower speed
        raise RuntimeError("the uniform measure exceeds the rig's caps; start elsewhere")
    vertices = [w]
    lam = np.array([1.0])
    for _ in range(iterations):
        f = sup.relative_variances(w)
        u = np.exp(beta * (f / f.max() - 1))
        u /= u.sum()
        d = sup.gradient(w, u)
        s = sup.best_vertex(d)
        if d @ (w - s) <= 1e-7 * (u @ f):
            break
        vertices.append(s)
        # With several parameters tied at the worst, the softmax weights are
        # not the optimum's: each tied parameter's own steepest vertex too.
        for i in np.flatnonzero(f >= 0.9 * f.max()):
            vertices.append(sup.best_vertex(sup.gradient(w, np.eye(len(f))[i])))
        V = np.array(vertices).T
        f0 = f.max()
        x0 = np.concatenate([lam, np.zeros(len(vertices) - len(lam)), [1.0]])
        cons = [{"type": "ineq", "fun": lambda x: x[-1] - sup.relative_variances(V @ x[:-1]) / f0},
                {"type": "eq", "fun": lambda x: x[:-1].sum() - 1.0}]
        r = optimize.minimize(lambda x: x[-1], x0, jac=lambda x: np.append(np.zeros(len(x) - 1), 1.0),
                              constraints=cons, bounds=[(0, 1)] * (len(x0) - 1) + [(0, None)], method="SLSQP",
                              options={"maxiter": 200, "ftol": 1e-12})
        lam = np.maximum(r.x[:-1], 0)
        lam /= lam.sum()
        keep = lam > 1e-9
        vertices = [v for v, k in zip(vertices, keep) if k]
        lam = lam[keep] / lam[keep].sum()
        w = np.array(vertices).T @ lam
    return w


def certify(sup, w, rounds=200):
    """(worst relative variance at w, a certified lower bound on the
    optimum over every allowed measure, the parameter weights u that give
    it). For any u on the simplex and any allowed w', max_i f_i(w') >=
    sum_i u_i f_i(w') >= min_w' sum_i u_i (f_i(w) + grad f_i(w).(w' - w)) by
    convexity; the best u is found by column generation (an LP in u over the
    LP vertices w' found so far)."""
    f = sup.relative_variances(w)
    k = len(f)
    grads = np.array([sup.gradient(w, np.eye(k)[i]) for i in range(k)])  # k x points
    lin = lambda v: f + grads @ (v - w)  # noqa: E731  the linearisations at an allowed measure v
    u = np.full(k, 1.0 / k)
    cols = [lin(sup.best_vertex(u @ grads))]
    best = -np.inf
    for _ in range(rounds):
        # max z s.t. z <= u . c for every column c, u on the simplex.
        A = np.hstack([-np.array(cols) / f.max(), np.ones((len(cols), 1))])  # of order 1 for HiGHS
        r = optimize.linprog(np.append(np.zeros(k), -1.0), A_ub=A, b_ub=np.zeros(len(cols)),
                             A_eq=np.append(np.ones(k), 0.0)[None, :], b_eq=[1.0],
                             bounds=[(0, 1)] * k + [(None, None)], method="highs")
        u, upper = r.x[:k], -r.fun * f.max()
        c = lin(sup.best_vertex(u @ grads))
        best = max(best, float(u @ c))
        if upper - best <= 1e-9 * f.max():
            break
        cols.append(c)
    return float(f.max()), best, u


def read_rig(case):
    with open(os.path.join(CASE_DIR, f"{case}_rig.toml"), "rb") as fh:
        return tomllib.load(fh)


def case_bound(case, iterations, n_speeds):
    rig = read_rig(case)
    coarse = Support(case, rig, n_speeds)
    w = optimise(coarse, iterations)
    # The certificate on a grid 10x finer, which holds the coarse speeds.
    fine = Support(case, rig, 10 * (n_speeds - 1) + 1)
    nc, nf = len(coarse.speeds), len(fine.speeds)
    wf = np.zeros(len(fine.g))
    for j, x in enumerate(w):
        p, k = divmod(j, nc)
        wf[p * nf + 10 * k] = x
    worst, lower, u = certify(fine, wf)
    support = [{"v": float(fine.speeds[j % nf]), "p": float(fine.pressures[j // nf]), "share": float(wf[j])}
               for j in np.flatnonzero(wf > 0)]
    realised, stroke, ramps, test = realise(case, rig, support)
    return {"case": case, "worst_rse": math.sqrt(worst), "realised_worst_rse": realised,
            "realised_stroke": stroke, "realised_ramp_seconds": ramps, "certified_lower_bound": math.sqrt(max(lower, 0.0)),
            "rse": {n: math.sqrt(x) for n, x in zip(fine.free, fine.relative_variances(wf))},
            "weights": {n: float(x) for n, x in zip(fine.free, u)}, "support": support,
            "grid_speeds": len(fine.speeds), "plateau_test": test}


def plateau_test(rig, support):
    """A rig test that realises a measure: per pressure one experiment
    (its duration the pressure's share of the rig's) of plateaus at the
    support speeds, fastest first, alternating in direction, each in an even
    number of passes short enough for the stroke, joined by linear ramps at
    a_max from rest and back to rest; the time the ramps take is taken from
    the experiment's plateaus in proportion. The experiments as the levels
    profile of a DESIGN.toml: [{p, duration, levels, holds}]."""
    S, a, T = rig["stroke"], rig["a_max"], rig["duration"]
    # Points of under 0.1 % of the time are left out (a ramp each for nearly
    # nothing), the rest scaled to the whole duration.
    support = [s for s in support if s["share"] >= 1e-3]
    total = sum(s["share"] for s in support)
    support = [{**s, "share": s["share"] / total} for s in support]
    out = []
    for p in sorted({s["p"] for s in support}):
        pts = sorted((s for s in support if s["p"] == p), key=lambda s: -s["v"])
        levels, shares = [], []
        for s in pts:
            longest = 0.9 * (S - s["v"] ** 2 / a) / s["v"]  # a pass and its ramps within the stroke
            n = max(2, 2 * math.ceil(s["share"] * T / (2 * longest)))
            levels += [s["v"] * (-1) ** i for i in range(n)]
            shares += [s["share"] / n] * n
        duration = round(T * sum(shares), 9)  # to the nanosecond: the durations sum to the rig's
        ramps = sum(abs(x - y) / a for x, y in zip([0.0] + levels, levels + [0.0]))
        out.append({"p": p, "duration": duration, "levels": levels,
                    "holds": [x / sum(shares) * (duration - ramps) for x in shares]})
    return out


def levels_velocity(e, rig):
    """The levels profile's velocity at the generator's samples (t_i = i /
    rate, i = 0 .. floor(duration * rate))."""
    a = rig["a_max"]
    t = np.arange(math.floor(e["duration"] * rig["rate"]) + 1) / rig["rate"]
    v = np.zeros_like(t)
    start, last = 0.0, 0.0
    for speed, hold in list(zip(e["levels"], e["holds"])) + [(0.0, np.inf)]:
        ramp = abs(speed - last) / a
        on = (t >= start) & (t < start + ramp + hold)
        v[on] = np.where(t[on] - start < ramp, last + np.sign(speed - last) * a * (t[on] - start), speed)
        start += ramp + hold
        last = speed
    return v


def realise(case, rig, support):
    """The plateau test of the measure: its experiments, worst relative
    standard error from the information of every sample (ramps included)
    and the stroke it uses."""
    model, truth = CASES[case]["model"], CASES[case]["truth"]
    test = plateau_test(rig, support)
    info, stroke = 0.0, 0.0
    for e in test:
        v = levels_velocity(e, rig)
        x = np.concatenate([[0.0], np.cumsum(0.5 * (v[1:] + v[:-1]))]) / rig["rate"]
        stroke = max(stroke, x.max() - x.min())
        g = gradients(model, truth, FREE[model], v, e["p"], rig.get("pressure_b", 0.0))
        info = info + g.T @ g / rig["force_noise"] ** 2
    ramps = sum(e["duration"] - sum(e["holds"]) for e in test)
    return math.sqrt(np.diag(np.linalg.inv(info)).max()), stroke, ramps, test


def design_toml(case, rig, test):
    """The plateau test as a DESIGN.toml for `stribeck generate --design`."""
    model, truth = CASES[case]["model"], CASES[case]["truth"]
    rot = model == "simscape-rotational"
    length, speed, accel = ("rad", "rad_s", "rad_s2") if rot else ("m", "m_s", "m_s2")
    lines = ["# The best plateau test of the rig (bench/peers/design_bound.py)", 'format = "stribeck-design"',
             "version = 1", f'model = "{model}"', f'motion = "{"rotational" if rot else "translational"}"', "",
             "[params]"]
    defaults = {"simscape-cylinder": {"v_th": 1e-4}, "simscape-rotational": {}}[model]
    lines += [f"{k} = {v!r}" for k, v in {**defaults, **truth}.items()]
    for i, e in enumerate(test):
        lines += ["", "[[experiment]]", f'name = "e{i + 1}"', 'profile = "levels"', f"duration_s = {e['duration']!r}",
                  f"rate_hz = {float(rig['rate'])!r}", f"v_max_{speed} = {max(abs(x) for x in e['levels'])!r}"]
        if model != "simscape-rotational":
            lines += [f"pressure_a_pa = {float(e['p'])!r}", f"pressure_b_pa = {float(rig.get('pressure_b', 0.0))!r}"]
        lines += [f"levels_{speed} = [{', '.join(repr(x) for x in e['levels'])}]",
                  f"holds_s = [{', '.join(repr(x) for x in e['holds'])}]", f"ramp_{accel} = {float(rig['a_max'])!r}"]
    return "\n".join(lines) + "\n"


def stribeck_design(stribeck, case):
    """The predicted worst relative standard errors of `stribeck design`'s
    design and reference on the case."""
    c = CASES[case]
    guess = ",".join(f"{k}={v!r}" for k, v in c["truth"].items())
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "d.json")
        subprocess.run([stribeck, "design", "--model", c["model"], "--guess", guess, "--rig",
                        os.path.join(CASE_DIR, f"{case}_rig.toml"), "-o", os.path.join(d, "d.toml"), "--json", out,
                        "-q"], check=True, capture_output=True)
        with open(out) as fh:
            j = json.load(fh)
    return j["design"]["worst_relative_std_error"], j["reference"]["worst_relative_std_error"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stribeck")
    ap.add_argument("--cases", default="cylinder,servo")
    ap.add_argument("--iterations", type=int, default=400)
    ap.add_argument("--speeds", type=int, default=200)
    ap.add_argument("--json")
    ap.add_argument("--design-dir", help="write each case's plateau test here as CASE_plateaus.toml")
    args = ap.parse_args()
    out = []
    for case in args.cases.split(","):
        b = case_bound(case, args.iterations, args.speeds)
        print(f"{case}: optimal measure's worst relative std error {b['worst_rse']:.5g} "
              f"(certified lower bound {b['certified_lower_bound']:.5g}); per parameter "
              + ", ".join(f"{n} {x:.4g}" for n, x in b["rse"].items()))
        print(f"  realised as plateaus with ramps at a_max: worst relative std error {b['realised_worst_rse']:.5g} "
              f"(stroke {b['realised_stroke']:.4g}, {b['realised_ramp_seconds']:.3g} s of ramps)")
        for s in b["support"]:
            if s['share'] >= 1e-4:
                print(f"  v {s['v']:.4g}  p {s['p']:.4g}  share {s['share']:.4f}")
        if args.design_dir:
            with open(os.path.join(args.design_dir, f"{case}_plateaus.toml"), "w") as fh:
                fh.write(design_toml(case, read_rig(case), b["plateau_test"]))
        if args.stribeck:
            design, reference = stribeck_design(args.stribeck, case)
            b["design_worst_rse"], b["reference_worst_rse"] = design, reference
            print(f"  reference {reference:.5g}, design {design:.5g}: the reference / bound = "
                  f"{reference / b['certified_lower_bound']:.3g}x reachable at most, the design reaches "
                  f"{reference / design:.3g}x")
        out.append(b)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
