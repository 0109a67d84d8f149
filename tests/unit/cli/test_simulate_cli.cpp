// `stribeck simulate`: config parsing, HDF5/CSV output, one-line errors.
#include <gtest/gtest.h>

#include "temp_dir.hpp"

#include <cstdio>
#include <fstream>
#include <string>

#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/workloads/simulate.hpp"

namespace stribeck {
namespace {

std::string temp_path(const std::string& name) { return stribeck::test::temp_dir() + name; }

using stribeck::test::write_temp_file;

// Runs the CLI; returns its exit status, and its summary (stdout) and
// diagnostics (stderr) together in `err`.
int run_cli(const std::string& args, std::string& err) {
  const std::string errfile = temp_path("simulate_err.txt");
  const int rc = std::system((std::string(STRIBECK_CLI) + " simulate " + args + " > " + errfile + " 2>&1").c_str());
  std::ifstream e(errfile);
  err.assign(std::istreambuf_iterator<char>(e), std::istreambuf_iterator<char>());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

const char* kStiction = R"(
[system]
mass = 1.0
stiffness = 20.0
drive_velocity = 0.1

[friction]
model = "coulomb-viscous"
form = "stiction"
breakaway = 1.5
[friction.params]
F_C = 1.0
f_v = 0.0

[simulation]
t_end = 10.0
dt = 1e-3
)";

TEST(SimulateCli, WritesHdf5TimeSeriesWithExactSticking) {
  const std::string cfg = write_temp_file("sim_stiction.toml", kStiction), out = temp_path("sim.h5");
  std::string err;
  ASSERT_EQ(run_cli(cfg + " -o " + out, err), 0) << err;
  EXPECT_NE(err.find("stick-slip yes"), std::string::npos) << err;
  const auto exps = data::read_log(out);
  ASSERT_EQ(exps.size(), 1u);
  const data::Experiment& e = exps[0];
  EXPECT_EQ(e.channel("time").size(), 10001u);
  EXPECT_EQ(e.units.at("friction_force"), "N");
  const auto& v = e.channel("velocity");
  const auto& mode = e.channel("stick_state");
  const auto& f = e.channel("friction_force");
  const auto& fs = e.channel("spring_force");
  long stuck = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (mode[i] == 0) {
      ++stuck;
      ASSERT_EQ(v[i], 0.0) << i;
      ASSERT_DOUBLE_EQ(f[i], fs[i]) << i;  // friction balances the spring exactly
      ASSERT_LE(std::abs(f[i]), 1.5) << i;
    } else {
      ASSERT_DOUBLE_EQ(std::abs(f[i]), 1.0) << i;  // sliding on Coulomb friction
    }
  }
  // Closed form (see test_systems.cpp): stuck 0.5 s of every 1.53 s cycle.
  EXPECT_GT(stuck, 3000);
  EXPECT_LT(stuck, 5000);
}

TEST(SimulateCli, CsvMatchesLibraryRun) {
  const std::string cfg = write_temp_file("sim_lugre.toml", R"(
[system]
mass = 1.0
stiffness = 20.0
drive_velocity = { offset = 0.1 }
[friction]
model = "lugre"
[simulation]
t_end = 2.0
dt = 1e-3
)");
  const std::string out = temp_path("sim.csv");
  std::string err;
  ASSERT_EQ(run_cli(cfg + " -o " + out, err), 0) << err;
  EXPECT_NE(err.find("warning: lugre: passivity"), std::string::npos) << err;
  const workloads::SimulateConfig c = workloads::read_simulate_config(cfg);
  const workloads::SimulateSummary s = workloads::run_simulation(c, temp_path("sim_lib.csv"), "test");
  data::CsvReader r(out);
  std::vector<double> row, last;
  std::vector<std::string_view> cells;
  while (r.next(row, cells)) last = row;
  EXPECT_EQ(last[r.column("time")], 2.0);
  EXPECT_EQ(last[r.column("velocity")], s.metrics.final_v);
  EXPECT_EQ(last[r.column("friction_state")], s.metrics.final_z);
  EXPECT_EQ(last[r.column("spring_elongation")], s.metrics.final_s);
}

TEST(SimulateCli, MeasuredPressuresDriveTheCylinder) {
  // The same pressure ramp once as a profile and once as a logged CSV (linear
  // interpolation of a linear ramp is exact): the piston must move the same.
  const std::string log = stribeck::test::temp_dir() + "pressures.csv";
  {
    std::ofstream f(log);
    f << "time,pressure_a,pressure_b\n";
    for (int i = 0; i <= 100; ++i) f << i * 0.01 << "," << 5e5 + 2e6 * i * 0.01 << ",1e6\n";
  }
  const std::string common = R"(
mass = 12.0
area_a = 2e-3
area_b = 1e-3
external_force = -150.0
[friction]
model = "simscape-cylinder"
[friction.params]
F_pr = 50.0
f_cfr = 1e-4
K_brk = 1.3
f_vfr = 2000.0
[simulation]
t_end = 1.0
dt = 1e-3
)";
  const workloads::SimulateConfig a = workloads::read_simulate_config(write_temp_file(
      "cyl_profile.toml", "[system]\npressure_a = { offset = 5e5, slope = 2e6 }\npressure_b = 1e6\n" + common));
  const workloads::SimulateConfig b =
      workloads::read_simulate_config(write_temp_file("cyl_log.toml", "[system]\ninputs = \"" + log + "\"\n" + common));
  ASSERT_EQ(b.tables.size(), 2u);
  const workloads::SimulateSummary sa = workloads::run_simulation(a, temp_path("cyl_a.csv"), "test");
  const workloads::SimulateSummary sb = workloads::run_simulation(b, temp_path("cyl_b.csv"), "test");
  EXPECT_GT(sa.metrics.peak_velocity, 0.1);  // the ramp breaks the piston loose
  EXPECT_NEAR(sb.metrics.final_v, sa.metrics.final_v, 1e-9 * sa.metrics.final_v);
  EXPECT_NEAR(sb.metrics.final_s, sa.metrics.final_s, 1e-9 * std::abs(sa.metrics.final_s));
  EXPECT_NEAR(sb.metrics.dissipated, sa.metrics.dissipated, 1e-9 * sa.metrics.dissipated);
}

