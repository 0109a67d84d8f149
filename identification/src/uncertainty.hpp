#pragma once
// Private to identification/: the estimates phases of a static fit, after
// the search: quality (the caller's), covariance (J^T J of the free
// parameters' internal coordinates at the solution), intervals (Wald, or
// profile likelihood where Wald's cannot be trusted), the restarts from a
// lower cost a profile finds, and the law without a breakaway where the data
// leave the breakaway open.
#include <ceres/ceres.h>

#include <Eigen/Dense>
#include <functional>
#include <vector>

#include "covariance.hpp"
#include "fit_data.hpp"
#include "multistart.hpp"
#include "phases.hpp"
#include "problem.hpp"

namespace stribeck::ident::detail {

// A parameter has no effect when changing it by its own size moves the force
// by less than this share of the force's RMS.
constexpr double kNegligibleEffect = 1e-9;

// Phase "covariance": J^T J of the free parameters' internal coordinates at
// the solution (P x P; ceres::Covariance would factorise the whole N x P
// Jacobian), what it determines, and the covariance of the external values.
struct Uncertainty {
  Identifiability id;
  double s2 = kNaN;       // residual variance SSR / (n - k)
  Eigen::MatrixXd cov_x;  // external values, NaN for the undetermined
};

// The SSR a noiseless fit may reach and still count as exact: the fit's own
// (times 100), or rounding (an effect of 1e-9 of the force's RMS).
double exact_ssr(double ssr_min, const FitData& D);

// Whether the residuals are above the floor of a noiseless fit: intervals and
// profiles are for noisy data; a noiseless fit's are exact enough as Wald's.
bool is_noisy(const Uncertainty& U, const FitData& D);

// What the quality phase computes: the fit-quality fields of the summary and
// the per-experiment signals; returns the SSR over the training samples.
using QualityPhase = std::function<double()>;

// The estimates phases (estimates_with_restarts), and once more from the
// law without a breakaway where a flat direction runs through breakaway or
// Stribeck parameters and others (R_brk and v_brk with F_pr and f_cfr where
// every sample is faster than the breakaway): that law fits within the noise
// and determines those terms (docs/identification.md, "A breakaway no sample
// sees").
Uncertainty estimates(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D,
                      const ceres::Solver::Options& so, SearchResult& R, Phases& phases, const FitOptions& o,
                      const QualityPhase& quality);

}  // namespace stribeck::ident::detail
