// Axis ticks and their labels, shared by both renderers (the HTML page's
// script carries the same rules in JavaScript, html.cpp): nice values
// (steps of 1, 2 or 5 x 10^k; decades on a logarithmic axis) labelled with
// the digits their spacing needs, so 1e-7...1e-5 reads 2e-6, 4e-6, ... and
// never "0" for a nonzero value (printf's %.3f of 2e-6 is "0.000").
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "stribeck/report/figure.hpp"

namespace stribeck::report {
namespace {

int decade(double x) { return static_cast<int>(std::floor(std::log10(x) + 1e-9)); }

// One notation per axis: plain decimals while every tick is within
// 1e-3...1e6, scientific otherwise (no "0.0000001" beside "100").
bool scientific(double smallest, double largest) {
  const int hi = decade(largest), lo = decade(smallest);
  return hi > 5 || hi < -3 || lo < -3;
}

// Linear ticks of step 1, 2 or 5 x 10^k, about `target` of them in [lo, hi].
Ticks linear_ticks(double lo, double hi, int target) {
  Ticks t;
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
  const double k0 = std::ceil(lo / step - 1e-9), k1 = std::floor(hi / step + 1e-9);
  double smallest = std::max(std::abs(lo), std::abs(hi)), largest = 0;
  for (double k = k0; k <= k1; ++k) {
    const double v = k == 0 ? 0.0 : k * step;  // k * step, not a running sum: no drift
    t.values.push_back(v);
    if (v != 0) smallest = std::min(smallest, std::abs(v)), largest = std::max(largest, std::abs(v));
  }
  const bool sci = scientific(smallest, std::max(largest, smallest));
  for (double v : t.values) t.labels.push_back(tick_label(v, step, sci));
  return t;
}

}  // namespace

std::string tick_label(double value, double step, bool sci) {
  if (!std::isfinite(value)) return std::isnan(value) ? "n/a" : (value > 0 ? "inf" : "-inf");
  step = std::abs(step);
  if (value == 0 || !(step > 0) || std::abs(value) < step * 1e-6) {
    if (value == 0 || step > 0) return "0";
    step = std::abs(value);
  }
  const int es = decade(step);
  const int em = decade(std::max(std::abs(value), step));
  char b[64];
  // Digits down to the step's decade, trailing zeros dropped (ticks are
  // multiples of the step, so they stay apart): 0.25, 60; 2e-6, 1.5e12.
  auto trim = [](std::string m) {
    if (m.find('.') == std::string::npos) return m;
    while (m.back() == '0') m.pop_back();
    if (m.back() == '.') m.pop_back();
    return m;
  };
  if (!sci) {
    std::snprintf(b, sizeof b, "%.*f", std::max(0, -es), value);
    return trim(b);
  }
  // Scientific: the exponent without "+" or leading zeros.
  std::snprintf(b, sizeof b, "%.*e", std::max(0, em - es), value);
  const std::string s = b;
  const std::size_t e = s.find('e');
  return trim(s.substr(0, e)) + "e" + std::to_string(std::atoi(s.c_str() + e + 1));
}

Ticks axis_ticks(double lo, double hi, bool log, int target) {
  if (lo > hi) std::swap(lo, hi);
  Ticks t;
  if (!std::isfinite(lo) || !std::isfinite(hi)) return t;
  // One value, or a span below what doubles resolve there: one tick.
  if (!(hi - lo > 1e-12 * std::max(std::abs(lo), std::abs(hi)))) {
    const double a = std::abs(lo);
    t.values.push_back(lo);
    t.labels.push_back(tick_label(lo, lo == 0 ? 1 : a * 1e-6, lo != 0 && scientific(a, a)));
    return t;
  }
  if (log && lo > 0) {
    const int d0 = static_cast<int>(std::ceil(std::log10(lo) - 1e-9)), d1 = decade(hi);
    const int decades = d1 - d0 + 1;
    const bool sci = scientific(lo, hi);
    if (decades >= 2) {
      // Every decade, or every k-th when there are many.
      const int k = std::max(1, (decades + target - 1) / std::max(1, target));
      for (int d = d0; d <= d1; ++d) {
        if ((d - d0) % k) continue;
        const double v = std::pow(10.0, d);
        t.values.push_back(v);
        t.labels.push_back(tick_label(v, v, sci));
      }
      return t;
    }
    // Less than two decades: 1, 2 and 5 times each decade.
    for (int d = decade(lo); d <= d1; ++d)
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, d);
        if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9)) continue;
        t.values.push_back(v);
        t.labels.push_back(tick_label(v, std::pow(10.0, d), sci));
      }
    if (t.values.size() >= 2) return t;
    t = Ticks{};
  }
  return linear_ticks(lo, hi, target);
}

}  // namespace stribeck::report
