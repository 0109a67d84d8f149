#include "stribeck/data/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "stribeck/data/error.hpp"

namespace stribeck {
namespace {

// Temporary paths to remove if a signal ends the process: fixed slots, so
// the handler reads them without allocating or locking (async-signal-safe).
constexpr int kSlots = 16;
constexpr size_t kPathMax = 4096;
// A multi-experiment export holds a temporary and a lock per file until the
// last is written.
constexpr int kTempSlots = 256;
char g_paths[kTempSlots][kPathMax];
std::atomic<bool> g_used[kTempSlots];
std::mutex g_claim;  // taken by threads claiming or freeing a slot, never by the handler

// Output locks held by this process (OutputLock), in fixed slots so that the
// handlers can let them go: path first, then fd (>= 0: in use).
struct LockSlot {
  char path[kPathMax];
  std::atomic<int> fd{-1};
  int count = 0;  // holds within this process
  bool exclusive = false;
};
LockSlot g_locks[kTempSlots];
std::mutex g_lock_mutex;  // taken by OutputLock, never by a handler

// Async-signal-safe (fcntl, unlink): the lock files this process holds are
// removed where no other process holds them too, so a run ended by a signal
// or a crash leaves none.
void drop_locks() {
  for (auto& l : g_locks) {
    const int fd = l.fd.load();
    if (fd < 0) continue;
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (::fcntl(fd, F_OFD_SETLK, &fl) == 0) ::unlink(l.path);
  }
}

// Inputs being read (register_input), fixed slots read by the crash handler.
char g_inputs[kSlots][kPathMax];
std::atomic<bool> g_input_used[kSlots];
// Outputs being written while inputs are read (LibraryWrite), likewise.
char g_writes[kSlots][kPathMax];
std::atomic<bool> g_write_used[kSlots];

std::atomic<bool> g_cli{false};  // install_cli_signal_handlers: print a line and exit 128 + signal
constexpr size_t kNoteMax = 1024;
char g_note[kNoteMax];
std::atomic<bool> g_note_set{false};

void put(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  while (n > 0) {
    const ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// Async-signal-safe: unlink, write and _exit only.
extern "C" void remove_temporaries(int sig) {
  for (int i = 0; i < kTempSlots; ++i)
    if (g_used[i].load()) ::unlink(g_paths[i]);
  drop_locks();
  if (g_cli.load()) {
    put("stribeck: error: interrupted by ");
    put(sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal");
    if (g_note_set.load()) {
      put("; ");
      put(g_note);
    }
    put("\n");
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
  for (int i = 0; i < kTempSlots; ++i)
    if (g_used[i].load()) ::unlink(g_paths[i]);
  drop_locks();
  put("stribeck: error: ");
  if (write >= 0) {  // reading an input into an output: a failed write is the likelier cause
    put("writing ");
    put(g_writes[write]);
    put(": the HDF5 library crashed writing it (");
  } else {
    put(g_inputs[input]);
    put(": damaged file: the HDF5 library crashed reading it (");
  }
  put(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : "a fault");
  put(")\n");
  ::_exit(2);
}

// Watched library calls (watch_library_call): fixed slots, read by the
// watchdog thread without locking or allocating.
struct WatchSlot {
  std::atomic<std::int64_t> since{0};  // CLOCK_MONOTONIC ns when armed; 0: not armed
  std::atomic<std::uint64_t> arms{0};  // bumped at every arming (the watchdog's memory baseline)
  char file[kPathMax];
  char what[512];
};
WatchSlot g_watch[kSlots];
std::atomic<bool> g_watch_used[kSlots];
std::int64_t g_limit_ns = 0;  // set once (std::call_once) before any slot is armed
char g_limit_text[32];

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// "12.3": a non-negative amount in tenths, without printf (no locale, no
// allocation).
void put_tenths(std::uint64_t tenths) {
  char buf[32];
  int n = 0;
  buf[n++] = static_cast<char>('0' + tenths % 10);
  buf[n++] = '.';
  std::uint64_t whole = tenths / 10;
  do {
    buf[n++] = static_cast<char>('0' + whole % 10);
    whole /= 10;
  } while (whole > 0 && n < 30);
  char out[32];
  for (int i = 0; i < n; ++i) out[i] = buf[n - 1 - i];
  out[n] = '\0';
  put(out);
}

// Resident memory of the process in bytes (0 if /proc cannot be read):
// open, read and close only.
std::uint64_t resident_bytes() {
  static const long page = ::sysconf(_SC_PAGESIZE);
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* p = buf;
  while (*p && *p != ' ') ++p;  // the first field is the total size; the second the resident pages
  std::uint64_t pages = 0;
  for (++p; *p >= '0' && *p <= '9'; ++p) pages = pages * 10 + static_cast<std::uint64_t>(*p - '0');
  return pages * static_cast<std::uint64_t>(page > 0 ? page : 4096);
}

// A watched call did not return: as the crash handler, only unlink, write
// and _exit (the stuck thread may hold any lock, malloc's included).
[[noreturn]] void library_call_overdue(int slot, std::uint64_t grew, std::int64_t elapsed_ns) {
  for (int i = 0; i < kTempSlots; ++i)
    if (g_used[i].load()) ::unlink(g_paths[i]);
  drop_locks();
  put("stribeck: error: ");
  put(g_watch[slot].file);
  put(": damaged file: the HDF5 library did not return from ");
  put(g_watch[slot].what);
  if (grew > 0) {
    put(" (it allocated ");
    put_tenths((grew * 10 + (std::uint64_t(1) << 29)) >> 30);
    put(" GiB in ");
    put_tenths(static_cast<std::uint64_t>((elapsed_ns + 50000000) / 100000000));
    put(" s)\n");
  } else {
    put(" (");
    put(g_limit_text);
    put(" s)\n");
  }
  ::_exit(2);
}

void watchdog_loop() {
  sigset_t all;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, nullptr);  // signals are the main thread's to handle
  const std::int64_t poll = std::clamp<std::int64_t>(g_limit_ns / 10, 20000000, 500000000);
  std::uint64_t seen[kSlots] = {};
  std::uint64_t base[kSlots] = {};
  for (;;) {
    timespec ts{static_cast<time_t>(poll / 1000000000), static_cast<long>(poll % 1000000000)};
    while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
    const std::int64_t now = now_ns();
    std::uint64_t rss = 0;
    bool have_rss = false;
    for (int i = 0; i < kSlots; ++i) {
      const std::int64_t since = g_watch[i].since.load(std::memory_order_acquire);
      if (since == 0) continue;
      const std::uint64_t arms = g_watch[i].arms.load(std::memory_order_acquire);
      if (!have_rss) {
        rss = resident_bytes();
        have_rss = true;
      }
      if (arms != seen[i]) {  // first seen armed: the memory it started from
        seen[i] = arms;
        base[i] = rss;
      } else if (rss > base[i] + kLibraryCallMemory && g_watch[i].since.load() == since) {
        library_call_overdue(i, rss - base[i], now - since);
      }
      if (now - since > g_limit_ns && g_watch[i].since.load() == since) library_call_overdue(i, 0, 0);
    }
  }
}

void init_library_call_limit() {
  static std::once_flag once;
  std::call_once(once, [] {
    double limit = kLibraryCallLimit;
    if (const char* v = std::getenv("STRIBECK_HDF5_METADATA_TIMEOUT"); v && *v) {
      char* end = nullptr;
      const double x = std::strtod(v, &end);
      if (end != v && *end == '\0' && x >= 0 && x <= 1e6) limit = x;
    }
    g_limit_ns = static_cast<std::int64_t>(limit * 1e9);
    std::snprintf(g_limit_text, sizeof g_limit_text, "%g", limit);
  });
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

void check_output_path(const std::string& path) {
  if (path.empty()) throw InputError("the output path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // does not exist yet: fine
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory; give a file name for the output");
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": exists and is not a regular file (a device, pipe or socket); write to a regular file");
}

namespace {
std::string kind_of(mode_t m) {
  if (S_ISREG(m)) return "";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}
}  // namespace

std::string describe_non_regular(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return kind_of(st.st_mode);
}

void check_input_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": is not a regular file but " + kind_of(st.st_mode) + "; save the data to a file first");
}

std::string text_encoding_problem(std::string_view h) {
  auto starts = [&](std::string_view p) { return h.substr(0, p.size()) == p; };
  if (starts(std::string_view("\xFF\xFE\0\0", 4)) || starts(std::string_view("\0\0\xFE\xFF", 4)))
    return "is UTF-32 text (byte-order mark); save it as UTF-8";
  if (starts("\xFF\xFE") || starts("\xFE\xFF")) return "is UTF-16 text (byte-order mark); save it as UTF-8";
  const size_t nul = h.find('\0');
  if (nul == std::string_view::npos) return "";
  // ASCII saved as UTF-16 without a mark: every other byte is NUL.
  size_t even = 0, odd = 0, pairs = std::min<size_t>(h.size() / 2, 64);
  for (size_t i = 0; i < pairs; ++i) {
    even += h[2 * i] == '\0';
    odd += h[2 * i + 1] == '\0';
  }
  if (pairs >= 2 && (even == pairs) != (odd == pairs))
    return "looks like UTF-16 text (a NUL byte between characters); save it as UTF-8";
  return "holds a NUL byte (at byte " + std::to_string(nul) + "): not a text file";
}

std::string read_config_file(const std::string& path, const std::string& what) {
  if (path.empty()) throw InputError(what + ": the path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(path + ": cannot open the " + what + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw InputError(path + ": is " + kind_of(st.st_mode) + ", not a " + what + " file");
  // Non-blocking, and checked again on the open file: a path swapped for a
  // FIFO after the stat still cannot block.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(path + ": cannot open the " + what + ": " + std::strerror(errno));
  std::string text;
  try {
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
      throw InputError(path + ": is " + kind_of(st.st_mode) + ", not a " + what + " file");
    auto too_big = [&](unsigned long long bytes) {
      return InputError(path + ": the " + what + " is " + std::to_string(bytes) + " bytes; at most " +
                        std::to_string(kMaxConfigBytes >> 20) + " MiB are read (is this the right file?)");
    };
    if (static_cast<unsigned long long>(st.st_size) > kMaxConfigBytes) throw too_big(st.st_size);
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(path + ": cannot read the " + what + ": " + std::strerror(errno));
      if (n == 0) break;
      text.append(buf, static_cast<size_t>(n));
      if (text.size() > kMaxConfigBytes) throw too_big(text.size());
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  const std::string bad = text_encoding_problem(text);
  if (!bad.empty()) throw InputError(path + ": the " + what + " " + bad);
  return text;
}

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

double library_call_limit() {
  init_library_call_limit();
  return static_cast<double>(g_limit_ns) / 1e9;
}

bool library_calls_watched() { return g_cli.load(std::memory_order_relaxed) && library_call_limit() > 0; }

int watch_library_call(const char* file, const std::string& what) {
  if (!file || !library_calls_watched()) return -1;
  static std::once_flag started;
  std::call_once(started, [] { std::thread(watchdog_loop).detach(); });
  std::lock_guard<std::mutex> lock(g_claim);
  bool input = false;
  for (int i = 0; i < kSlots && !input; ++i) input = g_input_used[i].load() && std::strcmp(g_inputs[i], file) == 0;
  if (!input) return -1;
  for (int i = 0; i < kSlots; ++i)
    if (!g_watch_used[i].load()) {
      g_watch_used[i].store(true);
      WatchSlot& w = g_watch[i];
      std::snprintf(w.file, sizeof w.file, "%s", file);
      std::snprintf(w.what, sizeof w.what, "%s", what.c_str());
      w.arms.fetch_add(1, std::memory_order_release);
      w.since.store(now_ns(), std::memory_order_release);
      return i;
    }
  return -1;
}

void unwatch_library_call(int slot) {
  if (slot < 0) return;
  g_watch[slot].since.store(0, std::memory_order_release);
  std::lock_guard<std::mutex> lock(g_claim);
  g_watch_used[slot].store(false);
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

namespace {
constexpr size_t kUniqueChars = 6;  // mkstemp's XXXXXX

// 64-bit FNV-1a as 16 hex digits: the same in every run and build.
std::string name_hash(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

int set_lock(int fd, short type, bool wait) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  int rc;
  do rc = ::fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl);
  while (rc != 0 && wait && errno == EINTR);
  return rc;
}

// Removes the temporaries STEM + XXXXXX (regular files): called while no
// writer of the output lives, so every one is a dead writer's.
int remove_leftover_temporaries(const std::string& stem) {
  const size_t slash = stem.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : stem.substr(0, slash + 1);
  const std::string prefix = stem.substr(dir.size());
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (!d) return 0;
  int removed = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n.size() != prefix.size() + kUniqueChars || n.compare(0, prefix.size(), prefix) != 0) continue;
    if (!std::all_of(n.begin() + static_cast<std::ptrdiff_t>(prefix.size()), n.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }))
      continue;
    struct stat st {};
    const std::string path = dir + n;
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::unlink(path.c_str()) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

}  // namespace

std::string resolve_output(const std::string& target) {
  std::string p = target;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    if (hops == 40) throw InputError(target + ": too many levels of symbolic links");
    std::vector<char> buf(kPathMax);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size());
    if (n <= 0 || static_cast<size_t>(n) >= buf.size()) return p;
    std::string link(buf.data(), static_cast<size_t>(n));
    const size_t slash = p.find_last_of('/');
    if (link[0] != '/' && slash != std::string::npos) link = p.substr(0, slash + 1) + link;
    p = link;
  }
}

std::string name_with_room(const std::string& path, size_t room) {
  const size_t slash = path.find_last_of('/');
  const size_t base = slash == std::string::npos ? 0 : slash + 1;
  const std::string name = path.substr(base);
  if (name.size() + room <= kFileNameMax) return path;
  const std::string hash = "~" + name_hash(name);
  return path.substr(0, base) + name.substr(0, kFileNameMax - room - hash.size()) + hash;
}

std::string temporary_stem(const std::string& target) {
  const std::string tmp = ".tmp.";
  return name_with_room(target, tmp.size() + kUniqueChars) + tmp;
}

std::string partial_path(const std::string& output) {
  // Its companions must fit too: OUT.partial.lock, and the journaling
  // driver's OUT.partial.journal(.new) and OUT.partial.undo(.new)
  // (journal_driver.cpp), the longest of them ".journal.new".
  const std::string partial = ".partial", longest = ".journal.new";
  return name_with_room(output, partial.size() + longest.size()) + partial;
}

OutputLock::OutputLock(const std::string& target, Mode mode) {
  const std::string stem = temporary_stem(resolve_output(target));
  const std::string path = stem + "lock";
  if (path.size() >= kPathMax) return;
  const bool exclusive = mode == Mode::kExclusive;
  std::lock_guard<std::mutex> guard(g_lock_mutex);
  int free_slot = -1;
  for (int i = 0; i < kTempSlots; ++i) {
    LockSlot& l = g_locks[i];
    const int held = l.fd.load();
    if (held < 0) {
      if (free_slot < 0) free_slot = i;
      continue;
    }
    if (path != l.path) continue;
    // Held by this process already: one more hold, made exclusive if asked.
    if (exclusive && !l.exclusive) {
      if (set_lock(held, F_WRLCK, true) != 0) return;
      l.exclusive = true;
    }
    ++l.count;
    slot_ = i;
    return;
  }
  if (free_slot < 0) return;
  int fd = -1;
  bool alone = false;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) return;  // a directory we cannot write: the writer's own open says why
    // Writable by every user whatever the umask (it holds nothing): one that
    // kill -9 left behind (root's, say) must not keep other users' runs on
    // the same output from locking it and removing the leftovers.
    ::fchmod(fd, 0666);
    alone = set_lock(fd, F_WRLCK, false) == 0;
    if (!alone) {
      // Another writer lives: share with it, or wait for it to end.
      if ((errno != EAGAIN && errno != EACCES) || set_lock(fd, exclusive ? F_WRLCK : F_RDLCK, true) != 0) {
        ::close(fd);  // no locks on this file system (ENOLCK, EINVAL): nothing locked, as before
        return;
      }
      alone = exclusive;
    }
    // The name must still be the file we locked: the last holder removes it
    // when it ends, and a run that waited for it then locks a new one.
    struct stat a {
    }, b{};
    if (::fstat(fd, &a) != 0 || ::stat(path.c_str(), &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
      ::close(fd);
      fd = -1;
    }
  }
  if (fd < 0) return;
  if (alone) removed_ = remove_leftover_temporaries(stem);
  if (alone && !exclusive) set_lock(fd, F_RDLCK, false);  // converts the lock in place: never a moment without it
  LockSlot& l = g_locks[free_slot];
  std::memcpy(l.path, path.c_str(), path.size() + 1);
  l.count = 1;
  l.exclusive = exclusive;
  l.fd.store(fd);
  slot_ = free_slot;
}

OutputLock& OutputLock::operator=(OutputLock&& o) noexcept {
  if (this != &o) {
    release();
    slot_ = o.slot_;
    removed_ = o.removed_;
    o.slot_ = -1;
  }
  return *this;
}

void OutputLock::release() {
  if (slot_ < 0) return;
  std::lock_guard<std::mutex> guard(g_lock_mutex);
  LockSlot& l = g_locks[slot_];
  slot_ = -1;
  if (--l.count > 0) return;
  const int fd = l.fd.load();
  // The last holder of all removes the file (a run waiting on it then
  // retries on a new one); while others share it, it stays.
  if (set_lock(fd, F_WRLCK, false) == 0) ::unlink(l.path);
  l.fd.store(-1);
  ::close(fd);
}

AtomicFile::AtomicFile(std::string target) : target_(std::move(target)) {
  check_output_path(target_);
  real_ = resolve_output(target_);
  lock_ = OutputLock(real_, OutputLock::Mode::kShared);
  std::string pattern = temporary_stem(real_) + "XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0) throw InputError(target_ + ": cannot create output file: " + std::strerror(errno));
  // mkstemp creates 0600; give the result the permissions a plain fopen would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  temp_ = buf.data();
  slot_ = claim(temp_);
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_.c_str());
  release(slot_);
}

std::FILE* AtomicFile::stream() {
  if (!file_) {
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) throw InputError(target_ + ": cannot write: " + std::strerror(errno));
  }
  return file_;
}

