"""Checks of Report.EveryKindDrawsInHeadlessChromium against the data: the
tick labels the pages drew (kept on each chart's element by the page script:
data-ticks-x/y/z, data-range-x/y/z, data-log-x/y), the units on every axis,
the colour bars, and the Stribeck curve of the fitted law against
`stribeck eval` of the same parameters at the experiment's pressures.

  check_ticks.py STRIBECK DIR   (DIR: make_results.sh's files, *.html.dom)
"""
import json
import math
import re
import subprocess
import sys

import h5py
import numpy as np

exe, d = sys.argv[1], sys.argv[2]
failures = []


def fail(msg):
    failures.append(msg)


def page(kind):
    dom = open(f"{d}/{kind}.html.dom", encoding="utf-8").read()
    figs = {f["id"]: f for f in json.loads(re.search(r'id="report-data">(.*?)</script>', dom, re.S).group(1))}
    attrs = {}
    for m in re.finditer(r'<div class="fig"([^>]*)>', dom):
        a = dict((k, v.replace("&quot;", '"')) for k, v in re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))
        attrs[a["id"]] = a
    return figs, attrs


def ticks(a, key):
    return json.loads(a.get(f"data-ticks-{key}", "null") or "null")


def data_values(fig, key):
    if fig["kind"] == "heatmap":
        return [v for v in fig["heat"]["z"] if v is not None] if key == "z" else []
    return [v for s in fig["series"] for v in s[key] if v is not None]


COUNTS = ("samples", "points", "lag [samples]")
for kind in ("ident", "sweep", "sim", "ens", "batch"):
    figs, attrs = page(kind)
    for fid, fig in figs.items():
        a = attrs[fid]
        where = f"{kind}.html {fid}"
        for key in ("x", "y", "z") if fig["kind"] == "heatmap" else ("x", "y"):
            t = ticks(a, key)
            if t is None:
                fail(f"{where}: no {key} ticks recorded")
                continue
            if len(t) < 2 and not (key == "z" and len(set(data_values(fig, "z"))) == 1):
                fail(f"{where}: {key} axis has {len(t)} ticks: {t}")
            if len(set(t)) != len(t):
                fail(f"{where}: {key} tick labels repeat: {t}")
            lo, hi = json.loads(a[f"data-range-{key}"])
            vals = [float(x) for x in t]
            span = hi - lo
            if any(v < lo - 1e-9 * abs(span) or v > hi + 1e-9 * abs(span) for v in vals):
                fail(f"{where}: {key} ticks {t} outside the axis range [{lo}, {hi}]")
            data = data_values(fig, key)
            # No tick reads "0" on an axis whose data are all on one side of zero
            # and whose range does not reach zero.
            if "0" in t and data and (lo > 0 or hi < 0):
                fail(f"{where}: {key} tick '0' on an axis from {lo} to {hi}")
            if data and key in ("x", "y") and fig["kind"] != "histogram":
                if lo > min(data) * (1 + 1e-6) - 1e-300 or hi < max(data) * (1 - 1e-6):
                    if not (lo <= min(data) + 1e-9 * abs(span) and hi >= max(data) - 1e-9 * abs(span)):
                        fail(f"{where}: {key} range [{lo}, {hi}] does not hold the data [{min(data)}, {max(data)}]")
            if a.get(f"data-log-{key}") == "1":
                if not all(abs(math.log10(v) - round(math.log10(v))) < 1e-9 for v in vals):
                    fail(f"{where}: log {key} axis without decade ticks: {t}")
        for lab in (fig["x"], fig["y"]):
            if "[" not in lab and lab not in COUNTS:
                fail(f"{where}: axis '{lab}' has no unit")
        if fig["kind"] == "heatmap":
            z = data_values(fig, "z")
            lo, hi = json.loads(a["data-range-z"])
            if not (math.isclose(lo, min(z), rel_tol=1e-6) and math.isclose(hi, max(z), rel_tol=1e-6)):
                fail(f"{where}: the colour bar spans [{lo}, {hi}], the data [{min(z)}, {max(z)}]")
            if "[" not in fig["heat"]["zl"]:
                fail(f"{where}: colour bar '{fig['heat']['zl']}' has no unit")

# The sweep's f_cfr (log grid 1e-7...1e-5): a log axis of decades, never "0".
figs, attrs = page("sweep")
a = attrs["fig-profile-f-cfr"]
if a.get("data-log-x") != "1" or ticks(a, "x") != ["1e-7", "1e-6", "1e-5"]:
    fail(f"sweep f_cfr profile: log {a.get('data-log-x')}, ticks {ticks(a, 'x')}, want decades 1e-7, 1e-6, 1e-5")
