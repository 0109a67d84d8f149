#pragma once
// Runs the built `stribeck` CLI (STRIBECK_CLI) from a test: the exit status,
// and stdout and stderr together into `out` when given. Each call logs into
// its own file in the process's scratch directory (temp_dir.hpp), since CTest
// runs tests as parallel processes.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "temp_dir.hpp"

namespace stribeck::test {

inline int run_cli(const std::string& args, std::string* out = nullptr) {
  static int calls = 0;
  const std::string log = temp_dir() + "cli_log_" + std::to_string(++calls) + ".txt";
  const int rc = std::system((std::string(STRIBECK_CLI) + " " + args + " > " + log + " 2>&1").c_str());
  if (out) {
    std::ifstream in(log);
    out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::remove(log.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace stribeck::test