namespace {
[[noreturn]] void write_failed(const std::string& target, int err) {
  std::string cause = err ? std::strerror(err) : "write error";
  cause[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(cause[0])));
  throw InputError("writing " + target + ": " + cause);
}
}  // namespace

std::string AtomicFile::name_target(std::string message) const {
  if (temp_.empty()) return message;
  for (size_t at = message.find(temp_); at != std::string::npos; at = message.find(temp_, at + target_.size()))
    message.replace(at, temp_.size(), target_);
  return message;
}

void AtomicFile::write(const void* data, size_t n) {
  std::FILE* f = stream();
  errno = 0;
  if (n > 0 && std::fwrite(data, 1, n, f) != n) write_failed(target_, errno);
}

namespace {
// fsync of a path opened read-only (the data of every descriptor of the
// file, also one libhdf5 has closed); file systems that cannot sync say
// EINVAL or ENOTSUP, which is not an error of the output.
bool sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | flags);
  if (fd < 0) return false;
  int rc;
  do rc = ::fsync(fd);
  while (rc != 0 && errno == EINTR);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && err != EINVAL && err != ENOTSUP && err != EROFS) {
    errno = err;
    return false;
  }
  return true;
}

// A file replaced by a new version keeps who owns it and who may read it:
// owner and group where this process may give them (root; a group it is in),
// then the permission bits (after chown, which clears set-id bits).
void keep_owner_and_mode(const std::string& temp, const std::string& target) {
  struct stat old {
  }, mine{};
  if (::stat(target.c_str(), &old) != 0 || !S_ISREG(old.st_mode) || ::stat(temp.c_str(), &mine) != 0) return;
  if ((mine.st_uid != old.st_uid || mine.st_gid != old.st_gid) && ::chown(temp.c_str(), old.st_uid, old.st_gid) != 0 &&
      mine.st_gid != old.st_gid) {
    if (::chown(temp.c_str(), static_cast<uid_t>(-1), old.st_gid) != 0) {
      // not permitted: the result is the running user's, as a new file would be
    }
  }
  ::chmod(temp.c_str(), old.st_mode & 07777);
}
std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace

