"""Tests of the `stribeck` Python module (run by CTest: Python.ModuleTests).

Golden values are the published equations written here in NumPy (Simscape's
Translational Friction, the Coulomb + viscous law), not the module's code;
the CLI (STRIBECK_CLI) is the reference for messages and the dynamic path.
"""
import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import stribeck

CLI = os.environ.get("STRIBECK_CLI", "stribeck")


def simscape_law(v, F_brk, v_brk, F_C, f_v):
    """Simscape Translational Friction (docs/models.md), written from the block's documentation."""
    v_st = math.sqrt(2.0) * v_brk
    v_coul = v_brk / 10.0
    x = v / v_st
    return math.sqrt(2.0 * math.e) * (F_brk - F_C) * np.exp(-x * x) * x + F_C * np.tanh(v / v_coul) + f_v * v


def cli_error(args, tmp_path):
    r = subprocess.run([CLI] + args, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("stribeck: error: ")
    return r.stderr[len("stribeck: error: "):].strip()


def test_models_match_the_cli():
    mods = stribeck.models()
    cli = json.loads(subprocess.run([CLI, "models", "--json"], capture_output=True, text=True, check=True).stdout)
    assert [m["id"] for m in mods] == [m["id"] for m in cli]
    for a, b in zip(mods, cli):
        assert [p["name"] for p in a["parameters"]] == [p["name"] for p in b["parameters"]]
        assert [p["unit"] for p in a["parameters"]] == [p["unit"] for p in b["parameters"]]
        assert a["dynamic"] == b["dynamic"]


@pytest.mark.parametrize("n", [1, 7, 100_000])
def test_eval_float64_is_the_written_equation(n):
    rng = np.random.default_rng(n)
    v = rng.uniform(-2, 2, n) * 10.0 ** rng.uniform(-6, 0, n)
    p = dict(F_brk=31.5, v_brk=0.02, F_C=20.25, f_v=150.0)
    f = stribeck.eval("simscape-translational", p, velocity=v)
    assert f.dtype == np.float64 and f.shape == (n,)
    want = simscape_law(v, **p)
    scale = 31.5 + 150.0 * np.abs(v)
    assert np.max(np.abs(f - want) / scale) < 1e-13


def test_eval_float32_computes_in_float32():
    v = np.linspace(-0.5, 0.5, 10_001, dtype=np.float32)
    p = dict(F_brk=31.5, v_brk=0.02, F_C=20.25, f_v=150.0)
    f = stribeck.eval("simscape-translational", p, velocity=v)
    assert f.dtype == np.float32
    want = simscape_law(v.astype(np.float64), **p)
    scale = 31.5 + 150.0 * np.abs(v)
    err = np.max(np.abs(f - want) / scale)
    assert err < 4e-6  # docs/models.md: FP32 within 4e-6 of the force scale
    assert err > 0  # and it is float arithmetic, not a float64 result rounded


def test_eval_reads_strided_views_in_place():
    base = np.linspace(-0.3, 0.3, 20_001)
    pa = np.full(base.shape, 4e6)
    pb = np.full(base.shape, 1e6)
    args = dict(F_pr=45.0, f_cfr=2.5e-6, K_brk=1.8, f_vfr=800.0, c_v=25.0, v_th=2e-4)
    strided = stribeck.eval("simscape-cylinder", args, velocity=base[::3], pressure_a=pa[::3], pressure_b=pb[::3])
    packed = dict(velocity=np.ascontiguousarray(base[::3]), pressure_a=np.ascontiguousarray(pa[::3]),
                  pressure_b=np.ascontiguousarray(pb[::3]))
    # Strided views take the scalar law, as vector_math=False does on packed arrays: the same bits.
    np.testing.assert_array_equal(strided, stribeck.eval("simscape-cylinder", args, vector_math=False, **packed))
    # The default (vector kernel) stays within a few ulp of it.
    np.testing.assert_allclose(stribeck.eval("simscape-cylinder", args, **packed), strided, rtol=1e-15, atol=1e-13)
    # The hydraulic law outside the linear zone, written out.
    F_C = 45.0 + 2.5e-6 * 5e6
    v = base[::3]
    out = np.abs(v) > 2e-4
    want = F_C * (1 + 0.8 * np.exp(-25.0 * np.abs(v))) * np.sign(v) + 800.0 * v
    np.testing.assert_allclose(strided[out], want[out], rtol=1e-13, atol=1e-12)


def test_eval_defaults_and_vector_math():
    v = np.linspace(-1, 1, 5001)
    f = stribeck.eval("simscape-translational", velocity=v)  # defaults 25, 0.1, 20, 100
    np.testing.assert_allclose(f, simscape_law(v, 25.0, 0.1, 20.0, 100.0), rtol=1e-13, atol=1e-12)
    fv = stribeck.eval("simscape-translational", velocity=v, vector_math=True)
    np.testing.assert_allclose(fv, f, rtol=1e-13, atol=1e-12)


def test_eval_dynamic_matches_the_cli(tmp_path):
    t = np.arange(2000) * 1e-3
    v = 0.05 * np.sin(2 * np.pi * 2 * t)
    p = dict(sigma0=1e5, sigma1=300.0, sigma2=50.0, F_C=20.0, F_s=25.0, v_s=0.01)
    with pytest.warns(stribeck.StribeckWarning, match="passivity"):  # as the CLI's "stribeck: warning:"
        f, z = stribeck.eval("lugre", p, velocity=v, time=t, return_state=True)
    csv = tmp_path / "in.csv"
    np.savetxt(csv, np.column_stack([t, v]), delimiter=",", header="time,velocity", comments="", fmt="%.17g")
    subprocess.run([CLI, "eval", "-m", "lugre"] + [f"-p{k}={v_}" for k, v_ in p.items()] +
                   ["-i", str(csv), "-o", str(tmp_path / "out.csv")], check=True, capture_output=True)
    ref = np.genfromtxt(tmp_path / "out.csv", delimiter=",", names=True)
    np.testing.assert_array_equal(f, ref["model_force"])
    np.testing.assert_array_equal(z, ref["model_state"])


def test_bad_input_raises_value_error_with_the_cli_message(tmp_path):
    (tmp_path / "in.csv").write_text("velocity\n0.1\n")
    want = cli_error(["eval", "-m", "simscape-translational", "-p", "F_brk=10", "-i", "in.csv", "-o", "o.csv"], tmp_path)
    with pytest.raises(ValueError) as e:
        stribeck.eval("simscape-translational", {"F_brk": 10.0}, velocity=np.zeros(3))
    assert str(e.value) == want
    # The CLI's line less its option name (a Python caller gave no --param).
    want = cli_error(["eval", "-m", "simscape-translational", "-p", "F_brkk=1", "-i", "in.csv", "-o", "o.csv"], tmp_path)
    with pytest.raises(ValueError) as e:
        stribeck.eval("simscape-translational", {"F_brkk": 1.0}, velocity=np.zeros(3))
    assert want == "--param 'F_brkk=1': " + str(e.value)
    with pytest.raises(ValueError, match="not a finite number"):
        stribeck.eval("simscape-translational", {"F_C": math.inf}, velocity=np.zeros(3))
    want = cli_error(["eval", "-m", "no-such-model", "-i", "in.csv", "-o", "o.csv"], tmp_path)
    with pytest.raises(ValueError) as e:
        stribeck.eval("no-such-model", velocity=np.zeros(3))
    assert str(e.value) == want
    with pytest.raises(ValueError, match="pressure_a"):
        stribeck.eval("simscape-cylinder", velocity=np.zeros(3))
    with pytest.raises(ValueError, match="does not broadcast"):
        stribeck.eval("20sim-cv", velocity=np.zeros(3), normal_force=np.zeros(4))
    with pytest.raises(ValueError, match="time"):
        stribeck.eval("lugre", velocity=np.zeros(3))
    with pytest.raises(ValueError, match="unknown fit option"):
        stribeck.fit("coulomb-viscous", velocity=np.ones(10), force=np.ones(10), stars=3)
    with pytest.raises(FileNotFoundError):
        stribeck.read_log(str(tmp_path / "missing.h5"))


def synthetic(n=4000, seed=3):
    rng = np.random.default_rng(seed)
    t = np.arange(n) * 1e-3
    v = 0.2 * np.sin(2 * np.pi * 0.5 * t) + 0.01 * np.sin(2 * np.pi * 7 * t)
    truth = dict(F_brk=31.5, v_brk=0.02, F_C=20.25, f_v=150.0)
    force = simscape_law(v, **truth) + rng.normal(0, 0.2, n)
    return t, v, force, truth


def test_fit_options_are_checked_before_the_log_as_the_cli_checks_them(tmp_path):
    """FitOptions::IsValid: the CLI's line with Python's keyword names, raised before the log
    (which does not exist) is opened; nothing is written."""
    missing = str(tmp_path / "no_such_log.h5")
    cases = [  # (identify flags, Python keywords, the keywords' names in the CLI's message)
        (["--fix", "F_C=-1"], {"fix": {"F_C": -1.0}}, {"--fix": "fix"}),
        (["--init", "nope=1"], {"initial": {"nope": 1.0}}, {"--init": "initial"}),
        (["--fix", "F_C=1", "--free", "F_C"], {"fix": {"F_C": 1.0}, "free": ["F_C"]},
         {"--fix": "fix", "--free": "free"}),
        (["--bounds", "F_C=-2:-1"], {"bounds": {"F_C": (-2.0, -1.0)}}, {"--bounds": "bounds"}),
        (["--loss", "tukey:2"], {"loss": "tukey:2"}, {"--loss": "loss"}),
        (["--inertia", "--bounds", "mass=-2:-1"], {"inertia": True, "bounds": {"mass": (-2.0, -1.0)}},
         {"--bounds": "bounds"}),
    ]
    for flags, keywords, names in cases:
        want = cli_error(["identify", missing, "-m", "simscape-translational", *flags, "-o", "out.h5"], tmp_path)
        for flag, keyword in names.items():
            want = want.replace(flag, keyword)
        with pytest.raises(ValueError) as e:
            stribeck.fit("simscape-translational", log=missing, **keywords)
        assert str(e.value) == want
        with pytest.raises(ValueError) as e:
            stribeck.stream_plan("simscape-translational", log=missing, **keywords)
        assert str(e.value) == want
    # The checks the CLI makes on --mass and --cutoff as it parses them, Python makes on the values.
    for keywords, message in [({"mass": -1.0}, "mass must be >= 0"),
                              ({"inertia": True, "mass": math.inf}, "mass must be a finite mass >= 0 [kg]"),
                              ({"cutoff": -5.0}, "cutoff must be a frequency > 0 [Hz]"),
                              ({"cutoff": math.nan}, "cutoff must be a frequency > 0 [Hz]")]:
        with pytest.raises(ValueError, match=r"^" + re.escape(message)):
            stribeck.fit("simscape-translational", log=missing, **keywords)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(FileNotFoundError):  # valid options: then the log
        stribeck.fit("simscape-translational", log=missing, fix={"F_C": 1.0})


def test_fit_on_arrays_recovers_the_parameters():
    t, v, force, truth = synthetic()
    r = stribeck.fit("simscape-translational", time=t, velocity=v, force=force, starts=4)
    rep = r["report"]
    assert rep["model"] == "simscape-translational"
    for name, value in truth.items():
        est = rep["parameters"][name]
        assert abs(est["value"] - value) < 4 * est["std_error"] + 1e-3 * value, (name, est)
    assert r["experiments"] == ["arrays"]
    np.testing.assert_allclose(r["fitted"][0] + r["residual"][0], force, rtol=0, atol=1e-9)
    assert abs(rep["rmse"] - 0.2) < 0.02


def test_logs_round_trip_and_fit_from_a_file(tmp_path):
    t, v, force, truth = synthetic(seed=5)
    path = str(tmp_path / "rig.h5")
    stribeck.write_log(path, [{"name": "run1", "channels": {"time": t, "velocity": v, "force": force},
                               "attributes": {"rig": "test"}}])
    logs = stribeck.read_log(path)
    assert [e["name"] for e in logs] == ["run1"]
    np.testing.assert_array_equal(logs[0]["channels"]["velocity"], v)
    assert logs[0]["units"]["force"] == "N"
    assert logs[0]["attributes"]["rig"] == "test"
    r = stribeck.fit("simscape-translational", log=path, starts=2)
    assert r["experiments"] == ["run1"]
    assert abs(r["report"]["parameters"]["F_C"]["value"] - truth["F_C"]) < 0.5


def test_eval_releases_the_gil():
    v = np.linspace(-1, 1, 4_000_000)
    ticks = []
    done = threading.Event()

    def work():
        for _ in range(3):
            stribeck.eval("simscape-translational", velocity=v)
        done.set()

    th = threading.Thread(target=work)
    th.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    th.join()
    assert len(ticks) > 5  # the main thread ran while eval computed


def test_a_long_fit_can_be_interrupted():
    """SIGALRM's Python handler runs from inside the fit (PyErr_CheckSignals at every solver
    iteration), as Ctrl-C's KeyboardInterrupt does."""
    t, v, force, _ = synthetic(n=200_000, seed=7)

    class Stop(Exception):
        pass

    def handler(signum, frame):
        raise Stop()

    old = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        t0 = time.perf_counter()
        with pytest.raises(Stop):
            stribeck.fit("simscape-translational", time=t, velocity=v, force=force, starts=32)
        assert time.perf_counter() - t0 < 20
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    # The module still works afterwards.
    assert stribeck.eval("coulomb-viscous", velocity=np.array([1.0]))[0] == pytest.approx(120.0)


def test_export_params_is_the_clis_file(tmp_path):
    """export_params is export-params' library: the same file, and the conversion as values."""
    fit = tmp_path / "fit.json"
    params = dict(F_brk=30.0, v_brk=0.02, F_C=20.0, f_v=120.0)
    fit.write_text(json.dumps({"model": "simscape-translational", "parameters": params}))
    r = subprocess.run([CLI, "export-params", str(fit), "--to", "modelica", "--velocity-range", "0.001:0.3"],
                       capture_output=True, text=True, check=True)
    with pytest.warns(stribeck.StribeckWarning, match="break away at"):
        got = stribeck.export_params(fit, to="modelica", velocity_range=(0.001, 0.3))
    assert got["text"] == r.stdout
    (c,) = got["conversions"]
    assert c["law"] == "simscape-cylinder" and not c["exact"]
    assert c["velocity_range"] == (0.001, 0.3)
    cylinder = next(m for m in stribeck.models() if m["id"] == "simscape-cylinder")
    assert list(c["parameters"]) == [p["name"] for p in cylinder["parameters"]]
    assert got["summary"][0] in r.stderr
    exact = stribeck.export_params(str(fit), to="simscape")
    assert exact["conversions"][0]["exact"] and exact["conversions"][0]["parameters"] == params
    with pytest.raises(ValueError, match="must be simscape, modelica, 20sim or json"):
        stribeck.export_params(fit, to="adams")
    with pytest.raises(ValueError, match="pressure"):
        stribeck.export_params(fit, to="modelica", pressure=float("nan"))


def test_ceres_logging_stays_off_stderr(tmp_path):
    """A conversion whose fit has a failing start (Ceres logs it through glog with its whole Jacobian)
    prints nothing, as the CLI does; STRIBECK_GLOG=1 keeps glog's own settings."""
    fit = tmp_path / "fit.json"
    fit.write_text(json.dumps({"model": "simscape-translational",
                               "parameters": dict(F_brk=30.0, v_brk=0.02, F_C=20.0, f_v=120.0)}))
    code = ("import stribeck; stribeck.export_params(%r, to='20sim', velocity_range='0.001:0.3', normal_force=50)"
            % str(fit))
    env = dict(os.environ)
    env.pop("STRIBECK_GLOG", None)
    quiet = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert quiet.stderr == ""
    env["STRIBECK_GLOG"] = "1"
    loud = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert "Terminating" in loud.stderr  # the case does log: the quiet run proves the silencing


def test_stream_plan_is_identifys_decision(tmp_path):
    # The library's plan_stream, as identify --stream decides it.
    log = tmp_path / "rig.h5"
    subprocess.run([CLI, "generate", "-m", "simscape-translational", "--pressure-levels", "1bar,3bar",
                    "--duration", "2", "-o", str(log)], check=True, capture_output=True)
    auto = stribeck.stream_plan("simscape-translational", log=log)
    assert auto == {"streamed": False, "logs": [], "why_not": "the logs are short"}
    p = stribeck.stream_plan(["simscape-translational"], log=[log, str(log)], experiment="p3bar", stream="always")
    assert p["streamed"] and p["why_not"] == ""
    assert [(l["experiment"], l["name"]) for l in p["logs"]] == [("p3bar", "rig:p3bar")] * 2
    assert stribeck.stream_plan("lugre", log=log, stream="always")["why_not"] != ""
    assert stribeck.stream_plan("simscape-translational", log=log, stream="always", batch=True)["why_not"] == \
        "--batch fits each experiment in memory"
    with pytest.raises(ValueError, match="no experiment named 'nope'"):
        stribeck.stream_plan("simscape-translational", log=log, experiment="nope", stream="always")
    with pytest.raises(ValueError, match="unknown fit option"):
        stribeck.stream_plan("simscape-translational", log=log, bogus=1)