a = attrs["fig-map"]
if ticks(a, "x") != ["0", "10", "20", "30", "40", "50", "60"]:
    fail(f"sweep map: F_pr ticks {ticks(a, 'x')}, want 0, 10, ..., 60")
if a.get("data-log-y") != "1" or ticks(a, "y") != ["1e-7", "1e-6", "1e-5"]:
    fail(f"sweep map: f_cfr axis log {a.get('data-log-y')}, ticks {ticks(a, 'y')}")
figs, attrs = page("ens")
a = attrs["fig-map-stick-slip"]
if figs["fig-map-stick-slip"]["y"] != "stiffness [N/m]" or ticks(a, "y") != ["1", "10", "100"]:
    fail(f"ensemble map: y '{figs['fig-map-stick-slip']['y']}', ticks {ticks(a, 'y')}")

# The Stribeck curve: the fitted law at the experiment's mean pressures, as
# `stribeck eval` computes it, and its breakaway on the curve.
figs, attrs = page("ident")
sc = figs.get("fig-stribeck-curve")
if not sc or attrs["fig-stribeck-curve"].get("data-drawn") != "1":
    fail("ident.html: no drawn Stribeck curve (fig-stribeck-curve)")
else:
    with h5py.File(f"{d}/ident.h5", "r") as f:
        fit = json.loads(f["identify_simscape-cylinder/p40bar"].attrs["fit"])
        pa = float(np.mean(f["p40bar/pressure_a"][()]))
        pb = float(np.mean(f["p40bar/pressure_b"][()]))
    law = [s for s in sc["series"] if s["name"].startswith("fitted law") and "p40bar" in s["name"]]
    brk = [s for s in sc["series"] if s["name"].startswith("breakaway") and "p40bar" in s["name"]]
    meas = [s for s in sc["series"] if s["name"].endswith("measured")]
    if len(law) != 1 or len(brk) != 1 or len(meas) != 3:
        fail(f"Stribeck curve series: {[s['name'] for s in sc['series']]}")
    else:
        x, y = np.array(law[0]["x"]), np.array(law[0]["y"])
        pick = [int(np.argmin(abs(x - v))) for v in (-0.15, -1e-3, 3e-4, 0.05, 0.2)]
        with open(f"{d}/curve.csv", "w") as c:
            c.write("velocity,pressure_a,pressure_b\n")
            for i in pick:
                c.write(f"{x[i]!r},{pa!r},{pb!r}\n")
        params = [f"{k}={v['value']!r}" for k, v in fit["parameters"].items() if k != "mass"]
        cmd = [exe, "eval", "-m", fit["model"], "-i", f"{d}/curve.csv", "-o", f"{d}/curve_eval.csv", "-q"]
        for p in params:
            cmd += ["-p", p]
        subprocess.run(cmd, check=True)
        rows = np.genfromtxt(f"{d}/curve_eval.csv", delimiter=",", names=True, comments="#")
        for i, want in zip(pick, rows["model_force"]):
            if not math.isclose(y[i], want, rel_tol=1e-5, abs_tol=1e-9):
                fail(f"Stribeck curve at v = {x[i]}: {y[i]}, stribeck eval {want}")
        # The breakaway: on the curve, the largest force near it, one per side.
        bx, by = brk[0]["x"], brk[0]["y"]
        if sorted(np.sign(bx)) != [-1, 1]:
            fail(f"breakaway points {bx}")
        for v, F in zip(bx, by):
            i = int(np.argmin(abs(x - v)))
            near = y[max(0, i - 3):i + 4]
            if not math.isclose(y[i], F, rel_tol=1e-6) or abs(F) < max(abs(near)) * (1 - 1e-9):
                fail(f"breakaway ({v}, {F}) is not the curve's local peak")
        if not (min(x) <= min(meas[1]["x"]) and max(x) >= max(meas[1]["x"])):
            fail("the curve does not span the measured sliding range")

# The simulation's metrics table names its status once (the word, not also the code).
dom = open(f"{d}/sim.html.dom", encoding="utf-8").read()
if dom.count("<td>status</td>") != 1:
    fail(f"sim.html: the metrics table lists status {dom.count('<td>status</td>')} times")

for m in failures:
    print("check_ticks:", m, file=sys.stderr)
if failures:
    sys.exit(1)
print("check_ticks: tick labels, units, colour bars and the Stribeck curve match the data")