int durable_rename(const std::string& from, const std::string& to_name) {
  std::string to;
  try {
    to = resolve_output(to_name);
  } catch (const InputError&) {
    errno = ELOOP;
    return -1;
  }
  keep_owner_and_mode(from, to);
  if (!sync_path(from, 0)) return -1;
  if (std::rename(from.c_str(), to.c_str()) != 0) return -1;
  const int saved = errno;
  sync_path(directory_of(to), O_DIRECTORY);  // best effort: the rename has happened
  errno = saved;
  return 0;
}

namespace {
// Reads the lock file's "PID KIND" line ("" when empty or unreadable).
std::string read_owner(int fd) {
  char buf[128];
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string s(buf, static_cast<size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}
}  // namespace

void reserve_space(const std::string& path, std::uint64_t bytes, const std::string& target, const std::string& note) {
  // Metadata (B-tree nodes, object headers, the checkpoint's attributes)
  // beside the rows.
  bytes += std::uint64_t(256) << 10;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;  // the writer's own writes report it
  struct stat st {};
  int err = 0;
  if (::fstat(fd, &st) == 0) {
    struct rlimit lim {};
    if (::getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
        static_cast<std::uint64_t>(st.st_size) + bytes > static_cast<std::uint64_t>(lim.rlim_cur))
      err = EFBIG;
    else if (::fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, static_cast<off_t>(bytes)) != 0 &&
             (errno == ENOSPC || errno == EDQUOT || errno == EFBIG))
      err = errno;  // EOPNOTSUPP and the like: no reservation, as before
  }
  ::close(fd);
  if (!err) return;
  std::string cause = std::strerror(err);
  cause[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(cause[0])));
  throw InputError("writing " + target + ": " + cause + (note.empty() ? "" : "; " + note));
}

