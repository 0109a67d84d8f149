#!/usr/bin/python3
"""Monte Carlo validation of `stribeck design` (issue 33 item 1).

For each case (a rig TOML under bench/design_mc/), runs `stribeck design`,
then N noise realisations of the designed test and of the reference test the
design compares itself with, each through `stribeck generate --design ...
--seed k --noise force=SIGMA` and `stribeck identify --json`, on a process
pool. Per parameter it reports:

- the empirical standard deviation of the fitted values, with its 95 %
  chi-square interval, against the design's predicted standard error
  (ratio predicted / empirical; the goal: within 0.9-1.1);
- the mean of the standard errors identify reported;
- the coverage of identify's 95 % intervals of the truth, with its
  Clopper-Pearson 95 % interval (goal: 93-97 %);
- the bias of the mean fit against the truth, in standard errors of the mean;
- an independent check of the prediction: sigma^2 (J^T J)^-1 with J the
  central-difference Jacobian of the law written here in NumPy (from
  `stribeck models`), over the noiseless designed trajectory's samples.

and for the design against the reference the shrink of the worst
parameter's interval (goal: >= 3x): the worst relative empirical standard
deviation over the parameters of the reference divided by that of the
design, and the same for the parameter that is worst in the reference.

Usage: design_mc.py --stribeck BIN [--cases cylinder,servo] [--n 1000]
                    [--jobs 2] [--first-seed 1] [--json OUT.json] [--work DIR]
                    [--profiles LIST] (design's families)
                    [--design CASE=DESIGN.toml]...   (that test in place of design's)
       design_mc.py --combine RUN1.json RUN2.json ...   (runs of disjoint seeds pooled)
"""
import argparse
import concurrent.futures as cf
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

import h5py
import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
CASE_DIR = os.path.join(os.path.dirname(HERE), "design_mc")
Z975 = 1.959963984540054


# --- The laws, written from `stribeck models` (independent of the kernels) --

def cylinder(p, v, pa, pb):
    fc = p["F_pr"] + p["f_cfr"] * (pa + pb)
    vth = p.get("v_th", 1e-4)
    outside = fc * (1 + (p["K_brk"] - 1) * np.exp(-p["c_v"] * np.abs(v))) * np.sign(v) + p["f_vfr"] * v
    k = (fc * (1 + (p["K_brk"] - 1) * math.exp(-p["c_v"] * vth)) + p["f_vfr"] * vth) / vth
    return np.where(np.abs(v) > vth, outside, k * v)


def rotational(p, w, pa, pb):
    wst = math.sqrt(2.0) * p["w_brk"]
    wcoul = p["w_brk"] / 10.0
    x = w / wst
    return (math.sqrt(2.0 * math.e) * (p["T_brk"] - p["T_C"]) * np.exp(-x * x) * x
            + p["T_C"] * np.tanh(w / wcoul) + p["f_v"] * w)


LAWS = {"simscape-cylinder": cylinder, "simscape-rotational": rotational}

# The cases: the law and its truth (the design's prior); the rig's limits and
# force noise are in bench/design_mc/CASE_rig.toml.
CASES = {
    # A hydraulic cylinder's seal (Simscape Cylinder Friction, hydraulic):
    # preload 100 N, +100 N at 100 bar, breakaway 1.8x decaying over
    # 1/c_v = 20 mm/s, viscous 1000 N/(m/s).
    "cylinder": {"model": "simscape-cylinder",
                 "truth": {"F_pr": 100.0, "f_cfr": 1e-5, "K_brk": 1.8, "c_v": 50.0, "f_vfr": 1000.0}},
    # A servo axis (Simscape Rotational Friction): breakaway 1.2 N*m at
    # 0.1 rad/s, Coulomb 0.8 N*m, viscous 0.05 N*m/(rad/s).
    "servo": {"model": "simscape-rotational",
              "truth": {"T_brk": 1.2, "w_brk": 0.1, "T_C": 0.8, "f_v": 0.05}},
}


