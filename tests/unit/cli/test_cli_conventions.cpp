// The conventions every command shares (issue 20, item 9; docs/cli.md
// "Conventions"): --json - on every command that reports, results and
// summaries on stdout and diagnostics on stderr, -q/-v everywhere, choices,
// ranges and lists checked by the parser and shown in --help; glog (Ceres)
// silent; outputs fsynced before their rename (item 11).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "stribeck/data/sweep_file.hpp"

namespace stribeck {
namespace {

struct CliResult {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The CLI with stdout and stderr apart; `prefix` goes before the binary
// (env settings, strace).
CliResult cli(const std::string& args, const std::string& prefix = "") {
  static int calls = 0;
  const std::string d = test::temp_dir(), o = d + "conv_out_" + std::to_string(++calls),
                    e = d + "conv_err_" + std::to_string(calls);
  const int rc = std::system((prefix + " " + STRIBECK_CLI + " " + args + " > " + o + " 2> " + e).c_str());
  CliResult r;
  r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(o);
  r.err = slurp(e);
  std::remove(o.c_str());
  std::remove(e.c_str());
  return r;
}

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }
// Data rows of a CSV: lines that are neither comments nor the header.
long csv_rows(const std::string& path) {
  std::ifstream in(path);
  long n = -1;  // the header
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') ++n;
  return n;
}

// Every command's inputs, made once per process.
class CliConventions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    d_ = new std::string(test::temp_dir() + "conventions/");
    std::system(("mkdir -p " + *d_).c_str());
    const std::string& d = *d_;
    ASSERT_EQ(cli("generate -q --model coulomb-viscous --profile triangle --duration 2 --rate 500 --noise force=0.01 "
                  "-o " +
                  d + "log.h5")
                  .code,
              0);
    const std::string system =
        "[system]\nmass = 1.0\nstiffness = 2.0\ndrive_velocity = 0.1\nfriction_on = \"ground\"\n[friction]\n"
        "model = \"lugre\"\n[friction.params]\nsigma1 = 1.0\nsigma2 = 1.0\n[simulation]\nt_end = 0.5\ndt = 1e-3\n";
    std::ofstream(d + "single.toml") << system;
    std::ofstream(d + "ens.toml") << system
                                  << "[ensemble]\ndevice = \"cpu\"\n[ensemble.params]\n"
                                     "mass = \"linear:0.5:2:3\"\ndrive_velocity = \"linear:0.01:0.3:4\"\n";
  }
  static void TearDownTestSuite() { delete d_; }
  static std::string sweep_flags() {
    return "-m coulomb-viscous -p F_C=linear:1:2:3 -p f_v=linear:0:1:4 --profile sine,samples=64 --design grid ";
  }
  static std::string* d_;
};
std::string* CliConventions::d_ = nullptr;

nlohmann::json parse(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "stdout is not one JSON document (" << e.what() << "):\n" << text;
    return nlohmann::json();
  }
}

