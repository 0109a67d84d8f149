#include "multistart.hpp"

#include <algorithm>
#include <cmath>

#include "compressed_cost.hpp"

namespace stribeck::ident::detail {

namespace {

double floor_cost(const SearchScale& s) {
  const double f = kRelativeFloor * s.force_rms;
  return 0.5 * static_cast<double>(s.samples) * f * f;
}

}  // namespace

bool same_optimum(double a, double b, double tolerance, const SearchScale& scale) {
  return std::abs(a - b) <= tolerance * std::max(a, b) + floor_cost(scale);
}

SearchResult multistart(ceres::Problem& P, Layout& L, const std::vector<std::vector<double>>& candidates,
                        const FitOptions& o, const ceres::Solver::Options& options, const SearchScale& scale,
                        const Phases& phases) {
  SearchResult R;
  const bool automatic = o.starts == 0;
  const int available = static_cast<int>(candidates.size());
  const int planned_max = automatic ? std::min(o.max_starts, available) : std::min(o.starts, available);
  const int per_round = automatic ? std::max(1, o.starts_per_round) : planned_max;
  std::vector<double> costs;
  double best_cost = kInf;
  int rounds = 0;
  while (R.runs < planned_max) {
    const int round_end = std::min(planned_max, R.runs + per_round);
    for (; R.runs < round_end; ++R.runs) {
      for (size_t i = 0; i < L.params.size(); ++i) L.params[i].value = candidates[R.runs][i];
      set_internal_from_values(L);
      FitProgress p;
      p.phase = phases.current();
      p.start = R.runs + 1;
      p.starts = automatic ? round_end : planned_max;
      p.best_cost = best_cost;
      ProgressCallback cb(phases, p);
      ceres::Solver::Options so = options;
      if (o.progress) so.callbacks.push_back(&cb);
      ceres::Solver::Summary sum;
      ceres::Solve(so, &P, &sum);
      R.iterations += static_cast<int>(sum.iterations.size());
      R.solver_seconds += sum.total_time_in_seconds;
      const bool usable = sum.IsSolutionUsable() && std::isfinite(sum.final_cost);
      costs.push_back(usable ? sum.final_cost : kInf);
      if (usable && sum.final_cost < best_cost) {
        // Its last Jacobian (at its solution) serves the covariance later,
        // whatever the later starts evaluate.
        std::vector<double*> blocks;
        if (const CompressedCost* cost = compressed_cost(P, &blocks)) cost->keep_last_jacobian();
        best_cost = sum.final_cost;
        R.best = sum;
        R.best_u.clear();
        for (const auto& q : L.params) R.best_u.push_back(q.u);
        R.best_index = R.runs;
        R.usable = true;
      }
    }
    ++rounds;
    R.at_best = static_cast<int>(std::count_if(costs.begin(), costs.end(), [&](double c) {
      return std::isfinite(c) && same_optimum(c, best_cost, o.agree_tolerance, scale);
    }));
    const double rmse = R.usable ? std::sqrt(2.0 * best_cost / static_cast<double>(std::max(1L, scale.samples))) : kInf;
    R.noise_floor = rmse <= kNoiseFactor * scale.noise + kRelativeFloor * scale.force_rms;
    if (!automatic) continue;
    R.settled = R.at_best >= 2 && (R.noise_floor || rounds >= kRoundsAboveNoise);
    if (R.settled) break;
  }
  if (R.usable)
    for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = R.best_u[i];
  return R;
}

}  // namespace stribeck::ident::detail