def fisher_covariance(model, truth, free, logs, sigma):
    """sigma^2 (J^T J)^-1 in the parameters' own units, J by central
    differences of the law over every sample of the noiseless logs (the
    reported value's covariance does not depend on the fit's internal
    coordinates to first order)."""
    law = LAWS[model]
    cols = []
    for name in free:
        h = 1e-6 * max(abs(truth[name]), 1e-12)
        up, dn = dict(truth), dict(truth)
        up[name] += h
        dn[name] -= h
        col = [(law(up, v, pa, pb) - law(dn, v, pa, pb)) / (2 * h) for v, pa, pb in logs]
        cols.append(np.concatenate(col))
    jac = np.stack(cols, axis=1)
    return sigma ** 2 * np.linalg.inv(jac.T @ jac)


def read_log_inputs(path):
    """(velocity, pressure_a, pressure_b) of every experiment of a log."""
    out = []
    with h5py.File(path, "r") as f:
        for name in f:
            g = f[name]
            if not isinstance(g, h5py.Group) or "velocity" not in g:
                continue
            v = g["velocity"][()]
            pa = g["pressure_a"][()] if "pressure_a" in g else np.zeros_like(v)
            pb = g["pressure_b"][()] if "pressure_b" in g else np.zeros_like(v)
            out.append((v, pa, pb))
    return out


# --- Runs of the program -----------------------------------------------------

def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def realisation(job):
    """One noise realisation: generate + identify; the fitted parameters."""
    stribeck, design_toml, model, sigma, seed, workdir, identify_args = job
    log = os.path.join(workdir, f"r{os.getpid()}_{seed}.h5")
    try:
        t0 = time.perf_counter()
        run([stribeck, "generate", "--design", design_toml, "--seed", str(seed),
             "--noise", f"force={sigma!r}", "-o", log, "-q"])
        t1 = time.perf_counter()
        out = run([stribeck, "identify", log, "--model", model, "--threads", "1", "--json", "-", "-q"]
                  + identify_args)
        t2 = time.perf_counter()
    finally:
        if os.path.exists(log):
            os.remove(log)
    fit = json.loads(out)
    params = {}
    for name, p in fit["parameters"].items():
        if p["fixed"]:
            continue
        params[name] = {k: p[k] for k in ("value", "std_error", "ci95", "determined", "interval")}
    return {"seed": seed, "status": fit["status"], "params": params, "rmse": fit["rmse"],
            "generate_s": t1 - t0, "identify_s": t2 - t1}


def monte_carlo(stribeck, design_toml, model, sigma, n, jobs, workdir, first_seed, identify_args):
    todo = [(stribeck, design_toml, model, sigma, first_seed + k, workdir, identify_args) for k in range(n)]
    with cf.ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(realisation, todo, chunksize=4))


# --- Statistics --------------------------------------------------------------

def std_interval(s, n, level=0.95):
    """The chi-square interval of a standard deviation estimated from n draws."""
    a = 1 - level
    lo = s * math.sqrt((n - 1) / stats.chi2.ppf(1 - a / 2, n - 1))
    hi = s * math.sqrt((n - 1) / stats.chi2.ppf(a / 2, n - 1))
    return lo, hi


def clopper_pearson(k, n, level=0.95):
    a = 1 - level
    lo = stats.beta.ppf(a / 2, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1 - a / 2, k + 1, n - k) if k < n else 1.0
    return lo, hi


def summarise(runs, truth, predicted, fisher_se):
    """Per parameter: empirical spread, reported errors, coverage, bias."""
    out = {}
    names = sorted(predicted)
    for name in names:
        vals = np.array([r["params"][name]["value"] for r in runs if name in r["params"]])
        ses = np.array([r["params"][name]["std_error"] for r in runs
                        if name in r["params"] and r["params"][name]["std_error"] is not None])
        covered = 0
        undetermined = 0
        for r in runs:
            p = r["params"].get(name)
            if p is None or not p["determined"] or None in p["ci95"]:
                undetermined += 1
                continue
            if p["ci95"][0] <= truth[name] <= p["ci95"][1]:
                covered += 1
        n = len(vals)
        s = float(np.std(vals, ddof=1))
        lo, hi = std_interval(s, n)
        mad = float(1.4826 * np.median(np.abs(vals - np.median(vals))))
        pred = predicted[name]
        out[name] = {
            "truth": truth[name], "n": n, "mean": float(np.mean(vals)),
            "bias_in_se_of_mean": float((np.mean(vals) - truth[name]) / (s / math.sqrt(n))),
            "empirical_std": s, "empirical_std_ci95": [lo, hi], "robust_std": mad,
            "predicted_std": pred, "ratio": pred / s, "ratio_ci95": [pred / hi, pred / lo],
            "fisher_check_std": fisher_se.get(name),
            "mean_reported_std_error": float(np.mean(ses)) if len(ses) else None,
            "coverage": covered / len(runs), "coverage_ci95": list(clopper_pearson(covered, len(runs))),
            "undetermined": undetermined,
            "relative_empirical_std": s / abs(truth[name]),
        }
    return out


