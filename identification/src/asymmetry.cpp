// The likelihood-ratio test of an asymmetric fit (asymmetry.hpp).
#include "asymmetry.hpp"

#include <algorithm>
#include <cmath>

namespace stribeck::ident::detail {

double chi2_sf(double x, int k) {
  if (x <= 0) return 1.0;
  const double h = 0.5 * x;
  double sum = 0.0;
  if (k % 2 == 0) {
    double term = 1.0;
    for (int i = 0; i < k / 2; ++i) {
      sum += term;
      term *= h / (i + 1);
    }
    return std::exp(-h) * sum;
  }
  for (int i = 1; i <= (k - 1) / 2; ++i) sum += std::exp((i - 0.5) * std::log(h) - h - std::lgamma(i + 0.5));
  return std::erfc(std::sqrt(h)) + sum;
}

FitOptions symmetric_options(const FitOptions& o) {
  FitOptions sym = o;
  sym.asymmetric = false;
  sym.keep_signals = false;
  return sym;
}

void asymmetry_test(FitSummary& S, const FitSummary& s) {
  AsymmetryTest& t = S.asymmetry;
  S.has_asymmetry_test = true;
  t.rmse_symmetric = s.rmse;
  t.dof = S.free_parameters - s.free_parameters;
  t.statistic = std::max(0.0, S.samples * std::log((s.rmse * s.rmse) / (S.rmse * S.rmse)));
  t.p_value = t.dof > 0 ? chi2_sf(t.statistic, t.dof) : 1.0;
  t.significant = t.p_value < 0.05;
}

}  // namespace stribeck::ident::detail
