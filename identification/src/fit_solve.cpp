// The solves of a static fit around its search (fit_solve.hpp).
#include "fit_solve.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "fit_helpers.hpp"
#include "fit_problem.hpp"
#include "solver_options.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::ident::detail {
namespace {

// The fit's status from the solver's termination.
FitStatus status_of(const ceres::Solver::Summary& sum) {
  return sum.termination_type == ceres::CONVERGENCE      ? FitStatus::kConverged
         : sum.termination_type == ceres::NO_CONVERGENCE ? FitStatus::kMaxIterations
                                                         : FitStatus::kFailed;
}

}  // namespace

void count_solve(FitSummary& S, const ceres::Solver::Summary& sum) {
  S.iterations += static_cast<int>(sum.iterations.size());
  S.solver_seconds += sum.total_time_in_seconds;
}

FitSummary failed_fit(FitSummary S, const Layout& L, const FitOptions& o, const SearchResult& R,
                      const FitOrigin& origin) {
  const std::string failure = R.failure.empty() ? "the model's force is not finite at the start" : R.failure;
  // The user chose values: theirs are what the model cannot take (--init
  // F_pr=1e308 overflows the force at every sample), not the data; a summary
  // of a fit that never started ("failed, 0 samples") would hide it. Only
  // the user's own: a stage's fixes of its own are not theirs to change.
  const FitOptions& user = origin.user ? *origin.user : o;
  std::string given;
  for (const auto& [flag, list] : {std::make_pair("--init ", &user.initial), std::make_pair("--fix ", &user.fix)})
    for (const std::string& a : *list)
      if (a.find('=') != std::string::npos) given += (given.empty() ? "" : ", ") + (flag + a);
  const std::string fit = origin.stage.empty() ? "the fit" : origin.stage;
  if (!given.empty())
    throw data::InputError(given + ": " + failure + " this gives (no start of " + fit +
                           " gave a usable solution); give values on the scale of the data");
  if (!origin.stage.empty())
    throw data::InputError(fit + " failed: " + failure + " the data gave; give a start with --init NAME=VALUE");
  S.status = FitStatus::kFailed;
  S.solver_message = "no start gave a usable solution";
  S.rmse = S.r_squared = S.max_abs_error = S.aic = S.bic = kNaN;
  S.warnings.push_back("the fit failed: no start could be evaluated (first: " + failure + ")");
  for (const auto& p : L.params) {
    ParameterEstimate pe = estimate_of(p);
    pe.determined = p.fixed;
    S.parameters.push_back(pe);
  }
  return S;
}

void polish(ceres::Problem& problem, const Layout& L, ceres::Solver::Options so, const Phases& phases,
            SearchResult& R) {
  if (!R.usable) return;
  FitProgress start;
  start.phase = "polish";
  ProgressCallback cb(phases, start);
  so.callbacks.push_back(&cb);
  ceres::Solver::Summary polish;
  ceres::Solve(so, &problem, &polish);
  R.iterations += static_cast<int>(polish.iterations.size());
  R.solver_seconds += polish.total_time_in_seconds;
  R.usable = polish.IsSolutionUsable() && std::isfinite(polish.final_cost);
  R.best = polish;
  R.best_u.clear();
  for (const auto& q : L.params) R.best_u.push_back(q.u);
}

std::vector<int> free_in_problem(const ceres::Problem& problem, Layout& L, long n) {
  std::vector<int> free;
  for (int i : L.free_indices())
    if (problem.HasParameterBlock(&L.params[i].u)) free.push_back(i);
  if (n <= static_cast<long>(free.size()))
    throw data::InputError("too few samples: " + std::to_string(n) + " samples for " + std::to_string(free.size()) +
                           " free parameters");
  return free;
}

// The solver options of a static fit: bounds are enforced by clamping the
// step (ParameterBlock::Plus); Ceres' extra projected line search would cost
// a second Jacobian per iteration.
ceres::Solver::Options fit_solver_options(const FitOptions& o, int threads) {
  ceres::Solver::Options so = solver_options(o, threads);
  so.max_num_line_search_step_size_iterations = 0;
  // Ceres sees one residual block (the compressed cost, which runs its own
  // threads over the sample blocks) and a k x k system: its threads would
  // only be started and joined, at every evaluation.
  so.num_threads = 1;
  return so;
}

bool take_search_result(FitSummary& S, Layout& L, const SearchResult& R) {
  S.starts = R.runs;
  S.starts_at_best = R.at_best;
  S.best_start = R.best_index;
  S.iterations = R.iterations;
  S.solver_seconds = R.solver_seconds;
  if (!R.usable) return false;
  set_values_from_internal(L);
  S.cost = R.best.final_cost;
  S.solver_message = R.best.message;
  S.status = status_of(R.best);
  return true;
}

void continue_from(FitSummary& S, Layout& L, SearchResult& R, const ceres::Solver::Summary& sum,
                   size_t warnings_before) {
  R.best = sum;
  R.best_u.clear();
  for (const auto& q : L.params) R.best_u.push_back(q.u);
  set_values_from_internal(L);
  S.cost = sum.final_cost;
  S.solver_message = sum.message;
  S.status = status_of(sum);
  S.warnings.resize(warnings_before);
  S.experiments.clear();
  S.parameters.clear();
  S.free_names.clear();
  S.free_transforms.clear();
  S.correlation.clear();
}

}  // namespace stribeck::ident::detail
