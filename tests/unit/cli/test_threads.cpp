// Threads follow the job: `identify --batch` sizes its OpenMP team from
// --threads, else from OMP_NUM_THREADS, else from the CPUs the process may run
// on (taskset, Slurm, cgroups), never from the machine's CPU count.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "temp_dir.hpp"

namespace {

// Runs `prefix stribeck args` through the shell; stdout and stderr together.
int run(const std::string& prefix, const std::string& args, std::string* out) {
  static int calls = 0;
  const std::string log = stribeck::test::temp_dir() + "threads_" + std::to_string(++calls) + ".txt";
  const int rc = std::system((prefix + " " + STRIBECK_CLI + " " + args + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class CliThreads : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = stribeck::test::temp_dir();
    // Three logs of F = F_C sign(v) + f_v v with different F_C: three fits.
    logs_.clear();
    for (int k = 0; k < 3; ++k) {
      const std::string path = dir_ + "batch" + std::to_string(k) + ".csv";
      std::ofstream csv(path);
      csv << "velocity,force\n";
      csv.precision(17);
      for (int i = 0; i < 300; ++i) {
        const double v = -0.15 + 0.001 * i + 0.0005;
        csv << v << "," << (10.0 + 10 * k) * (v > 0 ? 1 : -1) + 100 * v << "\n";
      }
      logs_ += " " + path;
    }
  }
  std::string identify(const std::string& table) const {
    return "identify" + logs_ + " --batch --model coulomb-viscous --free F_C,f_v --table " + dir_ + table;
  }
  std::string dir_, logs_;
};

TEST_F(CliThreads, BatchTeamFollowsOmpNumThreadsAndThreadsOption) {
  std::string out;
  ASSERT_EQ(run("env OMP_NUM_THREADS=1", identify("t1.csv"), &out), 0) << out;
  EXPECT_NE(out.find("stribeck identify: 3 fits on 1 thread\n"), std::string::npos) << out;
  ASSERT_EQ(run("env OMP_NUM_THREADS=2", identify("t2.csv"), &out), 0) << out;
  EXPECT_NE(out.find("stribeck identify: 3 fits on 2 threads\n"), std::string::npos) << out;
  ASSERT_EQ(run("env OMP_NUM_THREADS=1", identify("t3.csv") + " --threads 3", &out), 0) << out;
  EXPECT_NE(out.find("stribeck identify: 3 fits on 3 threads\n"), std::string::npos) << out;
  // No more threads than fits.
  ASSERT_EQ(run("env OMP_NUM_THREADS=8", identify("t8.csv"), &out), 0) << out;
  EXPECT_NE(out.find("stribeck identify: 3 fits on 3 threads\n"), std::string::npos) << out;

  // The same table whatever the team: each fit is independent and serial.
  const std::string t1 = slurp(dir_ + "t1.csv");
  EXPECT_EQ(std::count(t1.begin(), t1.end(), '\n'), 4) << t1;
  EXPECT_NE(t1.find("batch2.csv:batch2,coulomb-viscous,converged,true,300,"), std::string::npos) << t1;
  EXPECT_EQ(slurp(dir_ + "t2.csv"), t1);
  EXPECT_EQ(slurp(dir_ + "t3.csv"), t1);
}

TEST_F(CliThreads, BatchTeamFollowsTheCpuAffinity) {
  // Without OMP_NUM_THREADS the team is the number of CPUs this process may
  // run on (counted here with sched_getaffinity), up to the 3 fits.
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const int cpus = CPU_COUNT(&set);
  const int expect = cpus < 3 ? cpus : 3;
  std::string out;
  ASSERT_EQ(run("env -u OMP_NUM_THREADS", identify("a.csv"), &out), 0) << out;
  EXPECT_NE(out.find("3 fits on " + std::to_string(expect) + " thread"), std::string::npos) << out;

  if (std::system("command -v taskset > /dev/null 2>&1") != 0) GTEST_SKIP() << "no taskset";
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; ++c)
    if (CPU_ISSET(c, &set)) first = c;
  ASSERT_GE(first, 0);
  // One CPU, as a Slurm or cgroup job limited to one core sees it.
  const std::string one = "env -u OMP_NUM_THREADS taskset -c " + std::to_string(first);
  ASSERT_EQ(run(one, identify("b.csv"), &out), 0) << out;
  EXPECT_NE(out.find("stribeck identify: 3 fits on 1 thread\n"), std::string::npos) << out;
  // An explicit OMP_NUM_THREADS still wins over the affinity.
  ASSERT_EQ(run("taskset -c " + std::to_string(first) + " env OMP_NUM_THREADS=2", identify("c.csv"), &out), 0) << out;
  EXPECT_NE(out.find("stribeck identify: 3 fits on 2 threads\n"), std::string::npos) << out;
  EXPECT_EQ(slurp(dir_ + "b.csv"), slurp(dir_ + "a.csv"));
}

}  // namespace