// --json - on identify, sweep, simulate (single and ensemble), map and
// merge: stdout is one JSON document and nothing else, stderr holds no
// summary, and what the JSON says matches the files the run wrote.
TEST_F(CliConventions, JsonToStdoutOnEveryCommandThatReports) {
  const std::string& d = *d_;
  // identify: the same document as --json FILE (minus the timings).
  CliResult r = cli("identify " + d + "log.h5 -q --model coulomb-viscous --free F_C,f_v --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  nlohmann::json j = parse(r.out);
  ASSERT_EQ(cli("identify " + d + "log.h5 -q --model coulomb-viscous --free F_C,f_v --json " + d + "fit.json").code, 0);
  nlohmann::json f = nlohmann::json::parse(slurp(d + "fit.json"));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["model"], "coulomb-viscous");
  EXPECT_EQ(j["parameters"], f["parameters"]);
  // --batch: the table goes elsewhere or nowhere; stdout is only the JSON.
  r = cli("identify " + d + "log.h5 -q --batch --model coulomb-viscous --free F_C,f_v --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(parse(r.out)["fits"].size(), 1u);

  // sweep: 12 grid points, as the file says.
  r = cli("sweep -q " + sweep_flags() + "-o " + d + "s.h5 --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  j = parse(r.out);
  const data::SweepFile sf = data::read_sweep_file(d + "s.h5");
  EXPECT_EQ(j["points"], 12u);
  EXPECT_EQ(j["points"], sf.meta.count);
  EXPECT_EQ(j["completed"], 12u);
  EXPECT_EQ(j["finished"], true);
  EXPECT_EQ(j["design"], "grid");
  EXPECT_EQ(j["output"], d + "s.h5");
  ASSERT_FALSE(j["top"].empty());
  // Every parameter of the model, the swept ones at their grid values.
  EXPECT_EQ(j["top"][0]["parameters"].size(), 3u) << j["top"][0];
  EXPECT_GE(j["top"][0]["parameters"]["F_C"].get<double>(), 1.0);
  EXPECT_LE(j["top"][0]["parameters"]["F_C"].get<double>(), 2.0);

  // simulate, one system: the samples the CSV holds.
  r = cli("simulate -q " + d + "single.toml -o " + d + "single.csv --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  j = parse(r.out);
  EXPECT_EQ(j["kind"], "simulation");
  EXPECT_EQ(j["samples"].get<long>(), csv_rows(d + "single.csv")) << "one row per sample";
  // simulate, an ensemble of 3 x 4 points.
  r = cli("simulate -q " + d + "ens.toml -o " + d + "ens.h5 --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  j = parse(r.out);
  EXPECT_EQ(j["kind"], "ensemble");
  EXPECT_EQ(j["count"], 12u);
  EXPECT_EQ(j["completed"], 12u);
  EXPECT_EQ(j["status"]["ok"].get<unsigned>() + j["status"]["non_finite"].get<unsigned>() +
                j["status"]["step_limit"].get<unsigned>() + j["status"]["event_limit"].get<unsigned>() +
                j["status"]["invalid_parameters"].get<unsigned>(),
            12u);

  // map: the cells the CSV holds, and --list.
  r = cli("map -q " + d + "s.h5 --metric energy -o " + d + "map.csv --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  j = parse(r.out);
  EXPECT_EQ(j["cells_x"].get<int>() * j["cells_y"].get<int>(), 12) << "the 3 x 4 grid";
  EXPECT_EQ(csv_rows(d + "map.csv"), 12) << "one row per cell";
  EXPECT_EQ(j["points"], 12u);
  EXPECT_TRUE(j["smallest"].is_object());
  r = cli("map " + d + "s.h5 --list --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  j = parse(r.out);
  EXPECT_EQ(j["points"], 12u);
  EXPECT_NE(std::find(j["metrics"].begin(), j["metrics"].end(), "energy"), j["metrics"].end()) << j;

  // merge of two shards.
  for (int s = 0; s < 2; ++s)
    ASSERT_EQ(cli("sweep -q " + sweep_flags() + "--shard " + std::to_string(s) + "/2 -o " + d + "sh" +
                  std::to_string(s) + ".h5")
                  .code,
              0);
  r = cli("merge -q " + d + "sh0.h5 " + d + "sh1.h5 -o " + d + "merged.h5 --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  j = parse(r.out);
  EXPECT_EQ(j["kind"], "sweep");
  EXPECT_EQ(j["shards"], 2u);
  EXPECT_EQ(data::read_sweep_file(d + "merged.h5").meta.count, 12u);

  // --json naming the output or an input is refused before any work.
  r = cli("sweep -q " + sweep_flags() + "-o " + d + "t.h5 --json " + d + "t.h5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("given to both --output and --json"), std::string::npos) << r.err;
  r = cli("merge " + d + "sh0.h5 " + d + "sh1.h5 -o " + d + "m2.h5 --json " + d + "sh0.h5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is the input"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(d + "m2.h5").good());
}

// Summaries on stdout, nothing on stderr (with -q, for runs without
// warnings); a failure is one line on stderr and nothing on stdout.
TEST_F(CliConventions, SummariesOnStdoutDiagnosticsOnStderr) {
  const std::string& d = *d_;
  struct Case {
    std::string args, summary;
  };
  const std::vector<Case> cases = {
      {"generate -q --model coulomb-viscous --duration 1 -o " + d + "g.h5", "stribeck generate: "},
      {"export -q " + d + "g.h5 -o " + d + "g.csv", "stribeck export: "},
      {"import -q " + d + "g.csv -o " + d + "i.h5", "stribeck import: 1 experiment -> "},
      {"eval -q --model coulomb-viscous -i " + d + "g.csv -o " + d + "e.csv", "stribeck eval: "},
      {"identify -q " + d + "fitlog.h5 --model coulomb-viscous --free F_C,f_v -o " + d + "fitlog.h5",
       "stribeck identify: fitted force"},
      {"sweep -q " + sweep_flags() + "-o " + d + "s2.h5", "stribeck sweep: coulomb-viscous, grid design"},
      {"simulate -q " + d + "single.toml -o " + d + "s.csv", "stribeck simulate: lugre, 501 samples"},
      {"simulate -q " + d + "ens.toml -o " + d + "e2.h5", "stribeck simulate: ensemble of 12 points"},
      {"models -q", "coulomb-viscous"},
  };
  std::system(("cp " + d + "log.h5 " + d + "fitlog.h5").c_str());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const CliResult r = cli(c.args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "") << "stderr is for diagnostics";
    EXPECT_NE(r.out.find(c.summary), std::string::npos) << r.out;
  }
  // After the sweep above: map and merge.
  CliResult r = cli("map -q " + d + "s2.h5 --metric energy -o " + d + "m.svg");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("stribeck map: ", 0), 0u) << r.out;
  // export to stdout: the CSV alone.
  r = cli("export " + d + "g.h5 -o -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("stribeck export"), std::string::npos);
  EXPECT_EQ(r.out, slurp(d + "g.csv"));
  // Without -q a sweep's progress is a diagnostic: stderr, never stdout.
  r = cli("sweep " + sweep_flags() + "-o " + d + "s3.h5");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("12/12 points"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("12/12 points"), std::string::npos) << r.out;
  // An error: one line on stderr, nothing on stdout, whatever --json says.
  r = cli("sweep -q " + sweep_flags() + "-p F_X=1 -o " + d + "bad.h5 --json -");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err), 1u) << r.err;
}

// -q and -v on every command (help), -v adds a wall-time note on stderr,
// -q with -v is a usage error.
TEST_F(CliConventions, QuietAndVerboseOnEveryCommand) {
  const CliResult top = cli("--help");
  ASSERT_EQ(top.code, 0);
  const std::vector<std::string> commands = {"models", "eval",   "identify", "simulate", "sweep",  "merge",
                                             "map",    "import", "export",   "generate", "report", "plot"};
  for (const auto& c : commands) {
    SCOPED_TRACE(c);
    EXPECT_NE(top.out.find("  " + c), std::string::npos);
    const CliResult h = cli(c + " --help");
    ASSERT_EQ(h.code, 0);
    EXPECT_NE(h.out.find("-q,--quiet"), std::string::npos) << h.out;
    EXPECT_NE(h.out.find("-v,--verbose"), std::string::npos) << h.out;
  }
  CliResult r = cli("models -v");
  ASSERT_EQ(r.code, 0);
  EXPECT_NE(r.err.find("stribeck: models: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" s wall time, "), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  r = cli("models -q -v");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
}

// Choices (CLI::IsMember) and ranges (CLI::Range) are shown in --help and
// refused by the parser (exit 1, one line naming the choices); lists take
// commas (delimiter(',')) as well as repetition.
TEST_F(CliConventions, ChoicesRangesAndListsAreShownAndChecked) {
  const std::string& d = *d_;
  struct Help {
    std::string command, shown;
  };
  for (const Help& h : std::vector<Help>{{"sweep", "{grid,random,lhs,sobol}"},
                                         {"sweep", "{auto,gpu,cpu}"},
                                         {"sweep", "{fp64,fp32}"},
                                         {"simulate", "{auto,gpu,cpu}"},
                                         {"map", "{min,max,mean}"},
                                         {"map", "{auto,linear,log}"},
                                         {"export", "{csv,tsv}"},
                                         {"generate", "{triangle,"},
                                         {"import", "{velocity,acceleration}"},
                                         {"import", "[1 - 6]"},
                                         {"identify", "[0 - 4096]"}}) {
    const CliResult r = cli(h.command + " --help");
    EXPECT_NE(r.out.find(h.shown), std::string::npos) << h.command << " --help lacks " << h.shown << "\n" << r.out;
  }
  struct Bad {
    std::string args, expect;
  };
  for (const Bad& b : std::vector<Bad>{{"sweep " + sweep_flags() + "--device tpu", "{auto,gpu,cpu}"},
                                       {"sweep " + sweep_flags() + "--design halton", "halton"},
                                       {"export x.h5 --format xlsx -o y.csv", "{csv,tsv}"},
                                       {"generate --model coulomb-viscous --profile zigzag -o y.h5", "zigzag"},
                                       {"import x.csv --derive jerk -o y.h5", "jerk"},
                                       {"import x.csv --order 9 -o y.h5", "9"},
                                       {"identify x.h5 --model coulomb-viscous --threads -1", "-1"},
                                       {"map x.h5 --reduce median -o y.svg", "{min,max,mean}"}}) {
    SCOPED_TRACE(b.args);
    const CliResult r = cli(b.args);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("stribeck: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(b.expect), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // --metric a,b keeps the same metrics as --metric a --metric b.
  ASSERT_EQ(cli("sweep -q " + sweep_flags() + "--metric energy,peak_force -o " + d + "l1.h5").code, 0);
  ASSERT_EQ(cli("sweep -q " + sweep_flags() + "--metric energy --metric peak_force -o " + d + "l2.h5").code, 0);
  const data::SweepFile a = data::read_sweep_file(d + "l1.h5"), b = data::read_sweep_file(d + "l2.h5");
  EXPECT_EQ(a.meta.metrics, b.meta.metrics);
  EXPECT_EQ(a.meta.metrics.size(), 2u);
}

// Ceres logs through glog; the CLI silences it (main.cpp), also when the
// environment asks glog to be verbose (GLOG_* variables, as set on some
// clusters), so a fit whose starts fail still prints at most its one line.
// (STRIBECK_GLOG=1 keeps glog's own settings, for debugging.)
TEST_F(CliConventions, GlogStaysSilentWhenFitsStruggle) {
  const std::string& d = *d_;
  {
    // Forces of 1e200 over velocities of 1e150: costs overflow, starts fail.
    std::ofstream big(d + "huge.csv");
    big << "time,velocity,force\n";
    for (int i = 0; i < 400; ++i) {
      const double v = (i / 50) % 2 ? 1e150 : -1e150;
      big << i * 0.01 << ',' << v << ',' << (v > 0 ? 1e200 : -1e200) << '\n';
    }
  }
  const std::string env =
      "env GLOG_logtostderr=1 GLOG_alsologtostderr=1 GLOG_minloglevel=0 GLOG_stderrthreshold=0 GLOG_v=10";
  for (const std::string& args : {"identify " + d + "huge.csv -q --model coulomb-viscous",
                                  "identify " + d + "huge.csv -q --model lugre --starts 2",
                                  "identify " + d + "huge.csv -q --model simscape-translational --starts 3",
                                  "identify " + d + "log.h5 -q --model dahl --starts 2 --max-iterations 5"}) {
    SCOPED_TRACE(args);
    const CliResult r = cli(args, env);
    EXPECT_LE(lines(r.err), 1u) << r.err;
    if (r.code == 0) {
      EXPECT_EQ(r.err, "");
    } else {
      EXPECT_EQ(r.err.rfind("stribeck: error: ", 0), 0u) << r.err;
    }
    EXPECT_EQ(r.err.find("Terminating"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("ResidualBlock"), std::string::npos) << r.err;
  }
}

// Every rename of an output is preceded by an fsync of the file and
// followed by an fsync of its directory (strace; skipped where strace
// cannot trace).
TEST_F(CliConventions, OutputsAreSyncedBeforeTheirRename) {
  const std::string& d = *d_;
  if (std::system("strace -o /dev/null true > /dev/null 2>&1") != 0) GTEST_SKIP() << "strace is not usable here";
  struct Case {
    std::string args, target;
  };
  const std::vector<Case> cases = {
      {"eval -q --model coulomb-viscous -i " + d + "g.csv -o " + d + "fs_eval.csv", d + "fs_eval.csv"},
      {"sweep -q " + sweep_flags() + "-o " + d + "fs_sweep.h5", d + "fs_sweep.h5"},
      {"simulate -q " + d + "ens.toml -o " + d + "fs_ens.h5", d + "fs_ens.h5"},
      {"generate -q --model coulomb-viscous --duration 1 -o " + d + "fs_gen.h5", d + "fs_gen.h5"},
  };
  if (!std::ifstream(d + "g.csv").good()) ASSERT_EQ(cli("export -q " + d + "log.h5 -o " + d + "g.csv").code, 0);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const std::string trace = d + "fs_trace.txt";
    const CliResult r = cli(c.args, "strace -f -y -e trace=fsync,fdatasync,rename,renameat,renameat2 -o " + trace);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string t = slurp(trace);
    const size_t ren = t.find("\"" + c.target + "\")");
    ASSERT_NE(ren, std::string::npos) << "no rename onto the target:\n" << t;
    const size_t line_start = t.rfind('\n', ren);
    const std::string before = t.substr(0, line_start == std::string::npos ? 0 : line_start);
    // The file's fsync comes before the rename (strace -y shows the path).
    const std::string temp_prefix =
        c.target +
        (c.target.find(".h5") != std::string::npos && c.args.rfind("generate", 0) != 0 ? ".partial" : ".tmp.");
    EXPECT_NE(before.rfind("fsync("), std::string::npos) << t;
    EXPECT_NE(before.find("<" + temp_prefix), std::string::npos)
        << "no fsync of " << temp_prefix << " before the rename:\n"
        << t;
    // The directory's fsync comes after it.
    std::string dir = d;
    dir.pop_back();
    EXPECT_NE(t.find("fsync(", ren), std::string::npos) << t;
    EXPECT_NE(t.find("<" + dir + ">", ren), std::string::npos) << "no fsync of the directory after the rename:\n" << t;
  }
}

// git's habits (issue 34 item 5, row CLI): `help CMD` is `CMD --help`; an
// unknown option or command is named with the nearest one when it is near.
TEST(CliHabits, HelpCommandShowsTheCommandsHelp) {
  for (const char* c : {"sweep", "identify", "export-params"}) {
    const CliResult help = cli(std::string("help ") + c), direct = cli(std::string(c) + " --help");
    EXPECT_EQ(help.code, 0) << help.err;
    EXPECT_EQ(help.err, "");
    EXPECT_EQ(help.out, direct.out);
    EXPECT_NE(help.out.find(std::string("stribeck ") + c), std::string::npos) << help.out;
  }
  EXPECT_EQ(cli("help").out, cli("--help").out);
  const CliResult unknown = cli("help swep");
  EXPECT_EQ(unknown.code, 1);
  EXPECT_EQ(lines(unknown.err), 1u) << unknown.err;
  EXPECT_NE(unknown.err.find("unknown command 'swep'; did you mean 'sweep'?"), std::string::npos) << unknown.err;
}

TEST(CliHabits, UnknownOptionsAndCommandsSuggestTheNearest) {
  struct Case {
    std::string args, expect;
  };
  for (const Case& c : std::vector<Case>{
           {"--versoin", "unknown option '--versoin'; did you mean '--version'?"},
           {"--hepl", "unknown option '--hepl'; did you mean '--help'?"},
           {"sweep --devic cpu", "sweep: unknown option '--devic'; did you mean '--device'?"},
           {"models --jsn", "models: unknown option '--jsn'; did you mean '--json'?"},
           {"identify x.h5 --modle coulomb-viscous", "identify: unknown option '--modle'; did you mean '--model'?"},
           {"export x.h5 --ouptut=y.csv", "export: unknown option '--ouptut=y.csv'; did you mean '--output'?"},
           {"idnetify x.h5", "unknown command 'idnetify'; did you mean 'identify'?"},
       }) {
    SCOPED_TRACE(c.args);
    const CliResult r = cli(c.args);
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("stribeck: error: " + c.expect), std::string::npos) << r.err;
  }
  // Nothing near: named, without a guess.
  for (const std::string args : {"--frobnicate", "sweep --frobnicate", "frobnicate"}) {
    SCOPED_TRACE(args);
    const CliResult r = cli(args);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("unknown"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("frobnicate'"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
  }
}

// Every option shows a readable value label (FILE, KG, NAME=VALUE, the
// choices), never CLI11's type names (TEXT, FLOAT, INT, UINT) with a
// validator's label after a colon (FLOAT:MASS, UINT:POSITIVE); the help fits
// 80 columns.
TEST(CliHabits, EveryOptionHasAReadableValueLabel) {
  const CliResult top = cli("--help");
  std::vector<std::string> commands;
  const size_t at = std::min(top.out.find("SUBCOMMANDS:"), top.out.find("Subcommands:"));
  ASSERT_NE(at, std::string::npos) << top.out;
  const std::regex command_line("^  ([a-z][a-z-]*) ");
  std::istringstream list(top.out.substr(at));
  for (std::string line; std::getline(list, line);) {
    std::smatch m;
    if (std::regex_search(line, m, command_line)) commands.push_back(m[1]);
  }
  ASSERT_GE(commands.size(), 10u) << top.out;
  const std::regex cli11_type("\\b(TEXT|FLOAT|INT|UINT|BOOLEAN|POSITIVE|NONNEGATIVE|WHOLE)\\b");
  for (const std::string& c : commands) {
    const CliResult r = cli(c + " --help");
    ASSERT_EQ(r.code, 0) << c;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      EXPECT_LE(line.size(), 80u) << c << ": " << line;
      // The names and value label of an option (or positional): the
      // column before its description.
      const std::string head = line.substr(0, std::min<size_t>(line.size(), 30));
      EXPECT_FALSE(std::regex_search(head, cli11_type)) << c << ": " << line;
    }
  }
  struct Shown {
    std::string command, shown;
  };
  for (const Shown& s : std::vector<Shown>{{"identify", "--mass KG "},
                                           {"identify", "logs FILE ..."},
                                           {"identify", "--threads N in [0 - 4096]"},
                                           {"identify", "--fix NAME=VALUE ..."},
                                           {"eval", "-m,--model MODEL "},
                                           {"sweep", "-o,--output FILE "},
                                           {"sweep", "--device {auto,gpu,cpu}"},
                                           {"sweep", "--points N "},
                                           {"import", "--order N in [1 - 6]"},
                                           {"export", "-o,--output FILE|DIR|- REQUIRED"}}) {
    const CliResult r = cli(s.command + " --help");
    EXPECT_NE(r.out.find(s.shown), std::string::npos) << s.command << " --help lacks " << s.shown << "\n" << r.out;
  }
}

// "1 thread", "an identification result": counts and articles agree.
TEST_F(CliConventions, MessagesAgreeInNumberAndArticle) {
  const std::string& d = *d_;
  const CliResult one = cli("models -v", "OMP_NUM_THREADS=1");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.err.find("1 OpenMP thread available"), std::string::npos) << one.err;
  const CliResult sweep =
      cli("sweep " + sweep_flags() + "--device cpu --json - -o " + d + "one_thread.h5", "OMP_NUM_THREADS=1");
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  EXPECT_EQ(sweep.out.find("1 threads"), std::string::npos) << sweep.out;
  EXPECT_NE(sweep.out.find("1 thread"), std::string::npos) << sweep.out;
  ASSERT_EQ(cli("identify -q " + d + "log.h5 --model coulomb-viscous -o " + d + "article_fit.h5").code, 0);
  const CliResult plot = cli("plot " + d + "article_fit.h5 --log " + d + "log.h5 --what map -o " + d + "m.svg");
  EXPECT_EQ(plot.code, 2) << plot.err;
  EXPECT_NE(plot.err.find("an identification result has no figure 'map'"), std::string::npos) << plot.err;
}

}  // namespace
}  // namespace stribeck
