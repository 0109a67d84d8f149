#include "covariance.hpp"

#include <cmath>
#include <limits>

namespace stribeck::ident::detail {

Identifiability analyse_identifiability(const Eigen::MatrixXd& JtJ, double flat_tolerance) {
  const int k = static_cast<int>(JtJ.rows());
  Identifiability out;
  out.determined.assign(k, true);
  out.inverse = Eigen::MatrixXd::Constant(k, k, std::numeric_limits<double>::quiet_NaN());
  if (k == 0) return out;
  // Scale to unit diagonal (a correlation-like matrix) so the flatness test
  // does not depend on the parameters' units.
  Eigen::VectorXd d = Eigen::VectorXd::Zero(k);
  for (int i = 0; i < k; ++i) {
    if (JtJ(i, i) > 0 && std::isfinite(JtJ(i, i))) d(i) = 1.0 / std::sqrt(JtJ(i, i));
    else {
      out.determined[i] = false;
      out.flat_groups.push_back({i});
    }
  }
  const Eigen::MatrixXd A = d.asDiagonal() * JtJ * d.asDiagonal();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(A);
  const Eigen::VectorXd ev = es.eigenvalues();
  const double top = ev(k - 1);
  for (int e = 0; e < k; ++e) {
    if (!(top > 0) || ev(e) > flat_tolerance * top) continue;
    std::vector<int> group;
    for (int j = 0; j < k; ++j)
      if (d(j) > 0 && std::abs(es.eigenvectors()(j, e)) > kFlatComponent) group.push_back(j);
    if (group.empty()) continue;  // the zero columns' own directions, named above
    for (int j : group) out.determined[j] = false;
    out.flat_groups.push_back(group);
  }
  // Conditional covariance of the determined parameters.
  std::vector<int> det;
  for (int i = 0; i < k; ++i)
    if (out.determined[i]) det.push_back(i);
  const int m = static_cast<int>(det.size());
  if (m == 0) return out;
  Eigen::MatrixXd S(m, m);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) S(a, b) = A(det[a], det[b]);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ss(S);
  const Eigen::VectorXd inv = ss.eigenvalues().cwiseInverse();
  const Eigen::MatrixXd Si = ss.eigenvectors() * inv.asDiagonal() * ss.eigenvectors().transpose();
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) out.inverse(det[a], det[b]) = d(det[a]) * Si(a, b) * d(det[b]);
  return out;
}

}  // namespace stribeck::ident::detail
