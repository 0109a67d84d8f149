#pragma once
// Private to identification/: the multistart stage of a fit. Candidates (full
// vectors of external values: the data-driven guess first, then the coarse
// search's best distinct points) are refined by Ceres in rounds until the
// search has settled, and the best solution is kept.
//
// Automatic mode (FitOptions::starts == 0) stops after a round when
//   - at least two refinements reached the best cost (to agree_tolerance), and
//   - the best fit's RMSE is consistent with the noise estimated from the data
//     (at most kNoiseFactor times it, plus a floor of 1e-6 of the force's RMS),
//     or three rounds have run (a model that cannot reach the noise floor,
//     e.g. on real data: more starts will not fix that);
// and in any case after max_starts. An explicit N runs exactly N.
#include <ceres/ceres.h>

#include <vector>

#include "phases.hpp"
#include "problem.hpp"

namespace stribeck::ident::detail {

// RMSE up to this multiple of the noise estimate counts as the noise floor.
constexpr double kNoiseFactor = 2.0;
// The share of the force's RMS below which an RMSE counts as zero (noiseless logs).
constexpr double kRelativeFloor = 1e-6;
// Rounds after which a settled search stops although it stays above the noise.
constexpr int kRoundsAboveNoise = 3;

struct SearchResult {
  bool usable = false;          // some refinement gave a usable solution
  std::vector<double> best_u;   // internal coordinates of the best solution
  ceres::Solver::Summary best;  // its solver summary
  int runs = 0;                 // refinements run
  int at_best = 0;              // of those, reaching the best cost
  int best_index = 0;           // candidate index of the best (0 = the data-driven guess)
  bool settled = false;         // the stopping rule was met (automatic mode)
  bool noise_floor = false;     // the best RMSE is consistent with the noise estimate
  int iterations = 0;
  double solver_seconds = 0.0;
};

// What the search compares a fit against.
struct SearchScale {
  long samples = 0;
  double noise = 0.0;      // noise estimate [N]
  double force_rms = 0.0;  // RMS of the fitted force [N]
};

SearchResult multistart(ceres::Problem& P, Layout& L, const std::vector<std::vector<double>>& candidates,
                        const FitOptions& o, const ceres::Solver::Options& options, const SearchScale& scale,
                        const Phases& phases);

// Whether two costs are the same optimum: relative agree_tolerance, plus the
// share of a noiseless fit (RMSE below kRelativeFloor of the force's RMS).
bool same_optimum(double a, double b, double tolerance, const SearchScale& scale);

}  // namespace stribeck::ident::detail
