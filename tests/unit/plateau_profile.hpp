#pragma once
// The velocity profile the dynamic-model identification tests generate their
// logs along (docs/identification.md, "Dynamic models": what such logs need).
#include <algorithm>
#include <cmath>
#include <vector>

namespace stribeck::test {

// Velocity profile: plateaus at +-{0.2 .. 50} mm/s held 0.4 s (and at least
// 0.3 mm of travel, 20 bristle deflections, so slow ones settle), joined by
// 0.1 s cosine ramps, then 1 s of 5 Hz oscillation with 5 um displacement
// amplitude (below z_ss = F_C/sigma0 = 10 um: presliding only).
struct PlateauProfile {
  static constexpr double kPi = 3.14159265358979323846;
  std::vector<double> level;
  double hold = 0.4, ramp = 0.1, pre_amp = 5e-6, pre_freq = 5.0, pre_time = 1.0;
  PlateauProfile() {
    for (double s : {0.2e-3, 0.5e-3, 1e-3, 2e-3, 5e-3, 10e-3, 50e-3}) {
      level.push_back(s);
      level.push_back(-s);
    }
  }
  double seg(size_t i) const { return std::max(hold, 3e-4 / std::abs(level[i])) + ramp; }
  double plateaus() const {
    double t = 0;
    for (size_t i = 0; i < level.size(); ++i) t += seg(i);
    return t;
  }
  double duration() const { return plateaus() + pre_time; }
  double v(double t) const {
    const int n = static_cast<int>(level.size());
    int i = 0;
    double start = 0;
    while (i < n && t >= start + seg(i)) start += seg(i++);
    if (i >= n) return pre_amp * 2 * kPi * pre_freq * std::sin(2 * kPi * pre_freq * (t - start));
    const double tau = t - start, from = i ? level[i - 1] : 0.0;
    if (tau >= ramp) return level[i];
    return from + (level[i] - from) * 0.5 * (1 - std::cos(kPi * tau / ramp));
  }
};

}  // namespace stribeck::test
