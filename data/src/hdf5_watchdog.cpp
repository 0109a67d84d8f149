#include "stribeck/data/hdf5_watchdog.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "interrupt_detail.hpp"
#include "path_detail.hpp"

namespace stribeck::data {
namespace {

using detail::kPathMax;
using detail::put_stderr;

// Watched library calls (watch_library_call): fixed slots, read by the
// watchdog thread without locking or allocating.
constexpr int kSlots = 16;
std::mutex g_watch_mutex;  // taken by threads arming or freeing a slot, never by the watchdog
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
  put_stderr(out);
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
  detail::remove_registered_files();
  put_stderr("stribeck: error: ");
  put_stderr(g_watch[slot].file);
  put_stderr(": damaged file: the HDF5 library did not return from ");
  put_stderr(g_watch[slot].what);
  if (grew > 0) {
    put_stderr(" (it allocated ");
    put_tenths((grew * 10 + (std::uint64_t(1) << 29)) >> 30);
    put_stderr(" GiB in ");
    put_tenths(static_cast<std::uint64_t>((elapsed_ns + 50000000) / 100000000));
    put_stderr(" s)\n");
  } else {
    put_stderr(" (");
    put_stderr(g_limit_text);
    put_stderr(" s)\n");
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

}  // namespace

double library_call_limit() {
  init_library_call_limit();
  return static_cast<double>(g_limit_ns) / 1e9;
}

bool library_calls_watched() { return detail::cli_handlers_installed() && library_call_limit() > 0; }

int watch_library_call(const char* file, const std::string& what) {
  if (!file || !library_calls_watched()) return -1;
  static std::once_flag started;
  std::call_once(started, [] { std::thread(watchdog_loop).detach(); });
  if (!detail::is_registered_input(file)) return -1;
  std::lock_guard<std::mutex> lock(g_watch_mutex);
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
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  g_watch_used[slot].store(false);
}

}  // namespace stribeck::data
