#pragma once
// Private to identification/: the solves of a static fit around its search:
// the solver options, the free parameters the problem holds, the polish of
// a subsample search's best on every sample, the search's outcome into the
// summary, a later solve continued from, and the summary of a fit no start
// could evaluate.
#include <ceres/ceres.h>

#include <cstddef>
#include <string>
#include <vector>

#include "multistart.hpp"
#include "phases.hpp"
#include "problem.hpp"

namespace stribeck::ident::detail {

// Adds a later solve's iterations and time to the summary's.
void count_solve(FitSummary& S, const ceres::Solver::Summary& sum);

// Phase: polish. The best solution of a search on a subsample refined on every
// sample; each iteration is reported (phase "polish", iteration, cost).

void polish(ceres::Problem& problem, const Layout& L, ceres::Solver::Options so, const Phases& phases, SearchResult& R);

// The free parameters that have a block in the problem (held-out
// experiments cannot determine their own per-experiment unknowns); refuses
// fewer samples than that.
std::vector<int> free_in_problem(const ceres::Problem& problem, Layout& L, long n);

// The solver options of a static fit: bounds are enforced by clamping the
// step (ParameterBlock::Plus); Ceres' extra projected line search would cost
// a second Jacobian per iteration.
ceres::Solver::Options fit_solver_options(const FitOptions& o, int threads);

// The search's outcome into the summary and the layout's values; false when
// no start gave a usable solution.
bool take_search_result(FitSummary& S, Layout& L, const SearchResult& R);

// The fit continues from the layout's internal coordinates, the solution of
// `sum`: it becomes the search's best, and what the estimates phases wrote
// for the point before (parameters, correlations, their warnings) goes.
void continue_from(FitSummary& S, Layout& L, SearchResult& R, const ceres::Solver::Summary& sum,
                   size_t warnings_before);

// Whom a fit answers to when it fails: the stage of a larger fit it is
// (empty: a fit of its own) and the options its user gave (null: the fit's
// own options are theirs). A dynamic fit's steady-state stage holds its
// dynamic parameters by --fix of its own: those are not the user's.
struct FitOrigin {
  std::string stage;
  const FitOptions* user = nullptr;
};

// The summary of a fit no start could evaluate (every parameter at its
// start value). Throws InputError, one line naming what was not finite
// (R.failure), where the user's own --init/--fix values gave the start, and
// for a stage of a larger fit (naming the stage): such a stage has no
// summary of its own to report a failure in.
FitSummary failed_fit(FitSummary S, const Layout& L, const FitOptions& o, const SearchResult& R,
                      const FitOrigin& origin);

}  // namespace stribeck::ident::detail
