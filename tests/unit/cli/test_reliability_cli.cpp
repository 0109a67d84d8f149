// Reliability of the CLI and its runs under faults and hostile input (issue
// 21, the CLI/host classes): non-regular and oversized configs (class 6),
// signals (7), an ensemble whose final rename failed (8), step counts that
// overflow (9), the size guard (10), messages (12), parameter domains (13)
// and strings from files written into CSV, SVG and messages (item 11).
// Every case asserts the exit code, that stderr is exactly one line where an
// error is expected, that no temporary file is left, and that files that
// existed before are byte-identical after.
#include <gtest/gtest.h>
#include <H5public.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "child_cli.hpp"
#include "stribeck/data/hdf5_watchdog.hpp"
#include "stribeck/data/interrupt.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/svg_heat_map.hpp"
#include "stribeck/data/sweep_file.hpp"
#include "stribeck/data/text_export.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/simulate.hpp"

namespace stribeck {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using test::exists;
using test::leftovers;
using test::lines;
using test::same_bits;
using test::slurp;
using test::spit;
using Outcome = test::ChildRun;

// A directory of its own per test, so "no temporary is left" can list it.
std::string dir_for(const std::string& name) { return test::case_dir("rel_", name); }

// Runs the CLI (stdout and stderr apart, in `dir`). With `sig`, sends it
// `after` seconds in, and (if `once_exists` is given) not before that path
// exists. A run still going after `limit` seconds is SIGKILLed and reported
// as hung, so that a blocking bug fails the test instead of hanging it.
Outcome run(const std::vector<std::string>& args, const std::string& dir, int sig = 0, double after = 0,
            double limit = 60, const std::string& once_exists = "") {
  static int calls = 0;
  test::ChildSpec spec;
  spec.out = dir + "stdout_" + std::to_string(++calls);
  spec.err = dir + "stderr_" + std::to_string(calls);
  return test::run_child(args, spec, {limit, sig, after, once_exists});
}

// Expects exit `code` with exactly one stderr line holding `expect`.
void expect_one_line(const Outcome& o, int code, const std::string& expect, const std::string& what) {
  EXPECT_FALSE(o.hung) << what << ": still running after the time limit";
  EXPECT_EQ(o.code, code) << what << "\n" << o.err;
  EXPECT_EQ(lines(o.err), 1u) << what << "\n" << o.err;
  EXPECT_NE(o.err.find(expect), std::string::npos) << what << ": expected '" << expect << "' in\n" << o.err;
}

const char* kSweepSmall =
    "model = \"simscape-translational\"\n[params]\nF_C = { values = [1.0, 2.0] }\n"
    "[[trace]]\nprofile = \"sine\"\nsamples = 16\n";

// Class 6 (item 4): FIFOs, devices and directories as configs or inputs are
// refused at once naming what they are; a config over 16 MiB is refused
// before it is read. None of these may block (a FIFO without a writer) or
// read until memory runs out (/dev/zero).
TEST(ReliabilityCli, NonRegularAndOversizedConfigsAreRefusedAtOnce) {
  const std::string d = dir_for("nonregular");
  const std::string fifo = d + "fifo", sub = d + "subdir", big = d + "big.toml", sweep = d + "sweep.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_directory(sub);
  spit(sweep, kSweepSmall);
  {
    // 17 MiB: a sparse file, so the test writes nothing.
    const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, 17 << 20), 0);
    ::close(fd);
  }
  // Two shards to merge next to a FIFO.
  ASSERT_EQ(run({"sweep", sweep, "-q", "--shard", "0/2", "-o", d + "s0.h5"}, d).code, 0);
  const std::string s0 = slurp(d + "s0.h5"), sweep_text = slurp(sweep);
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  const Case cases[] = {
      {{"sweep", fifo, "-o", d + "o.h5"}, fifo + ": is a FIFO (named pipe), not a sweep config file"},
      {{"simulate", fifo, "-o", d + "o.h5"}, fifo + ": is a FIFO (named pipe), not a simulate config file"},
      {{"sweep", "/dev/zero", "-o", d + "o.h5"}, "/dev/zero: is a character device, not a sweep config file"},
      {{"simulate", "/dev/zero", "-o", d + "o.h5"}, "/dev/zero: is a character device"},
      {{"sweep", sub, "-o", d + "o.h5"}, sub + ": is a directory, not a sweep config file"},
      {{"simulate", sub, "-o", d + "o.h5"}, sub + ": is a directory, not a simulate config file"},
      {{"sweep", big, "-o", d + "o.h5"}, "the sweep config is 17825792 bytes; at most 16 MiB"},
      {{"simulate", big, "-o", d + "o.h5"}, "the simulate config is 17825792 bytes; at most 16 MiB"},
      {{"merge", d + "s0.h5", fifo, "-o", d + "m.h5"}, fifo + ": is not a regular file but a FIFO (named pipe)"},
      {{"merge", d + "s0.h5", sub, "-o", d + "m.h5"}, sub + ": is a directory"},
      {{"merge", d + "s0.h5", "/dev/zero", "-o", d + "m.h5"},
       "/dev/zero: is not a regular file but a character device"},
  };
  for (const auto& c : cases) {
    const Outcome o = run(c.args, d, 0, 0, 10);
    expect_one_line(o, 2, c.expect, c.args[0] + " " + c.args[1]);
    EXPECT_LT(o.seconds, 5) << "not refused at once";
  }
  EXPECT_FALSE(exists(d + "o.h5"));
  EXPECT_FALSE(exists(d + "m.h5"));
  EXPECT_TRUE(leftovers(d).empty());
  EXPECT_EQ(slurp(d + "s0.h5"), s0);
  EXPECT_EQ(slurp(sweep), sweep_text);
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// Class 12 (item 9): text that is not UTF-8 is said for what it is, in
// configs and in traces/logs.
TEST(ReliabilityCli, Utf16AndNulInputsAreNamed) {
  const std::string d = dir_for("encoding");
  const std::string ascii = "time,velocity\n0,0.1\n0.001,0.2\n";
  std::string utf16_bom = "\xFF\xFE", utf16_plain;
  for (char c : ascii) utf16_bom += std::string(1, c) + '\0', utf16_plain += std::string(1, c) + '\0';
  spit(d + "bom.csv", utf16_bom);
  spit(d + "plain16.csv", utf16_plain);
  spit(d + "nul.csv", ascii.substr(0, 20) + std::string(1, '\0') + ascii.substr(20));
  std::string far_nul = "time,velocity\n";
  for (int i = 0; i < 40; ++i) far_nul += std::to_string(i) + ",0.5\n";
  far_nul += std::string(1, '\0') + "\n";
  spit(d + "far_nul.csv", far_nul);
  spit(d + "bom.toml", "\xFF\xFE" + std::string("m\0o\0", 4));
  spit(d + "nul.toml", std::string("model = \"coulomb\"\0\n", 19));
  const std::string o = d + "o.csv";
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  const Case cases[] = {
      {{"eval", "-m", "coulomb-viscous", "-i", d + "bom.csv", "-o", o},
       "is UTF-16 text (byte-order mark); save it as UTF-8"},
      {{"eval", "-m", "coulomb-viscous", "-i", d + "plain16.csv", "-o", o}, "looks like UTF-16 text"},
      {{"eval", "-m", "coulomb-viscous", "-i", d + "nul.csv", "-o", o},
       "nul.csv:3: holds a NUL byte (character 1 of the line): not a text file"},
      {{"import", d + "bom.csv", "-o", d + "o.h5"}, "is UTF-16 text (byte-order mark)"},
      {{"import", d + "plain16.csv", "-o", d + "o.h5"}, "looks like UTF-16 text"},
      {{"import", d + "far_nul.csv", "-o", d + "o.h5"}, "holds a NUL byte"},
      {{"sweep", d + "bom.toml", "-o", d + "o.h5"}, "the sweep config is UTF-16 text (byte-order mark)"},
      {{"simulate", d + "nul.toml", "-o", d + "o.h5"}, "the simulate config holds a NUL byte (at byte 17)"},
  };
  for (const auto& c : cases) expect_one_line(run(c.args, d), 2, c.expect, c.args[0] + " " + c.args.back());
  EXPECT_FALSE(exists(o));
  EXPECT_FALSE(exists(d + "o.h5"));
  EXPECT_TRUE(leftovers(d).empty());
}