def worst(summary):
    name = max(summary, key=lambda k: summary[k]["relative_empirical_std"])
    return name, summary[name]["relative_empirical_std"]


# --- One case ----------------------------------------------------------------

def write_reference_toml(path, design_toml, design_json, rotational):
    """The reference test as a DESIGN.toml (design writes none for it): the
    design's own file up to its experiments (format, model, prior), then the
    reference's experiments of the --json, with the keys design writes."""
    length, speed, accel = ("rad", "rad_s", "rad_s2") if rotational else ("m", "m_s", "m_s2")
    keys = {"name": "name", "profile": "profile", "duration": "duration_s", "rate": "rate_hz",
            "v_max": f"v_max_{speed}", "pressure_a": "pressure_a_pa", "pressure_b": "pressure_b_pa",
            "band_lo_hz": "band_lo_hz", "band_hi_hz": "band_hi_hz", "tones": "tones",
            "phase_seed": "phase_seed", "stroke_used": f"stroke_used_{length}", "a_peak": f"a_peak_{accel}"}
    with open(design_toml) as f:
        head = f.read().split("[[experiment]]")[0]
    lines = [head.rstrip()]
    for e in design_json["reference"]["experiments"]:
        lines.append("[[experiment]]")
        for k, v in e.items():
            lines.append(f'{keys[k]} = "{v}"' if isinstance(v, str) else f"{keys[k]} = {v!r}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def design_experiments(path):
    """The experiments of a DESIGN.toml with the keys of design's --json."""
    with open(path, "rb") as f:
        d = tomllib.load(f)
    out = []
    for e in d["experiment"]:
        x = {"profile": e["profile"], "duration": e["duration_s"],
             "v_max": e.get("v_max_m_s", e.get("v_max_rad_s"))}
        if "pressure_a_pa" in e:
            x["pressure_a"] = e["pressure_a_pa"]
        out.append(x)
    return out


def run_case(args, case, workdir):
    rig = os.path.join(CASE_DIR, f"{case}_rig.toml")
    with open(rig, "rb") as f:
        sigma = float(tomllib.load(f)["force_noise"])
    spec = CASES[case]
    model, truth = spec["model"], spec["truth"]
    design_toml = os.path.join(workdir, f"{case}_design.toml")
    design_json = os.path.join(workdir, f"{case}_design.json")
    guess = ",".join(f"{k}={v!r}" for k, v in truth.items())
    t0 = time.perf_counter()
    run([args.stribeck, "design", "--model", model, "--rig", rig, "--guess", guess,
         "--criterion", spec.get("criterion", "worst-rse"), "--seed", "1", "-o", design_toml,
         "--json", design_json, "-q"] + (["--profiles", args.profiles] if args.profiles else []))
    design_s = time.perf_counter() - t0
    with open(design_json) as f:
        dj = json.load(f)
    reference_toml = os.path.join(workdir, f"{case}_reference.toml")
    write_reference_toml(reference_toml, design_toml, dj, model == "simscape-rotational")
    if case in args.designs:
        # A test given as DESIGN.toml (design_bound.py's plateau test) in
        # place of `design`'s: its prediction is the NumPy one below.
        design_toml = args.designs[case]
        dj["design"] = {"experiments": design_experiments(design_toml), "parameters": dj["design"]["parameters"],
                        "given": design_toml}
    result = {"case": case, "model": model, "truth": truth, "force_noise": sigma,
              "design_seconds": design_s, "design_test": dj["design"], "reference_test": dj["reference"],
              "predicted_worst_rse_ratio": dj.get("worst_rse_ratio")}
    for block, toml in (("design", design_toml), ("reference", reference_toml)):
        predicted = {p["name"]: p["std_error"] for p in dj[block]["parameters"]}
        # The independent prediction, on the noiseless trajectory.
        clean = os.path.join(workdir, f"{case}_{block}_clean.h5")
        run([args.stribeck, "generate", "--design", toml, "-o", clean, "-q"])
        cov = fisher_covariance(model, truth, sorted(predicted), read_log_inputs(clean), sigma)
        fisher_se = {n: float(math.sqrt(cov[i, i])) for i, n in enumerate(sorted(predicted))}
        if "given" in dj[block]:
            predicted = fisher_se
        t0 = time.perf_counter()
        runs = monte_carlo(args.stribeck, toml, model, sigma, args.n, args.jobs, workdir,
                           args.first_seed, [])
        wall = time.perf_counter() - t0
        result[block] = {
            "wall_seconds": wall, "realisations": len(runs),
            "mean_generate_s": float(np.mean([r["generate_s"] for r in runs])),
            "mean_identify_s": float(np.mean([r["identify_s"] for r in runs])),
            "status": {s: sum(r["status"] == s for r in runs) for s in sorted({r["status"] for r in runs})},
            "parameters": summarise(runs, truth, predicted, fisher_se)}
    if "given" in dj["design"]:
        given = max(p["predicted_std"] / abs(truth[n]) for n, p in result["design"]["parameters"].items())
        result["predicted_worst_rse_ratio"] = dj["reference"]["worst_relative_std_error"] / given
        result["design_given"] = dj["design"]["given"]
    d, r = result["design"]["parameters"], result["reference"]["parameters"]
    wd, wr = worst(d), worst(r)
    result["shrink"] = {
        "worst_design": wd[0], "worst_reference": wr[0],
        "worst_over_worst": wr[1] / wd[1],
        "of_reference_worst": r[wr[0]]["empirical_std"] / d[wr[0]]["empirical_std"],
        "per_parameter": {n: r[n]["empirical_std"] / d[n]["empirical_std"] for n in d}}
    return result


def print_case(res):
    print(f"\n== {res['case']}: {res['model']}, force noise {res['force_noise']}, "
          f"design found in {res['design_seconds']:.1f} s")
    for block in ("design", "reference"):
        b = res[block]
        exps = res[f"{block}_test"]["experiments"]
        print(f"-- {block}: {len(exps)} experiment(s): "
              + "; ".join(f"{e['profile']} {e['duration']:.3g} s at {e['v_max']:.4g}"
                          + (f", {e['pressure_a'] / 1e5:.4g} bar" if "pressure_a" in e else "") for e in exps))
        print(f"   {b['realisations']} realisations in {b['wall_seconds']:.0f} s "
              f"(generate {b['mean_generate_s']:.3f} s, identify {b['mean_identify_s']:.3f} s each), "
              f"status {b['status']}")
        print(f"   {'param':8} {'truth':>11} {'emp. std':>10} {'95% CI':>21} {'predicted':>10} "
              f"{'ratio':>6} {'ratio CI':>13} {'numpy':>10} {'mean SE':>10} {'cover':>6} {'cover CI':>13} "
              f"{'bias/SEM':>8}")
        for n, p in b["parameters"].items():
            print(f"   {n:8} {p['truth']:11.4g} {p['empirical_std']:10.4g} "
                  f"[{p['empirical_std_ci95'][0]:9.4g},{p['empirical_std_ci95'][1]:9.4g}] "
                  f"{p['predicted_std']:10.4g} {p['ratio']:6.3f} "
                  f"[{p['ratio_ci95'][0]:5.3f},{p['ratio_ci95'][1]:5.3f}] {p['fisher_check_std']:10.4g} "
                  f"{p['mean_reported_std_error']:10.4g} {100 * p['coverage']:5.1f}% "
                  f"[{100 * p['coverage_ci95'][0]:4.1f},{100 * p['coverage_ci95'][1]:4.1f}]% "
                  f"{p['bias_in_se_of_mean']:8.2f}")
    s = res["shrink"]
    print(f"-- shrink: worst relative std reference ({s['worst_reference']}) / design ({s['worst_design']}) "
          f"= {s['worst_over_worst']:.2f}x; of {s['worst_reference']} alone {s['of_reference_worst']:.2f}x; "
          f"design predicted {res['predicted_worst_rse_ratio']}")


def goals(res):
    """Which of the issue's goals this case meets."""
    g = {}
    for block in ("design", "reference"):
        ps = res[block]["parameters"].values()
        g[f"{block}_std_within_10pct"] = all(0.9 <= p["ratio"] <= 1.1 for p in ps)
        g[f"{block}_coverage_93_97"] = all(0.93 <= p["coverage"] <= 0.97 for p in ps)
    g["shrink_at_least_3x"] = res["shrink"]["worst_over_worst"] >= 3.0
    return g


def combine(paths):
    """Pools the realisations of several runs (disjoint seeds) per case, test
    and parameter: the standard deviation from the runs' means and spreads,
    the coverage from their counts."""
    runs = [json.load(open(p)) for p in paths]
    for case in runs[0]["cases"]:
        print(f"== {case['case']} pooled over {len(runs)} runs")
        worst_rel = {}
        for block in ("design", "reference"):
            for name, p0 in case[block]["parameters"].items():
                ps = [next(c for c in r["cases"] if c["case"] == case["case"])[block]["parameters"][name]
                      for r in runs]
                n = sum(p["n"] for p in ps)
                mean = sum(p["n"] * p["mean"] for p in ps) / n
                ss = sum((p["n"] - 1) * p["empirical_std"] ** 2 + p["n"] * (p["mean"] - mean) ** 2 for p in ps)
                s = math.sqrt(ss / (n - 1))
                lo, hi = std_interval(s, n)
                covered = round(sum(p["coverage"] * p["n"] for p in ps))
                clo, chi = clopper_pearson(covered, n)
                pred = p0["predicted_std"]
                if any(p["predicted_std"] != pred for p in ps):
                    raise SystemExit(f"{case['case']} {block}: the runs designed different tests")
                worst_rel[block] = max(worst_rel.get(block, 0.0), s / abs(p0["truth"]))
                print(f"   {block:9} {name:6} n {n:5} emp. std {s:10.4g} predicted {pred:10.4g} "
                      f"ratio {pred / s:.3f} [{pred / hi:.3f},{pred / lo:.3f}] "
                      f"cover {100 * covered / n:.1f}% [{100 * clo:.1f},{100 * chi:.1f}]% "
                      f"bias {(mean - p0['truth']) / (s / math.sqrt(n)):.2f} SEM")
        print(f"   shrink of the worst relative std, reference / design: "
              f"{worst_rel['reference'] / worst_rel['design']:.2f}x")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--combine":
        combine(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stribeck", required=True)
    ap.add_argument("--cases", default="cylinder,servo")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("--work", help="keep the designs here (default: a temporary directory)")
    ap.add_argument("--profiles", help="design's --profiles (default: design's own default)")
    ap.add_argument("--design", action="append", default=[], metavar="CASE=DESIGN.toml",
                    help="run this test in place of `stribeck design`'s for CASE (predicted by NumPy)")
    args = ap.parse_args()
    args.designs = dict(d.split("=", 1) for d in args.design)
    workdir = args.work or tempfile.mkdtemp(prefix="design_mc_")
    os.makedirs(workdir, exist_ok=True)
    try:
        results = []
        for case in args.cases.split(","):
            res = run_case(args, case, workdir)
            res["goals"] = goals(res)
            print_case(res)
            print(f"-- goals: {res['goals']}")
            results.append(res)
            sys.stdout.flush()
        if args.json:
            with open(args.json + ".tmp", "w") as f:
                json.dump({"n": args.n, "jobs": args.jobs, "cases": results}, f, indent=1)
            os.replace(args.json + ".tmp", args.json)
    finally:
        if not args.work:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
