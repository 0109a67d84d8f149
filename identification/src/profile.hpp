#pragma once
// Private to identification/: profile-likelihood intervals, for parameters
// whose linearised (Wald) interval cannot be trusted: at or near a bound, or
// where the cost is far from quadratic over the interval.
//
// For free parameter g held at internal value u, the profile is the least
// cost over all other free parameters. With SSR the sum of squares and s^2
// the residual variance at the optimum, the 95 % interval is where
//   SSR_profile(u) - SSR_min <= chi2_1(0.95) s^2 = z(0.975)^2 s^2.
// Each side is found on the signed root r(u) = sqrt((SSR(u)-SSR_min)/s^2),
// which is close to linear in u, by secant steps, then regula falsi once
// bracketed; a side that reaches the parameter's bound first ends there, one
// that never rises enough within a wide span is unbounded (infinite).
#include <ceres/ceres.h>

#include <optional>

#include "problem.hpp"

namespace stribeck::ident::detail {

struct ProfileInterval {
  double lo = -kInf, hi = kInf;  // internal coordinates of parameter g
  int solves = 0;
  // The least SSR any profile point reached: below ssr_min when holding the
  // parameter elsewhere let the others find a better optimum (the solution
  // was not the global one).
  double least_ssr = kInf;
  std::vector<double> least_u;  // internal coordinates of every parameter there
};

// `g`: index into L.params (free, with a parameter block in P). The layout's
// internal coordinates are the optimum on entry and are restored on return.
// `ssr_min` = 2 * optimal cost, `s2` the residual variance, `step` a first
// step in u (the Wald standard error in u, or a guess).
ProfileInterval profile_interval(ceres::Problem& P, Layout& L, int g, double ssr_min, double s2, double step,
                                 const ceres::Solver::Options& options);

// For a noiseless fit with parameter g at a bound: holds g a step into its
// feasible range (a tenth of its size; a factor e^0.1 for log ones) and refits
// the others. Returns the free parameters (Layout indices) that moved to keep
// the fit exact (SSR <= ssr_exact), g first, or nothing when moving g off its
// bound costs fit: g then sits at the bound because the data put it there,
// not on a manifold of exact fits that the bound happens to cut. `vslow` and
// `vfast` are the slowest moving and the fastest |v| of the data. During the
// refit the Stribeck velocities stay at or below vfast (the rates at or above
// its inverse): above, the term is a constant over the data, the same law
// with the levels scaled (c_v = 0), not a direction the data leave open.
// Unless `may_hide` (a log without a slow range), they also stay at or above
// vslow, so that hiding the Stribeck term below every sample does not count
// as a manifold; with `may_hide`, a breakaway level g is also tried with the
// Stribeck velocities three decades below vslow, where the term acts on no
// sample. A parameter moved when it changed by more than 1e-6 of its value
// (or default, for a zero value).
std::vector<int> flat_off_bound(ceres::Problem& P, Layout& L, int g, const std::vector<int>& free, double ssr_exact,
                                double vslow, double vfast, bool may_hide, const ceres::Solver::Options& options);

// A breakaway the log does not see, in its canonical form: no breakaway
// (ratio 1, or level = Coulomb level) and the Stribeck velocity at `hide_at`
// (its rate at the inverse). Holds the free breakaway and Stribeck
// parameters there and refits the others. When that costs at most
// `ssr_allow` (SSR), the layout's internal coordinates stay at the refit and
// the summary is returned; otherwise they are restored and nothing is (also
// when no free parameter has a breakaway role).
std::optional<ceres::Solver::Summary> hide_breakaway(ceres::Problem& P, Layout& L, const std::vector<int>& free,
                                                     double hide_at, double ssr_allow,
                                                     const ceres::Solver::Options& options);

// Whether parameter q is a breakaway level (a ratio over the Coulomb level,
// or a level that exceeds it) that a refit can move, and in `none` the
// internal value of "no breakaway" (ratio 1, level = Coulomb level).
bool breakaway_level(const FitParam& q, double* none);

// SSR of the current internal coordinates (2 * Ceres' cost).
double evaluate_ssr(ceres::Problem& P);

}  // namespace stribeck::ident::detail
