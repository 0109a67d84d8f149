#pragma once
// Private to identification/: the phases of a fit (validate options, check
// data, layout, start points, multistart, quality, covariance, intervals,
// warnings), each timed into FitSummary::phase_seconds and announced through
// FitOptions::progress, as Ceres' solver reports its own phases.
#include <ceres/iteration_callback.h>

#include <chrono>
#include <string>
#include <utility>

#include "stribeck/identification/fit.hpp"

namespace stribeck::ident::detail {

class Phases {
 public:
  Phases(FitSummary& summary, const FitOptions& options) : s_(summary), o_(options), t0_(Clock::now()) {}
  Phases(const Phases&) = delete;
  Phases& operator=(const Phases&) = delete;
  ~Phases() { end(); }

  // Ends the running phase, if any, and starts `name`.
  void begin(const std::string& name) {
    end();
    name_ = name;
    t_ = Clock::now();
    FitProgress p;
    p.phase = name;
    report(p);
  }
  // Ends the running phase; its time goes into the summary.
  void end() {
    if (name_.empty()) return;
    s_.phase_seconds.emplace_back(name_, seconds_since(t_));
    name_.clear();
  }
  void report(const FitProgress& p) const {
    if (o_.progress) o_.progress(p);
  }
  const std::string& current() const { return name_; }
  // Seconds since the fit began.
  double total() const { return seconds_since(t0_); }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
  FitSummary& s_;
  const FitOptions& o_;
  Clock::time_point t0_, t_;
  std::string name_;
};

// Reports each solver iteration of a refinement as progress.
class ProgressCallback : public ceres::IterationCallback {
 public:
  ProgressCallback(const Phases& phases, FitProgress p) : phases_(phases), p_(std::move(p)) {}
  ceres::CallbackReturnType operator()(const ceres::IterationSummary& it) override {
    p_.iteration = it.iteration;
    p_.cost = it.cost;
    phases_.report(p_);
    return ceres::SOLVER_CONTINUE;
  }

 private:
  const Phases& phases_;
  FitProgress p_;
};

}  // namespace stribeck::ident::detail
