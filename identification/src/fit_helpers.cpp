#include "fit_helpers.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace stribeck::ident::detail {

void internal_bounds(const FitParam& p, double& lo, double& hi) {
  lo = -kInf;
  hi = kInf;
  switch (p.transform) {
    case Transform::kIdentity: lo = p.lo; hi = p.hi; break;
    case Transform::kLog:
      if (p.lo > 0) lo = std::log(p.lo);
      if (std::isfinite(p.hi)) hi = std::log(p.hi);
      break;
    case Transform::kExcess: lo = 0.0; break;
  }
}

std::vector<double> shifted_halton(long i, const std::vector<double>& shift) {
  static const int primes[] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53,
                               59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131};
  std::vector<double> x(shift.size());
  for (size_t d = 0; d < shift.size(); ++d) {
    const int b = primes[d % 32];
    double f = 1.0, r = 0.0;
    for (long n = i + 1; n > 0; n /= b) {
      f /= b;
      r += f * static_cast<double>(n % b);
    }
    x[d] = std::fmod(r + shift[d], 1.0);
  }
  return x;
}

Covariance covariance_from_jtj(const Layout& L, const std::vector<int>& free, const Eigen::MatrixXd& JtJ,
                               double sigma2) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int k = static_cast<int>(free.size());
  Covariance C;
  C.cov_x = Eigen::MatrixXd::Constant(k, k, nan);
  C.var_u.assign(k, nan);
  if (k == 0) return C;
  Eigen::VectorXd d(k);
  for (int i = 0; i < k; ++i) {
    d(i) = JtJ(i, i) > 0 ? 1.0 / std::sqrt(JtJ(i, i)) : 0.0;
    if (!(JtJ(i, i) > 0)) {
      C.singular = true;
      C.undetermined.push_back(L.params[free[i]].name);
    }
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(d.asDiagonal() * JtJ * d.asDiagonal());
  const Eigen::VectorXd ev = es.eigenvalues();
  for (int i = 0; i < k; ++i) {
    if (ev(i) > 1e-10 * ev(k - 1) || d.isZero()) continue;
    C.singular = true;
    std::string names;
    for (int j = 0; j < k; ++j)
      if (std::abs(es.eigenvectors()(j, i)) > 0.2 && d(j) > 0)
        names += (names.empty() ? "" : ", ") + L.params[free[j]].name;
    if (!names.empty()) C.undetermined.push_back(names);
  }
  if (C.singular) return C;
  const Eigen::VectorXd inv = ev.cwiseInverse();
  const Eigen::MatrixXd cov_u =
      d.asDiagonal() * es.eigenvectors() * inv.asDiagonal() * es.eigenvectors().transpose() * d.asDiagonal();
  // G = d(external)/d(internal) over the free parameters.
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
  C.cov_x = sigma2 * G * cov_u * G.transpose();
  for (int i = 0; i < k; ++i) C.var_u[i] = sigma2 * cov_u(i, i);
  return C;
}

}  // namespace stribeck::ident::detail
