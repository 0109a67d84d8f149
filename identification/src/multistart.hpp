#pragma once
// Private to identification/: the multistart stage of a fit. Candidates (full
// vectors of external values: the data-driven guess first, then the coarse
// search's best distinct points) are refined by Ceres until the search has
// settled, and the best solution is kept.
//
// Automatic mode (FitOptions::starts == 0) stops when two starts agree
// (StartAgreement below, checked after every refinement):
//   - at least two refinements reached the best cost (to agree_tolerance), and
//   - the best fit's RMSE is consistent with the noise estimated from the data
//     (at most kNoiseFactor times it, plus a floor of 1e-6 of the force's RMS),
//     or kRoundsAboveNoise rounds of starts_per_round have run (a model that
//     cannot reach the noise floor, e.g. on real data: more starts will not
//     fix that); a fit exact to that floor (a noiseless log) runs one whole
//     round of starts_per_round;
// and in any case after max_starts. An explicit N runs exactly N.
#include <ceres/ceres.h>

#include <functional>
#include <memory>
#include <string>
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
  // What went wrong in the first refinement without a usable solution, for
  // the message of a fit none gave one (failed_fit): e.g. "the model's force
  // is not finite at the start". Empty when every refinement gave one.
  std::string failure;
};

// What the search compares a fit against.
struct SearchScale {
  long samples = 0;
  double noise = 0.0;      // noise estimate [N]
  double force_rms = 0.0;  // RMS of the fitted force [N]
};

// The rule that ends a global search, for any fit that refines starts (the
// static fits here, the dynamic fits' joint stage): stop when two starts
// agree. Each refinement's final cost is added as it finishes, in any order
// (one at a time, or a parallel batch's in start order). The search has
// settled when at least two refinements reached the BEST cost so far (two
// agreeing in a basin that a later start beats no longer count once it has)
// and either the best RMSE is consistent with the noise, or at least
// `starts_above_noise` refinements ran (a model that cannot reach the noise
// floor: more starts will not fix that). A fit exact to the noiseless floor
// settles after `starts_exact` refinements: there any two costs agree, while
// which exact point a start reaches (0 or 1e-18 at a bound) decides what is
// reported determined.
class StartAgreement {
 public:
  // tolerance: relative, as FitOptions::agree_tolerance; scale: what RMSE and
  // the noise floor are measured against (costs are Ceres' 0.5 * SSR over
  // scale.samples residuals).
  // starts_exact = 1: a noiseless fit settles as any other at the noise floor.
  StartAgreement(double tolerance, const SearchScale& scale, int starts_above_noise, int starts_exact = 1);

  // A refinement's final cost; a non-finite one (an unusable solution) counts
  // as run but never agrees. True when it is the new best.
  bool add(double cost);

  int runs() const { return static_cast<int>(costs_.size()); }
  double best_cost() const { return best_; }
  // Refinements within same_optimum of the best cost (the best included).
  int at_best() const;
  // The best RMSE is at most kNoiseFactor times the noise estimate (plus the
  // noiseless floor).
  bool noise_floor() const;
  // The best RMSE is within the noiseless floor (kRelativeFloor of the
  // force's RMS).
  bool exact() const;
  // The stopping rule above.
  bool settled() const;

 private:
  double tolerance_;
  SearchScale scale_;
  int starts_exact_, starts_above_noise_;
  double best_rmse() const;
  std::vector<double> costs_;
  double best_ = kInf;
};

// Builds a problem like P over the parameters of a copy of the layout (a
// refinement on a thread of its own solves that one).
using ProblemFactory = std::function<std::unique_ptr<ceres::Problem>(Layout&)>;

// `guess_after`: in automatic mode, how many of the other candidates are
// refined before the data-driven guess (candidates[0]); where the coarse
// search solved the levels (projected_search.hpp) its best points start
// nearer the optimum than the guess, and two of them agreeing ends the search
// without the guess's longer walk. SearchResult::best_index stays the
// candidate's index.
// `make_problem` and `threads` > 1: refinements run `threads` at a time, the
// first on P, the others on problems of their own; their outcomes are taken
// in refinement order and those after the one that settles the search are
// dropped, so the result is the one refinements one at a time give.
SearchResult multistart(ceres::Problem& P, Layout& L, const std::vector<std::vector<double>>& candidates,
                        const FitOptions& o, const ceres::Solver::Options& options, const SearchScale& scale,
                        const Phases& phases, int guess_after = 0, const ProblemFactory& make_problem = nullptr,
                        int threads = 1);

// Whether two costs are the same optimum: relative agree_tolerance, plus the
// share of a noiseless fit (RMSE below kRelativeFloor of the force's RMS).
bool same_optimum(double a, double b, double tolerance, const SearchScale& scale);

}  // namespace stribeck::ident::detail
