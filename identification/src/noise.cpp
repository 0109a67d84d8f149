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

// Trimmed mean of the squared second differences over 6 * the trimmed share:
// the noise variance (reorders d2).
double trimmed_variance(std::vector<double>& d2) {
  if (d2.empty()) return 0.0;
  const size_t keep = d2.size() - static_cast<size_t>(kTrim * static_cast<double>(d2.size()));
  std::nth_element(d2.begin(), d2.begin() + (keep - 1), d2.end());
  double sum = 0.0;
  for (size_t i = 0; i < keep; ++i) sum += d2[i];
  return sum / static_cast<double>(keep) / kTrimmedVarianceShare / 6.0;
}

}  // namespace

double noise_estimate(const std::vector<Prepared>& data, const std::vector<int>& experiments) {
  std::vector<double> d2;
  size_t n = 0;
  for (int e : experiments) n += data[e].y.size() > 2 ? data[e].y.size() - 2 : 0;
  d2.reserve(n);  // one allocation, no copies while it grows
  for (int e : experiments) {
    const std::vector<double>& y = data[e].y;
    for (size_t i = 1; i + 1 < y.size(); ++i) {
      const double d = y[i - 1] - 2.0 * y[i] + y[i + 1];
      d2.push_back(d * d);
    }
  }
  return std::sqrt(trimmed_variance(d2));
}

void NoiseAccumulator::add(double y) {
  if (have_ >= 2) {
    const double d = y2_ - 2.0 * y1_ + y;
    d2_.push_back(d * d);
    if (d2_.size() == kNoiseBlock) flush(false);
  }
  y2_ = y1_;
  y1_ = y;
  have_ = std::min(have_ + 1, 2);
}

void NoiseAccumulator::flush(bool last) {
  if (d2_.empty() || (last && d2_.size() < kNoiseMinBlock && !block_var_.empty())) {
    d2_.clear();
    return;
  }
  block_var_.push_back(trimmed_variance(d2_));
  d2_.clear();
}

void NoiseAccumulator::next_experiment() {
  flush(true);
  have_ = 0;
}

double NoiseAccumulator::estimate() {
  flush(true);
  if (block_var_.empty()) return 0.0;
  std::vector<double> v = block_var_;
  const size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + m, v.end());
  double med = v[m];
  if (v.size() % 2 == 0) med = 0.5 * (med + *std::max_element(v.begin(), v.begin() + m));
  return std::sqrt(med);
}

}  // namespace stribeck::ident::detail
