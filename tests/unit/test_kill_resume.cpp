// A real kill: `stribeck simulate` (an ensemble) and `stribeck sweep` are
// SIGKILLed part way through, then continued with --resume; the final file
// equals an uninterrupted run's. (The --max-chunks tests stop cleanly; this
// one stops wherever the signal lands, in a computation or in an HDF5 write.)
#include <gtest/gtest.h>

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
  const Results a = read_results(one, "ensemble"), b = read_results(out, "ensemble");
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
  const SweepFile partial = read_sweep_file(out + ".partial");
  EXPECT_GT(partial.progress.completed, 0u);
  EXPECT_LT(partial.progress.completed, 400000u);
  const std::string log = tmp("sweep_resume.log");
  ASSERT_EQ(run({"sweep", cfg, "-q", "--chunk", "4096", "--resume", "-o", out}, log), 0) << slurp(log);
  const SweepFile a = read_sweep_file(one), b = read_sweep_file(out);
  EXPECT_TRUE(b.complete);
  EXPECT_EQ(a.rows.status, b.rows.status);
  EXPECT_TRUE(same_bits(a.rows.params, b.rows.params));
  EXPECT_TRUE(same_bits(a.rows.metrics, b.rows.metrics));
  ASSERT_EQ(a.progress.top.size(), b.progress.top.size());
  for (size_t r = 0; r < a.progress.top.size(); ++r) EXPECT_EQ(a.progress.top[r].index, b.progress.top[r].index);
}

}  // namespace
}  // namespace stribeck
