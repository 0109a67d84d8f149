// `stribeck eval` on a full disk while its writer's thread appends blocks
// (issue 17, item 1): one line, exit 2, and the directory as it was. (The
// pipeline itself, bit for bit at every block size and with the first error
// in block order: tests/unit/workloads/test_eval_pipeline.cpp.)
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "eval_pipeline_logs.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::files_besides;
using test::pipe_dir;
using test::slurp_file;
using test::trace;
using test::write_log;

// A full disk while the writer's thread appends (the output's channels are
// converted, so every block is written as it comes): `stribeck eval` ends
// with one line, exit 2, and leaves the directory as it was.
TEST(EvalPipelineCli, FullDiskWhileWritingBlocksIsOneLineAndNoOutput) {
  const std::string d = pipe_dir("full");
  const size_t n = 700000;  // three blocks of 262,144 rows
  const std::string log = write_log(d + "in.h5", trace(n, false), false, 65536);
  const std::string err_file = test::temp_dir() + "pipeline_full_err.txt";
  for (const char* out : {"out.h5", "out.csv"}) {
    SCOPED_TRACE(out);
    const pid_t pid = fork();
    if (pid == 0) {
      if (!std::freopen("/dev/null", "w", stdout)) _exit(126);
      if (!std::freopen(err_file.c_str(), "w", stderr)) _exit(126);
      signal(SIGXFSZ, SIG_IGN);
      struct rlimit r {};
      r.rlim_cur = r.rlim_max = 16 << 20;  // 10 MiB a block uncompressed: reached in the second block
      setrlimit(RLIMIT_FSIZE, &r);
      const std::string o = d + out;
      execl(STRIBECK_CLI, STRIBECK_CLI, "eval", "-m", "simscape-cylinder", "-i", log.c_str(), "-o", o.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    const std::string err = slurp_file(err_file);
    ASSERT_TRUE(WIFEXITED(st)) << "signal " << WTERMSIG(st) << ": " << err;
    EXPECT_EQ(WEXITSTATUS(st), 2) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(err.rfind("stribeck: error: writing " + d + out + ": file too large", 0), 0u) << err;
    const auto left = files_besides(d, {"in.h5"});
    EXPECT_TRUE(left.empty()) << left.front();
  }
}

}  // namespace
}  // namespace stribeck
