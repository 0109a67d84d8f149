#include "progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
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
  struct State {
    double last = 0.0;  // nothing in the first interval: short runs print one line
    bool started = false;
    std::uint64_t first_done = 0;  // the first report: a resumed run's earlier work is in it
    double first_secs = 0.0;
  };
  auto st = std::make_shared<State>();
  return [tty, st, unit](std::uint64_t done, std::uint64_t total, double secs) {
    if (!st->started) st->started = true, st->first_done = done, st->first_secs = secs;
    const bool end = done == total;
    if (!end && secs - st->last < (tty ? 0.2 : 10.0)) return;
    st->last = secs;
    // The rate since the first report, so a resumed run's ETA counts only the
    // work this run does (the first report alone: everything over the time).
    const bool window = secs > st->first_secs && done > st->first_done;
    const double rate = window     ? static_cast<double>(done - st->first_done) / (secs - st->first_secs)
                        : secs > 0 ? static_cast<double>(done) / secs
                                   : 0;
    const double eta = rate > 0 ? static_cast<double>(total - done) / rate : -1;
    std::fprintf(stderr, "%s%llu/%llu %s (%.1f%%), %.3g %s/s, ETA %s%s", tty ? "\r\033[K" : "",
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), unit,
                 total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0, rate, unit,
                 duration(eta).c_str(), tty && !end ? "" : "\n");
  };
}

std::function<void(const ident::FitProgress&)> fit_progress(const std::string& model) {
  const bool tty = isatty(fileno(stderr));
  struct State {
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now(), last = t0;
  };
  auto st = std::make_shared<State>();
  return [tty, st, model](const ident::FitProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - st->last).count();
    if (since < (tty ? 0.2 : 10.0)) return;
    st->last = now;
    std::string line = "identify " + model + ": " + p.phase;
    char buf[160];
    if (p.start > 0) {
      std::snprintf(buf, sizeof buf, ", start %d of %d, iteration %d, cost %.6g", p.start, p.starts, p.iteration,
                    p.cost);
      line += buf;
      if (std::isfinite(p.best_cost)) std::snprintf(buf, sizeof buf, " (best %.6g)", p.best_cost), line += buf;
    } else if (std::isfinite(p.cost)) {  // the polish of a long log on every sample
      std::snprintf(buf, sizeof buf, ", iteration %d, cost %.6g", p.iteration, p.cost);
      line += buf;
    }
    std::snprintf(buf, sizeof buf, ", %.0f s", std::chrono::duration<double>(now - st->t0).count());
    line += buf;
    std::fprintf(stderr, tty ? "\r\033[K%s" : "%s\n", line.c_str());
  };
}

void end_progress() {
  if (isatty(fileno(stderr))) std::fputs("\r\033[K", stderr);
}

}  // namespace stribeck::cli
