"""stribeck.sweep and stribeck.simulate against the CLI's HDF5 results (CTest Python.ModuleTests).

The reference is the results file `stribeck sweep` / `stribeck simulate` write for the same
config, read with h5py: every column must be equal bit for bit (NaN included), with the file's
dtype and `units`. Messages of bad configs must be the CLI's line.
"""
import os
import pathlib
import signal
import subprocess
import threading
import time

import h5py
import numpy as np
import pytest

import stribeck

CLI = os.environ.get("STRIBECK_CLI", "stribeck")

SWEEP = """
model = "simscape-translational"

[design]
type = "sobol"
points = 777
seed = 7

[params]
F_brk = { uniform = [10.0, 60.0] }
F_C   = { uniform = [5.0, 40.0] }
v_brk = { loguniform = [1e-3, 1e-1] }
f_v   = { normal = [100.0, 30.0], truncate = [0.0, 300.0] }

[[trace]]
profile = "sine"
name = "slow"
amplitude = 0.2
frequency = 0.5
duration = 4.0
samples = 1000
reference = { F_brk = 31.5, F_C = 20.25, v_brk = 0.02, f_v = 150 }
noise = 0.3

[[trace]]
profile = "sine"
name = "fast"
amplitude = 0.05
frequency = 3.0
duration = 1.0
samples = 333
reference = { F_brk = 31.5, F_C = 20.25, v_brk = 0.02, f_v = 150 }

[metrics]
keep = ["rmse", "peak_force", "energy", "loop_area", "max_abs_error"]
per_experiment = true
top_k = 4

[run]
device = "cpu"
chunk = 100
"""

ENSEMBLE = """
[system]
mass = 1.0
drive_velocity = 0.1

[friction]
model = "lugre"

[simulation]
t_end = 10.0
dt = 1e-3

[ensemble]
design = "grid"
device = "cpu"
[ensemble.params]
stiffness = "log:1:100:5"
drive_velocity = "linear:0.005:0.3:3"
F_s = "list:1.5,0.5"
"""

SINGLE = """
[system]
mass = 1.0
stiffness = 2.0
drive_velocity = 0.1
friction_on = "ground"

[friction]
model = "lugre"
[friction.params]
sigma0 = 1e5
sigma1 = 316.2
sigma2 = 0.4
F_C = 1.0
F_s = 1.5
v_s = 0.001

[simulation]
t_end = 40.0
dt = 1e-3
"""


