#include "covariance.hpp"

#include <algorithm>
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
  // The Moore-Penrose inverse over the directions the data determine. A
  // determined parameter is (to kFlatComponent) orthogonal to every flat
  // direction, so its variance from this inverse is its marginal variance,
  // whatever the undetermined ones do. The inverse over the determined
  // parameters alone would be their variance *given* the undetermined ones,
  // which is too small when a flat direction spans more parameters than it
  // removes ranks (one flat direction through F_pr, f_cfr, R_brk and v_brk
  // would hold all four, and a viscous slope correlated with F_pr would be
  // reported 50 times too tight).
  Eigen::MatrixXd Ai = Eigen::MatrixXd::Zero(k, k);
  for (int e = 0; e < k; ++e)
    if (top > 0 && ev(e) > flat_tolerance * top)
      Ai += es.eigenvectors().col(e) * (1.0 / ev(e)) * es.eigenvectors().col(e).transpose();
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) out.inverse(a, b) = d(a) * Ai(a, b) * d(b);
  return out;
}

void interval_in_range(ParameterEstimate& pe, const FitParam& p, const Layout& L) {
  if (pe.interval == "profile" || !std::isfinite(pe.std_error)) return;
  const double lo = p.transform == Transform::kExcess ? L.params[p.excess_base].value : p.lo;
  const double hi = p.hi;
  const double tol = 1e-9 * std::max(1.0, std::abs(pe.value));
  if (std::isfinite(lo) && pe.value - lo <= tol) {
    pe.ci95_lo = lo;
    pe.ci95_hi = std::min(hi, lo + kZ95 * pe.std_error);
  } else if (std::isfinite(hi) && hi - pe.value <= tol) {
    pe.ci95_lo = std::max(lo, hi - kZ95 * pe.std_error);
    pe.ci95_hi = hi;
  } else if (pe.ci95_lo < lo || pe.ci95_hi > hi) {
    pe.ci95_lo = std::max(pe.ci95_lo, lo);
    pe.ci95_hi = std::min(pe.ci95_hi, hi);
  } else {
    return;
  }
  pe.interval = "one-sided";
}

}  // namespace stribeck::ident::detail
