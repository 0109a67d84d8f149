// What result files look like to other tools (issue 34, item 2): every CSV
// the toolkit writes is read by `pandas.read_csv(path)` as it is (the header
// on the first line, metadata in the sidecar OUT.csv.json), the provenance
// holds the command as typed, and HDF5 results carry typed attributes and
// one variable per quantity with `units`. Each case runs /usr/bin/python3
// (pandas, h5py) on the CLI's outputs; it is skipped where pandas is missing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "cli_runner.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

bool has_pandas() {
  static const bool ok = std::system("/usr/bin/python3 -c 'import pandas, h5py, numpy' > /dev/null 2>&1") == 0;
  return ok;
}

// Runs `script` with the directory `dir` as sys.argv[1]; its output is the
// failure message.
void python(const std::string& dir, const std::string& script) {
  const std::string py = dir + "check.py", log = dir + "check.log";
  std::ofstream(py) << "import json, sys\nimport numpy as np\nimport pandas as pd\nimport h5py\nd = sys.argv[1]\n"
                    << script;
  const int rc = std::system(("/usr/bin/python3 " + py + " " + dir + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  const std::string out{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_EQ(rc, 0) << out << "\n" << script;
}

std::string case_dir(const std::string& name) {
  const std::string d = test::temp_dir() + "read_" + name + "/";
  std::filesystem::create_directories(d);
  return d;
}

void cli(const std::string& args) {
  std::string out;
  ASSERT_EQ(test::run_cli(args, &out), 0) << args << "\n" << out;
}

const char* const kSystem = R"(
[system]
mass = 1.0
drive_velocity = 0.1
stiffness = 50.0
[friction]
model = "lugre"
[simulation]
t_end = 0.5
dt = 1e-3
)";

const char* const kEnsemble = R"(
[ensemble]
design = "grid"
[ensemble.params]
mass = "list:-1,1"
drive_velocity = "linear:0.01:0.2:3"
)";

// export: the header is the first line (units in the names, which `import`
// reads back), the values are the log's; the experiment and the command in
// the sidecar. Before, `# experiment: ...` lines came first and pandas
// raised a ParserError.
TEST(OutputsReadCli, ExportCsvReadsWithPandasAndImportsBack) {
  if (!has_pandas()) GTEST_SKIP() << "/usr/bin/python3 has no pandas";
  const std::string d = case_dir("export");
  cli("generate --model simscape-translational --profile triangle --duration 2 --rate 200 --seed 3 -o " + d +
      "log.h5 -q");
  cli("export " + d + "log.h5 -o " + d + "e.csv -q");
  cli("import " + d + "e.csv -o " + d + "back.h5 -q");
  python(d, R"(
df = pd.read_csv(d + "e.csv")
assert list(df.columns) == ["time [s]", "position [m]", "velocity [m/s]", "acceleration [m/s^2]", "force [N]", "friction_true [N]"], list(df.columns)
with h5py.File(d + "log.h5") as f:
    for c, h in (("time [s]", "time"), ("velocity [m/s]", "velocity"), ("force [N]", "force")):
        # pandas' default parser (xstrtod) is off by a few ulp on 17-digit text; the text itself reads back exactly
        assert np.allclose(df[c].to_numpy(), f["run/" + h][()], rtol=1e-13, atol=0), c
        assert np.array_equal(pd.read_csv(d + "e.csv", float_precision="round_trip")[c].to_numpy(), f["run/" + h][()]), c
    with h5py.File(d + "back.h5") as b:
        assert np.array_equal(b["e/force"][()], f["run/force"][()]), "import of the export differs"
m = json.load(open(d + "e.csv.json"))
assert m["kind"] == "log export" and m["attributes"]["experiment"] == "run", m
assert [c["units"] for c in m["columns"]] == ["s", "m", "m/s", "m/s^2", "N", "N"], m["columns"]
assert m["command_line"].split()[1:3] == ["export", d + "log.h5"], m["command_line"]
)");
}

// simulate -o sim.csv: the channels' header first; model, status, metrics
// and units in the sidecar.
TEST(OutputsReadCli, SimulationCsvReadsWithPandas) {
  if (!has_pandas()) GTEST_SKIP() << "/usr/bin/python3 has no pandas";
  const std::string d = case_dir("simulate");
  std::ofstream(d + "sim.toml") << kSystem;
  cli("simulate " + d + "sim.toml -o " + d + "sim.csv -q");
  python(d, R"(
df = pd.read_csv(d + "sim.csv")
assert df.columns[0] == "time" and "friction_force" in df.columns, list(df.columns)
assert len(df) == 501 and df["time"].iloc[0] == 0.0 and abs(df["time"].iloc[-1] - 0.5) < 1e-9, df["time"]
m = json.load(open(d + "sim.csv.json"))
units = {c["name"]: c["units"] for c in m["columns"]}
assert [c["name"] for c in m["columns"]] == list(df.columns), m["columns"]
assert units["time"] == "s" and units["friction_force"] == "N", units
assert m["kind"] == "simulation" and m["attributes"]["model"] == "lugre" and m["attributes"]["status"] == "ok", m
assert "stick_slip" in m["values"] and "simulate" in m["command_line"], m
)");
}

// The ensemble CSV: before, pandas took the "# stribeck simulate ..." line
// for the header and read every row wrong without an error.
TEST(OutputsReadCli, EnsembleCsvReadsWithPandas) {
  if (!has_pandas()) GTEST_SKIP() << "/usr/bin/python3 has no pandas";
  const std::string d = case_dir("ensemble");
  std::ofstream(d + "ens.toml") << kSystem << kEnsemble;
  cli("simulate " + d + "ens.toml -o " + d + "ens.csv --device cpu -q");
  python(d, R"(
df = pd.read_csv(d + "ens.csv")
assert list(df.columns[:3]) == ["index", "drive_velocity", "mass"], list(df.columns)
assert list(df["index"]) == list(range(6)) and sorted(set(df["mass"])) == [-1.0, 1.0], df
assert np.allclose(sorted(set(df["drive_velocity"])), [0.01, 0.105, 0.2]), df["drive_velocity"]
assert "stick_slip" in df.columns and "period" in df.columns, list(df.columns)
m = json.load(open(d + "ens.csv.json"))
units = {c["name"]: c["units"] for c in m["columns"]}
assert [c["name"] for c in m["columns"]] == list(df.columns), m["columns"]
assert units["mass"] == "kg" and units["drive_velocity"] == "m/s" and units["period"] == "s", units
assert m["kind"] == "ensemble" and m["values"]["points"] == 6, m
)");
}

// eval's CSV and map's cells were already plain: kept so (one dialect).
TEST(OutputsReadCli, EvalAndMapCsvsReadWithPandas) {
  if (!has_pandas()) GTEST_SKIP() << "/usr/bin/python3 has no pandas";
  const std::string d = case_dir("eval_map");
  cli("generate --model simscape-translational --profile triangle --duration 1 --rate 200 -o " + d + "log.h5 -q");
  cli("export " + d + "log.h5 -o " + d + "e.csv -q");
  cli("eval -m simscape-translational -i " + d + "e.csv -o " + d + "ev.csv -q");
  std::ofstream(d + "ens.toml") << kSystem << kEnsemble;
  cli("simulate " + d + "ens.toml -o " + d + "ens.h5 --device cpu -q");
  cli("map " + d + "ens.h5 -m period --reduce mean -o " + d + "map.csv -q");
  python(d, R"(
ev = pd.read_csv(d + "ev.csv")
assert ev.columns[-1] == "model_force" and len(ev) == 201, list(ev.columns)
mp = pd.read_csv(d + "map.csv")
assert list(mp.columns)[-1] == "points" and len(mp.columns) == 4 and len(mp) > 0, list(mp.columns)
)");
}

// command_line is argv as given: eval with --params and -e recorded them
// (before: a reconstructed "stribeck eval --model M --input I --output O").
TEST(OutputsReadCli, EvalRecordsTheCommandAsTyped) {
  if (!has_pandas()) GTEST_SKIP() << "/usr/bin/python3 has no pandas";
  const std::string d = case_dir("argv");
  cli("generate --model simscape-translational --profile triangle --duration 1 --rate 200 --pressure-levels "
      "10bar,40bar -o " +
      d + "log.h5 -q");
  std::ofstream(d + "fit.json") << R"({"model": "simscape-translational", "parameters": {"F_C": 18, "F_brk": 24,
    "v_brk": 0.1, "f_v": 90}})";
  cli("eval --params " + d + "fit.json -e p40bar -i " + d + "log.h5 -o " + d + "ev.h5 -q");
  cli("eval -m coulomb-viscous -e p10bar -i " + d + "log.h5 -o " + d + "ev2.h5 -q");
  python(d, R"(
import shlex
with h5py.File(d + "ev.h5") as f:
    g = f["eval/simscape-translational"]
    cl = g.attrs["command_line"]
    cl = cl.decode() if isinstance(cl, bytes) else cl
argv = shlex.split(cl)
assert argv[1:] == ["eval", "--params", d + "fit.json", "-e", "p40bar", "-i", d + "log.h5", "-o", d + "ev.h5",
                    "-q"], argv
with h5py.File(d + "ev2.h5") as f:
    cl = f["eval/coulomb-viscous"].attrs["command_line"]
    cl = cl.decode() if isinstance(cl, bytes) else cl
argv = shlex.split(cl)
assert argv[1:] == ["eval", "-m", "coulomb-viscous", "-e", "p10bar", "-i", d + "log.h5", "-o", d + "ev2.h5", "-q"], argv
)");
}

