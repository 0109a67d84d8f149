#pragma once
// The CLI (STRIBECK_CLI) run in a child process without a shell, for the
// reliability tests: stdout and stderr captured apart, a full disk simulated
// with RLIMIT_FSIZE (SIGXFSZ ignored, so write() fails with EFBIG as a full
// disk fails with ENOSPC: no root, no tmpfs needed), CPU and address-space
// limits, a signal sent mid-run, a run killed and reported as hung past a
// time limit; and the file helpers their cases share (a directory per case
// and a file's bytes in scratch_files.hpp, a directory's contents before and
// after, temporaries left behind, a generated log).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.hpp"
#include "scratch_files.hpp"
#include "temp_dir.hpp"

namespace stribeck::test {

inline bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

inline size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// `s` split on spaces (the tests' command lines hold no quoted words).
inline std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b < s.size()) {
    size_t e = s.find(' ', b);
    if (e == std::string::npos) e = s.size();
    if (e > b) out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// The regular files in `dir`, name to bytes.
inline std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) files[e.path().filename().string()] = slurp(e.path().string());
  return files;
}

// Files in `dir` whose names hold ".tmp." or end in ".partial".
inline std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.find(".tmp.") != std::string::npos || (n.size() > 8 && n.compare(n.size() - 8, 8, ".partial") == 0))
      v.push_back(n);
  }
  return v;
}

// A log of three experiments (10, 40 and 80 bar plateaus) made by generate
// at `path`, which it returns.
inline std::string plateau_log(const std::string& path) {
  std::string text;
  EXPECT_EQ(run_cli("generate --model simscape-cylinder --profile plateaus --rate 200 --pressure-levels "
                    "10bar,40bar,80bar -o " +
                        path,
                    &text),
            0)
      << text;
  return path;
}

// How a child is started.
struct ChildSpec {
  std::string out;           // stdout's file, read back by run_child; empty: /dev/null
  bool out_full = false;     // stdout on /dev/full (a full device) instead
  int out_fd = -1;           // or this descriptor (a pipe's write end; run_child closes the parent's copy)
  std::string err;           // stderr's file
  long fsize_bytes = 0;      // > 0: no file may grow past it (RLIMIT_FSIZE)
  long cpu_seconds = 0;      // > 0: RLIMIT_CPU
  rlim_t address_space = 0;  // > 0: RLIMIT_AS
  std::map<std::string, std::string> env;
  bool program = false;  // args[0] is the program to run (setpriv in front of the CLI), not STRIBECK_CLI
};

// Starts the CLI with `args` as `spec` says; SIGPIPE at its default, as a
// shell starts it, and SIGXFSZ ignored (it only fires past fsize_bytes).
inline pid_t start_cli(const std::vector<std::string>& args, const ChildSpec& spec) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (spec.out_fd >= 0) {
      ::dup2(spec.out_fd, 1);
      ::close(spec.out_fd);
    } else if (!std::freopen(spec.out_full      ? "/dev/full"
                             : spec.out.empty() ? "/dev/null"
                                                : spec.out.c_str(),
                             "w", stdout)) {
      ::_exit(126);
    }
    if (!std::freopen(spec.err.c_str(), "w", stderr)) ::_exit(126);
    for (const auto& [k, v] : spec.env) ::setenv(k.c_str(), v.c_str(), 1);
    ::signal(SIGPIPE, SIG_DFL);
    ::signal(SIGXFSZ, SIG_IGN);
    const auto limit = [](int resource, rlim_t value) {
      struct rlimit r {};
      r.rlim_cur = r.rlim_max = value;
      ::setrlimit(resource, &r);
    };
    if (spec.fsize_bytes > 0) limit(RLIMIT_FSIZE, static_cast<rlim_t>(spec.fsize_bytes));
    if (spec.cpu_seconds > 0) limit(RLIMIT_CPU, static_cast<rlim_t>(spec.cpu_seconds));
    if (spec.address_space > 0) limit(RLIMIT_AS, spec.address_space);
    std::vector<char*> argv;
    if (!spec.program) argv.push_back(const_cast<char*>(STRIBECK_CLI));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// How a child ended.
struct ChildRun {
  bool exited = false;  // ended by exit(), not by a signal
  int code = -1;        // exit status; -1: ended by a signal or hung
  int status = -1;      // exit status, or 128 + signal
  int signal = 0;       // the signal that ended it
  bool hung = false;    // still running at the time limit (then SIGKILLed)
  long peak_kb = -1;    // peak resident memory [kB]
  double seconds = 0;   // from the wait's start, or from the signal when one was sent
  std::string out, err;
};

// How to wait: with limit > 0 a run still going after `limit` seconds is
// SIGKILLed and reported as hung, so that a blocking bug fails the test
// instead of hanging it; with `sig`, sends it `after` seconds in and (if
// `once_exists` is given) not before that path exists, polled every 0.2 ms.
struct ChildWait {
  double limit = 0;
  int sig = 0;
  double after = 0;
  std::string once_exists;
};

inline ChildRun wait_child(pid_t pid, const ChildWait& w = {}) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  ChildRun r;
  int st = 0;
  struct rusage ru {};
  bool sent = false;
  Clock::time_point t_sig = t0;
  if (w.limit <= 0) {
    ::wait4(pid, &st, 0, &ru);
  } else {
    for (;;) {
      if (::wait4(pid, &st, WNOHANG, &ru) == pid) break;
      if (w.sig && !sent && since(t0) >= w.after && (w.once_exists.empty() || exists(w.once_exists))) {
        ::kill(pid, w.sig);
        sent = true;
        t_sig = Clock::now();
      }
      if (since(t0) > w.limit) {
        ::kill(pid, SIGKILL);
        ::wait4(pid, &st, 0, &ru);
        r.hung = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(w.once_exists.empty() ? 2000 : 200));
    }
  }
  r.seconds = since(sent ? t_sig : t0);
  r.peak_kb = ru.ru_maxrss;
  if (r.hung) return r;
  r.exited = WIFEXITED(st);
  if (r.exited) r.code = r.status = WEXITSTATUS(st);
  if (WIFSIGNALED(st)) {
    r.signal = WTERMSIG(st);
    r.status = 128 + r.signal;
  }
  return r;
}

// start_cli, wait_child, then stdout and stderr read back and their files
// removed, so a case's directory holds only what the CLI made.
inline ChildRun run_child(const std::vector<std::string>& args, const ChildSpec& spec, const ChildWait& w = {}) {
  const pid_t pid = start_cli(args, spec);
  if (spec.out_fd >= 0) ::close(spec.out_fd);  // else the pipe keeps a writer in the parent
  ChildRun r = wait_child(pid, w);
  if (!spec.out.empty() && !spec.out_full && spec.out_fd < 0) {
    r.out = slurp(spec.out);
    std::remove(spec.out.c_str());
  }
  r.err = slurp(spec.err);
  std::remove(spec.err.c_str());
  return r;
}

}  // namespace stribeck::test