// Class 12 (item 9): an unknown command is named with the nearest one and
// the list; a bare `stribeck` prints the help; echoed input is cut (a
// 1e6-character CSV cell or column name makes no 1 MB line); a newline in
// an echoed name does not break the line.
TEST(ReliabilityCli, MessagesNameTheCommandAndStayShort) {
  const std::string d = dir_for("messages");
  Outcome o = run({"swep", "x.toml"}, d);
  expect_one_line(o, 1, "unknown command 'swep'; did you mean 'sweep'?", "swep");
  for (const char* c :
       {"models", "eval", "identify", "simulate", "sweep", "merge", "map", "import", "export", "generate"})
    EXPECT_NE(o.err.find(c), std::string::npos) << c << " missing from the list: " << o.err;
  o = run({"imprt"}, d);
  expect_one_line(o, 1, "did you mean 'import'?", "imprt");

  // Bare: the help on stdout, one usage line on stderr, exit 1.
  o = run({}, d);
  expect_one_line(o, 1, "stribeck: error: a command is required: models, eval,", "bare stribeck");
  EXPECT_NE(o.out.find("Usage: stribeck"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("simulate"), std::string::npos) << o.out;
  o = run({"help"}, d);
  EXPECT_EQ(o.code, 0);
  EXPECT_TRUE(o.err.empty()) << o.err;
  EXPECT_NE(o.out.find("Usage: stribeck"), std::string::npos) << o.out;

  // A 1e6-character column name and a 1e6-character cell.
  const std::string huge(1000000, 'x');
  spit(d + "wide_header.csv", "time," + huge + "\n0,1\n1,2\n");
  spit(d + "wide_cell.csv", "time,velocity\n0," + huge + "\n1,2\n");
  for (const std::string f : {"wide_header.csv", "wide_cell.csv"}) {
    // import takes the wide name (a channel may be called anything) but
    // echoes it cut; the wide cell is an error.
    o = run({"import", d + f, "-o", d + "o.h5"}, d);
    EXPECT_EQ(o.code, f == "wide_cell.csv" ? 2 : 0) << o.err.substr(0, 300);
    EXPECT_LT(o.err.size() + o.out.size(), 600u) << f << ": " << o.err.substr(0, 300);
    std::remove((d + "o.h5").c_str());
    o = run({"eval", "-m", "coulomb-viscous", "-i", d + f, "-o", d + "o.csv"}, d);
    EXPECT_EQ(o.code, 2) << o.err.substr(0, 300);
    EXPECT_EQ(lines(o.err), 1u);
    EXPECT_LT(o.err.size(), 600u) << f << ": " << o.err.substr(0, 300);
  }
  // An experiment name with a newline, echoed in the list of a log's
  // experiments: still one line.
  data::Experiment e;
  e.name = "line one\nline two";
  e.channels["time"] = {0, 0.001, 0.002};
  e.channels["velocity"] = {0.1, 0.2, 0.3};
  e.units["time"] = "s";
  e.units["velocity"] = "m/s";
  write_log(d + "nl.h5", {e}, data::Provenance{});
  const std::string before = slurp(d + "nl.h5");
  o = run({"export", d + "nl.h5", "-e", "nope", "-o", d + "o.csv"}, d);
  expect_one_line(o, 2, "line one\\nline two", "export -e nope");
  EXPECT_EQ(slurp(d + "nl.h5"), before);
  EXPECT_FALSE(exists(d + "o.csv"));
  EXPECT_FALSE(exists(d + "o.h5"));
  EXPECT_TRUE(leftovers(d).empty());
}

// Class 12 (item 9): an HDF5 file locked by another process is reported as
// locked, with the way out, not as truncated or corrupt.
TEST(ReliabilityCli, LockedHdf5FileIsReportedAsLocked) {
  const std::string d = dir_for("locked");
  const std::string log = d + "log.h5";
  fs::copy_file(std::string(STRIBECK_SOURCE_DIR) + "/data/examples/cylinder_plateaus.h5", log);
  const std::string before = slurp(log);
  const int fd = ::open(log.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);  // as an HDF5 writer holds it
  const Outcome o = run({"export", log, "-e", "p40bar", "-o", d + "o.csv"}, d);
  ::flock(fd, LOCK_UN);
  ::close(fd);
  if (o.code == 0) GTEST_SKIP() << "this HDF5 build does not lock files";
  expect_one_line(o, 2, log + ": locked by another process (HDF5 file locking)", "export of a locked log");
  EXPECT_NE(o.err.find("HDF5_USE_FILE_LOCKING=FALSE"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("corrupt"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(log), before);
  EXPECT_FALSE(exists(d + "o.csv"));
}

// Class 9: t_end / dt must fit the step counter; t_end = 1e20 was an
// "internal error" (exit 3).
TEST(ReliabilityCli, StepCountsThatOverflowAreRefusedNamingTheLimit) {
  const std::string d = dir_for("steps");
  struct Case {
    std::string t_end, dt;
  };
  for (const Case c : {Case{"1e20", "1e-3"}, Case{"1e300", "1.0"}, Case{"1.0", "1e-300"}, Case{"1e6", "1e-3"}}) {
    const std::string cfg = d + "sim.toml";
    spit(cfg, "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"lugre\"\n[simulation]\nt_end = " +
                  c.t_end + "\ndt = " + c.dt + "\n");
    for (const bool ensemble : {false, true}) {
      if (ensemble) {
        std::ofstream(cfg, std::ios::app) << "[ensemble]\n[ensemble.params]\nstiffness = \"linear:5:20:2\"\n";
      }
      const Outcome o = run({"simulate", cfg, "-q", "-o", d + "o.h5"}, d);
      expect_one_line(o, 2, "output samples; at most 5e7", "t_end " + c.t_end + ", dt " + c.dt);
    }
  }
  EXPECT_FALSE(exists(d + "o.h5"));
  EXPECT_TRUE(leftovers(d).empty());
}

// Class 13 (item 10): subnormal, infinite and absurd parameter values are
// refused with the valid range wherever parameters enter.
TEST(ReliabilityCli, SubnormalAndNonFiniteParametersAreRefusedWithTheRange) {
  const std::string d = dir_for("params");
  const std::string log = std::string(STRIBECK_SOURCE_DIR) + "/data/examples/cylinder_plateaus.h5";
  const std::string trace = std::string(STRIBECK_SOURCE_DIR) + "/data/examples/sine_trace.csv";
  spit(d + "sweep.toml",
       "model = \"simscape-translational\"\n[params]\nF_C = { values = [1.0, 2.0] }\n"
       "v_brk = 1e-310\n[[trace]]\nprofile = \"sine\"\nsamples = 16\n");
  spit(d + "sweep_list.toml",
       "model = \"simscape-translational\"\n[params]\nF_C = { values = [1.0, 4e-320] }\n"
       "[[trace]]\nprofile = \"sine\"\nsamples = 16\n");
  spit(d + "sim.toml",
       "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"simscape-translational\"\n"
       "[friction.params]\nv_brk = 1e-310\n[simulation]\nt_end = 1.0\ndt = 1e-3\n");
  spit(d + "ens.toml",
       "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"lugre\"\n"
       "[simulation]\nt_end = 1.0\ndt = 1e-3\n[ensemble]\n[ensemble.params]\n"
       "stiffness = \"linear:1e-310:20:3\"\n");
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  const Case cases[] = {
      {{"simulate", d + "ens.toml", "-q", "-o", d + "o.h5"}, "stiffness: 1e-310 is subnormal (below 2.2e-308)"},
      {{"sweep", "-m", "simscape-translational", "-p", "v_brk=1e-310", "-p", "F_C=list:1,2", "--profile", "sine", "-o",
        d + "o.h5"},
       "1e-310 is subnormal (below 2.2e-308): divisions by it overflow (valid range (0, inf)"},
      {{"sweep", d + "sweep.toml", "-o", d + "o.h5"},
       "is subnormal (below 2.2e-308): divisions by it overflow (valid range (0, inf)"},
      {{"sweep", d + "sweep_list.toml", "-o", d + "o.h5"}, "4e-320 is subnormal"},
      {{"sweep", "-m", "simscape-translational", "-p", "F_C=linear:1e-310:1:3", "--profile", "sine", "-o", d + "o.h5"},
       "1e-310 is subnormal"},
      {{"simulate", d + "sim.toml", "-o", d + "o.h5"}, "parameter v_brk = 1e-310 is subnormal"},
      {{"eval", "-m", "simscape-translational", "-p", "v_brk=1e-310", "-i", trace, "-o", d + "o.csv"},
       "(valid range (0, inf), normal numbers only)"},
      {{"eval", "-m", "simscape-translational", "-p", "v_brk=inf", "-i", trace, "-o", d + "o.csv"},
       "not a finite number"},
      {{"identify", log, "-m", "simscape-cylinder", "--fix", "v_th=1e-310", "--json", d + "o.json"},
       "--fix v_th: parameter v_th = 1e-310 is subnormal"},
      {{"identify", log, "-m", "simscape-cylinder", "--init", "v_th=1e-310", "--json", d + "o.json"},
       "--init v_th: parameter v_th = 1e-310 is subnormal"},
      // In range, but the force overflows at every sample: refused, where the
      // fit ended "failed, 0 samples, 0 free parameters" (exit 0).
      {{"identify", log, "-m", "simscape-cylinder", "--init", "F_pr=1e308", "--starts", "1", "--json", d + "o.json"},
       "--init F_pr=1e308: the model's force is not finite at the start this gives"},
      {{"identify", log, "-m", "simscape-cylinder", "--fix", "F_pr=1e308", "--json", d + "o.json"},
       "--fix F_pr=1e308: the model's force is not finite"},
  };
  for (const auto& c : cases)
    expect_one_line(run(c.args, d), 2, c.expect, c.args[0] + " " + c.args[1] + " " + c.args[2]);
  for (const char* f : {"o.h5", "o.csv", "o.json"}) EXPECT_FALSE(exists(d + f)) << f;
  EXPECT_TRUE(leftovers(d).empty());
}

// Class 10 (item 8): a run whose output cannot fit on its file system is
// refused before it starts, with the estimate and the free space, unless
// --allow-large-output; point counts beyond 2^64 are refused naming it.
TEST(ReliabilityCli, SizeGuardRefusesOutputsBeyondTheFreeSpace) {
  const std::string d = dir_for("size");
  // 1e15 points (100^3 x 1e9 would not do: counts are per axis).
  const std::vector<std::string> grid{"sweep",
                                      "-m",
                                      "simscape-translational",
                                      "-p",
                                      "F_C=linear:1:2:100000",
                                      "-p",
                                      "F_brk=linear:3:4:100000",
                                      "-p",
                                      "f_v=linear:1:10:100000",
                                      "--profile",
                                      "sine,samples=16",
                                      "-q",
                                      "--chunk",
                                      "1000"};
  auto with = [](std::vector<std::string> a, std::initializer_list<std::string> more) {
    a.insert(a.end(), more);
    return a;
  };
  const Outcome big = run(with(grid, {"-o", d + "big.h5"}), d, 0, 0, 20);
  expect_one_line(big, 2, d + "big.h5: the output needs about", "1e15-point sweep");
  EXPECT_NE(big.err.find("1e+15 points x"), std::string::npos) << big.err;
  EXPECT_NE(big.err.find("free"), std::string::npos) << big.err;
  EXPECT_NE(big.err.find("--allow-large-output"), std::string::npos) << big.err;
  EXPECT_LT(big.seconds, 5);
  EXPECT_FALSE(exists(d + "big.h5"));
  EXPECT_TRUE(leftovers(d).empty());
  // Asked for explicitly, it starts (one chunk, then stops resumably).
  const Outcome allowed =
      run(with(grid, {"-o", d + "big.h5", "--allow-large-output", "--max-chunks", "1"}), d, 0, 0, 60);
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_TRUE(exists(d + "big.h5.partial"));
  std::remove((d + "big.h5.partial").c_str());

  // An ensemble of 1e14 points.
  spit(d + "ens.toml",
       "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"lugre\"\n"
       "[simulation]\nt_end = 1.0\ndt = 1e-3\n[ensemble]\ndevice = \"cpu\"\n[ensemble.params]\n"
       "stiffness = \"linear:5:20:10000000\"\ndrive_velocity = \"linear:0.01:0.3:10000000\"\n");
  const Outcome ens = run({"simulate", d + "ens.toml", "-q", "-o", d + "ens.h5"}, d, 0, 0, 20);
  expect_one_line(ens, 2, d + "ens.h5: the output needs about", "1e14-point ensemble");
  const Outcome ens_csv = run({"simulate", d + "ens.toml", "-q", "-o", d + "ens.csv"}, d, 0, 0, 20);
  expect_one_line(ens_csv, 2, d + "ens.csv: the output needs about", "1e14-point ensemble to CSV");
  EXPECT_FALSE(exists(d + "ens.h5"));
  EXPECT_FALSE(exists(d + "ens.csv"));

  // More points than a 64-bit index holds.
  const Outcome over =
      run({"sweep", "-m", "simscape-translational", "-p", "F_C=linear:1:2:10000000", "-p", "F_brk=linear:3:4:10000000",
           "-p", "f_v=linear:1:10:10000000", "--profile", "sine", "-o", d + "over.h5"},
          d);
  expect_one_line(over, 2, "1e+21 points (the product of its counts); at most 2^64 - 1", "1e21-point grid");
  EXPECT_TRUE(leftovers(d).empty());
}

// A sweep of 300,000 points along a 2000-sample trace (about 1 s on two
// idle cores), checkpointed every 4096 points.
const char* kSweepLong =
    "model = \"simscape-cylinder\"\n[design]\ntype = \"sobol\"\npoints = 300000\n[params]\n"
    "F_pr = { uniform = [0.0, 60.0] }\nc_v = { log = [1.0, 100.0] }\n"
    "[[trace]]\nprofile = \"sine\"\nsamples = 2000\np_a = 5e6\np_b = 1e6\n"
    "reference = { F_pr = 30 }\n[run]\ndevice = \"cpu\"\n";

// Sends `sig` halfway through a run that took `whole` seconds uninterrupted.
// Under ctest -j2 the machine's load changes between runs: a run that
// finished before the signal is repeated with the signal sent earlier, one
// hit before main() installed its handlers with it sent later, so that the
// assertions test the interruption and not the neighbours' load.
Outcome interrupt(const std::vector<std::string>& args, const std::string& dir, int sig, double whole) {
  const std::string out = args.back();
  double at = whole / 2;
  Outcome o;
  for (int attempt = 0; attempt < 6; ++attempt) {
    o = run(args, dir, sig, at);
    if (o.code == 0) at /= 2;
    else if (o.signal == sig) at *= 1.5;
    else break;
    for (const auto& f : {out, out + ".partial", out + ".partial.lock"}) std::remove(f.c_str());
  }
  return o;
}

// "Promptly": well within the rest of the run, and never more than 2 s on
// an idle machine; a loaded one stretches both alike.
double prompt(const Outcome& whole) { return std::max(2.0, whole.seconds / 2); }

// Class 7 (item 5): SIGTERM and SIGINT end a sweep and an ensemble
// promptly with one line and exit 143 / 130, keep the checkpoint, and
// --resume finishes to the same results as an uninterrupted run.
TEST(ReliabilityCli, SignalsEndRunsWithOneLineAndTheyResume) {
  const std::string d = dir_for("signals");
  const std::string cfg = d + "sweep.toml";
  spit(cfg, kSweepLong);
  const Outcome one = run({"sweep", cfg, "-q", "--chunk", "4096", "-o", d + "one.h5"}, d);
  ASSERT_EQ(one.code, 0) << one.err;
  const std::string out = d + "sig.h5";
  const Outcome t = interrupt({"sweep", cfg, "-q", "--chunk", "4096", "-o", out}, d, SIGTERM, one.seconds);
  ASSERT_EQ(t.code, 143) << "the run finished before the signal? " << t.err;
  EXPECT_EQ(lines(t.err), 1u) << t.err;
  EXPECT_EQ(t.err.rfind("stribeck: error: interrupted by SIGTERM", 0), 0u) << t.err;
  EXPECT_NE(t.err.find(out + ".partial keeps the completed points; continue with --resume"), std::string::npos)
      << t.err;
  EXPECT_LT(t.seconds, prompt(one)) << "not prompt";
  EXPECT_FALSE(exists(out));
  ASSERT_TRUE(exists(out + ".partial"));
  const Outcome r = run({"sweep", cfg, "-q", "--chunk", "4096", "--resume", "-o", out}, d);
  ASSERT_EQ(r.code, 0) << r.err;
  const data::SweepFile a = data::read_sweep_file(d + "one.h5"), b = data::read_sweep_file(out);
  EXPECT_TRUE(b.complete);
  EXPECT_EQ(a.rows.status, b.rows.status);
  EXPECT_TRUE(same_bits(a.rows.params, b.rows.params));
  EXPECT_TRUE(same_bits(a.rows.metrics, b.rows.metrics));

  // An ensemble, with SIGINT.
  const std::string ens = d + "ens.toml";
  spit(ens,
       "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"lugre\"\n"
       "[simulation]\nt_end = 2.0\ndt = 1e-3\n[ensemble]\ndevice = \"cpu\"\n[ensemble.params]\n"
       "stiffness = \"linear:5:20:10\"\ndrive_velocity = \"linear:0.01:0.3:40\"\n");
  const Outcome e1 = run({"simulate", ens, "-q", "--chunk", "8", "-o", d + "ens_one.h5"}, d);
  ASSERT_EQ(e1.code, 0) << e1.err;
  const std::string eout = d + "ens_sig.h5";
  const Outcome i = interrupt({"simulate", ens, "-q", "--chunk", "8", "-o", eout}, d, SIGINT, e1.seconds);
  ASSERT_EQ(i.code, 130) << "the run finished before the signal? " << i.err;
  // The config's parameter warning (printed when the run starts), then the
  // one line of the interruption.
  const std::string warning = "stribeck: warning: lugre: passivity condition";
  ASSERT_EQ(i.err.rfind(warning, 0), 0u) << i.err;
  const std::string last = i.err.substr(i.err.find('\n') + 1);
  EXPECT_EQ(lines(last), 1u) << i.err;
  EXPECT_EQ(last.rfind("stribeck: error: interrupted by SIGINT; " + eout +
                           ".partial keeps the completed points; continue with --resume",
                       0),
            0u)
      << i.err;
  EXPECT_LT(i.seconds, prompt(e1)) << "not prompt";
  ASSERT_TRUE(exists(eout + ".partial"));
  const Outcome ir = run({"simulate", ens, "-q", "--chunk", "8", "--resume", "-o", eout}, d);
  ASSERT_EQ(ir.code, 0) << ir.err;
  const data::Results ra = data::read_results(d + "ens_one.h5", "ensemble"), rb = data::read_results(eout, "ensemble");
  ASSERT_EQ(ra.datasets.size(), rb.datasets.size());
  for (size_t k = 0; k < ra.datasets.size(); ++k)
    EXPECT_TRUE(same_bits(ra.datasets[k].values, rb.datasets[k].values)) << ra.datasets[k].name;

  // A signal before the first checkpoint leaves nothing: no work to keep.
  const Outcome early = run({"sweep", cfg, "-q", "--chunk", "300000", "-o", d + "early.h5"}, d, SIGTERM, 0.3);
  if (early.signal != SIGTERM) {  // (else it came before main() installed the handlers, on a loaded machine)
    EXPECT_EQ(early.code, 143) << early.err;
    EXPECT_EQ(early.err, "stribeck: error: interrupted by SIGTERM\n");
  }
  EXPECT_FALSE(exists(d + "early.h5"));
  // Other commands end the same way (import of a large CSV, here).
  std::string csv = "time,velocity\n";
  for (int k = 0; k < 400000; ++k) csv += std::to_string(k * 1e-4) + "," + std::to_string(std::sin(k * 1e-3)) + "\n";
  spit(d + "big.csv", csv);
  const Outcome imp = run({"import", d + "big.csv", "--derive", "acceleration", "-o", d + "imp.h5"}, d, SIGTERM, 0.2);
  // Hit before main() (killed by the signal), before the log took its name
  // (one line, 143, no file), or after it: the run finished as it would
  // have (exit 0, the whole log; SignalsCli.* make that case on purpose).
  if (imp.signal == 0 && imp.code != 0) {
    EXPECT_EQ(imp.code, 143) << imp.err;
    EXPECT_EQ(imp.err, "stribeck: error: interrupted by SIGTERM\n");
    EXPECT_FALSE(exists(d + "imp.h5")) << "interrupted, yet an output";
  } else if (imp.signal == 0) {
    EXPECT_EQ(imp.err, "") << "finished, yet a line";
    const std::vector<data::Experiment> back = data::read_log(d + "imp.h5");
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].size(), 400000u) << "a partial output after SIGTERM";
  }
  std::remove((d + "imp.h5").c_str());
  for (const auto& f : {d + "one.h5", out, d + "ens_one.h5", eout}) std::remove(f.c_str());
  EXPECT_TRUE(leftovers(d).empty()) << leftovers(d).front();
}

// Class 7 (item 5): SIGTERM or SIGINT at any moment of a merge leaves no
// OUT.partial: either the merged file is complete, or nothing is there.
TEST(ReliabilityCli, SignalsDuringMergeLeaveNoPartialFile) {
  const std::string d = dir_for("merge_signal");
  const std::string cfg = d + "sweep.toml";
  std::string text = kSweepLong;
  text.replace(text.find("2000"), 4, "64");
  spit(cfg, text);
  for (int s = 0; s < 2; ++s)
    ASSERT_EQ(
        run({"sweep", cfg, "-q", "--shard", std::to_string(s) + "/2", "-o", d + "s" + std::to_string(s) + ".h5"}, d)
            .code,
        0);
  const std::string s0 = slurp(d + "s0.h5"), s1 = slurp(d + "s1.h5");
  const Outcome whole = run({"merge", d + "s0.h5", d + "s1.h5", "-o", d + "m.h5"}, d);
  ASSERT_EQ(whole.code, 0) << whole.err;
  std::remove((d + "m.h5").c_str());
  int interrupted = 0;
  for (int k = 0; k < 12; ++k) {
    const int sig = k % 2 ? SIGINT : SIGTERM;
    const double at = 0.02 + whole.seconds * k / 10.0;
    const Outcome o = run({"merge", d + "s0.h5", d + "s1.h5", "-o", d + "m.h5"}, d, sig, at);
    EXPECT_FALSE(exists(d + "m.h5.partial")) << "signal at " << at << " s";
    if (o.code == 0) {
      EXPECT_TRUE(data::read_sweep_file(d + "m.h5").complete);
    } else if (o.signal == sig) {
      // Arrived before main() installed its handlers: nothing was written.
      EXPECT_FALSE(exists(d + "m.h5"));
    } else {
      ++interrupted;
      EXPECT_EQ(o.code, 128 + sig) << o.err;
      EXPECT_EQ(lines(o.err), 1u) << o.err;
      // A signal after the final rename, before the exit, finds the merge
      // done: the file is then complete. It is never a partial one.
      if (exists(d + "m.h5")) EXPECT_TRUE(data::read_sweep_file(d + "m.h5").complete);
    }
    std::remove((d + "m.h5").c_str());
    EXPECT_TRUE(leftovers(d).empty()) << "signal at " << at << " s: " << leftovers(d).front();
  }
  EXPECT_GT(interrupted, 0);
  EXPECT_EQ(slurp(d + "s0.h5"), s0);
  EXPECT_EQ(slurp(d + "s1.h5"), s1);
}

// Item 3 / 12: files that crash libhdf5 1.10.8 itself (found by the fuzz
// campaigns, tests/fuzz/library_crashes/: a chunked layout with a zero
// dimension, SIGFPE; damaged contiguous layouts, SIGSEGV) end every reading
// command with one line naming the file, exit 2, and no output or temporary
// left. (A libhdf5 that checks these structures refuses them with its own
// message: also one line, exit 2.)
TEST(ReliabilityCli, FilesThatCrashTheHdf5LibraryAreOneLineErrors) {
  const std::string d = dir_for("library_crash");
  const std::string src = std::string(STRIBECK_SOURCE_DIR) + "/tests/fuzz/library_crashes/";
  int crashes_named = 0;
  for (const char* name :
       {"hdf5_layout_division_by_zero.h5", "hdf5_contiguous_read_segfault.h5", "mat73_contiguous_read_segfault.mat"}) {
    const std::string in = d + name;
    fs::copy_file(src + name, in, fs::copy_options::overwrite_existing);
    const bool mat = std::string(name).find(".mat") != std::string::npos;
    std::vector<std::vector<std::string>> commands = {{"import", in, "-o", d + "out.h5"}};
    if (!mat) {
      commands.push_back({"identify", in, "-m", "coulomb-viscous", "--json", d + "fit.json"});
      commands.push_back({"export", in, "-o", d + "out.csv"});
      commands.push_back({"eval", "-m", "coulomb-viscous", "-i", in, "-o", d + "out.h5"});
    }
    for (const auto& args : commands) {
      SCOPED_TRACE(std::string(name) + ": " + args[0]);
      const Outcome o = run(args, d);
      EXPECT_EQ(o.signal, 0) << "the process crashed";
      EXPECT_EQ(o.code, 2) << o.err;
      EXPECT_EQ(lines(o.err), 1u) << o.err;
      EXPECT_EQ(o.err.rfind("stribeck: error: " + in, 0), 0u) << o.err;
      crashes_named += o.err.find("the HDF5 library crashed reading it") != std::string::npos;
      for (const char* out : {"out.h5", "fit.json", "out.csv"}) EXPECT_FALSE(exists(d + out)) << out;
      const auto left = leftovers(d);
      EXPECT_TRUE(left.empty()) << left.front();
    }
    std::remove(in.c_str());
  }
  // With Debian 12's libhdf5 1.10.8 every one of them is a crash caught.
  if (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE == 8)
    EXPECT_EQ(crashes_named, 8);  // import of the first refuses its int8 channel first
}

// Item 3 / 12: a file on which libhdf5 1.10.8 loops for ever (a damaged
// symbol-table B-tree of the root group: H5G__stab_iterate under H5Literate,
// allocating about 300 MB/s; found by fuzz_hdf5, a MATLAB v7.3 file). The
// watchdog of metadata calls ends every reading command with one line naming
// the file and the call, exit 2, no output and no temporary left: at the
// limit (STRIBECK_HDF5_METADATA_TIMEOUT, here 1 s), or at the default limit
// (20 s) or when the call has allocated 1 GiB, whichever comes first.
TEST(ReliabilityCli, FilesThatHangTheHdf5LibraryEndWithOneLine) {
  const std::string d = dir_for("library_hang");
  const std::string src = std::string(STRIBECK_SOURCE_DIR) + "/tests/fuzz/library_crashes/mat73_symbol_table_loop.mat";
  const std::string mat = d + "loop.mat", h5 = d + "loop.h5";
  fs::copy_file(src, mat, fs::copy_options::overwrite_existing);
  fs::copy_file(src, h5, fs::copy_options::overwrite_existing);
  const std::string before = slurp(mat);
  const std::vector<std::vector<std::string>> commands = {
      {"import", mat, "-o", d + "out.h5"},
      {"identify", h5, "-m", "coulomb-viscous", "--json", d + "fit.json"},
      {"export", h5, "-o", d + "out.csv"},
      {"eval", "-m", "coulomb-viscous", "-i", h5, "-o", d + "out.h5"},
      {"map", h5, "-o", d + "out.svg"}};
  ::setenv("STRIBECK_HDF5_METADATA_TIMEOUT", "1", 1);
  for (const auto& args : commands) {
    SCOPED_TRACE(args[0]);
    const Outcome o = run(args, d, 0, 0, 30);
    const std::string in = args[0] == "eval" ? args[4] : args[1];
    EXPECT_FALSE(o.hung) << "still running after 30 s";
    EXPECT_EQ(o.signal, 0) << "the process crashed";
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_EQ(lines(o.err), 1u) << o.err;
    EXPECT_EQ(o.err.rfind("stribeck: error: " + in + ": damaged file: the HDF5 library did not return from ", 0), 0u)
        << o.err;
    // Either rule may end it: the 1 s timer, or, where the loop allocates
    // its 1 GiB within the second (a faster machine), the memory rule.
    double gib = 0, in_s = 0;
    const size_t paren = o.err.rfind(" (");
    ASSERT_NE(paren, std::string::npos) << o.err;
    const std::string ending = o.err.substr(paren);
    if (ending == " (1 s)\n") {
      EXPECT_GE(o.seconds, 1.0);
    } else {
      char tail = 0;
      ASSERT_EQ(std::sscanf(ending.c_str(), " (it allocated %lf GiB in %lf s%c", &gib, &in_s, &tail), 3) << o.err;
      EXPECT_EQ(tail, ')') << o.err;
      EXPECT_GE(gib, 1.0) << o.err;
      EXPECT_LE(in_s, o.seconds + 0.05) << o.err;
    }
    EXPECT_LT(o.seconds, 1.0 + 15) << "the limit is 1 s (15 s allowed for a loaded machine)";
    for (const char* out : {"out.h5", "fit.json", "out.csv", "out.svg"}) EXPECT_FALSE(exists(d + out)) << out;
    const auto left = leftovers(d);
    EXPECT_TRUE(left.empty()) << left.front();
  }
  // The default limit: the loop's allocations end it first, within seconds.
  ::unsetenv("STRIBECK_HDF5_METADATA_TIMEOUT");
  const Outcome o = run({"import", mat, "-o", d + "out.h5"}, d, 0, 0, 60);
  EXPECT_FALSE(o.hung);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(lines(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find(mat + ": damaged file: the HDF5 library did not return from listing the members of group '/' ("),
            std::string::npos)
      << o.err;
  EXPECT_LT(o.seconds, 20.0 + 15);
  EXPECT_FALSE(exists(d + "out.h5"));
  EXPECT_TRUE(leftovers(d).empty());
  EXPECT_EQ(slurp(mat), before);
}

// The watchdog itself, in a child process set up as the CLI's main does:
// only a watched call on a registered input is ended, at its limit, with the
// one line, the temporaries removed and exit 2; time spent outside watched
// calls (reading raw data, computing) and watched calls on files that are
// not inputs never end the process.
TEST(ReliabilityCli, WatchdogEndsOnlyAWatchedCallOnAnInputThatOverrunsTheLimit) {
  const std::string d = dir_for("watchdog");
  const std::string temp = d + "out.h5.tmp.123456", err = d + "stderr";
  for (int watched_input : {0, 1}) {
    SCOPED_TRACE(watched_input ? "watched call on an input" : "watched call on another file");
    spit(temp, "partial");
    const auto t0 = Clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::freopen(err.c_str(), "w", stderr);
      ::setenv("STRIBECK_HDF5_METADATA_TIMEOUT", "0.5", 1);
      data::install_cli_signal_handlers();
      data::register_temporary(temp);
      data::register_input("in.h5");
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // unwatched: 3 x the limit
      {
        const data::WatchedLibraryCall quick("in.h5", "a quick call");  // returns in time
      }
      const data::WatchedLibraryCall call(watched_input ? "in.h5" : "out.h5", "a call that hangs");
      std::this_thread::sleep_for(std::chrono::milliseconds(3000));
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    ASSERT_TRUE(WIFEXITED(status));
    if (watched_input) {
      EXPECT_EQ(WEXITSTATUS(status), 2);
      EXPECT_EQ(slurp(err),
                "stribeck: error: in.h5: damaged file: the HDF5 library did not return from a call that "
                "hangs (0.5 s)\n");
      EXPECT_FALSE(exists(temp)) << "the temporary was not removed";
      EXPECT_GE(seconds, 2.0);
      EXPECT_LT(seconds, 4.5);  // the limit, not the 3 s the call would have taken
    } else {
      EXPECT_EQ(WEXITSTATUS(status), 0);
      EXPECT_EQ(slurp(err), "");
      EXPECT_TRUE(exists(temp));
      EXPECT_GE(seconds, 4.5);
    }
    std::remove(temp.c_str());
    std::remove(err.c_str());
  }
}

// Item 5: what `kill -9` of a merge leaves (OUT.partial, its lock file
// with the dead merge's PID) is never a result and never blocks: the next
// merge finds the lock free, removes the leftover and merges. A live merge
// on the same output is refused naming its PID.
TEST(ReliabilityCli, MergeLeftoverOfSigkillIsRemovedByTheNextMerge) {
  const std::string d = dir_for("merge_kill9");
  const std::string cfg = d + "sweep.toml";
  std::string text = kSweepLong;
  text.replace(text.find("2000"), 4, "64");
  spit(cfg, text);
  for (int s = 0; s < 2; ++s)
    ASSERT_EQ(
        run({"sweep", cfg, "-q", "--shard", std::to_string(s) + "/2", "-o", d + "s" + std::to_string(s) + ".h5"}, d)
            .code,
        0);
  const Outcome whole = run({"merge", d + "s0.h5", d + "s1.h5", "-o", d + "ref.h5"}, d);
  ASSERT_EQ(whole.code, 0) << whole.err;
  const data::SweepFile ref = data::read_sweep_file(d + "ref.h5");
  int left = 0;
  for (int k = 0; k < 10 && left < 3; ++k) {
    // The first kill lands as soon as the merge has begun its output, so
    // at least one leftover is tested however fast or slow this machine is.
    const double at = k == 0 ? 0 : 0.01 + whole.seconds * k / 8.0;
    const Outcome killed = run({"merge", d + "s0.h5", d + "s1.h5", "-o", d + "m.h5"}, d, SIGKILL, at, 60,
                               k == 0 ? d + "m.h5.partial" : "");
    if (killed.code == 0) {  // finished before the kill
      std::remove((d + "m.h5").c_str());
      continue;
    }
    ASSERT_EQ(killed.signal, SIGKILL);
    // A kill after the final rename, before the exit, finds the merge done:
    // the file is then complete. A killed merge never leaves a partial one
    // under the output's name.
    if (exists(d + "m.h5")) {
      EXPECT_TRUE(data::read_sweep_file(d + "m.h5").complete) << "kill at " << at << " s";
      std::remove((d + "m.h5").c_str());
    }
    if (exists(d + "m.h5.partial")) ++left;
    // The next merge: the leftover is removed, the merge runs.
    const Outcome next = run({"merge", d + "s0.h5", d + "s1.h5", "-o", d + "m.h5"}, d);
    ASSERT_EQ(next.code, 0) << "kill at " << at << " s: " << next.err;
    EXPECT_EQ(next.err, "");
    const data::SweepFile m = data::read_sweep_file(d + "m.h5");
    EXPECT_TRUE(m.complete);
    EXPECT_EQ(m.meta.count, ref.meta.count);
    EXPECT_TRUE(same_bits(m.rows.params, ref.rows.params));
    EXPECT_TRUE(same_bits(m.rows.metrics, ref.rows.metrics));
    std::remove((d + "m.h5").c_str());
    EXPECT_TRUE(leftovers(d).empty()) << "kill at " << at << " s: " << leftovers(d).front();
    EXPECT_FALSE(exists(d + "m.h5.partial.lock"));
  }
  EXPECT_GT(left, 0) << "no kill landed while the merge was writing";

  // A live writer: a process that holds the lock (as a running merge does).
  const std::string lock = d + "m.h5.partial.lock";
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const pid_t holder = ::fork();
  if (holder == 0) {
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT, 0644);
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fd < 0 || ::fcntl(fd, F_OFD_SETLK, &fl) != 0) ::_exit(1);
    const std::string line = std::to_string(::getpid()) + " scratch\n";
    if (::write(fd, line.data(), line.size()) < 0) ::_exit(1);
    spit(d + "m.h5.partial", "not a result");
    char c = 'x';
    if (::write(pipefd[1], &c, 1) != 1) ::_exit(1);
    ::pause();
    ::_exit(0);
  }
  char c;
  ASSERT_EQ(::read(pipefd[0], &c, 1), 1);
  const Outcome busy = run({"merge", d + "s0.h5", d + "s1.h5", "-o", d + "m.h5"}, d);
  expect_one_line(busy, 2, "m.h5.partial: being written by process " + std::to_string(holder), "live writer");
  EXPECT_EQ(slurp(d + "m.h5.partial"), "not a result") << "a live writer's file is left alone";
  EXPECT_FALSE(exists(d + "m.h5"));
  ::kill(holder, SIGKILL);
  ::waitpid(holder, nullptr, 0);
  ::close(pipefd[0]);
  ::close(pipefd[1]);
  // Its holder gone, the same leftover is removed by the next merge.
  const Outcome after = run({"merge", d + "s0.h5", d + "s1.h5", "-o", d + "m.h5"}, d);
  ASSERT_EQ(after.code, 0) << after.err;
  EXPECT_TRUE(data::read_sweep_file(d + "m.h5").complete);
  EXPECT_TRUE(leftovers(d).empty());
  EXPECT_FALSE(exists(lock));
}

