#include "fit_helpers.hpp"

#include "covariance.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace stribeck::ident::detail {

void internal_bounds(const FitParam& p, double& lo, double& hi) {
  lo = -kInf;
  hi = kInf;
  switch (p.transform) {
    case Transform::kIdentity:
      lo = p.lo;
      hi = p.hi;
      break;
    case Transform::kLog:
      if (p.lo > 0) lo = std::log(p.lo);
      if (std::isfinite(p.hi)) hi = std::log(p.hi);
      break;
    case Transform::kExcess: lo = 0.0; break;
  }
}

void bound(ceres::Problem& P, FitParam& p) {
  double lo, hi;
  internal_bounds(p, lo, hi);
  if (std::isfinite(lo)) P.SetParameterLowerBound(&p.u, 0, lo);
  if (std::isfinite(hi)) P.SetParameterUpperBound(&p.u, 0, hi);
}

void constrain(ceres::Problem& P, Layout& L) {
  for (auto& p : L.params) {
    if (!P.HasParameterBlock(&p.u)) continue;
    if (p.fixed) P.SetParameterBlockConstant(&p.u);
    else bound(P, p);
  }
}

ParameterEstimate estimate_of(const FitParam& p) {
  ParameterEstimate pe;
  pe.name = p.name;
  pe.unit = p.unit;
  pe.value = p.value;
  pe.fixed = p.fixed;
  return pe;
}

Eigen::MatrixXd external_jacobian(const Layout& L, const std::vector<int>& free) {
  const int k = static_cast<int>(free.size());
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(k, k);
  std::function<void(int, int, double)> add = [&](int row, int g, double w) {
    const FitParam& p = L.params[g];
    if (p.fixed) return;
    const int col = static_cast<int>(std::find(free.begin(), free.end(), g) - free.begin());
    if (col >= k) return;
    G(row, col) += p.transform == Transform::kLog ? w * p.value : w;
    if (p.transform == Transform::kExcess) add(row, p.excess_base, w);
  };
  for (int i = 0; i < k; ++i) add(i, free[i], 1.0);
  return G;
}

bool add_evaluated_jtj(ceres::Problem& P, Layout& L, const std::vector<int>& free, int threads, Eigen::MatrixXd& JtJ) {
  ceres::Problem::EvaluateOptions eo;
  for (int i : free) eo.parameter_blocks.push_back(&L.params[i].u);
  eo.num_threads = threads;
  ceres::CRSMatrix J;
  double cost = 0;
  if (!P.Evaluate(eo, &cost, nullptr, nullptr, &J)) return false;
  for (int r = 0; r < J.num_rows; ++r)
    for (int a = J.rows[r]; a < J.rows[r + 1]; ++a)
      for (int b = J.rows[r]; b < J.rows[r + 1]; ++b) JtJ(J.cols[a], J.cols[b]) += J.values[a] * J.values[b];
  return true;
}

Covariance covariance_from_jtj(const Layout& L, const std::vector<int>& free, const Eigen::MatrixXd& JtJ,
                               double sigma2) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int k = static_cast<int>(free.size());
  Covariance C;
  C.cov_x = Eigen::MatrixXd::Constant(k, k, nan);
  C.var_u.assign(k, nan);
  if (k == 0) return C;
  const Identifiability id = analyse_identifiability(JtJ);
  for (const auto& group : id.flat_groups) {
    std::string names;
    for (int j : group) names += (names.empty() ? "" : ", ") + L.params[free[j]].name;
    C.undetermined.push_back(names);
  }
  C.singular = !id.flat_groups.empty();
  C.determined = id.determined;
  const Eigen::MatrixXd G = external_jacobian(L, free);
  C.cov_x = sigma2 * G * id.inverse * G.transpose();
  for (int i = 0; i < k; ++i) C.var_u[i] = id.determined[i] ? sigma2 * id.inverse(i, i) : nan;
  // An entry through an undetermined parameter (itself, or the base of an
  // excess) is not a variance.
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j)
      for (int c = 0; c < k; ++c)
        if ((G(i, c) != 0 || G(j, c) != 0) && !id.determined[c]) C.cov_x(i, j) = nan;
  return C;
}

}  // namespace stribeck::ident::detail
