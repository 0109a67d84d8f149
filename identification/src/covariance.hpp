#pragma once
// Private to identification/: what the data determine, from J^T J of the
// free parameters' internal coordinates at the solution.
//
// A parameter is not determined when its Jacobian column is zero (it has no
// effect at the solution, e.g. c_v when K_brk = 1) or when it takes part in a
// flat direction of the cost (an eigenvalue of the correlation-scaled J^T J
// below `flat_tolerance` times the largest). The covariance is the
// pseudo-inverse over the directions the data determine: for a determined
// parameter, its marginal variance; the undetermined get no finite, tight
// interval (their entries are not a variance, and callers mask them).
#include <Eigen/Dense>
#include <vector>

#include "problem.hpp"

namespace stribeck::ident::detail {

struct Identifiability {
  std::vector<bool> determined;               // per free parameter
  std::vector<std::vector<int>> flat_groups;  // parameters (free indices) that move together without changing the fit
  // (J^T J)^+ over the determined directions (every entry finite; zero in
  // the rows and columns of parameters without effect); internal
  // coordinates, to be scaled by the residual variance.
  Eigen::MatrixXd inverse;
};

// Relative eigenvalue below which a direction of the scaled J^T J is flat.
constexpr double kFlatTolerance = 1e-10;
// An eigenvector component above this names a parameter of a flat direction.
constexpr double kFlatComponent = 0.2;

Identifiability analyse_identifiability(const Eigen::MatrixXd& JtJ, double flat_tolerance = kFlatTolerance);

// One-sided 95 % quantile of the standard normal: at a bound the likelihood
// ratio is an equal mixture of chi^2_0 and chi^2_1 (Self & Liang 1987), so
// the 95 % interval reaches 1.645 standard errors into the range.
constexpr double kZ95 = 1.6448536269514722;

// Keeps the Wald interval of estimate `pe` of layout parameter `p` inside
// its range (an excess's lower bound is its base's value): at a bound it is
// one-sided, [bound, bound +/- kZ95 std_error]; near one, the end that
// would cross the bound is the bound. Either way `interval` becomes
// "one-sided". A profile interval (within the bounds) and an estimate
// without a standard error are left as they are.
void interval_in_range(ParameterEstimate& pe, const FitParam& p, const Layout& L);

}  // namespace stribeck::ident::detail