def run_cli(args, cwd):
    r = subprocess.run([CLI] + args, capture_output=True, text=True, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r


def cli_error(args, cwd):
    r = subprocess.run([CLI] + args, capture_output=True, text=True, cwd=cwd)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("stribeck: error: ")
    return r.stderr[len("stribeck: error: "):].strip()


def units_of(ds):
    u = ds.attrs["units"]
    return u.decode() if isinstance(u, bytes) else str(u)


def attr_text(obj, name):
    """A string attribute as text (h5py gives fixed-length strings as bytes)."""
    v = obj.attrs[name]
    return v.decode() if isinstance(v, bytes) else str(v)


def same_bits(got, want, name):
    """Equal dtype and bytes: bit for bit, NaN payloads included."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert got.tobytes() == want.tobytes(), name


def test_sweep_equals_the_cli_file_bit_for_bit(tmp_path):
    cfg = tmp_path / "sweep.toml"
    cfg.write_text(SWEEP)
    run_cli(["sweep", str(cfg), "-o", "out.h5", "-q"], tmp_path)
    table = stribeck.sweep(str(cfg), frame=False)
    assert isinstance(table, stribeck.Columns)
    with h5py.File(tmp_path / "out.h5", "r") as f:
        g = f["sweep"]
        names = attr_text(g, "parameters").split(",")
        metrics = attr_text(g, "metrics").split(",")
        exps = [e.decode() for e in g["experiment"][()]]
        assert exps == ["slow", "fast"]
        want = ["point"] + names + metrics + [f"{e}/{m}" for e in exps for m in metrics] + ["status"]
        assert list(table) == want
        same_bits(table["point"], g["point"][()], "point")
        same_bits(table["status"], g["status"][()], "status")
        assert table.attrs["units"]["status"] == units_of(g["status"])
        for n in names:
            same_bits(table[n], g[n][()], n)
            assert table.attrs["units"][n] == units_of(g[n])
        for m in metrics:
            same_bits(table[m], g[m][()], m)
            assert table.attrs["units"][m] == units_of(g[m])
            for k, e in enumerate(exps):
                same_bits(table[f"{e}/{m}"], g[f"{m}_by_experiment"][:, k], f"{e}/{m}")
        top = [int(i) for i in g["top_k"]["index"][()]]
    assert table.attrs["summary"]["top"] == top
    # The run is not trivial: invalid points (F_brk < F_C) are NaN with status 4, the rest finite.
    st = table["status"]
    assert 0 < np.count_nonzero(st == 4) < st.size and set(np.unique(st)) <= {0, 4}
    assert np.all(np.isnan(table["rmse"][st == 4])) and np.all(np.isfinite(table["rmse"][st == 0]))
    assert table.attrs["summary"]["invalid"] == np.count_nonzero(st == 4)
    # Text and pathlib configs run the same sweep.
    same = stribeck.sweep(SWEEP, frame=False)
    by_path = stribeck.sweep(pathlib.Path(cfg), frame=False, chunk=7)
    for k in table:
        same_bits(same[k], table[k], k)
        same_bits(by_path[k], table[k], k)


def test_sweep_fp32_and_single_trace_equal_the_cli(tmp_path):
    cfg = tmp_path / "grid.toml"
    cfg.write_text("""
model = "simscape-cylinder"
[params]
K_brk = { linear = [1.0, 3.0], count = 5 }
c_v = { log = [1.0, 1000.0], count = 7 }
[[trace]]
profile = "sine"
samples = 500
p_a = 5e6
p_b = 1e6
""")
    run_cli(["sweep", str(cfg), "-o", "g.h5", "--precision", "fp32", "--device", "cpu", "-q"], tmp_path)
    table = stribeck.sweep(str(cfg), precision="fp32", device="cpu", frame=False)
    with h5py.File(tmp_path / "g.h5", "r") as f:
        g = f["sweep"]
        assert table["point"].size == 35 == g["point"].size
        for n in attr_text(g, "parameters").split(",") + attr_text(g, "metrics").split(","):
            same_bits(table[n], g[n][()], n)
        same_bits(table["status"], g["status"][()], "status")
    # Without a measured force the error metrics are NaN; the force-only ones are not.
    assert np.all(np.isnan(table["rmse"])) and np.all(table["energy"] > 0)
    assert table.attrs["summary"]["precision"] == "fp32"


def test_ensemble_equals_the_cli_file_bit_for_bit(tmp_path):
    cfg = tmp_path / "ens.toml"
    cfg.write_text(ENSEMBLE)
    run_cli(["simulate", str(cfg), "-o", "ens.h5", "-q"], tmp_path)
    table = stribeck.simulate(str(cfg), frame=False)
    with h5py.File(tmp_path / "ens.h5", "r") as f:
        g = f["ensemble"]
        names = g.attrs["names"]
        labels = (names.decode() if isinstance(names, bytes) else names).split(",")
        assert sorted(labels) == ["F_s", "drive_velocity", "stiffness"]
        assert list(table)[1:4] == labels  # the file's coordinate order
        assert table["point"].size == 30
        same_bits(table["point"], g["point"][()], "point")
        for n in labels:  # one column per coordinate, with the table's units and long name
            same_bits(table[n], g[n][()], n)
            assert table.attrs["units"][n] == units_of(g[n]), n
            assert table.attrs["long_name"][n] == attr_text(g[n], "long_name"), n
        metric_names = [k for k in g if k not in labels and k != "point"]
        assert set(metric_names) <= set(table)
        for m in metric_names:
            same_bits(table[m], g[m][()], m)
            assert table.attrs["units"][m] == units_of(g[m]), m
    assert table["stiffness"].dtype == np.float64 and table["steps"].dtype == np.int64
    # Not a trivial map: some points stick-slip, some slide.
    assert 0 < table["stick_slip"].sum() < table["stick_slip"].size
    assert table.attrs["summary"]["stick_slip"] == table["stick_slip"].sum()


def test_single_simulation_equals_the_cli_file(tmp_path):
    cfg = tmp_path / "one.toml"
    cfg.write_text(SINGLE)
    run_cli(["simulate", str(cfg), "-o", "one.h5", "-q"], tmp_path)
    table = stribeck.simulate(SINGLE, frame=False)
    with h5py.File(tmp_path / "one.h5", "r") as f:
        g = f["simulation"]
        assert set(table) == set(g)
        for k in g:
            same_bits(table[k], g[k][()], k)
            assert table.attrs["units"][k] == units_of(g[k]), k
        res = f["results"]["metrics"]
        for k, v in table.attrs["metrics"].items():
            assert float(np.asarray(res[k][()]).ravel()[0]) == v or (np.isnan(v)), k
    assert table.attrs["kind"] == "simulation" and table.attrs["status"] == "ok"
    assert table.attrs["metrics"]["stick_slip"] == 1  # the Canudas de Wit rig sticks and slips
    assert table["time"][0] == 0.0 and table["time"][-1] == pytest.approx(40.0)


def test_dataframe_when_pandas_is_there():
    pd = pytest.importorskip("pandas")  # scripts/install-deps.sh installs python3-pandas
    df = stribeck.simulate(ENSEMBLE)
    assert isinstance(df, pd.DataFrame)
    cols = stribeck.simulate(ENSEMBLE, frame=False)
    assert list(df.columns) == list(cols)
    for k in cols:
        same_bits(df[k].to_numpy(), cols[k], k)
    assert df.attrs["units"]["stiffness"] == "N/m" and df.attrs["units"]["amp_velocity"] == "m/s"
    s = stribeck.sweep(SWEEP, frame=True)
    assert isinstance(s, pd.DataFrame) and len(s) == 777
    assert s.attrs["summary"]["model"] == "simscape-translational"


def test_bad_configs_raise_value_error_with_the_cli_message(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(SWEEP.replace('type = "sobol"', 'type = "sobel"'))
    want = cli_error(["sweep", str(bad)], tmp_path)
    with pytest.raises(ValueError) as e:
        stribeck.sweep(str(bad))
    assert str(e.value) == want
    bad.write_text(ENSEMBLE.replace("mass = 1.0", "mass = -1.0"))
    want = cli_error(["simulate", str(bad), "-o", "x.h5"], tmp_path)
    with pytest.raises(ValueError) as e:
        stribeck.simulate(str(bad))
    assert str(e.value) == want
    bad.write_text(SINGLE.replace('model = "lugre"', 'model = "lugra"'))
    want = cli_error(["simulate", str(bad), "-o", "x.h5"], tmp_path)
    with pytest.raises(ValueError) as e:
        stribeck.simulate(str(bad))
    assert str(e.value) == want
    missing = str(tmp_path / "missing.toml")
    with pytest.raises(FileNotFoundError) as e:  # as open() raises it
        stribeck.sweep(missing)
    assert e.value.filename == missing
    # Text configs are named <config> in messages.
    with pytest.raises(ValueError, match=r"^<config>:"):
        stribeck.simulate(SINGLE.replace("dt = 1e-3", "dt = -1.0"))
    with pytest.raises(ValueError, match="applies to ensembles"):
        stribeck.simulate(SINGLE, precision="fp32")
    with pytest.raises(TypeError):
        stribeck.sweep(42)
    # No file is written for a config that names one; trajectories, which only shape that file,
    # are ignored as it is.
    t = stribeck.sweep(SWEEP.replace("points = 777", "points = 16") + '\n[output]\nfile = "never.h5"\ntrajectories = [1]\n',
                       frame=False)
    assert len(t["point"]) == 16
    assert not os.path.exists("never.h5") and not os.path.exists("never.h5.partial")


def interrupted_after(seconds, call):
    """Runs call() with SIGALRM due after `seconds`; its Python handler raises, as Ctrl-C's
    KeyboardInterrupt does. Returns (seconds until the call raised, ticks of another thread)."""
    class Stop(Exception):
        pass

    def handler(signum, frame):
        raise Stop()

    ticks = []
    stop_ticks = threading.Event()

    def tick():
        while not stop_ticks.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.01)

    th = threading.Thread(target=tick)
    old = signal.signal(signal.SIGALRM, handler)
    try:
        th.start()
        signal.setitimer(signal.ITIMER_REAL, seconds)
        t0 = time.perf_counter()
        with pytest.raises(Stop):
            call()
        return time.perf_counter() - t0, len(ticks)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        stop_ticks.set()
        th.join()


def test_a_long_ensemble_releases_the_gil_and_can_be_interrupted():
    # 12,000 points of 2e4 RK4 steps: a minute or more on two cores.
    long_cfg = ENSEMBLE.replace("t_end = 10.0", "t_end = 20.0").replace("1:100:5", "1:100:2000")
    elapsed, ticks = interrupted_after(0.5, lambda: stribeck.simulate(long_cfg))
    assert elapsed < 15
    assert ticks > 10  # the other thread ran while the points ran


def test_a_long_sweep_can_be_interrupted():
    cfg = SWEEP.replace("points = 777", "points = 1000000").replace("chunk = 100", "chunk = 4096")
    cfg = cfg.replace('keep = ["rmse", "peak_force", "energy", "loop_area", "max_abs_error"]', 'keep = ["rmse"]')
    cfg = cfg.replace("per_experiment = true", "per_experiment = false")
    elapsed, ticks = interrupted_after(0.3, lambda: stribeck.sweep(cfg))
    assert elapsed < 15 and ticks > 5
    assert stribeck.sweep(SWEEP.replace("points = 777", "points = 8"), frame=False)["point"].size == 8
