// A real kill: `stribeck simulate` (an ensemble) and `stribeck sweep` are
// SIGKILLed part way through, then continued with --resume; the final file
// equals an uninterrupted run's. (The --max-chunks tests stop cleanly; this
// one stops wherever the signal lands, in a computation or in an HDF5 write.)
#include <gtest/gtest.h>

#include "child_cli.hpp"
#include "temp_dir.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "stribeck/data/log.hpp"
#include "stribeck/data/results_stream.hpp"
#include "stribeck/data/sweep_file.hpp"

namespace stribeck {
namespace {

std::string tmp(const std::string& name) { return test::temp_dir() + "kill_" + name; }
bool exists(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

// Runs the CLI with `args` to completion (stdout and stderr into `log`);
// returns the exit status and the wall time.
int run(const std::vector<std::string>& args, const std::string& log, double* seconds = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string out = log;
    std::freopen(out.c_str(), "w", stdout);
    dup2(fileno(stdout), 2);
    std::vector<char*> argv{const_cast<char*>(STRIBECK_CLI)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(STRIBECK_CLI, argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (seconds) *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Starts the CLI and SIGKILLs it after `after` seconds; true if the signal
// killed it (false: it had already finished).
bool run_and_kill(const std::vector<std::string>& args, double after) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::vector<char*> argv{const_cast<char*>(STRIBECK_CLI)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(STRIBECK_CLI, argv.data());
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(after));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// 1000 LuGre stick-slip rigs of 2 s (about 1 s on two cores), checkpointed
// every 8 points.
TEST(KillResume, KilledEnsembleResumesToTheSameFile) {
  const std::string cfg = tmp("ens.toml"), one = tmp("ens_one.h5"), out = tmp("ens_killed.h5");
  std::ofstream(cfg) << "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"lugre\"\n"
                        "[simulation]\nt_end = 2.0\ndt = 1e-3\n[ensemble]\ndevice = \"cpu\"\n[ensemble.params]\n"
                        "stiffness = \"linear:5:20:20\"\ndrive_velocity = \"linear:0.01:0.3:50\"\n";
  double seconds = 0;
  ASSERT_EQ(run({"simulate", cfg, "-q", "-o", one}, tmp("ens_one.log"), &seconds), 0) << slurp(tmp("ens_one.log"));
  std::remove(out.c_str());
  std::remove((out + ".partial").c_str());
  ASSERT_TRUE(run_and_kill({"simulate", cfg, "-q", "--chunk", "8", "-o", out}, seconds / 2))
      << "the run finished before the kill";
  EXPECT_FALSE(exists(out));
  ASSERT_TRUE(exists(out + ".partial"));
  const std::string log = tmp("ens_resume.log");
  ASSERT_EQ(run({"simulate", cfg, "-q", "--resume", "-o", out}, log), 0) << slurp(log);
  // Part of the work survived the kill.
  const std::string text = slurp(log);
  const size_t at = text.find(" simulated");
  ASSERT_NE(at, std::string::npos) << text;
  const long resumed = std::stol(text.substr(text.rfind(' ', at - 1) + 1));
  EXPECT_GT(resumed, 0) << text;
  EXPECT_LT(resumed, 1000) << text;
  const data::Results a = data::read_results(one, "ensemble"), b = data::read_results(out, "ensemble");
  ASSERT_EQ(a.datasets.size(), b.datasets.size());
  for (size_t k = 0; k < a.datasets.size(); ++k)
    EXPECT_TRUE(same_bits(a.datasets[k].values, b.datasets[k].values)) << a.datasets[k].name;
  EXPECT_EQ(a.attributes, b.attributes);
}

// A sweep of 400,000 points along a 2000-sample trace, checkpointed every
// 4096 points.
TEST(KillResume, KilledSweepResumesToTheSameFile) {
  const std::string cfg = tmp("sweep.toml"), one = tmp("sweep_one.h5"), out = tmp("sweep_killed.h5");
  std::ofstream(cfg) << "model = \"simscape-cylinder\"\n[design]\ntype = \"sobol\"\npoints = 400000\n[params]\n"
                        "F_pr = { uniform = [0.0, 60.0] }\nc_v = { log = [1.0, 100.0] }\n"
                        "[[trace]]\nprofile = \"sine\"\nsamples = 2000\np_a = 5e6\np_b = 1e6\n"
                        "reference = { F_pr = 30 }\n[run]\ndevice = \"cpu\"\n";
  double seconds = 0;
  ASSERT_EQ(run({"sweep", cfg, "-q", "--chunk", "4096", "-o", one}, tmp("sweep_one.log"), &seconds), 0)
      << slurp(tmp("sweep_one.log"));
  std::remove(out.c_str());
  std::remove((out + ".partial").c_str());
  ASSERT_TRUE(run_and_kill({"sweep", cfg, "-q", "--chunk", "4096", "-o", out}, seconds / 2))
      << "the run finished before the kill";
  ASSERT_TRUE(exists(out + ".partial"));
  // Killed at any instant, possibly while it committed a checkpoint: the
  // file is its last checkpoint once the journal is completed.
  data::settle_partial(out + ".partial");
  const data::SweepFile partial = data::read_sweep_file(out + ".partial");
  EXPECT_GT(partial.progress.completed, 0u);
  EXPECT_LT(partial.progress.completed, 400000u);
  const std::string log = tmp("sweep_resume.log");
  ASSERT_EQ(run({"sweep", cfg, "-q", "--chunk", "4096", "--resume", "-o", out}, log), 0) << slurp(log);
  const data::SweepFile a = data::read_sweep_file(one), b = data::read_sweep_file(out);
  EXPECT_TRUE(b.complete);
  EXPECT_EQ(a.rows.status, b.rows.status);
  EXPECT_TRUE(same_bits(a.rows.params, b.rows.params));
  EXPECT_TRUE(same_bits(a.rows.metrics, b.rows.metrics));
  ASSERT_EQ(a.progress.top.size(), b.progress.top.size());
  for (size_t r = 0; r < a.progress.top.size(); ++r) EXPECT_EQ(a.progress.top[r].index, b.progress.top[r].index);
}

// Everything of results group `group` that a run computes: its datasets,
// attributes (but the command line and date), top-K table and force traces.
void expect_same_results(const std::string& a, const std::string& b, const std::string& group,
                         const std::string& what) {
  const data::Results ra = data::read_results(a, group), rb = data::read_results(b, group);
  ASSERT_EQ(ra.datasets.size(), rb.datasets.size()) << what;
  for (size_t k = 0; k < ra.datasets.size(); ++k) {
    EXPECT_EQ(ra.datasets[k].name, rb.datasets[k].name) << what;
    EXPECT_TRUE(same_bits(ra.datasets[k].values, rb.datasets[k].values)) << what << ": " << ra.datasets[k].name;
  }
  auto computed = [](std::map<std::string, std::string> m) {
    m.erase("command_line");
    m.erase("date");
    return m;
  };
  EXPECT_EQ(computed(ra.attributes), computed(rb.attributes)) << what;
  EXPECT_EQ(ra.numbers, rb.numbers) << what;
  std::vector<std::string> tables{"top_k"};
  for (const std::string& t : data::stream_subgroups(a, group, "trajectories"))
    for (const std::string& e : data::stream_subgroups(a, group, "trajectories/" + t))
      tables.push_back("trajectories/" + t + "/" + e);
  EXPECT_EQ(data::stream_subgroups(a, group, "trajectories"), data::stream_subgroups(b, group, "trajectories")) << what;
  for (const std::string& t : tables) {
    const data::StreamTable ta = data::read_stream_table(a, group, t), tb = data::read_stream_table(b, group, t);
    ASSERT_EQ(ta.data.size(), tb.data.size()) << what << ": table " << t;
    for (size_t c = 0; c < ta.data.size(); ++c)
      EXPECT_TRUE(same_bits(ta.data[c], tb.data[c])) << what << ": table " << t << " column " << ta.columns[c].name;
  }
}

// A kill -9 at every step of the first checkpoints and at every 17th write
// after them (writes of the file, of its journal, and the journal's rename
// and removal: the driver's STRIBECK_TEST_KILL_AT_WRITE counts them), also
// killing the resumed run part way: --resume always succeeds and ends with
// the file of an uninterrupted run. Deterministic: where the kill lands is
// a count of writes, not a time. (Before the journal, about one kill in
// three left a file that did not resume: "wrong B-tree signature", "bad
// local heap signature", a table that could not be replaced.)
TEST(KillResume, KillAtAnyWriteOfACheckpointedSweepResumesToTheSameFile) {
  const std::string cfg = tmp("every.toml"), one = tmp("every_one.h5"), out = tmp("every.h5");
  std::ofstream(cfg) << "model = \"simscape-cylinder\"\n[design]\ntype = \"sobol\"\npoints = 1000\n[params]\n"
                        "F_pr = { uniform = [0.0, 60.0] }\nc_v = { log = [1.0, 100.0] }\n[metrics]\ntop_k = 5\n"
                        "[[trace]]\nprofile = \"sine\"\nsamples = 64\np_a = 5e6\np_b = 1e6\n"
                        "reference = { F_pr = 30 }\n[output]\ntrajectories = [5, 900]\n[run]\ndevice = \"cpu\"\n";
  const std::vector<std::string> args{"sweep", cfg, "-q", "--chunk", "128", "-o", out};
  ASSERT_EQ(run({"sweep", cfg, "-q", "--chunk", "128", "-o", one}, tmp("every_one.log")), 0)
      << slurp(tmp("every_one.log"));
  auto cli = [&](std::vector<std::string> a, long kill_at) {
    test::ChildSpec spec;
    spec.err = tmp("every.err");
    if (kill_at > 0) spec.env["STRIBECK_TEST_KILL_AT_WRITE"] = std::to_string(kill_at);
    return test::run_child(a, spec, {120});
  };
  std::vector<std::string> resume = args;
  resume.insert(resume.begin() + 2, "--resume");
  int killed = 0;
  for (long k = 1;; k += k < 24 ? 1 : 17) {
    const std::string what = "killed at write " + std::to_string(k);
    for (const auto& f : {out, out + ".partial", out + ".partial.journal", out + ".partial.journal.new"})
      std::remove(f.c_str());
    const test::ChildRun first = cli(args, k);
    if (first.exited) {  // past the run's last write: it finished
      ASSERT_EQ(first.code, 0) << what << ": " << first.err;
      break;
    }
    ASSERT_EQ(first.signal, SIGKILL) << what;
    ++killed;
    ASSERT_TRUE(exists(out + ".partial")) << what;
    EXPECT_FALSE(exists(out)) << what;
    // The resumed run killed in turn (where depends on k), then resumed.
    test::ChildRun r = cli(resume, 1 + (k * 7) % 61);
    if (!r.exited) {
      ASSERT_EQ(r.signal, SIGKILL) << what;
      r = cli(resume, 0);
    }
    ASSERT_EQ(r.code, 0) << what << ": " << r.err;
    expect_same_results(one, out, "sweep", what);
    for (const auto& f : {out + ".partial", out + ".partial.journal", out + ".partial.journal.new"})
      EXPECT_FALSE(exists(f)) << what << ": " << f << " left";
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(killed, 40);  // the schedule reached past the first checkpoints
}

}  // namespace
}  // namespace stribeck
