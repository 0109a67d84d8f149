// A signal that comes after a run's output has been moved into place
// (docs/reliability.md, "CLI and runs", item 3): the run is finishing, so it
// ends as it would have (exit 0, its summary printed, no "interrupted" line),
// and only a second signal ends it at once. Deterministic, without timing:
// the run is held after its commit by a stdout pipe that is already full
// (import prints its summary only once the log is in place), and each
// signal is sent once the one before it has left the process's pending set
// (/proc/PID/status, ShdPnd), i.e. a handler has taken it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "child_cli.hpp"
#include "stribeck/data/log.hpp"

namespace stribeck {
namespace {

using Clock = std::chrono::steady_clock;
using test::exists;

// An upper bound for waits on the child, so that a bug fails the test
// instead of hanging it; never a measure of speed.
constexpr double kLimitSeconds = 120;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Whether `sig` sent to the process `pid` (kill) is still pending, not yet
// taken by a handler.
bool pending(pid_t pid, int sig) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("ShdPnd:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1u;
  return false;
}

// Sends `sig` and waits until a handler has taken it.
void signal_taken(pid_t pid, int sig) {
  ASSERT_EQ(::kill(pid, sig), 0);
  const auto t0 = Clock::now();
  while (pending(pid, sig) && since(t0) < kLimitSeconds) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_FALSE(pending(pid, sig)) << "the signal was never taken";
}

// An import whose stdout is a pipe with no room left: started, and waited
// for until its log has taken its name; the child then blocks on its summary.
struct HeldImport {
  std::string dir, csv, out, err;
  int read_end = -1;
  size_t filled = 0;  // bytes put into the pipe before the run
  pid_t pid = -1;
};

HeldImport start_held_import(const std::string& name) {
  HeldImport h;
  h.dir = test::case_dir("signals_after_commit_", name);
  h.csv = h.dir + "in.csv";
  h.out = h.dir + "imp.h5";
  h.err = h.dir + "stderr.txt";
  std::string text = "time,velocity\n";
  for (int k = 0; k < 2000; ++k) text += std::to_string(k * 1e-3) + "," + std::to_string(0.01 * (k % 50)) + "\n";
  test::spit(h.csv, text);
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  // Filled while non-blocking, then blocking again for the child.
  EXPECT_EQ(::fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
  const std::string block(4096, 'x');
  for (ssize_t w; (w = ::write(fds[1], block.data(), block.size())) > 0;) h.filled += static_cast<size_t>(w);
  EXPECT_EQ(::fcntl(fds[1], F_SETFL, 0), 0);
  test::ChildSpec spec;
  spec.out_fd = fds[1];
  spec.err = h.err;
  h.pid = test::start_cli({"import", h.csv, "-o", h.out}, spec);
  ::close(fds[1]);
  h.read_end = fds[0];
  const auto t0 = Clock::now();
  int st = 0;
  while (!exists(h.out) && since(t0) < kLimitSeconds) {
    EXPECT_EQ(::waitpid(h.pid, &st, WNOHANG), 0) << "import ended before its log was in place: " << test::slurp(h.err);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(exists(h.out)) << "import did not write its log";
  return h;
}

// Everything the child wrote to stdout after the bytes put there first.
std::string drain(HeldImport& h) {
  std::string all;
  char buf[65536];
  for (ssize_t n; (n = ::read(h.read_end, buf, sizeof buf)) > 0;) all.append(buf, static_cast<size_t>(n));
  ::close(h.read_end);
  h.read_end = -1;
  return all.size() >= h.filled ? all.substr(h.filled) : std::string();
}

void expect_whole_log(const std::string& path) {
  const std::vector<data::Experiment> back = data::read_log(path);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].size(), 2000u) << "a partial log";
}

TEST(SignalsCli, ASignalAfterTheOutputIsInPlaceLetsTheRunFinishAsItWouldHave) {
  HeldImport h = start_held_import("one");
  ASSERT_NO_FATAL_FAILURE(signal_taken(h.pid, SIGTERM));
  const std::string out = drain(h);
  const test::ChildRun r = test::wait_child(h.pid, {kLimitSeconds});
  ASSERT_FALSE(r.hung);
  ASSERT_TRUE(r.exited) << "ended by signal " << r.signal;
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(test::slurp(h.err), "") << "no interrupted line beside a complete result";
  EXPECT_NE(out.find("stribeck import: 1 experiment -> " + h.out + "\n"), std::string::npos) << out;
  expect_whole_log(h.out);
  EXPECT_TRUE(test::leftovers(h.dir).empty()) << test::leftovers(h.dir).front();
}

// The user who insists: a second signal ends the run at once with the one
// line and 128 + its number; the log already in place stays complete. (Which
// of the two is the second is the process's choice where another of its
// threads takes the later one while the first is still being held.)
TEST(SignalsCli, ASecondSignalAfterTheCommitEndsTheRunAtOnce) {
  HeldImport h = start_held_import("two");
  ASSERT_NO_FATAL_FAILURE(signal_taken(h.pid, SIGTERM));
  ASSERT_EQ(::kill(h.pid, SIGINT), 0);
  // Not drained: the run ends while its summary still waits for room.
  const test::ChildRun r = test::wait_child(h.pid, {kLimitSeconds});
  ::close(h.read_end);
  ASSERT_FALSE(r.hung) << "the second signal did not end the run";
  ASSERT_TRUE(r.exited) << "ended by signal " << r.signal;
  const std::string err = test::slurp(h.err);
  const int sig = r.code - 128;
  ASSERT_TRUE(sig == SIGTERM || sig == SIGINT) << "exit " << r.code << ": " << err;
  EXPECT_EQ(err, std::string("stribeck: error: interrupted by ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + "\n");
  expect_whole_log(h.out);
  EXPECT_TRUE(test::leftovers(h.dir).empty()) << test::leftovers(h.dir).front();
}

}  // namespace
}  // namespace stribeck