PartialOwner::PartialOwner(const std::string& partial, bool resumable) {
  const std::string lock = partial + ".lock";
  int fd = -1;
  for (int attempt = 0; attempt < 8; ++attempt) {
    fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;  // a directory we cannot write: the writer's own open reports it
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (::fcntl(fd, F_OFD_SETLK, &fl) != 0) {
      const int err = errno;
      if (err == EAGAIN || err == EACCES) {
        std::string owner = read_owner(fd);
        ::close(fd);
        const std::string pid = owner.substr(0, owner.find(' '));
        throw InputError(partial + ": being written by " +
                         (pid.empty() ? std::string("another process") : "process " + pid) +
                         " (another stribeck run on the same output); wait for it to end or stop it");
      }
      ::close(fd);  // no locks on this file system (ENOLCK, EINVAL): no ownership, as before
      return;
    }
    // The name must still be the file we locked: an owner that ended may
    // have removed it between our open and our lock.
    struct stat a {
    }, b{};
    if (::fstat(fd, &a) == 0 && ::stat(lock.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) break;
    ::close(fd);
    fd = -1;
  }
  if (fd < 0) return;
  lock_path_ = lock;
  fd_ = fd;
  slot_ = claim(lock_path_);
  // A leftover of a writer that is gone (we hold its lock): scratch is
  // removed; a checkpoint stays for --resume.
  const std::string before = read_owner(fd_);
  const size_t sp = before.find(' ');
  if (sp != std::string::npos && before.substr(sp + 1) == "scratch" && ::access(partial.c_str(), F_OK) == 0) {
    removed_leftover_ = ::unlink(partial.c_str()) == 0;
  }
  const std::string line = std::to_string(::getpid()) + (resumable ? " resumable\n" : " scratch\n");
  if (::ftruncate(fd_, 0) == 0) {
    const ssize_t w = ::pwrite(fd_, line.data(), line.size(), 0);
    (void)w;  // the lock is what counts; the PID is for messages
  }
}

PartialOwner& PartialOwner::operator=(PartialOwner&& o) noexcept {
  if (this != &o) {
    release();
    lock_path_ = std::move(o.lock_path_);
    fd_ = o.fd_;
    slot_ = o.slot_;
    removed_leftover_ = o.removed_leftover_;
    o.lock_path_.clear();
    o.fd_ = -1;
    o.slot_ = -1;
  }
  return *this;
}

void PartialOwner::release() {
  if (fd_ >= 0) {
    ::unlink(lock_path_.c_str());  // before the lock goes: a waiting run then retries on a new file
    ::close(fd_);
  }
  stribeck::release(slot_);
  fd_ = -1;
  slot_ = -1;
  lock_path_.clear();
}

PartialOwner::~PartialOwner() { release(); }

void AtomicFile::commit() {
  close_stream();
  if (durable_rename(temp_, real_) != 0)
    throw InputError(target_ + ": cannot move output into place: " + std::strerror(errno));
  committed_ = true;
  release(slot_);
  slot_ = -1;
}

void AtomicFile::close_stream() {
  if (file_) {
    errno = 0;
    int err = 0;
    if (std::fflush(file_) != 0 || std::ferror(file_)) err = errno ? errno : EIO;
    errno = 0;
    if (std::fclose(file_) != 0 && !err) err = errno ? errno : EIO;
    file_ = nullptr;
    if (err) write_failed(target_, err);
  }
}

void copy_file_contents(const std::string& source, AtomicFile& out) {
  std::FILE* in = std::fopen(source.c_str(), "rb");
  if (!in) throw InputError(source + ": cannot read: " + std::strerror(errno));
  std::vector<char> buf(1 << 20);
  for (;;) {
    const size_t n = std::fread(buf.data(), 1, buf.size(), in);
    if (n > 0) {
      try {
        out.write(buf.data(), n);
      } catch (...) {
        std::fclose(in);
        throw;
      }
    }
    if (n < buf.size()) break;
  }
  const bool bad = std::ferror(in) != 0;
  std::fclose(in);
  if (bad) throw InputError(source + ": cannot read: " + std::strerror(errno));
  // Closed (and its write errors reported) before HDF5 opens the copy.
  out.close_stream();
}

}  // namespace stribeck
