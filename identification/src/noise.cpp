#include "noise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stribeck::ident::detail {

namespace {
// Var(d) / Var(y) for third differences of white noise: 1 + 9 + 9 + 1.
constexpr double kGain = 20.0;
// The clip in units of the current scale, and m(kClip) = E[x^2 | |x| <= kClip]
// for a standard normal x (noise.hpp).
constexpr double kClip = 2.0;
constexpr double kClippedShare = 0.7737413035499232;
// median |x| = Phi^-1(3/4) sigma for x ~ N(0, sigma^2).
constexpr double kMedianAbs = 0.6744897501960817;
// The clipped moment moves monotonically to its fixed point, one kept set
// after another (up to 30 steps on the noisy generated logs, 70 on noiseless
// ones, whose estimate is rounding); a tie at the clip within rounding could
// cycle, which this bounds.
constexpr int kMaxSteps = 100;
// The quantisation rule (noise.hpp): the force spans at least kMinLevels
// steps of the lattice, at least 1 / kReturnsPerChange of its changes return,
// and a nonzero |d| within kOnLattice * q of a multiple of q lies on it.
constexpr double kMinLevels = 64;
constexpr long kReturnsPerChange = 10;
constexpr double kOnLattice = 1e-3;

// Within the rounding of a sum of terms of magnitude `size`: lattice values
// that should cancel do so (q * k is not exact).
bool rounding(double x, double size) { return std::abs(x) <= 16 * std::numeric_limits<double>::epsilon() * size; }

double third_difference(double y0, double y1, double y2, double y3) {
  const double d = y3 - 3.0 * y2 + 3.0 * y1 - y0;
  return rounding(d, std::abs(y3) + 3.0 * std::abs(y2) + 3.0 * std::abs(y1) + std::abs(y0)) ? 0.0 : std::abs(d);
}

// The step q of the lattice the force lies on (quantisation rule), else 0.
double lattice_step(const std::vector<double>& a, const LevelChanges& s) {
  double q = std::numeric_limits<double>::infinity();
  for (double x : a)
    if (x > 0) q = std::min(q, x);
  if (!std::isfinite(q) || s.hi - s.lo < kMinLevels * q || s.returns * kReturnsPerChange < s.changes) return 0.0;
  for (double x : a)
    if (std::abs(x / q - std::round(x / q)) > kOnLattice) return 0.0;
  return q;
}

// The noise variance from the |d| of a stretch of the log (reorders a).
double robust_variance(std::vector<double>& a, const LevelChanges& s) {
  if (a.empty()) return 0.0;
  const double q = lattice_step(a, s);
  const size_t mid = a.size() / 2;
  std::nth_element(a.begin(), a.begin() + mid, a.end());
  double scale = a[mid] / kMedianAbs;
  for (int step = 0; step < kMaxSteps; ++step) {
    const double clip = kClip * scale;
    double sum = 0.0;
    size_t kept = 0;  // at least the half of a at or below the median
    for (double x : a)
      if (x <= clip) sum += x * x, ++kept;
    const double next = std::sqrt(sum / static_cast<double>(kept) / kClippedShare);
    if (next == scale) break;
    scale = next;
  }
  return std::max(scale * scale / kGain, q * q / 12.0);
}

}  // namespace

void LevelChanges::add(double y) {
  lo = std::min(lo, y);
  hi = std::max(hi, y);
}

void LevelChanges::add(double from, double y) {
  add(y);
  if (rounding(y - from, std::abs(y) + std::abs(from))) return;
  const int sign = y > from ? 1 : -1;
  ++changes;
  returns += last == -sign;
  last = sign;
}

double noise_estimate(const std::vector<Prepared>& data, const std::vector<int>& experiments) {
  std::vector<double> a;
  LevelChanges levels;
  size_t n = 0;
  for (int e : experiments) n += data[e].y.size() > 3 ? data[e].y.size() - 3 : 0;
  a.reserve(n);  // one allocation, no copies while it grows
  for (int e : experiments) {
    const std::vector<double>& y = data[e].y;
    if (y.size() < 4) continue;
    levels.last = 0;
    levels.add(y[0]);
    for (size_t i = 1; i < y.size(); ++i) levels.add(y[i - 1], y[i]);
    for (size_t i = 3; i < y.size(); ++i) a.push_back(third_difference(y[i - 3], y[i - 2], y[i - 1], y[i]));
  }
  return std::sqrt(robust_variance(a, levels));
}

void NoiseAccumulator::start_block() {
  d_.clear();
  const int last = levels_.last;
  levels_ = LevelChanges{};
  levels_.last = last;
  for (int k = 3 - have_; k < 3; ++k) levels_.add(y_[k]);
}

void NoiseAccumulator::add(double y) {
  if (have_ == 0) levels_.add(y);
  else levels_.add(y_[2], y);
  if (have_ == 3) d_.push_back(third_difference(y_[0], y_[1], y_[2], y));
  y_[0] = y_[1];
  y_[1] = y_[2];
  y_[2] = y;
  have_ = std::min(have_ + 1, 3);
  if (d_.size() == kNoiseBlock) flush(false);
}

void NoiseAccumulator::flush(bool last) {
  if (!d_.empty() && !(last && d_.size() < kNoiseMinBlock && !block_var_.empty()))
    block_var_.push_back(robust_variance(d_, levels_));
  start_block();
}

void NoiseAccumulator::next_experiment() {
  flush(true);
  have_ = 0;
  levels_ = LevelChanges{};
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
