#include "multistart.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <string>
#include <thread>

#include "compressed_cost.hpp"

namespace stribeck::ident::detail {

namespace {

double floor_cost(const SearchScale& s) {
  const double f = kRelativeFloor * s.force_rms;
  return 0.5 * static_cast<double>(s.samples) * f * f;
}

// What a refinement without a usable solution ran into. A failure before
// the first iteration is at the start: the force there (a cost-only
// evaluation, `start_cost`) or, where that is finite, its derivatives. Later,
// Ceres has evaluated the cost at the point it accepted (finite) and then
// failed on the derivatives there.
std::string failure_of(const ceres::Solver::Summary& sum, double start_cost) {
  if (sum.iterations.empty())
    return std::isfinite(start_cost) ? "the model's force is finite but its derivatives are not at the start"
                                     : "the model's force is not finite at the start";
  if (sum.termination_type == ceres::FAILURE && sum.message.find("evaluation failed") != std::string::npos)
    return "the model's derivatives are not finite at the point the solver reached " +
           std::to_string(sum.iterations.size() - 1) + " iteration(s) from the start";
  return "the solver gave no usable solution (" + sum.message + ") from the start";
}

}  // namespace

bool same_optimum(double a, double b, double tolerance, const SearchScale& scale) {
  return std::abs(a - b) <= tolerance * std::max(a, b) + floor_cost(scale);
}

StartAgreement::StartAgreement(double tolerance, const SearchScale& scale, int starts_above_noise, int starts_exact)
    : tolerance_(tolerance), scale_(scale), starts_exact_(starts_exact), starts_above_noise_(starts_above_noise) {}

double StartAgreement::best_rmse() const {
  return std::sqrt(2.0 * best_ / static_cast<double>(std::max(1L, scale_.samples)));
}

bool StartAgreement::add(double cost) {
  const bool usable = std::isfinite(cost);
  costs_.push_back(usable ? cost : kInf);
  if (!usable || !(cost < best_)) return false;
  best_ = cost;
  return true;
}

int StartAgreement::at_best() const {
  if (!std::isfinite(best_)) return 0;
  return static_cast<int>(std::count_if(costs_.begin(), costs_.end(), [&](double c) {
    return std::isfinite(c) && same_optimum(c, best_, tolerance_, scale_);
  }));
}

bool StartAgreement::noise_floor() const {
  return std::isfinite(best_) && best_rmse() <= kNoiseFactor * scale_.noise + kRelativeFloor * scale_.force_rms;
}

bool StartAgreement::exact() const { return std::isfinite(best_) && best_rmse() <= kRelativeFloor * scale_.force_rms; }

bool StartAgreement::settled() const {
  if (at_best() < 2) return false;
  if (exact()) return runs() >= starts_exact_;
  return noise_floor() || runs() >= starts_above_noise_;
}

namespace {
// Ends a refinement at its next iteration once another one has failed.
class StopCallback : public ceres::IterationCallback {
 public:
  explicit StopCallback(const std::atomic<bool>& stop) : stop_(stop) {}
  ceres::CallbackReturnType operator()(const ceres::IterationSummary&) override {
    return stop_ ? ceres::SOLVER_ABORT : ceres::SOLVER_CONTINUE;
  }