// Class 8 (item 6): an ensemble whose final rename failed (the target
// became a directory while it ran) keeps its checkpoint, and --resume
// completes it to the same results once the name is free.
TEST(ReliabilityCli, EnsembleWhoseFinalRenameFailedResumes) {
  const std::string d = dir_for("rename");
  const std::string cfg = d + "ens.toml";
  spit(cfg,
       "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"lugre\"\n"
       "[simulation]\nt_end = 0.5\ndt = 1e-3\n[ensemble]\ndevice = \"cpu\"\n[ensemble.params]\n"
       "stiffness = \"linear:5:20:6\"\ndrive_velocity = \"linear:0.01:0.3:8\"\n");
  ASSERT_EQ(run({"simulate", cfg, "-q", "-o", d + "one.h5"}, d).code, 0);
  const std::string out = d + "out.h5";
  ASSERT_EQ(run({"simulate", cfg, "-q", "--chunk", "8", "--max-chunks", "2", "-o", out}, d).code, 0);
  ASSERT_TRUE(exists(out + ".partial"));
  // The rest of the run, in process, with the target turned into a
  // directory after the CLI's own up-front check would have passed.
  fs::create_directory(out);
  workloads::SimulateConfig c = workloads::read_simulate_config(cfg);
  workloads::EnsembleRunOptions o;
  o.output = out;
  o.resume = true;
  o.chunk = 8;
  try {
    workloads::run_ensemble(c, o);
    FAIL() << "the rename onto a directory succeeded";
  } catch (const data::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(out + ": is a directory"), std::string::npos) << what;
    EXPECT_NE(what.find("--resume"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  ASSERT_TRUE(exists(out + ".partial"));
  fs::remove(out);
  const Outcome r = run({"simulate", cfg, "-q", "--chunk", "8", "--resume", "-o", out}, d);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(" 0 simulated"), std::string::npos) << "nothing was left to simulate: " << r.out;  // the summary
  const data::Results a = data::read_results(d + "one.h5", "ensemble"), b = data::read_results(out, "ensemble");
  ASSERT_EQ(a.datasets.size(), b.datasets.size());
  for (size_t k = 0; k < a.datasets.size(); ++k)
    EXPECT_TRUE(same_bits(a.datasets[k].values, b.datasets[k].values)) << a.datasets[k].name;
  EXPECT_EQ(a.attributes, b.attributes);
  EXPECT_TRUE(leftovers(d).empty());
}

// Item 11 (writing side): strings read from files are escaped where they
// are written: CSV fields quoted per RFC 4180, comment lines kept to one
// line, SVG text with entities and without bytes XML forbids.
TEST(ReliabilityCli, StringsFromFilesAreEscapedInCsvAndSvg) {
  const std::string d = dir_for("escape");
  data::Experiment e;
  e.name = "run \"7\",\nnext<line>";
  e.channels["time"] = {0, 0.001, 0.002};
  e.channels["velocity"] = {0.1, 0.2, 0.3};
  e.channels["odd, \"name\""] = {1, 2, 3};
  e.units["time"] = "s";
  e.units["velocity"] = "m/s";
  e.attributes["note\nkey"] = "a\rb";
  data::write_csv(d + "e.csv", e);
  const std::string csv = slurp(d + "e.csv");
  // The header is the first line; the name and attributes are in the
  // sidecar, as JSON strings (escaped by JSON's rules, read back verbatim).
  EXPECT_EQ(csv.rfind("time [s],velocity [m/s],\"odd, \"\"name\"\"\"\n", 0), 0u) << csv;
  const auto meta = nlohmann::json::parse(slurp(d + "e.csv.json"));
  EXPECT_EQ(meta["attributes"]["experiment"], e.name);
  EXPECT_EQ(meta["attributes"]["note\nkey"], "a\rb");
  const auto field = [](const std::string& text, char delimiter = ',') {
    std::string out;
    data::append_csv_field(out, text, delimiter);
    return out;
  };
  EXPECT_EQ(field("plain"), "plain");
  EXPECT_EQ(field("a;b", ';'), "\"a;b\"");
  EXPECT_EQ(field("a;b"), "a;b");
  EXPECT_EQ(field("x\r\ny"), "\"x\r\ny\"");

  data::HeatMap m;
  m.title = "<script>alert('x')</script>";
  m.subtitle = std::string("bad \x01 byte \xff and \xe2\x82 cut; ok \xc2\xb5m");
  m.x.label = "a&b";
  m.y.label = "\"q\"";
  m.value_label = "v";
  m.x.centers = {0, 1};
  m.y.centers = {0, 1};
  m.x.edges = {-0.5, 0.5, 1.5};
  m.y.edges = {-0.5, 0.5, 1.5};
  m.values = {1, 2, 3, 4};
  m.points = {1, 1, 1, 1};
  data::write_heat_map(d + "m.svg", m);
  const std::string svg = slurp(d + "m.svg");
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("a&amp;b"), std::string::npos);
  EXPECT_NE(svg.find("&quot;q&quot;"), std::string::npos);
  EXPECT_EQ(svg.find('\x01'), std::string::npos);
  EXPECT_EQ(svg.find('\xff'), std::string::npos);
  EXPECT_NE(svg.find("bad \xef\xbf\xbd byte \xef\xbf\xbd and \xef\xbf\xbd\xef\xbf\xbd cut; ok \xc2\xb5m"),
            std::string::npos)
      << svg.substr(0, 400);
  EXPECT_TRUE(leftovers(d).empty());
}

}  // namespace
}  // namespace stribeck
