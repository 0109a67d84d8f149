#!/usr/bin/env python3
"""Every kind of results file Stribeck writes opens with xarray's h5netcdf
engine, group by group, without phony_dims: named dimensions (HDF5 dimension
scales), `units` and `long_name` on every quantity, integer columns stored as
integers, the one uint8 `status` column with its CF flags (docs/data-format.md,
"Results files").

Kinds: a sweep (with per-experiment metrics, trajectories and an invalid
point), a sweep merged from shards, an ensemble (with an invalid point), an
ensemble merged from shards, a batch fit (identify --batch -o) and one merged
from shards; a log (`generate`), `eval`'s results in it, `identify -o`
results (in memory and streamed) and a single `simulate` run. The expected
names and units are written here
from the documentation, not read from Stribeck. identify's groups also carry
typed attributes (rmse float64, converged and held_out int8) and a scalar
variable per parameter with its units.

usage: check_xarray.py STRIBECK
Exit 77 (skipped) when python3-xarray or python3-h5netcdf is missing, unless
STRIBECK_MAKE_TEST is set (make test installs them, so there it fails).
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import xarray as xr
    import h5netcdf  # noqa: F401  (the engine xarray uses)
except ImportError as e:
    if os.environ.get("STRIBECK_MAKE_TEST"):
        print(f"missing {e.name}: install python3-xarray python3-h5netcdf (scripts/install-deps.sh)")
        sys.exit(1)
    print(f"SKIP: {e.name} is not installed (apt-get install python3-xarray python3-h5netcdf)")
    sys.exit(77)

STRIBECK = sys.argv[1]
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def run(*args, cwd):
    p = subprocess.run([STRIBECK, *args], cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        sys.exit(f"stribeck {' '.join(args)} failed with {p.returncode}")


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def open_group(path, group):
    # No phony_dims: a dataset without a dimension scale makes this raise.
    return xr.open_dataset(path, group=group, engine="h5netcdf", decode_timedelta=False)


def quantities(ds, where):
    """Every variable carries units and long_name (labels, strings: long_name)."""
    for name, v in ds.variables.items():
        check("units" in v.attrs or v.dtype.kind in "SUO", f"{where}/{name}: no units")
        check("long_name" in v.attrs, f"{where}/{name}: no long_name")


SWEEP = """
model = "simscape-translational"
[design]
type = "grid"
[params]
F_C = { values = [5.0, 10.0, 30.0] }     # 30 > F_brk = 20: invalid
F_brk = 20.0
v_brk = { log = [1e-3, 1e-1], count = 4 }
[[trace]]
profile = "sine"
name = "slow"
samples = 300
reference = { F_C = 10.0 }
[[trace]]
profile = "sine"
name = "fast"
frequency = 3.0
samples = 200
[metrics]
per_experiment = true
top_k = 4
[output]
trajectories = [0, 5]
"""

ENSEMBLE = """
[system]
mass = 1.0
drive_velocity = 0.1
stiffness = 50.0
[friction]
model = "lugre"
[simulation]
t_end = 0.5
dt = 1e-3
[ensemble]
design = "grid"
[ensemble.params]
mass = "list:-1,1"
drive_velocity = "linear:0.01:0.2:3"
"""

# Parameter units of simscape-translational (docs/models.md).
PARAM_UNITS = {"F_C": "N", "F_brk": "N", "v_brk": "m/s", "f_v": "N/(m/s)"}
METRIC_UNITS = {"sse": "N^2", "rmse": "N", "max_abs_error": "N", "peak_force": "N", "mean_force_pos": "N",
                "mean_force_neg": "N", "energy": "J", "loop_area": "J"}
ENSEMBLE_COLUMNS = {  # name: (dtype kind, units)
    "stick_slip": ("i", "1"), "stick_fraction": ("f", "1"), "amp_spring_force": ("f", "N"),
    "amp_velocity": ("f", "m/s"), "period": ("f", "s"), "breakaway_force": ("f", "N"),
    "peak_velocity": ("f", "m/s"), "dissipated": ("f", "J"), "final_elongation": ("f", "m"),
    "final_velocity": ("f", "m/s"), "final_state": ("f", "m"), "final_mode": ("i", "1"),
    "status": ("u", "1"), "steps": ("i", "1")}


# Every workload's status column: the engine's PointStatus (docs/data-format.md).
STATUS_MEANINGS = "ok non_finite step_limit event_limit invalid"


def check_status(ds, path):
    st = ds["status"]
    check(st.dims == ("point",) and st.dtype == np.uint8, f"{path}: status {st.dims} {st.dtype}")
    check(text(st.attrs.get("flag_meanings", "")) == STATUS_MEANINGS, f"{path}: status flag_meanings")
    check(list(np.atleast_1d(st.attrs.get("flag_values", []))) == [0, 1, 2, 3, 4], f"{path}: status flag_values")


def check_sweep(path, points):
    ds = open_group(path, "sweep")
    quantities(ds, path + ":sweep")
    check_status(ds, path)
    check(np.array_equal(ds["point"].values, np.arange(points)), f"{path}: point scale")
    # invalid points (F_C = 30 > F_brk) have the one PointStatus code 4
    status = ds["status"].values
    check(int((status == 4).sum()) == 4 and int((status == 0).sum()) == 8, f"{path}: status counts {status}")
    for k in ("points", "first", "count", "top_k", "format_version", "count_ok", "count_invalid"):
        check(np.issubdtype(type(ds.attrs[k]), np.integer), f"{path}: attribute {k} is {type(ds.attrs[k])}")
    check(int(ds.attrs["format_version"]) == 3, f"{path}: format_version")
    check(int(ds.attrs["count_ok"]) == 8 and int(ds.attrs["count_invalid"]) == 4, f"{path}: counts by status")
    names = text(ds.attrs["parameters"]).split(",")
    check(names == ["F_brk", "v_brk", "F_C", "f_v"], f"{path}: parameters {names}")
    exps = [text(x) for x in ds["experiment"].values]
    check(exps == ["slow", "fast"] and text(ds.attrs["experiments"]).split("\n") == exps, f"{path}: experiments {exps}")
    for n, u in PARAM_UNITS.items():
        check(ds[n].dims == ("point",) and ds[n].dtype == np.float64, f"{path}: parameter {n}")
        check(text(ds[n].attrs["units"]) == u, f"{path}: parameter {n} units {ds[n].attrs['units']}")
    check(np.allclose(sorted(set(ds["F_C"].values)), [5.0, 10.0, 30.0]), f"{path}: F_C values")
    for n, u in METRIC_UNITS.items():
        check(n in ds and text(ds[n].attrs["units"]) == u, f"{path}: metric {n}")
        check(ds[n].dims == ("point",) and ds[n].dtype == np.float64, f"{path}: metric {n} dims")
        e = ds[n + "_by_experiment"]
        check(e.dims == ("point", "experiment") and text(e.attrs["units"]) == u, f"{path}: {n}_by_experiment")
    # the whole energy is the experiments' energies added (valid points)
    ok = status == 0
    check(np.allclose(ds["energy_by_experiment"].values[ok].sum(axis=1), ds["energy"].values[ok], rtol=1e-12),
          f"{path}: energy_by_experiment does not add up to energy")
    top = open_group(path, "sweep/top_k")
    quantities(top, path + ":sweep/top_k")
    check(top["index"].dims == ("rank",) and top.sizes["rank"] == 4, f"{path}: top_k dims {top['index'].dims}")
    check(np.issubdtype(top["index"].dtype, np.integer), f"{path}: top_k/index dtype")
    check(text(top["v_brk"].attrs["units"]) == "m/s" and top["v_brk"].dims == ("rank",), f"{path}: top_k/v_brk")
    best = int(top["index"].values[0])
    check(top["rmse"].values[0] == ds["rmse"].values[best] == ds["rmse"].values[ok].min(), f"{path}: top_k best")
    for idx in ("0", "5"):
        for e in exps:
            tr = open_group(path, f"sweep/trajectories/{idx}/{e}")
            quantities(tr, f"{path}:sweep/trajectories/{idx}/{e}")
            check(tr["force"].dims == ("sample",) and text(tr["force"].attrs["units"]) == "N",
                  f"{path}: trajectory {idx}/{e}")
            check(tr.sizes["sample"] == (300 if e == "slow" else 200), f"{path}: trajectory {idx}/{e} samples")
            check(float(tr.attrs["F_C"]) == float(ds["F_C"].values[int(idx)]), f"{path}: trajectory {idx} F_C")
    return ds, top


def check_columns(ds, path, columns):
    """Each column of `columns` (name: (dtype kind, units)) lies along `point`."""
    for n, (kind, u) in columns.items():
        check(n in ds, f"{path}: no column {n}")
        if n not in ds:
            continue
        check(ds[n].dtype.kind == kind, f"{path}: {n} dtype {ds[n].dtype}")
        check(text(ds[n].attrs["units"]) == u, f"{path}: {n} units {ds[n].attrs['units']}")
        check(ds[n].dims == ("point",), f"{path}: {n} dims {ds[n].dims}")


def check_ensemble(path, points):
    ds = open_group(path, "ensemble")
    quantities(ds, path + ":ensemble")
    # One variable per coordinate along `point` with its units, as a sweep's parameters
    # (format_version 2; version 1 had a 2-D `points(point, coordinate)` and `units_of_each`).
    check(int(ds.attrs.get("format_version", 1)) == 2, f"{path}: format_version")
    check("points" not in ds and "coordinate" not in ds.dims, f"{path}: a 2-D points table {list(ds.variables)}")
    names = text(ds.attrs["names"]).split(",")
    check(sorted(names) == ["drive_velocity", "mass"], f"{path}: coordinate names {names}")
    check_columns(ds, path, {"mass": ("f", "kg"), "drive_velocity": ("f", "m/s")})
    for n in names:
        check(n in ds and text(ds[n].attrs.get("long_name", "")) == "system quantity " + n, f"{path}: {n} long_name")
    for k in ("points", "first", "count", "shard_index", "shard_count", "format_version"):
        check(np.issubdtype(type(ds.attrs.get(k)), np.integer), f"{path}: attribute {k} is {type(ds.attrs.get(k))}")
    check(np.array_equal(ds["point"].values, np.arange(points)), f"{path}: point scale")
    check_columns(ds, path, ENSEMBLE_COLUMNS)
    check_status(ds, path)
    check(ds["steps"].dtype == np.int64, f"{path}: steps is {ds['steps'].dtype}")
    # mass = -1: invalid (4), not simulated (0 steps); mass = 1: ok, simulated (>= t_end / dt steps)
    mass = ds["mass"].values
    check(np.all(ds["status"].values[mass < 0] == 4), f"{path}: invalid status {ds['status'].values}")
    check(np.all(ds["status"].values[mass > 0] == 0), f"{path}: ok status {ds['status'].values}")
    check(np.all(ds["steps"].values[mass > 0] >= 500) and np.all(ds["steps"].values[mass < 0] == 0),
          f"{path}: steps {ds['steps'].values}")
    # Selected by coordinate values, as xarray users do: an index over the coordinates.
    sel = ds.set_coords(names).set_xindex(names).sel(mass=1.0)
    check(sel["status"].size == 3 and np.all(sel["status"].values == 0), f"{path}: sel(mass=1) {dict(sel.sizes)}")
    return ds


# identify --batch -o: group batch_fit (docs/data-format.md, "Batch-fit results").
BATCH_COLUMNS = {  # name: (dtype kind, units)
    "status": ("u", "1"), "fit_status": ("u", "1"), "warnings": ("i", "1"), "log": ("i", "1"), "experiment": ("i", "1"),
    "samples": ("i", "1"), "iterations": ("i", "1"), "starts": ("i", "1"), "cost": ("f", "N^2"),
    "rmse": ("f", "N"), "r_squared": ("f", "1"), "seconds": ("f", "s")}
for _n, _u in PARAM_UNITS.items():  # named as identify's results groups name them
    for _k in ("", "_std_error", "_ci95_lo", "_ci95_hi"):
        BATCH_COLUMNS["param_" + _n + _k] = ("f", _u)
BATCH_COLUMNS.update({"mean_pressure_a": ("f", "Pa"), "mean_pressure_b": ("f", "Pa"), "mean_normal_force": ("f", "N")})


def check_batch_fit(path, fits):
    ds = open_group(path, "batch_fit")
    quantities(ds, path + ":batch_fit")
    check(np.array_equal(ds["point"].values, np.arange(fits)), f"{path}: point scale")
    check_columns(ds, path, BATCH_COLUMNS)
    check_status(ds, path)
    fs = ds["fit_status"]
    check(text(fs.attrs.get("flag_meanings", "")) == "converged max_iterations singular failed bad_data",
          f"{path}: fit_status flag_meanings")
    check(text(ds.attrs["parameters"]).split(",") == ["F_brk", "v_brk", "F_C", "f_v"],
          f"{path}: parameters {ds.attrs['parameters']}")
    # the generator's defaults (docs/models.md: F_C 20 N, F_brk 25 N) recovered, every fit converged
    check(np.all(ds["status"].values == 0) and np.all(ds["fit_status"].values == 0), f"{path}: status")
    check(np.allclose(ds["param_F_C"].values, 20.0, rtol=0.05), f"{path}: F_C {ds['param_F_C'].values}")
    check(np.allclose(ds["param_F_brk"].values, 25.0, rtol=0.05), f"{path}: F_brk {ds['param_F_brk'].values}")
    check(np.all(ds["param_F_C_ci95_lo"].values < ds["param_F_C"].values) and
          np.all(ds["param_F_C"].values < ds["param_F_C_ci95_hi"].values), f"{path}: F_C intervals")
    # each fit's experiment, as str (not bytes) for xarray and pandas, and where it was run
    names = ["p1bar", "p2bar", "p3bar", "p4bar"][:fits]
    check(ds["experiment_name"].dims == ("point",) and list(ds["experiment_name"].values) == names and
          all(isinstance(x, str) for x in ds["experiment_name"].values), f"{path}: names {ds['experiment_name'].values}")
    check(ds.to_dataframe()["experiment_name"].tolist() == names, f"{path}: names in pandas")
    check(np.allclose(ds["mean_pressure_a"].values, [1e5, 2e5, 3e5, 4e5][:fits]),
          f"{path}: mean_pressure_a {ds['mean_pressure_a'].values}")
    check(np.array_equal(ds["experiment"].values, np.arange(fits)), f"{path}: experiment {ds['experiment'].values}")
    return ds


# Schema channels of a translational log and their units (docs/data-format.md).
LOG_UNITS = {"time": "s", "position": "m", "velocity": "m/s", "acceleration": "m/s^2", "force": "N"}


def check_log_group(path, group, n):
    """An experiment: channels over the `time` coordinate, units and long_name."""
    ds = open_group(path, group)
    quantities(ds, f"{path}:{group}")
    check(ds.sizes.get("time") == n, f"{path}:{group}: time dimension {dict(ds.sizes)}")
    for c, u in LOG_UNITS.items():
        check(c in ds and text(ds[c].attrs["units"]) == u and ds[c].dims == ("time",), f"{path}:{group}: {c}")
    check(np.all(np.diff(ds["time"].values) > 0), f"{path}:{group}: time coordinate")
    return ds


def check_results_group(path, group, names, n):
    """Results beside a log: 1-D datasets over `sample` (no coordinate values)."""
    ds = open_group(path, group)
    quantities(ds, f"{path}:{group}")
    for v in names:
        check(v in ds and ds[v].dims == ("sample",) and text(ds[v].attrs["units"]) == "N", f"{path}:{group}: {v}")
    check(ds.sizes.get("sample") == n, f"{path}:{group}: sample dimension {dict(ds.sizes)}")
    check("sample" not in ds.variables, f"{path}:{group}: the bare dimension has values")
    return ds


with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "sweep.toml"), "w") as f:
        f.write(SWEEP)
    with open(os.path.join(d, "ens.toml"), "w") as f:
        f.write(ENSEMBLE)
    run("sweep", "sweep.toml", "-o", "sweep.h5", "--device", "cpu", "--quiet", cwd=d)
    run("sweep", "sweep.toml", "-o", "s0.h5", "--shard", "0/2", "--device", "cpu", "--quiet", cwd=d)
    run("sweep", "sweep.toml", "-o", "s1.h5", "--shard", "1/2", "--device", "cpu", "--quiet", cwd=d)
    run("merge", "s1.h5", "s0.h5", "-o", "sweep_merged.h5", cwd=d)
    run("simulate", "ens.toml", "-o", "ens.h5", "--device", "cpu", cwd=d)
    run("simulate", "ens.toml", "-o", "e0.h5", "--shard", "0/2", "--device", "cpu", cwd=d)
    run("simulate", "ens.toml", "-o", "e1.h5", "--shard", "1/2", "--device", "cpu", cwd=d)
    run("merge", "e0.h5", "e1.h5", "-o", "ens_merged.h5", cwd=d)

    run("generate", "-m", "simscape-translational", "--profile", "triangle", "--duration", "2", "--rate", "500",
        "--pressure-levels", "1bar,2bar,3bar,4bar", "--noise", "force=0.1", "-o", "line.h5", "--quiet", cwd=d)
    fit = ["identify", "line.h5", "--batch", "-m", "simscape-translational", "--quiet", "--threads", "2"]
    run(*fit, "-o", "fits.h5", cwd=d)
    run(*fit, "--shard", "0/2", "-o", "f0.h5", cwd=d)
    run(*fit, "--shard", "1/2", "-o", "f1.h5", cwd=d)
    run("merge", "f1.h5", "f0.h5", "-o", "fits_merged.h5", cwd=d)

    one = check_sweep(os.path.join(d, "sweep.h5"), 12)
    merged = check_sweep(os.path.join(d, "sweep_merged.h5"), 12)
    for a, b in zip(one, merged):
        for n in a.variables:
            check(np.array_equal(a[n].values, b[n].values, equal_nan=a[n].dtype.kind == "f"),
                  f"merged sweep differs in {n}")
    # a shard's point scale counts from its first point
    s1 = open_group(os.path.join(d, "s1.h5"), "sweep")
    check(np.array_equal(s1["point"].values, np.arange(6, 12)), "shard 1/2 point scale")
    e = check_ensemble(os.path.join(d, "ens.h5"), 6)
    em = check_ensemble(os.path.join(d, "ens_merged.h5"), 6)
    for n in e.variables:
        check(np.array_equal(e[n].values, em[n].values, equal_nan=e[n].dtype.kind == "f"),
              f"merged ensemble differs in {n}")
    e1 = open_group(os.path.join(d, "e1.h5"), "ensemble")
    check(np.array_equal(e1["point"].values, np.arange(3, 6)), "ensemble shard 1/2 point scale")
    b = check_batch_fit(os.path.join(d, "fits.h5"), 4)
    bm = check_batch_fit(os.path.join(d, "fits_merged.h5"), 4)
    for n in b.variables:
        if n != "seconds":  # wall-clock time: the one column that differs between runs
            check(np.array_equal(b[n].values, bm[n].values, equal_nan=b[n].dtype.kind == "f"),
                  f"merged batch fit differs in {n}")
    f1 = open_group(os.path.join(d, "f1.h5"), "batch_fit")
    check(np.array_equal(f1["point"].values, np.arange(2, 4)), "batch-fit shard 1/2 point scale")
    # A log, eval's and identify's results beside it, and one simulation.
    run("generate", "--model", "simscape-translational", "--profile", "triangle", "--duration", "2", "--rate",
        "200", "--seed", "1", "-o", "log.h5", "-q", cwd=d)
    log = os.path.join(d, "log.h5")
    measured = check_log_group(log, "run", 401)
    run("eval", "-m", "simscape-translational", "-i", "log.h5", "-o", "eval.h5", "-q", cwd=d)
    ev = check_results_group(os.path.join(d, "eval.h5"), "eval/simscape-translational", ["model_force"], 401)
    check_log_group(os.path.join(d, "eval.h5"), "run", 401)
    check(np.all(np.isfinite(ev["model_force"].values)), "eval: model_force values")
    for stream in ("never", "always"):
        out = f"fit_{stream}.h5"
        run("identify", "log.h5", "-m", "simscape-translational", "--stream", stream, "-o", out, "-q", cwd=d)
        fit = check_results_group(os.path.join(d, out), "identify_simscape-translational/run",
                                  ["fitted_force", "residual"], 401)
        # residual = measured - fitted, sample by sample (the alignment the dimension claims)
        check(np.allclose(fit["residual"].values, measured["force"].values - fit["fitted_force"].values,
                          rtol=0, atol=1e-9), f"identify --stream {stream}: residual is not measured - fitted")
        # numbers as numbers, flags as integers, each parameter a variable with units
        check(isinstance(fit.attrs["rmse"], np.floating) and fit.attrs["rmse"] >= 0, f"identify --stream {stream}: rmse")
        for flag in ("converged", "held_out"):
            check(np.asarray(fit.attrs[flag]).dtype == np.int8, f"identify --stream {stream}: {flag} is not int8")
        for n, u in PARAM_UNITS.items():
            for k in ("", "_std_error", "_ci95_lo", "_ci95_hi"):
                v = fit.get(f"param_{n}{k}")
                check(v is not None and v.dims == () and text(v.attrs.get("units")) == u,
                      f"identify --stream {stream}: param_{n}{k}")
    # A position-only log fitted after parallel filtering: the kept samples lie along their own
    # `time` coordinate, which is the log's time at their `sample_index`.
    run("generate", "--model", "coulomb-viscous", "--profile", "multisine", "--duration", "4", "--rate", "200",
        "--mass", "2", "--omit", "velocity,acceleration", "--seed", "1", "-o", "pos.h5", "-q", cwd=d)
    run("identify", "pos.h5", "-m", "coulomb-viscous", "--inertia", "-o", "filtered.h5", "-q", cwd=d)
    fl = open_group(os.path.join(d, "filtered.h5"), "identify_coulomb-viscous/run")
    quantities(fl, "filtered.h5:identify_coulomb-viscous/run")
    pos = open_group(os.path.join(d, "pos.h5"), "run")
    for v in ("fitted_force", "residual", "sample_index", "velocity"):
        check(v in fl and fl[v].dims == ("time",), f"filtered fit: {v} along time")
    rows = fl["sample_index"].values.astype(int)
    check(np.array_equal(fl["time"].values, pos["time"].values[rows]), "filtered fit: time is the log's at sample_index")
    with open(os.path.join(d, "sim.toml"), "w") as f:
        f.write(ENSEMBLE.split("[ensemble]")[0])
    run("simulate", "sim.toml", "-o", "sim.h5", "-q", cwd=d)
    sim = open_group(os.path.join(d, "sim.h5"), "simulation")
    quantities(sim, "sim.h5:simulation")
    check(sim.sizes.get("time") == 501 and text(sim["friction_force"].attrs["units"]) == "N", "simulate: channels")
    sm = open_group(os.path.join(d, "sim.h5"), "results/metrics")
    quantities(sm, "sim.h5:results/metrics")
    for n, (_, u) in ENSEMBLE_COLUMNS.items():
        check(n in sm and text(sm[n].attrs["units"]) == u and sm[n].dims == (), f"simulate: metric {n}")

if FAILS:
    print(f"{len(FAILS)} checks failed")
    sys.exit(1)
print("every results file kind opens with xarray (h5netcdf): dimensions, units, dtypes as documented")
