#pragma once
// Private to identification/: which force-balance term the user left out
// (docs/identification.md, "Missing terms"). When a fit is poor (R^2 below
// 0.9) or its residual is structured (lag-1 autocorrelation above 0.5 well
// above the noise), each term the fit did not include (offset, inertia, the
// chamber pressures' force, a Coulomb level following the normal force) is
// scored by the share of the residual's sum of squares a least-squares
// regression on its columns explains (a term the law can absorb is
// orthogonal to the residual and scores 0). Terms are taken best first while
// each explains more than half of what is left, and named with the value the
// regression gives them.
//
// The regression needs only the Gram matrix of the candidate columns and the
// residual, summed sample by sample: in-memory, dynamic and streamed fits
// feed the same accumulator and get the same advice.
#include <Eigen/Dense>
#include <vector>

#include "problem.hpp"
#include "stribeck/identification/fit.hpp"

namespace stribeck::ident::detail {

class MissingTermGram {
 public:
  // Columns: F_n sgn(v), sgn(v), 1, a, p_a, -p_b; the residual after them.
  static constexpr int kColumns = 6;
  MissingTermGram();
  // One fitted sample and its residual (measured - fitted); `acc` NaN where
  // the acceleration is unknown (then no inertia term is offered).
  void add(double v, double fn, double pa, double pb, double acc, double r);
  // The samples of one experiment: `acc` empty when it has none.
  void add(const Prepared& d, const std::vector<double>& acc, const std::vector<double>& r);
  // Appends the advice (at most one warning per term) to S.warnings when S
  // is poor or structured: `reads_fn`, the law reads the normal force;
  // `force_rms` and `noise` of the fitted force (what counts as exact, and
  // as structured beyond the noise).
  void advise(FitSummary& S, const FitOptions& o, bool reads_fn, double force_rms, double noise) const;
  // Whether advise would look at the terms at all (a streamed fit reads its
  // log once more only then).
  static bool wanted(const FitSummary& S, double force_rms, double noise);

 private:
  Eigen::Matrix<double, kColumns + 1, kColumns + 1> G_;
  double lo_[3], hi_[3];  // F_n, p_a, p_b
  bool acc_ = true;
  long n_ = 0;
};

// The acceleration of one experiment for the inertia term: the log's, or
// derived from its velocity and time as the fit derives kinematics; empty
// when it has neither.
std::vector<double> acceleration_of(const Prepared& d, const FitOptions& o);

}  // namespace stribeck::ident::detail
