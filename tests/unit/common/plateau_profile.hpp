#pragma once
// The velocity profile the dynamic-model identification tests generate their
// logs along (docs/identification.md, "Dynamic models": what such logs need),
// and the generator of those logs.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "stribeck/data/experiment.hpp"
#include "stribeck/kernels/sample.hpp"

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

// A log of dynamic model M (parameters p) along the profile at `rate`
// samples/s: the kernels' M::step in long double at 8 sub-steps per sample
// from rest, plus seeded Gaussian noise of std `noise` on the force. With
// `normal_force`, that channel is logged and fed to the model.
template <class M>
data::Experiment plateau_log(const std::vector<double>& p, unsigned seed, double noise, double rate,
                             const std::string& name, double (*normal_force)(double) = nullptr) {
  const PlateauProfile prof;
  std::vector<long double> q(p.begin(), p.end());
  const auto c = M::prepare(q.data());
  typename M::template State<long double> st{0.0L, 0.0L};
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> N(0, noise);
  data::Experiment e;
  e.name = name;
  e.source = "test";
  const int n = static_cast<int>(prof.duration() * rate);
  constexpr int kSub = 8;
  for (int k = 0; k < n; ++k) {
    const double t = k / rate;
    long double f = 0;  // at rest: no force
    for (int s = 1; k > 0 && s <= kSub; ++s) {
      const double ts = (k - 1 + static_cast<double>(s) / kSub) / rate;
      const double fn = normal_force ? normal_force(ts) : 0.0;
      f = M::step(c, Sample<long double>{prof.v(ts), 0, 0, fn}, st, 1.0L / (rate * kSub));
    }
    e.channels["time"].push_back(t);
    e.channels["velocity"].push_back(prof.v(t));
    if (normal_force) e.channels["normal_force"].push_back(normal_force(t));
    e.channels["force"].push_back(static_cast<double>(f) + N(rng));
  }
  return e;
}

}  // namespace stribeck::test
