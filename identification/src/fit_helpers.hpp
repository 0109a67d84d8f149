#pragma once
// Private to identification/: small pieces every solver of a Layout needs
// (the static fit in fit.cpp and the dynamic joint stage in joint_fit.cpp):
// internal bounds of a parameter, low-discrepancy start points, and the
// covariance of the free parameters from J^T J.
#include <Eigen/Dense>
#include <string>
#include <vector>

#include "problem.hpp"

namespace stribeck::ident::detail {

// Bounds of p's internal coordinate u (what Ceres bounds) from its external
// range: identity: [lo, hi]; log: [ln lo, ln hi]; excess: [0, inf).
void internal_bounds(const FitParam& p, double& lo, double& hi);

// Point i of a Halton sequence in [0,1)^dim, shifted by `shift` (mod 1):
// a randomly shifted low-discrepancy design (dim <= 32).
std::vector<double> shifted_halton(long i, const std::vector<double>& shift);

// Covariance of the free parameters `free` (Layout indices) of a least-squares
// fit from J^T J of their internal coordinates and the residual variance
// sigma2 = SSR / (N - k). The rank is judged on the column-scaled J^T J
// (eigenvalue ratio < 1e-10, or a zero column: singular; `undetermined` then
// names the parameters of each null direction, comma-separated). For a regular
// problem: cov_x, the covariance of the external values (through the
// transforms' Jacobian), and var_u, the variance of each internal coordinate
// (for the positive intervals of log parameters); NaN otherwise.
struct Covariance {
  bool singular = false;
  std::vector<std::string> undetermined;
  Eigen::MatrixXd cov_x;      // k x k
  std::vector<double> var_u;  // per free parameter
};
Covariance covariance_from_jtj(const Layout& L, const std::vector<int>& free, const Eigen::MatrixXd& JtJ,
                               double sigma2);

}  // namespace stribeck::ident::detail
