// Reliability of configs and parameters (issue 32, items 12, 13, 19, 20, 21,
// and the "configs and parameters" campaign): configs of any allowed size
// written into results that every reader reads back, one-parameter sweeps
// with their profile, numbers out of range named with the range, subnormal
// quantities refused, and a position that never moves seen as no motion.
// Every refusal asserts the exit code, one stderr line naming the key, and
// no output or temporary left.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "child_cli.hpp"
#include "stribeck/data/config_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/sweep_file.hpp"
#include "stribeck/workloads/simulate.hpp"

namespace stribeck {
namespace {

using test::exists;
using test::leftovers;
using test::lines;
using test::slurp;
using test::spit;
using Outcome = test::ChildRun;

std::string dir_for(const std::string& name) { return test::case_dir("cfg_", name); }

// Runs the CLI in `dir`'s files (stdout and stderr apart); a run still going
// after `limit` seconds is killed and reported as hung.
Outcome run(const std::vector<std::string>& args, const std::string& dir, double limit = 120) {
  static int calls = 0;
  test::ChildSpec spec;
  spec.out = dir + "stdout_" + std::to_string(++calls);
  spec.err = dir + "stderr_" + std::to_string(calls);
  return test::run_child(args, spec, {limit});
}

// Exit 2, one stderr line holding `expect`, `output` not written, nothing left.
void expect_refused(const Outcome& o, const std::string& expect, const std::string& dir, const std::string& output,
                    const std::string& what) {
  EXPECT_FALSE(o.hung) << what;
  EXPECT_EQ(o.code, 2) << what << "\n" << o.err;
  EXPECT_EQ(lines(o.err), 1u) << what << "\n" << o.err;
  EXPECT_NE(o.err.find(expect), std::string::npos) << what << ": expected '" << expect << "' in\n" << o.err;
  EXPECT_FALSE(exists(output)) << what;
  const auto left = leftovers(dir);
  EXPECT_TRUE(left.empty()) << what << ": " << left.front();
}

// `text` followed by comment lines up to `bytes` in all.
std::string padded(std::string text, size_t bytes) {
  const std::string line = "# " + std::string(97, 'x') + "\n";
  while (text.size() + line.size() <= bytes) text += line;
  return text;
}

const char* kSweep2 =
    "model = \"simscape-translational\"\n[params]\nF_C = { values = [1.0, 2.0] }\nf_v = { values = [10.0, 20.0] }\n"
    "[[trace]]\nprofile = \"sine\"\nsamples = 16\n";
const char* kSimulate =
    "[system]\nmass = 1.0\nstiffness = 2.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"coulomb-viscous\"\n"
    "[simulation]\nt_end = 0.01\ndt = 1e-3\n";
const char* kEnsemble =
    "[system]\nmass = 1.0\nstiffness = 2.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"coulomb-viscous\"\n"
    "[simulation]\nt_end = 0.01\ndt = 1e-3\n[ensemble]\n[ensemble.params]\nmass = \"list:1,2\"\n"
    "stiffness = \"list:1,2\"\n";

// The HDF5 attribute ids: what h5py (the Python reader of results) sees.
std::string h5py_config_size(const std::string& file, const std::string& group) {
  if (std::system("/usr/bin/python3 -c 'import h5py' > /dev/null 2>&1") != 0) return "no h5py";
  const std::string cmd =
      "/usr/bin/python3 -c \"import h5py,sys; f=h5py.File(sys.argv[1],'r'); "
      "a=f[sys.argv[2]].attrs['config']; print(len(a if isinstance(a,bytes) else a.encode()))\" " +
      file + " " + group;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return "popen failed";
  char buf[64] = {};
  const size_t n = std::fread(buf, 1, sizeof buf - 1, p);
  ::pclose(p);
  std::string s(buf, n);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// Item 12: a config over 64 KiB (libhdf5's limit of an attribute kept in
// its object's header), up to the 16 MiB a config may have, is written into
// the result of a sweep, a simulation and an ensemble, and read back whole
// by every reader: the sweep file's reader, resume, merge, map, report and
// h5py.
TEST(ConfigsCli, ConfigsOver64KiBAreWrittenAndReadBackByEveryReader) {
  const std::string d = dir_for("large");
  // The sweep at the limit: 16 MiB less a line.
  const std::string sweep = padded(kSweep2, data::kMaxConfigBytes - 100);
  ASSERT_GT(sweep.size(), data::kMaxConfigBytes - 200);
  spit(d + "sweep.toml", sweep);
  Outcome o = run({"sweep", d + "sweep.toml", "-o", d + "s.h5", "-q"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(data::read_sweep_file(d + "s.h5").meta.provenance.config, sweep);
  EXPECT_EQ(h5py_config_size(d + "s.h5", "sweep"), std::to_string(sweep.size()));
  // Resume: one chunk of two, then the rest.
  o = run({"sweep", d + "sweep.toml", "-o", d + "r.h5", "--chunk", "2", "--max-chunks", "1", "-q"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_TRUE(exists(d + "r.h5.partial"));
  o = run({"sweep", d + "sweep.toml", "-o", d + "r.h5", "--chunk", "2", "--resume", "-q"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(data::read_sweep_file(d + "r.h5").meta.provenance.config, sweep);
  // Merge of two shards.
  for (const char* s : {"0", "1"}) {
    o = run({"sweep", d + "sweep.toml", "--shard", std::string(s) + "/2", "-o", d + "sh" + s + ".h5", "-q"}, d);
    ASSERT_EQ(o.code, 0) << o.err;
  }
  o = run({"merge", d + "sh0.h5", d + "sh1.h5", "-o", d + "m.h5", "-q"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(data::read_sweep_file(d + "m.h5").meta.provenance.config, sweep);
  o = run({"map", d + "m.h5", "--metric", "energy", "-o", d + "map.csv", "-q"}, d);
  EXPECT_EQ(o.code, 0) << o.err;
  o = run({"report", d + "s.h5", "-o", d + "s.html", "-q"}, d);
  EXPECT_EQ(o.code, 0) << o.err;

  // A simulation and an ensemble with 200 kB configs.
  const std::string sim = padded(kSimulate, 200000), ens = padded(kEnsemble, 200000);
  spit(d + "sim.toml", sim);
  spit(d + "ens.toml", ens);
  o = run({"simulate", d + "sim.toml", "-o", d + "sim.h5", "-q"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(data::read_results(d + "sim.h5", "results/metrics").provenance.config, sim);
  EXPECT_EQ(h5py_config_size(d + "sim.h5", "/"), std::to_string(sim.size()));
  o = run({"report", d + "sim.h5", "-o", d + "sim.html", "-q"}, d);
  EXPECT_EQ(o.code, 0) << o.err;
  o = run({"simulate", d + "ens.toml", "-o", d + "ens.h5", "-q"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(data::read_results(d + "ens.h5", "ensemble", false).provenance.config, ens);
  for (const char* s : {"0", "1"}) {
    o = run({"simulate", d + "ens.toml", "--shard", std::string(s) + "/2", "-o", d + "esh" + s + ".h5", "-q"}, d);
    ASSERT_EQ(o.code, 0) << o.err;
  }
  o = run({"merge", d + "esh0.h5", d + "esh1.h5", "-o", d + "em.h5", "-q"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(data::read_results(d + "em.h5", "ensemble", false).provenance.config, ens);
  o = run({"report", d + "em.h5", "-o", d + "em.html", "-q"}, d);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(leftovers(d).empty());
}

// Item 13: a sweep that varies one parameter has its profile (the objective
// over that parameter) in the report and as `plot --what profile`; it has
// no map, and says so.
TEST(ConfigsCli, OneParameterSweepHasItsProfileInReportAndPlot) {
  const std::string d = dir_for("one_param");
  // f_v is the model's fourth parameter: the profile is the varying one's,
  // not the first parameter's.
  spit(d + "one.toml",
       "model = \"simscape-translational\"\n[params]\nf_v = { linear = [10.0, 100.0], count = 5 }\n"
       "[[trace]]\nprofile = \"sine\"\nsamples = 16\n");
  Outcome o = run({"sweep", d + "one.toml", "-o", d + "s.h5", "--report", d + "s.html", "-q"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err, "");
  const std::string html = slurp(d + "s.html");
  EXPECT_NE(html.find("over f_v"), std::string::npos) << "the profile over the varying parameter";
  EXPECT_EQ(html.find("over F_C"), std::string::npos) << "no one-point profile of a fixed parameter";
  EXPECT_NE(html.find("one varying parameter: no map"), std::string::npos);
  o = run({"plot", d + "s.h5", "--what", "map", "-o", d + "map.svg"}, d);
  expect_refused(o, "a sweep result has no figure 'map' (it has: profile)", d, d + "map.svg", "plot --what map");
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot not installed";
  o = run({"plot", d + "s.h5", "--what", "profile", "-o", d + "p.svg"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string svg = slurp(d + "p.svg");
  EXPECT_NE(svg.find("f_v"), std::string::npos) << "the x axis is the varying parameter";
}

// The same for an ensemble that varies one quantity (beside a fixed one):
// `simulate --report` exited 2 after writing its result ("only stiffness
// varies; a map needs two"); the map metrics are drawn over it instead.
TEST(ConfigsCli, OneQuantityEnsembleHasItsMetricsOverItInReportAndPlot) {
  const std::string d = dir_for("one_quantity");
  spit(d + "ens.toml",
       "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"simscape-translational\"\n"
       "[simulation]\nt_end = 0.1\ndt = 1e-3\n[ensemble]\n[ensemble.params]\nstiffness = \"linear:1:10:5\"\n"
       "mass = 2.0\n");
  Outcome o = run({"simulate", d + "ens.toml", "-o", d + "e.h5", "--report", d + "e.html", "-q"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string html = slurp(d + "e.html");
  EXPECT_NE(html.find("stick_slip over stiffness"), std::string::npos);
  EXPECT_NE(html.find("one varying quantity: no maps"), std::string::npos);
  o = run({"plot", d + "e.h5", "--what", "map", "-o", d + "map.svg"}, d);
  expect_refused(o, "has no figure 'map' (it has: profile)", d, d + "map.svg", "plot --what map");
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot not installed";
  o = run({"plot", d + "e.h5", "--what", "profile", "-o", d + "p.svg"}, d);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(slurp(d + "p.svg").find("stiffness"), std::string::npos) << "the x axis is the varying quantity";
}

// Item 19: integers beyond 2^53 are numbers; the message gives the range.
TEST(ConfigsCli, HugeIntegersAreNumbersOutOfTheirRange) {
  const std::string d = dir_for("huge_int");
  struct Case {
    std::string line, expect;
  };
  const std::vector<Case> cases = {
      {"max_substeps = 1000000000000000000", "'max_substeps' must be an integer in [1, 1e8]"},
      {"max_substeps = 1e18", "'max_substeps' must be an integer in [1, 1e8]"},
      {"max_events = -9223372036854775808", "'max_events' must be an integer in [1, 1e6]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.line);
    spit(d + "sim.toml", std::string(kSimulate) + c.line + "\n");
    expect_refused(run({"simulate", d + "sim.toml", "-o", d + "o.h5"}, d), c.expect, d, d + "o.h5", c.line);
  }
  // In a sweep: a parameter of 2^53 + 1 written as an integer is a value.
  spit(d + "s.toml",
       "model = \"simscape-translational\"\n[params]\nF_brk = 9007199254740993\nF_C = { values = [1.0, 2.0] }\n"
       "[[trace]]\nprofile = \"sine\"\nsamples = 16\n");
  const Outcome o = run({"sweep", d + "s.toml", "-o", d + "s.h5", "-q"}, d);
  EXPECT_EQ(o.code, 0) << o.err;
}

// Item 20: a subnormal quantity of the system (nonzero, below 2.2e-308)
// is refused by name; 1/m would be infinite.
TEST(ConfigsCli, SubnormalSystemQuantitiesAreRefused) {
  const std::string d = dir_for("subnormal");
  struct Case {
    std::string from, to, expect;
  };
  const std::vector<Case> cases = {
      {"mass = 1.0", "mass = 1e-310", "'mass' = 1e-310 is subnormal (nonzero and below 2.2e-308)"},
      {"mass = 1.0", "mass = -4.9e-324", "'mass' = -5e-324 is subnormal"},
      {"stiffness = 2.0", "stiffness = 2e-320", "'stiffness' = 2e-320 is subnormal"},
      {"drive_velocity = 0.1", "drive_velocity = 1e-310", "'drive_velocity' = 1e-310 is subnormal"},
      {"dt = 1e-3", "dt = 1e-3\nmax_substeps = 100\n[metrics]\nv_stick = 3e-310", "'v_stick' = 3e-310 is subnormal"},
      {"mass = 1.0", "mass = 0.0", "'mass' must be > 0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.to);
    std::string text = kSimulate;
    text.replace(text.find(c.from), c.from.size(), c.to);
    spit(d + "sim.toml", text);
    expect_refused(run({"simulate", d + "sim.toml", "-o", d + "o.h5"}, d), c.expect, d, d + "o.h5", c.to);
  }
  // An ensemble axis that reaches a subnormal mass (the axes' own check).
  std::string text = kEnsemble;
  text.replace(text.find("list:1,2\""), 9, "list:1e-310,2\"");
  spit(d + "ens.toml", text);
  expect_refused(run({"simulate", d + "ens.toml", "-o", d + "o.h5"}, d), "mass: 1e-310 is subnormal", d, d + "o.h5",
                 "ensemble axis");
}

// Item 21: a log whose velocity is derived from a position that never moves
// is refused as "no motion" (the derivative is rounding noise of about
// 1e-17 m/s, not motion), with or without parallel filtering; a position
// creeping at 1 um/s still fits.
TEST(ConfigsCli, DerivedVelocityOfAConstantPositionIsNoMotion) {
  const std::string d = dir_for("no_motion");
  // Position x0 + a sin(2 pi t) over 2 s at 1 kHz.
  auto log = [&](const std::string& name, double a) {
    std::string csv = "time,position,force\n";
    char row[128];
    for (int i = 0; i < 2000; ++i) {
      const double t = i * 1e-3, v = a * 2 * M_PI * std::cos(2 * M_PI * t);
      // x0 is not a round number: the derivative's sums of it round.
      const double x = 0.123456789012345 + a * std::sin(2 * M_PI * t);
      std::snprintf(row, sizeof row, "%.6f,%.17g,%.9g\n", t, x, 5.0 * std::tanh(v / 1e-4) + 40.0 * v);
      csv += row;
    }
    spit(d + name, csv);
  };
  log("still.csv", 0.0);
  for (const char* filter : {"", "--no-parallel-filter"}) {
    SCOPED_TRACE(filter);
    std::vector<std::string> args = {"identify", d + "still.csv", "-m", "coulomb-viscous", "--json", d + "fit.json"};
    if (*filter) args.push_back(filter);
    expect_refused(run(args, d), "no motion", d, d + "fit.json", "constant position");
  }
  // A motion of 1e-6 m amplitude (6.3 um/s at most) is motion.
  log("moving.csv", 1e-6);
  const Outcome o = run({"identify", d + "moving.csv", "-m", "coulomb-viscous", "--json", d + "fit.json", "-q"}, d);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(exists(d + "fit.json"));
}

// The configs campaign (docs/reliability.md): a key or table header of
// 50000 dotted parts overflowed toml++'s stack (SIGSEGV) and a top_k past
// 2^31 wrapped (2^32 + 1 kept one entry); both are refused in one line.
// The other odd configs of the campaign end as they did: exit 2 with one
// line naming the key, or a run.
TEST(ConfigsCli, OddConfigsEndInOneLineOrRun) {
  const std::string d = dir_for("odd");
  const std::string sweep =
      "model = \"simscape-translational\"\n[params]\nF_C = { values = [1.0, 2.0] }\n"
      "[[trace]]\nprofile = \"sine\"\nsamples = 16\n";
  std::string deep = "x";
  for (int i = 0; i < 50000; ++i) deep += ".a";
  struct Case {
    std::string command, text, expect;  // expect "": the run succeeds
  };
  const std::vector<Case> cases = {
      {"sweep", sweep + deep + " = 1\n", "a key of more than 256 dotted parts"},
      {"sweep", sweep + "[" + deep + "]\n", "a key of more than 256 dotted parts"},
      {"sweep", sweep + "[[" + deep + "]]\n", "a key of more than 256 dotted parts"},
      {"simulate", std::string(kSimulate) + deep + " = 1\n", "a key of more than 256 dotted parts"},
      {"sweep", sweep + "[metrics]\ntop_k = 4294967297\n", "metrics.top_k = 4294967297: at most 2147483647"},
      {"sweep", sweep + "[metrics]\ntop_k = 1e18\n", "metrics.top_k = 1000000000000000000: at most 2147483647"},
      {"sweep", sweep + "[metrics]\ntop_k = 2147483647\n", ""},
      {"sweep", "F_C = " + std::string(100000, '[') + std::string(100000, ']') + "\n", "maximum nested value depth"},
      {"sweep", sweep + "x = {" + deep.substr(2) + " = 1}\n", "unknown key 'x'"},
      {"sweep", sweep + "[design]\npoints = 9223372036854775808\n", "not representable in 64 bits"},
      {"sweep", std::string(sweep).replace(sweep.find("[1.0, 2.0]"), 10, "[-0.0, 1e308]"), ""},
      {"sweep", std::string(sweep).replace(sweep.find("values = [1.0, 2.0]"), 19, "linear = [-1e308, 1e308]"),
       "its span overflows"},
      {"sweep", std::string(sweep).replace(sweep.find("{ values = [1.0, 2.0] }"), 23, "nan"),
       "F_C must be a finite number"},
      {"sweep", std::string(sweep).replace(sweep.find("{ values = [1.0, 2.0] }"), 23, "-inf"),
       "F_C must be a finite number"},
      {"sweep", std::string(sweep).replace(sweep.find("{ values = [1.0, 2.0] }"), 23, "1e309"),
       "could not be interpreted as a value"},
      {"sweep", std::string(sweep).replace(sweep.find("{ values = [1.0, 2.0] }"), 23, "5e-324"), "is subnormal"},
      {"simulate", std::string(kSimulate) + "[metrics]\nsettle_fraction = nan\n",
       "'settle_fraction' is not a finite number"},
      {"simulate", std::string(kSimulate).replace(std::string(kSimulate).find("dt = 1e-3"), 9, "dt = 5e-324"),
       "'dt' = 5e-324 is subnormal"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.command + ": " + c.expect + " " + c.text.substr(0, 120));
    spit(d + "c.toml", c.text);
    const Outcome o = run({c.command, d + "c.toml", "-o", d + "o.h5", "-q"}, d);
    if (c.expect.empty()) {
      EXPECT_EQ(o.code, 0) << o.err;
      std::remove((d + "o.h5").c_str());
    } else {
      expect_refused(o, c.expect, d, d + "o.h5", c.command);
    }
  }
}

}  // namespace
}  // namespace stribeck