 private:
  const std::atomic<bool>& stop_;
};
}  // namespace

SearchResult multistart(ceres::Problem& P, Layout& L, const std::vector<std::vector<double>>& candidates,
                        const FitOptions& o, const ceres::Solver::Options& options, const SearchScale& scale,
                        const Phases& phases, int guess_after, const ProblemFactory& make_problem, int threads) {
  SearchResult R;
  const bool automatic = o.starts == 0;
  const int available = static_cast<int>(candidates.size());
  const int planned_max = automatic ? std::min(o.max_starts, available) : std::min(o.starts, available);
  // The refinement order: the guess after `guess_after` others (automatic
  // mode), the rest in rank order.
  std::vector<int> order;
  for (int i = 1; i < available; ++i) order.push_back(i);
  order.insert(order.begin() + (automatic ? std::clamp(guess_after, 0, available - 1) : 0), 0);
  const int round = std::max(1, o.starts_per_round);
  StartAgreement agreement(o.agree_tolerance, scale, kRoundsAboveNoise * round, round);
  // Refinements at once: worker 0 solves P, worker w > 0 its own problem
  // over layouts[w - 1] (built when first needed).
  const int width = make_problem ? std::clamp(threads, 1, std::max(1, planned_max)) : 1;
  std::vector<Layout> layouts;
  layouts.reserve(static_cast<size_t>(width));  // the problems hold addresses into them
  std::vector<std::unique_ptr<ceres::Problem>> problems;
  struct Outcome {
    ceres::Solver::Summary sum;
    std::vector<double> u;
    double start_cost = std::numeric_limits<double>::quiet_NaN();  // a failure at the start: the cost there
  };
  std::vector<Outcome> out(static_cast<size_t>(width));
  // An exception in one refinement (the progress callback's interruption,
  // Ctrl-C in Python, runs on worker 0) stops the others at their next
  // iteration; it leaves the search once every worker has been joined.
  std::atomic<bool> stop{false};
  StopCallback stop_cb(stop);
  auto refine = [&](int w, int run) {
    Layout& Lw = w == 0 ? L : layouts[w - 1];
    ceres::Problem& Pw = w == 0 ? P : *problems[w - 1];
    const int c = order[run];
    for (size_t i = 0; i < Lw.params.size(); ++i) Lw.params[i].value = candidates[c][i];
    set_internal_from_values(Lw);
    FitProgress p;
    p.phase = phases.current();
    p.start = run + 1;
    p.starts = automatic ? std::max(run + 1, std::min(planned_max, 2)) : planned_max;
    p.best_cost = agreement.best_cost();
    ProgressCallback cb(phases, p);
    ceres::Solver::Options so = options;
    if (o.progress && w == 0) so.callbacks.push_back(&cb);  // one thread reports
    so.callbacks.push_back(&stop_cb);
    out[w].sum = ceres::Solver::Summary();
    ceres::Solve(so, &Pw, &out[w].sum);
    out[w].u.clear();
    for (const auto& q : Lw.params) out[w].u.push_back(q.u);
    if (!out[w].sum.IsSolutionUsable() && out[w].sum.iterations.empty()) {
      for (size_t i = 0; i < Lw.params.size(); ++i) Lw.params[i].value = candidates[c][i];
      set_internal_from_values(Lw);
      if (!Pw.Evaluate(ceres::Problem::EvaluateOptions(), &out[w].start_cost, nullptr, nullptr, nullptr))
        out[w].start_cost = std::numeric_limits<double>::quiet_NaN();
    }
  };
  bool settled = false;
  while (R.runs < planned_max && !settled) {
    const int batch = std::min(width, planned_max - R.runs);
    while (static_cast<int>(problems.size()) < batch - 1) {
      layouts.push_back(L);
      problems.push_back(make_problem(layouts.back()));
    }
    {
      std::vector<std::exception_ptr> errors(static_cast<size_t>(batch));
      auto guarded = [&](int w, int run) {
        try {
          refine(w, run);
        } catch (...) {
          errors[w] = std::current_exception();
          stop = true;
        }
      };
      std::vector<std::thread> team;
      for (int w = 1; w < batch; ++w) team.emplace_back(guarded, w, R.runs + w);
      guarded(0, R.runs);
      for (auto& t : team) t.join();
      for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    }
    for (int w = 0; w < batch && !settled; ++w, ++R.runs) {
      const ceres::Solver::Summary& sum = out[w].sum;
      const int c = order[R.runs];
      R.iterations += static_cast<int>(sum.iterations.size());
      R.solver_seconds += sum.total_time_in_seconds;
      const bool usable = sum.IsSolutionUsable() && std::isfinite(sum.final_cost);
      if (!usable && R.failure.empty()) R.failure = failure_of(sum, out[w].start_cost);
      // Equal costs: the lower candidate index is kept, whatever the order.
      const bool tie = usable && sum.final_cost == agreement.best_cost() && c < R.best_index;
      if (agreement.add(usable ? sum.final_cost : kInf) || tie) {
        // P's last Jacobian (at its solution) serves the covariance later,
        // whatever the later starts evaluate; another problem's solution
        // gets a new one there.
        std::vector<double*> blocks;
        if (w == 0)
          if (const CompressedCost* cost = compressed_cost(P, &blocks)) cost->keep_last_jacobian();
        R.best = sum;
        R.best_u = out[w].u;
        R.best_index = c;
        R.usable = true;
      }
      settled = automatic && agreement.settled();
    }
  }
  R.at_best = agreement.at_best();
  R.noise_floor = agreement.noise_floor();
  R.settled = automatic && agreement.settled();
  if (R.usable)
    for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = R.best_u[i];
  return R;
}

}  // namespace stribeck::ident::detail
