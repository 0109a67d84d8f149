#include "stribeck/data/interrupt.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

#include "interrupt_detail.hpp"
#include "path_detail.hpp"

namespace stribeck::data {
namespace {

using detail::drop_output_locks;
using detail::kPathMax;
using detail::put_stderr;
using detail::remove_registered_files;

// Temporary paths to remove if a signal ends the process: fixed slots, so
// the handler reads them without allocating or locking (async-signal-safe).
// A multi-experiment export holds a temporary and a lock per file until the
// last is written.
constexpr int kTempSlots = 256;
char g_paths[kTempSlots][kPathMax];
std::atomic<bool> g_used[kTempSlots];
std::mutex g_claim;  // taken by threads claiming or freeing a slot, never by the handler

// Inputs being read (register_input), fixed slots read by the crash handler.
constexpr int kSlots = 16;
char g_inputs[kSlots][kPathMax];
std::atomic<bool> g_input_used[kSlots];
// Outputs being written while inputs are read (LibraryWrite), likewise.
char g_writes[kSlots][kPathMax];
std::atomic<bool> g_write_used[kSlots];

std::atomic<bool> g_cli{false};  // install_cli_signal_handlers: print a line and exit 128 + signal
constexpr size_t kNoteMax = 1024;
char g_note[kNoteMax];
std::atomic<bool> g_note_set{false};
// Where the run stands for a signal. kCommitting (outputs_committing): an
// output has taken or is taking its name, so ending the run now would
// report a failure beside a result. kEnding: a handler is ending the run;
// the change is one compare-exchange, so a rename and a handler in two
// threads never both win.
constexpr int kRunning = 0, kCommitting = 1, kEnding = 2;
std::atomic<int> g_state{kRunning};
std::atomic<int> g_held{0};  // the signal held since the commit (0: none)

}  // namespace

void detail::put_stderr(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  while (n > 0) {
    const ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void detail::remove_registered_files() {
  for (int i = 0; i < kTempSlots; ++i)
    if (g_used[i].load()) ::unlink(g_paths[i]);
  drop_output_locks();
}

bool detail::cli_handlers_installed() { return g_cli.load(std::memory_order_relaxed); }

void detail::outputs_committing() {
  int state = kRunning;
  if (g_state.compare_exchange_strong(state, kCommitting) || state == kCommitting) return;
  // A handler in another thread is ending the run and removing this
  // temporary: it must not take its name first.
  for (;;) ::pause();
}

bool detail::is_registered_input(const char* file) {
  std::lock_guard<std::mutex> lock(g_claim);
  bool input = false;
  for (int i = 0; i < kSlots && !input; ++i) input = g_input_used[i].load() && std::strcmp(g_inputs[i], file) == 0;
  return input;
}

namespace {

// Async-signal-safe: unlink, write and _exit only.
extern "C" void remove_temporaries(int sig) {
  int state = kRunning;
  if (!g_state.compare_exchange_strong(state, kEnding)) {
    // Another thread's handler is ending the run: one line, one exit.
    if (state == kEnding)
      for (;;) ::pause();
    // After a commit the first signal is held: the run finishes what follows
    // (its other outputs, its summary: moments) and exits as it would have,
    // never "interrupted" beside a complete result. SA_RESTART resumes the
    // call it interrupted (a write to a full pipe). A second signal ends it.
    if (g_cli.load() && g_held.exchange(sig) == 0) return;
    g_state.store(kEnding);
  }
  remove_registered_files();
  if (g_cli.load()) {
    put_stderr("stribeck: error: interrupted by ");
    put_stderr(sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal");
    if (g_note_set.load()) {
      put_stderr("; ");
      put_stderr(g_note);
    }
    put_stderr("\n");
    ::_exit(128 + sig);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// A fault while an input is being read: libhdf5 crashed on a damaged file.
// Async-signal-safe: unlink, write and _exit only; on its own stack, so a
// fault from a runaway recursion is reported too.
extern "C" void library_crash(int sig) {
  int input = -1, write = -1;
  for (int i = 0; i < kSlots && input < 0; ++i)
    if (g_input_used[i].load()) input = i;
  for (int i = 0; i < kSlots && write < 0; ++i)
    if (g_write_used[i].load()) write = i;
  if (input < 0) {  // not while reading an input: a crash, with its core dump
    std::signal(sig, SIG_DFL);
    std::raise(sig);  // delivered when the handler returns (the signal is blocked in it)
    return;
  }
  remove_registered_files();
  put_stderr("stribeck: error: ");
  if (write >= 0) {  // reading an input into an output: a failed write is the likelier cause
    put_stderr("writing ");
    put_stderr(g_writes[write]);
    put_stderr(": the HDF5 library crashed writing it (");
  } else {
    put_stderr(g_inputs[input]);
    put_stderr(": damaged file: the HDF5 library crashed reading it (");
  }
  put_stderr(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : "a fault");
  put_stderr(")\n");
  ::_exit(2);
}

void install_crash_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    static char stack[1 << 16];
    stack_t ss{};
    ss.ss_sp = stack;
    ss.ss_size = sizeof stack;
    ::sigaltstack(&ss, nullptr);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE}) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      if (old.sa_handler != SIG_DFL) continue;  // a sanitizer's or a debugger's handler stays
      struct sigaction sa {};
      sa.sa_handler = library_crash;
      sa.sa_flags = SA_ONSTACK;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      if (old.sa_handler != SIG_DFL) continue;  // leave handlers others installed (and SIG_IGN) alone
      struct sigaction sa {};
      sa.sa_handler = remove_temporaries;
      sa.sa_flags = SA_RESTART;  // the handler returns only for a held signal
      sigemptyset(&sa.sa_mask);
      // Block the other two while one runs: one line, one exit.
      sigaddset(&sa.sa_mask, SIGINT);
      sigaddset(&sa.sa_mask, SIGTERM);
      sigaddset(&sa.sa_mask, SIGHUP);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

// Slot index holding `path`, or -1 when all are taken or the path is too
// long (the file is then only removed by the destructor, as before).
int claim(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  install_handlers();
  std::lock_guard<std::mutex> lock(g_claim);
  for (int i = 0; i < kTempSlots; ++i)
    if (!g_used[i].load()) {
      std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
      g_used[i].store(true);
      return i;
    }
  return -1;
}

void release(int slot) {
  if (slot < 0) return;
  std::lock_guard<std::mutex> lock(g_claim);
  g_used[slot].store(false);
}

}  // namespace

void install_cli_signal_handlers() {
  g_cli.store(true);
  install_handlers();
  install_crash_handlers();
}

int register_input(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  std::lock_guard<std::mutex> lock(g_claim);
  for (int i = 0; i < kSlots; ++i)
    if (!g_input_used[i].load()) {
      std::memcpy(g_inputs[i], path.c_str(), path.size() + 1);
      g_input_used[i].store(true);
      return i;
    }
  return -1;
}

void unregister_input(int slot) {
  if (slot < 0) return;
  std::lock_guard<std::mutex> lock(g_claim);
  g_input_used[slot].store(false);
}

LibraryWrite::LibraryWrite(const std::string& target) {
  if (target.empty() || target.size() >= kPathMax) return;
  std::lock_guard<std::mutex> lock(g_claim);
  for (int i = 0; i < kSlots; ++i)
    if (!g_write_used[i].load()) {
      std::memcpy(g_writes[i], target.c_str(), target.size() + 1);
      g_write_used[i].store(true);
      slot_ = i;
      return;
    }
}

LibraryWrite::~LibraryWrite() {
  if (slot_ < 0) return;
  std::lock_guard<std::mutex> lock(g_claim);
  g_write_used[slot_].store(false);
}

void set_interrupt_note(const std::string& note) {
  g_note_set.store(false);
  const size_t n = std::min(note.size(), kNoteMax - 1);
  std::memcpy(g_note, note.data(), n);
  g_note[n] = '\0';
  if (n) g_note_set.store(true);
}

int register_temporary(const std::string& path) { return claim(path); }
void unregister_temporary(int slot) { release(slot); }

}  // namespace stribeck::data