// An ensemble through the CLI: progress lines on stderr (plain ones, as
// stderr is not a terminal here, ending at 100 %), none with -q; a bad
// ensemble is one line, exit 2, and leaves no file.
TEST(SimulateCli, EnsembleReportsProgressAndRejectsBadSpaces) {
  const std::string base = std::string(kStiction) + "[ensemble]\n[ensemble.params]\n";
  const std::string cfg = write_temp_file("ens_cli.toml", base + "stiffness = \"list:5,10,20,40\"\n");
  const std::string out = temp_path("ens_cli.h5");
  std::string err;
  ASSERT_EQ(run_cli(cfg + " -o " + out, err), 0) << err;
  EXPECT_NE(err.find("4/4 points (100.0%)"), std::string::npos) << err;
  EXPECT_EQ(err.find('\r'), std::string::npos) << err;
  EXPECT_NE(err.find("ensemble of 4 points"), std::string::npos) << err;
  EXPECT_TRUE(std::ifstream(out).good());
  ASSERT_EQ(run_cli(cfg + " -o " + out + " -q", err), 0) << err;
  EXPECT_EQ(err.find("points (100.0%)"), std::string::npos) << err;
  for (const char* bad : {"stiffness = \"linear:5:40\"\n", "stifness = 3\n", "stiffness = \"uniform:1:2\"\n"}) {
    const std::string bcfg = write_temp_file("ens_cli_bad.toml", base + bad), bout = temp_path("ens_cli_bad.h5");
    std::remove(bout.c_str());
    EXPECT_EQ(run_cli(bcfg + " -o " + bout, err), 2) << bad;
    EXPECT_NE(err.find("ens_cli_bad.toml"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(std::ifstream(bout).good()) << bad;
  }
}

// --device / --precision override the [ensemble] keys (and are refused for a
// single simulation); a model warning is not printed before an error found
// later, so the error stays the only line.
TEST(SimulateCli, EnsembleFlagsAndWarningsAfterChecks) {
  const std::string lugre =
      "[system]\nmass = 1.0\nstiffness = 20.0\ndrive_velocity = 0.1\n"
      "[friction]\nmodel = \"lugre\"\n[simulation]\nt_end = 0.5\ndt = 1e-3\n";
  const std::string ens = lugre + "[ensemble]\ndevice = \"gpu\"\n[ensemble.params]\nstiffness = \"list:10,20\"\n";
  const std::string cfg = write_temp_file("ens_flags.toml", ens), out = temp_path("ens_flags.h5");
  std::string err;
  ASSERT_EQ(run_cli(cfg + " -o " + out + " --device cpu --precision fp32 -q", err), 0) << err;
  EXPECT_NE(err.find("ensemble of 2 points (fp32, cpu"), std::string::npos) << err;
  EXPECT_NE(err.find("warning: lugre: passivity"), std::string::npos) << err;  // the paper's defaults
  const std::string single = write_temp_file("single_flags.toml", lugre), sout = temp_path("single_flags.h5");
  std::remove(sout.c_str());
  EXPECT_EQ(run_cli(single + " -o " + sout + " --precision fp32", err), 2);
  EXPECT_NE(err.find("--precision applies to ensembles"), std::string::npos) << err;
  EXPECT_FALSE(std::ifstream(sout).good());
  EXPECT_EQ(run_cli(cfg + " -o " + out + " --device tpu", err), 1);  // a usage error: not among the choices
  EXPECT_NE(err.find("--device: tpu not in {auto,gpu,cpu}"), std::string::npos) << err;
  const std::string bad =
      write_temp_file("ens_bad_warn.toml", lugre + "[ensemble]\n[ensemble.params]\nstiffness = \"linear:1:2\"\n");
  EXPECT_EQ(run_cli(bad + " -o " + out, err), 2);
  EXPECT_NE(err.find("a grid range needs count"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;  // no warning line before it
}

TEST(SimulateCli, BadConfigsGiveOneLineErrorsAndNoOutput) {
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {"[friction]\nmodel = \"lugre\"\n[system]\nmas = 1\n", ":4:1: unknown key 'mas' in [system]"},
      {"[friction]\nmodel = \"lugre\"\nform = \"stiction\"\n", ":3:8: form = \"stiction\" needs a static law"},
      {"[friction]\nmodel = \"coulomb-viscous\"\nform = \"stiction\"\n",
       "needs 'breakaway' (the law has no F_brk, T_brk or F_s parameter)"},
      {"[friction]\nmodel = \"coulomb-viscous\"\nform = \"stiction\"\nbreakaway = 10\n",
       "breakaway = 10 is below the sliding force 20"},
      {"[friction]\nmodel = \"lugre\"\n[friction.params]\nF_s = 0.5\n", "F_s = 0.5 must be >= F_C = 1"},
      {"[friction]\nmodel = \"lugre\"\n[system]\nmass = -1\n", ":4:8: 'mass' must be > 0"},
      {"[friction]\nmodel = \"lugre\"\n[simulation]\ndt = \"x\"\n", ":4:6: 'dt' must be a number"},
      {"[friction\n", ":1:10:"},
      {"[friction]\nmodel = \"lugre\"\n[system]\ninputs = \"/nonexistent/log.csv\"\n", "/nonexistent/log.csv"},
      // Found by adversarial runs: each used to run, and then fail or report nonsense.
      {"[friction]\nmodel = \"nope\"\n", ":2:9: unknown model 'nope'"},
      {"[friction]\nmodel = \"lugre\"\n[system]\nexternal_force = nan\n",
       ":4:18: 'external_force' is not a finite number"},
      {"[friction]\nmodel = \"lugre\"\n[system]\ninputs = \".\"\n", "is a directory, not a file"},
      {"[friction]\nmodel = \"lugre\"\n[simulation]\nt_end = 0.1\ndt = 0.03\n",
       ":5:6: dt = 0.03 does not divide t_end = 0.1"},
      {"[friction]\nmodel = \"20sim-cv\"\n[system]\nnormal_force = -10\n",
       "normal_force (offset -10, amplitude 0, slope 0) must stay >= 0"},
      {"[friction]\nmodel = \"20sim-cv\"\n[system]\nnormal_force = { offset = 5, amplitude = 6 }\n", "must stay >= 0"},
      {"[friction]\nmodel = \"20sim-lugre\"\n", "20sim-lugre takes the normal force as an input"},
      {"[friction]\nmodel = \"lugre\"\n[system]\ninputs = \"a\\u0000b\"\n", "'inputs' contains a NUL character"},
      {"[friction]\nmodel = \"lugre\"\n[friction.params]\nsigma0 = nan\n",
       ":4:10: parameter 'sigma0' is not a finite number"},
      {"[friction]\nmodel = \"lugre\"\n[ensemble]\ndesign = \"random\"\npoints = 100000000000000000\n"
       "[ensemble.params]\nmass = \"uniform:1:2\"\n",
       ":5:10: 'points' must be a whole number from 0 to 1e+12"},
      // Pressures of 1e308 make the friction force inf - inf from the first sample.
      {"[friction]\nmodel = \"simscape-cylinder\"\n[system]\ninputs = \"huge_pressure.csv\"\narea_a = 1e-3\n"
       "[simulation]\nt_end = 0.1\n",
       "the simulation is not finite from its first sample"},
  };
  write_temp_file("huge_pressure.csv", "time,pressure_a\n0,1e308\n0.1,-1e308\n");
  int k = 0;
  for (const auto& c : cases) {
    const std::string cfg = write_temp_file("bad" + std::to_string(k++) + ".toml", c.text);
    const std::string out = temp_path("bad_out.h5");
    std::remove(out.c_str());
    std::string err;
    EXPECT_EQ(run_cli(cfg + " -o " + out, err), 2) << c.text;
    EXPECT_NE(err.find(c.expect), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(std::ifstream(out).good()) << c.text;
  }
}

}  // namespace
}  // namespace stribeck
