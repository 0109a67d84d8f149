#pragma once
// Private to identification/: small pieces every solver of a Layout needs
// (the static fit in fit.cpp and the dynamic joint stage in joint_fit.cpp):
// internal bounds of a parameter, the transforms' Jacobian, and the
// covariance of the free parameters from J^T J.
#include <ceres/ceres.h>

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "problem.hpp"

namespace stribeck::ident::detail {

// Bounds of p's internal coordinate u (what Ceres bounds) from its external
// range: identity: [lo, hi]; log: [ln lo, ln hi]; excess: [0, inf).
void internal_bounds(const FitParam& p, double& lo, double& hi);

// Bounds p's block in P by internal_bounds (the sides that are finite).
void bound(ceres::Problem& P, FitParam& p);

// Holds the layout's fixed parameters constant in P and bounds the free ones
// (internal_bounds), for every parameter block P has.
void constrain(ceres::Problem& P, Layout& L);

// The reported estimate of a parameter before uncertainty: name, unit,
// value, fixed (standard error and interval NaN, interval "none").
ParameterEstimate estimate_of(const FitParam& p);

// d(external value)/d(internal coordinate) over the free parameters `free`
// (Layout indices), through each transform (excess adds its base's row).
Eigen::MatrixXd external_jacobian(const Layout& L, const std::vector<int>& free);

// Covariance of the free parameters `free` (Layout indices) of a least-squares
// fit from J^T J of their internal coordinates and the residual variance
// sigma2 = SSR / (N - k). The rank is judged by analyse_identifiability
// (covariance.hpp); `undetermined` names the parameters of each flat
// direction, comma-separated, and `determined` is false for each of them.
// cov_x: the covariance of the external values (through the transforms'
// Jacobian), and var_u, the variance of each internal coordinate (for the
// positive intervals of log parameters); NaN in the entries that involve an
// undetermined parameter (a singular problem still has determined ones).
struct Covariance {
  bool singular = false;
  std::vector<std::string> undetermined;
  std::vector<bool> determined;  // per free parameter
  Eigen::MatrixXd cov_x;         // k x k
  std::vector<double> var_u;     // per free parameter
};
Covariance covariance_from_jtj(const Layout& L, const std::vector<int>& free, const Eigen::MatrixXd& JtJ,
                               double sigma2);

// Adds J^T J of the free parameters' internal coordinates, from one Jacobian
// evaluation of P at the layout's point, to JtJ (k x k, k = free.size()),
// row by row. False when P cannot be evaluated there (JtJ unchanged).
bool add_evaluated_jtj(ceres::Problem& P, Layout& L, const std::vector<int>& free, int threads, Eigen::MatrixXd& JtJ);

}  // namespace stribeck::ident::detail
