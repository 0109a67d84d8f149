"""The module behaves as a NumPy user expects (issue 34 item 4; CTest Python.ModuleTests).

Broadcasting and scalars, out=, Python's exception types, os.PathLike paths, __version__,
inspect.signature, warnings.warn, parameters in the model's order, every bundled config, the
module installed by `cmake --install`, and eval's memory use against the floor of the bytes it
must stream.
"""
import glob
import inspect
import os
import pathlib
import subprocess
import sys
import sysconfig
import textwrap
import warnings

import numpy as np
import pytest

import stribeck

CLI = os.environ.get("STRIBECK_CLI", "stribeck")
SOURCE = pathlib.Path(os.environ.get("STRIBECK_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CYL = dict(F_pr=45.0, f_cfr=2.5e-6, K_brk=1.8, f_vfr=800.0, c_v=25.0, v_th=2e-4)
LUGRE_NOT_PASSIVE = dict(sigma0=1e5, sigma1=300.0, sigma2=50.0, F_C=20.0, F_s=25.0, v_s=0.01)


# ---- broadcasting, scalars ---------------------------------------------------------------------

@pytest.mark.parametrize("vector_math", [True, False])
def test_scalar_pressures_broadcast_as_full_arrays(vector_math):
    v = np.linspace(-0.3, 0.3, 100_003)
    full = stribeck.eval("simscape-cylinder", CYL, velocity=v, pressure_a=np.full(v.shape, 5e6),
                         pressure_b=np.full(v.shape, 1e6), vector_math=vector_math)
    scalar = stribeck.eval("simscape-cylinder", CYL, velocity=v, pressure_a=5e6, pressure_b=1e6,
                           vector_math=vector_math)
    np.testing.assert_array_equal(scalar, full)


def test_arrays_broadcast_to_a_grid():
    v = np.linspace(-0.1, 0.1, 9)
    p = np.array([1e6, 5e6, 2e7])
    grid = stribeck.eval("simscape-cylinder", CYL, velocity=v[:, None], pressure_a=p[None, :], pressure_b=0.0,
                         vector_math=False)
    assert grid.shape == (9, 3) and grid.dtype == np.float64
    for j, pa in enumerate(p):
        np.testing.assert_array_equal(grid[:, j], stribeck.eval("simscape-cylinder", CYL, velocity=v, pressure_a=pa,
                                                                pressure_b=0.0, vector_math=False))
    # A 2-D velocity keeps its shape.
    two_d = stribeck.eval("coulomb-viscous", velocity=np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(two_d.ravel(), stribeck.eval("coulomb-viscous", velocity=np.arange(6.0)))


def test_scalars_in_give_a_numpy_scalar_out():
    f = stribeck.eval("coulomb-viscous", velocity=0.5)
    assert isinstance(f, np.float64)
    assert f == stribeck.eval("coulomb-viscous", velocity=np.array([0.5]))[0]
    assert isinstance(stribeck.eval("coulomb-viscous", velocity=np.float32(0.5)), np.float32)  # as np.exp does
    f = stribeck.eval("20sim-cv", velocity=[0.1, -0.2], normal_force=100.0)
    assert f.shape == (2,)


def test_shapes_that_do_not_broadcast_are_a_value_error():
    with pytest.raises(ValueError, match=r"pressure_a has shape \(3,\).*\(7,\)"):
        stribeck.eval("simscape-cylinder", CYL, velocity=np.zeros(7), pressure_a=np.zeros(3), pressure_b=0.0)


def test_float32_velocity_with_scalars_stays_float32():
    v = np.linspace(-0.5, 0.5, 1001, dtype=np.float32)
    f = stribeck.eval("simscape-cylinder", CYL, velocity=v, pressure_a=5e6, pressure_b=1e6)
    assert f.dtype == np.float32
    ref = stribeck.eval("simscape-cylinder", CYL, velocity=v.astype(np.float64), pressure_a=5e6, pressure_b=1e6)
    assert np.max(np.abs(f - ref)) < 4e-6 * (100.0 + 800.0 * 0.5)


def test_dynamic_models_take_scalar_channels_of_their_time_series():
    t = np.arange(500) * 1e-3
    v = 0.05 * np.sin(2 * np.pi * 2 * t)
    p = dict(mu_c=0.2, mu_s=0.3, mu_v=0.01, v_st=0.01, sigma0=1e5, sigma1=0.01)
    np.testing.assert_array_equal(stribeck.eval("20sim-lugre", p, velocity=v, normal_force=100.0, time=t),
                                  stribeck.eval("20sim-lugre", p, velocity=v, normal_force=np.full(500, 100.0), time=t))
    with pytest.raises(ValueError, match="one-dimensional"):
        stribeck.eval("dahl", velocity=np.zeros((2, 3)), time=np.arange(3.0))


# ---- out= ----------------------------------------------------------------------------------------

def test_out_receives_the_result_and_is_returned():
    v = np.linspace(-1, 1, 10_001)
    want = stribeck.eval("simscape-translational", velocity=v)
    out = np.full(v.shape, np.nan)
    got = stribeck.eval("simscape-translational", velocity=v, out=out)
    assert got is out
    np.testing.assert_array_equal(out, want)
    grid = np.empty((4, 2))
    assert stribeck.eval("simscape-cylinder", CYL, velocity=np.zeros((4, 1)) + 0.01, pressure_a=[1e6, 2e6],
                         pressure_b=0.0, out=grid) is grid
    t = np.arange(300) * 1e-3
    out = np.empty(300)
    with pytest.warns(stribeck.StribeckWarning):
        f, z = stribeck.eval("lugre", LUGRE_NOT_PASSIVE, velocity=np.sin(t), time=t, return_state=True, out=out)
    assert f is out and z.shape == (300,)


def test_out_may_be_an_input_and_overlapping_views_read_the_inputs_first():
    v = np.linspace(-1, 1, 5001)
    want = stribeck.eval("coulomb-viscous", velocity=v)
    in_place = v.copy()
    stribeck.eval("coulomb-viscous", velocity=in_place, out=in_place)
    np.testing.assert_array_equal(in_place, want)
    buf = np.concatenate([v, [0.0]])  # out one sample ahead of the velocity it overwrites
    stribeck.eval("coulomb-viscous", velocity=buf[:-1], out=buf[1:])
    np.testing.assert_array_equal(buf[1:], want)
    t = np.arange(200) * 1e-3
    vt = np.sin(t)
    ref = stribeck.eval("dahl", velocity=vt, time=t)
    stribeck.eval("dahl", velocity=vt.copy(), time=t, out=t)  # the time it reads is overwritten
    np.testing.assert_array_equal(t, ref)


def test_out_is_checked():
    v = np.zeros(4)
    with pytest.raises(ValueError, match=r"out has shape \(3,\), the result \(4,\)"):
        stribeck.eval("coulomb-viscous", velocity=v, out=np.empty(3))
    with pytest.raises(TypeError, match="float32"):
        stribeck.eval("coulomb-viscous", velocity=v, out=np.empty(4, np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        stribeck.eval("coulomb-viscous", velocity=v, out=np.empty(8)[::2])
    ro = np.empty(4)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        stribeck.eval("coulomb-viscous", velocity=v, out=ro)
    with pytest.raises(TypeError, match="out"):
        stribeck.eval("coulomb-viscous", velocity=v, out=[0.0] * 4)


# ---- exceptions, paths -------------------------------------------------------------------------

def test_missing_files_raise_file_not_found_error(tmp_path):
    missing = tmp_path / "missing.h5"
    for call in (lambda: stribeck.read_log(missing),
                 lambda: stribeck.fit("coulomb-viscous", log=missing),
                 lambda: stribeck.fit("coulomb-viscous", log=[str(missing)]),
                 lambda: stribeck.sweep(tmp_path / "missing.toml"),
                 lambda: stribeck.simulate(str(tmp_path / "missing.toml")),
                 lambda: stribeck.write_log(tmp_path / "no_dir" / "x.h5", {"channels": {"velocity": [0.0]}})):
        with pytest.raises(FileNotFoundError) as e:
            call()
        assert e.value.filename is not None and "missing" in e.value.filename or "no_dir" in e.value.filename
    with pytest.raises(IsADirectoryError):
        stribeck.read_log(tmp_path)


def test_wrong_types_raise_type_error():
    v = np.zeros(3)
    cases = [lambda: stribeck.eval("coulomb-viscous", [1.0], velocity=v),
             lambda: stribeck.eval("coulomb-viscous", {"F_C": "x"}, velocity=v),
             lambda: stribeck.eval("coulomb-viscous", velocity="fast"),
             lambda: stribeck.eval("coulomb-viscous", velocity=None),
             lambda: stribeck.eval("coulomb-viscous"),
             lambda: stribeck.read_log(3),
             lambda: stribeck.sweep(3),
             lambda: stribeck.fit("coulomb-viscous", log=3),
             lambda: stribeck.fit("coulomb-viscous", velocity=["a", "b"], force=v),
             lambda: stribeck.write_log("x.h5", 3),
             lambda: stribeck.write_log("x.h5", {"channels": {"velocity": ["a"]}})]
    for call in cases:
        with pytest.raises(TypeError):
            call()


def test_bad_values_raise_value_error_without_cli_option_names():
    v = np.ones(50)
    cases = [lambda: stribeck.eval("no-such-model", velocity=v),
             lambda: stribeck.eval("coulomb-viscous", {"F_C": -1.0}, velocity=v),
             lambda: stribeck.eval("coulomb-viscous", {"nope": 1.0}, velocity=v),
             lambda: stribeck.fit("coulomb-viscous", velocity=v, force=v, loss="x"),
             lambda: stribeck.fit("coulomb-viscous", velocity=v, force=v, fix={"F_C": 1.0}, free=["F_C"]),
             lambda: stribeck.fit("coulomb-viscous", velocity=v, force=v, starts=-1),
             lambda: stribeck.fit("coulomb-viscous", velocity=v, force=v, bounds={"F_C": (2.0, 1.0)})]
    for call in cases:
        with pytest.raises(ValueError) as e:
            call()
        assert "--" not in str(e.value), str(e.value)
    with pytest.raises(ValueError, match=r"^loss 'x'"):
        stribeck.fit("coulomb-viscous", velocity=v, force=v, loss="x")


def test_paths_may_be_path_like(tmp_path):
    t = np.arange(2000) * 1e-3
    v = 0.2 * np.sin(2 * np.pi * t)
    force = stribeck.eval("coulomb-viscous", velocity=v)
    path = tmp_path / "rig.h5"
    stribeck.write_log(path, {"name": "run1", "channels": {"time": t, "velocity": v, "force": force}})
    assert path.is_file()
    np.testing.assert_array_equal(stribeck.read_log(path)[0]["channels"]["velocity"], v)
    assert stribeck.read_log(os.fsencode(path))[0]["name"] == "run1"
    for log in (path, [path]):
        r = stribeck.fit("coulomb-viscous", log=log, starts=1)
        assert r["experiments"] == ["run1"]
    frame = stribeck.simulate(SOURCE / "examples" / "simulate_cylinder.toml", frame=False)
    assert len(frame["time"]) > 0


# ---- __version__, signatures, warnings, model order --------------------------------------------

def test_version_is_the_cli_version():
    out = subprocess.run([CLI, "--version"], capture_output=True, text=True, check=True).stdout.split()
    assert stribeck.__version__ == out[-1]


def test_every_function_has_a_signature_and_a_docstring():
    functions = {name: f for name, f in vars(stribeck).items() if callable(f) and not name.startswith("_")
                 and not isinstance(f, type)}
    assert set(functions) == {"models", "eval", "fit", "read_log", "write_log", "sweep", "simulate", "export_params",
                              "stream_plan"}
    for name, f in functions.items():
        sig = inspect.signature(f)
        assert f.__doc__ and not f.__doc__.startswith(name + "("), name  # the signature is not in the text
        if name != "models":
            with pytest.raises(TypeError):  # what pybind11 accepts is what the signature says
                f(*[None] * sum(p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD
                                for p in sig.parameters.values()), no_such_argument=1)
    sig = inspect.signature(stribeck.eval)
    assert list(sig.parameters) == ["model", "params", "velocity", "pressure_a", "pressure_b", "normal_force",
                                    "time", "initial_state", "vector_math", "return_state", "out"]
    assert sig.parameters["velocity"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["velocity"].default is inspect.Parameter.empty
    assert sig.parameters["vector_math"].default is True and sig.parameters["out"].default is None
    assert str(inspect.signature(stribeck.fit)).endswith("**options)")
    assert list(inspect.signature(stribeck.read_log).parameters) == ["path"]
    export = inspect.signature(stribeck.export_params).parameters
    assert list(export) == ["fit", "to", "data", "velocity_range", "pressure", "normal_force", "fit_index"]
    assert export["to"].kind is inspect.Parameter.KEYWORD_ONLY and export["to"].default is inspect.Parameter.empty
    # The signature binds what the function accepts, by those names.
    args = sig.bind("coulomb-viscous", {"F_C": 10.0}, velocity=[1.0], out=np.empty(1))
    assert stribeck.eval(*args.args, **args.kwargs)[0] == pytest.approx(10.0 + 100.0)


def test_model_warnings_are_python_warnings():
    t = np.arange(100) * 1e-3
    with pytest.warns(stribeck.StribeckWarning, match="passivity"):
        stribeck.eval("lugre", LUGRE_NOT_PASSIVE, velocity=np.sin(t), time=t)
    assert issubclass(stribeck.StribeckWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stribeck.eval("lugre", dict(LUGRE_NOT_PASSIVE, sigma2=1000.0), velocity=np.sin(t), time=t)  # passive: none
        with pytest.raises(stribeck.StribeckWarning):
            stribeck.eval("lugre", LUGRE_NOT_PASSIVE, velocity=np.sin(t), time=t)
    cfg = textwrap.dedent("""
        [system]
        mass = 1.0
        stiffness = 2.0
        drive_velocity = 0.1
        [friction]
        model = "lugre"
        [friction.params]
        sigma0 = 1e5
        sigma1 = 300.0
        sigma2 = 50.0
        F_C = 20.0
        F_s = 25.0
        v_s = 0.01
        [simulation]
        t_end = 0.1
        dt = 1e-3
        """)
    with pytest.warns(stribeck.StribeckWarning, match="passivity"):
        stribeck.simulate(cfg, frame=False)


@pytest.mark.parametrize("model", ["simscape-translational", "simscape-cylinder", "20sim-scvs"])
def test_fit_reports_parameters_in_the_model_order(model):
    info = next(m for m in stribeck.models() if m["id"] == model)
    order = [p["name"] for p in info["parameters"]]
    assert order != sorted(order)  # else this test shows nothing
    rng = np.random.default_rng(1)
    n = 3000
    v = 0.2 * np.sin(np.linspace(0, 12, n))
    ch = dict(velocity=v)
    if "pressure_a" in info["inputs"]:
        ch.update(pressure_a=rng.choice([2e6, 5e6, 8e6], n), pressure_b=np.full(n, 1e6))
    if "normal_force" in info["inputs"]:
        ch.update(normal_force=np.full(n, 100.0))
    force = stribeck.eval(model, velocity=v, **{k: x for k, x in ch.items() if k != "velocity"})
    rep = stribeck.fit(model, force=force + rng.normal(0, 0.1, n), starts=1, **ch)["report"]
    assert list(rep["parameters"]) == order


# ---- every bundled config ------------------------------------------------------------------------

@pytest.mark.parametrize("config", sorted(glob.glob(str(SOURCE / "examples" / "*.toml"))),
                         ids=lambda p: pathlib.Path(p).name)
def test_every_bundled_config_runs(config):
    run = stribeck.sweep if pathlib.Path(config).name.startswith("sweep") else stribeck.simulate
    table = run(config, frame=False)
    assert len(next(iter(table.values()))) > 0
    if "status" in table:
        assert np.count_nonzero(table["status"] == 0) > 0


def test_sweep_with_trajectories_gives_every_point():
    table = stribeck.sweep(str(SOURCE / "examples" / "sweep_cylinder_grid.toml"), frame=False)
    assert len(table["point"]) == 16 * 16 * 8 * 8


# ---- cmake --install -----------------------------------------------------------------------------

@pytest.mark.skipif("STRIBECK_BUILD_DIR" not in os.environ, reason="run by CTest (needs the build directory)")
def test_cmake_install_puts_the_module_in_site_packages(tmp_path):
    rel = os.environ["STRIBECK_PYTHON_INSTALL_DIR"]
    prefix = os.path.abspath(os.environ["STRIBECK_INSTALL_PREFIX"])
    # For the configured prefix: the interpreter's own platlib when it lies under it, where `import`
    # finds the module with no PYTHONPATH (Debian: /usr/local/lib/python3.X/dist-packages).
    platlib = sysconfig.get_path("platlib")
    if os.path.commonpath([platlib, prefix]) == prefix:
        assert os.path.join(prefix, rel) == platlib
        assert platlib in sys.path
    else:
        assert os.path.join(prefix, rel) == sysconfig.get_path("platlib", "posix_prefix",
                                                               vars={"base": prefix, "platbase": prefix})
    subprocess.run(["cmake", "--install", os.environ["STRIBECK_BUILD_DIR"], "--component", "python",
                    "--prefix", str(tmp_path)], check=True, capture_output=True)
    site = tmp_path / rel
    assert len(list(site.glob("stribeck*.so"))) == 1
    env = dict(os.environ, PYTHONPATH=str(site))
    r = subprocess.run([sys.executable, "-c", "import stribeck; print(stribeck.__file__); print(stribeck.__version__)"],
                       env=env, cwd=tmp_path, capture_output=True, text=True, check=True)
    where, version = r.stdout.split()
    assert pathlib.Path(where).parent == site and version == stribeck.__version__


# ---- memory ----------------------------------------------------------------------------------------

MEMORY_SCRIPT = """
import resource, sys
import numpy as np
import stribeck

def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

n = 10_000_000
stribeck.eval("simscape-cylinder", velocity=np.zeros(1000), pressure_a=5e6, pressure_b=1e6)  # threads started
v = np.linspace(-0.3, 0.3, n)
out = np.ones(n) if sys.argv[1] == "out" else None
before = peak()
for _ in range(3):
    f = stribeck.eval("simscape-cylinder", velocity=v, pressure_a=5e6, pressure_b=1e6, out=out)
    del f
print(peak() - before)
"""


@pytest.mark.parametrize("mode", ["new", "out"])
def test_eval_streams_at_the_memory_floor(mode):
    """1e7 samples: the floor is the 80 MB velocity plus the 80 MB result. A new result may add its
    80 MB (and a little); with out= nothing full-size. Any full-size temporary (a broadcast
    pressure, a copy of the result) adds 80 MB more. In three processes, not one lucky run."""
    full = 8 * 10_000_000
    bound = 1.25 * full if mode == "new" else 0.25 * full
    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, mode], capture_output=True, text=True, check=True)
        grew = int(r.stdout.split()[-1])
        assert grew < bound, (mode, grew / 1e6, "MB")
