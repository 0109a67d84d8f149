#include "noise.hpp"

#include <algorithm>
#include <cmath>

namespace stribeck::ident::detail {

namespace {
// Share of d^2 dropped, and E[x^2; |x| < c] / P(|x| < c) for a standard
// normal x with P(|x| >= c) = kTrim (c = 2.3263): the trimmed mean of the
// remaining squares is that factor times the variance.
constexpr double kTrim = 0.02;
constexpr double kTrimmedVarianceShare = 0.8733;
}  // namespace

double noise_estimate(const std::vector<Prepared>& data, const std::vector<int>& experiments) {
  std::vector<double> d2;
  for (int e : experiments) {
    const std::vector<double>& y = data[e].y;
    for (size_t i = 1; i + 1 < y.size(); ++i) {
      const double d = y[i - 1] - 2.0 * y[i] + y[i + 1];
      d2.push_back(d * d);
    }
  }
  if (d2.empty()) return 0.0;
  const size_t keep = d2.size() - static_cast<size_t>(kTrim * static_cast<double>(d2.size()));
  std::nth_element(d2.begin(), d2.begin() + (keep - 1), d2.end());
  double sum = 0.0;
  for (size_t i = 0; i < keep; ++i) sum += d2[i];
  return std::sqrt(sum / static_cast<double>(keep) / kTrimmedVarianceShare / 6.0);
}

}  // namespace stribeck::ident::detail
