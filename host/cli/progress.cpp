#include "progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

namespace stribeck::cli {
namespace {

std::string duration(double s) {
  char buf[32];
  if (!(s >= 0) || s > 1e7) return "?";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) % 3600 / 60);
  return buf;
}

}  // namespace

std::function<void(std::uint64_t, std::uint64_t, double)> progress_printer(const char* unit) {
  const bool tty = isatty(fileno(stderr));
  auto last = std::make_shared<double>(0.0);  // nothing in the first interval: short runs print one line
  return [tty, last, unit](std::uint64_t done, std::uint64_t total, double secs) {
    const bool end = done == total;
    if (!end && secs - *last < (tty ? 0.2 : 10.0)) return;
    *last = secs;
    const double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
    const double eta = rate > 0 ? static_cast<double>(total - done) / rate : -1;
    std::fprintf(stderr, "%s%llu/%llu %s (%.1f%%), %.3g %s/s, ETA %s%s", tty ? "\r\033[K" : "",
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), unit,
                 total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0, rate, unit,
                 duration(eta).c_str(), tty && !end ? "" : "\n");
  };
}

}  // namespace stribeck::cli