// identify -o: rmse a float64, converged and held_out int8 flags (before:
// the strings b'0.795328', b'true'), and one scalar variable per parameter
// with its units, estimate, standard error and interval; the JSON `fit`
// attribute kept. In memory and streamed alike.
TEST(OutputsReadCli, IdentifyResultsHaveTypedAttributesAndParameterVariables) {
  if (!has_pandas()) GTEST_SKIP() << "/usr/bin/python3 has no pandas";
  const std::string d = case_dir("identify");
  cli("generate --model simscape-translational --profile triangle --duration 2 --rate 200 --seed 1 --noise force=0.2 "
      "-o " +
      d + "log.h5 -q");
  for (const char* stream : {"never", "always"})
    cli("identify " + d + "log.h5 -m simscape-translational --stream " + stream + " -o " + d + stream + ".h5 -q");
  cli("report " + d + "never.h5 -o " + d + "r.html -q");
  python(d, R"PY(
import xarray as xr
units = {"F_C": "N", "F_brk": "N", "v_brk": "m/s", "f_v": "N/(m/s)"}
for s in ("never", "always"):
    path, group = d + s + ".h5", "identify_simscape-translational/run"
    with h5py.File(path) as f:
        a = f[group].attrs
        assert isinstance(a["rmse"], np.float64) and 0.1 < a["rmse"] < 0.4, (s, a["rmse"])
        assert a["converged"].dtype == np.int8 and a["converged"] == 1, (s, a["converged"])
        assert a["held_out"].dtype == np.int8 and a["held_out"] == 0, (s, a["held_out"])
        fit = json.loads(a["fit"])
    ds = xr.open_dataset(path, group=group, engine="h5netcdf")
    for n, u in units.items():
        v = ds["param_" + n]
        assert v.dims == () and v.dtype == np.float64 and v.attrs["units"] == u, (s, n, v)
        est = fit["parameters"][n]
        assert abs(float(v) - est["value"]) <= 1e-9 * abs(est["value"]), (s, n, float(v), est)
        lo, hi, se = (float(ds["param_" + n + k]) for k in ("_ci95_lo", "_ci95_hi", "_std_error"))
        assert lo <= float(v) <= hi and se > 0 and ds["param_" + n + "_std_error"].attrs["units"] == u, (s, n, lo, hi, se)
    assert abs(float(ds["param_F_C"]) - 20) < 1, float(ds["param_F_C"])
)PY");
}

}  // namespace
}  // namespace stribeck
