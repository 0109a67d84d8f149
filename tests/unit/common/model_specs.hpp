#pragma once
// Test-side description of every static friction model, written independently
// of kernels/: random parameter sets across each parameter's range, the
// velocities where the law changes character (thresholds), random inputs, and
// the golden value of the written equation (issue 2) in long double.
//
// The golden formulas are typed in from the equations in the issue, not derived
// from the model code: they use their own constants (sqrtl(2 e)), their own
// branch structure and long double arithmetic (64-bit mantissa on x86-64, 11
// more bits than double).
//
// Besides the value, each golden returns `scale`: the sum of the magnitudes of
// the terms, each multiplied by its condition number. A double evaluation of
// the same expression cannot be closer than a few ulps of `scale` (Higham's
// forward error bound for sums and products), so tests compare against
// kRel * scale. Where all terms share the sign of v (every law with F_C >= 0
// and no cancelling pressures) `scale` equals |F| up to the conditioning
// factor, i.e. the tolerance is then a plain relative one.
#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

#include "stribeck/kernels/model_list.hpp"

namespace stribeck::test {

using LD = long double;
using Rng = std::mt19937_64;

struct Gold {
  LD f;      // the law's value
  LD scale;  // sum of |term| * condition number (see above)
};

inline const LD kSqrt2L = sqrtl(2.0L);
inline const LD kSqrt2eL = sqrtl(2.0L * expl(1.0L));

// ---------------------------------------------------------------- sampling
inline double uniform(Rng& r, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(r); }
inline double loguniform(Rng& r, double lo, double hi) { return std::exp(uniform(r, std::log(lo), std::log(hi))); }
inline bool chance(Rng& r, double p) { return uniform(r, 0.0, 1.0) < p; }
// A nonnegative parameter: usually log-uniform in [lo, hi], sometimes exactly 0
// (the boundary of its range).
inline double nonneg(Rng& r, double lo, double hi, double p_zero = 0.05) {
  return chance(r, p_zero) ? 0.0 : loguniform(r, lo, hi);
}
// A parameter >= base: sometimes exactly base, else base * (1 + 1e-6..10).
inline double at_or_above(Rng& r, double base, double p_equal = 0.1) {
  return chance(r, p_equal) ? base : base * (1.0 + loguniform(r, 1e-6, 10.0));
}
// Gauge chamber pressures: mostly 0..40 MPa, sometimes slightly below ambient.
inline double pressure(Rng& r) {
  if (chance(r, 0.05)) return 0.0;
  if (chance(r, 0.1)) return -uniform(r, 0.0, 0.9e5);
  return uniform(r, 0.0, 4e7);
}

// Velocities to test a law at: 0 and the smallest magnitudes, every threshold
// exactly and one ulp / 1e-9 relative inside and outside of it, and random
// log-uniform magnitudes from 1e-6 of the smallest to 1e3 of the largest
// threshold, all with both signs.
inline std::vector<double> velocities(Rng& r, const std::vector<double>& thresholds, int n_random) {
  std::vector<double> mags{DBL_TRUE_MIN, 1e-300};
  double lo = DBL_MAX, hi = 0;
  for (double t : thresholds) {
    lo = std::fmin(lo, t);
    hi = std::fmax(hi, t);
    for (double w :
         {t, std::nextafter(t, 0.0), std::nextafter(t, DBL_MAX), t * (1 - 1e-9), t * (1 + 1e-9), 0.5 * t, 2 * t})
      mags.push_back(w);
  }
  for (int i = 0; i < n_random; ++i) mags.push_back(loguniform(r, 1e-6 * lo, 1e3 * hi));
  std::vector<double> v{0.0};
  for (double m : mags) {
    v.push_back(m);
    v.push_back(-m);
  }
  return v;
}

template <class M>
struct Spec;

// ------------------------------------------------------- Simscape law family
// F = sqrt(2e)(F_brk-F_C) exp(-(v/v_st)^2) (v/v_st) + F_C tanh(v/v_coul) + f_v v,
// v_st = sqrt(2) v_brk, v_coul = v_brk/10.
inline Gold simscape_gold(LD f_brk, LD v_brk, LD f_c, LD f_v, LD v) {
  const LD v_st = kSqrt2L * v_brk;
  const LD v_coul = v_brk / 10.0L;
  const LD x = v / v_st;
  const LD stribeck = kSqrt2eL * (f_brk - f_c) * expl(-(x * x)) * x;
  const LD coulomb = f_c * tanhl(v / v_coul);
  const LD viscous = f_v * v;
  // exp(-x^2) amplifies the relative error of x by 2 x^2; tanh's condition
  // number is <= 1.
  return {stribeck + coulomb + viscous, fabsl(stribeck) * (1 + 2 * x * x) + fabsl(coulomb) + fabsl(viscous)};
}

template <>
struct Spec<SimscapeTranslational> {
  using M = SimscapeTranslational;
  static std::vector<double> params(Rng& r) {
    std::vector<double> p(M::kNumParams);
    p[M::F_C] = nonneg(r, 1e-2, 1e4);
    p[M::F_brk] = at_or_above(r, p[M::F_C] > 0 ? p[M::F_C] : loguniform(r, 1e-2, 1e4));
    p[M::v_brk] = loguniform(r, 1e-5, 10.0);
    p[M::f_v] = nonneg(r, 1e-3, 1e5);
    return p;
  }
  static std::vector<double> thresholds(const std::vector<double>& p) {
    const double vb = p[M::v_brk];
    return {vb, vb / 10, std::sqrt(2.0) * vb};
  }
  static Sample<double> inputs(Rng&, double v) { return {v, 0, 0, 0}; }
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    return simscape_gold(p[M::F_brk], p[M::v_brk], p[M::F_C], p[M::f_v], s.v);
  }
};

template <>
struct Spec<SimscapeRotational> {
  using M = SimscapeRotational;
  static std::vector<double> params(Rng& r) {
    std::vector<double> p(M::kNumParams);
    p[M::T_C] = nonneg(r, 1e-3, 1e3);
    p[M::T_brk] = at_or_above(r, p[M::T_C] > 0 ? p[M::T_C] : loguniform(r, 1e-3, 1e3));
    p[M::w_brk] = loguniform(r, 1e-4, 100.0);
    p[M::f_v] = nonneg(r, 1e-4, 1e3);
    return p;
  }
  static std::vector<double> thresholds(const std::vector<double>& p) {
    const double wb = p[M::w_brk];
    return {wb, wb / 10, std::sqrt(2.0) * wb};
  }
  static Sample<double> inputs(Rng&, double w) { return {w, 0, 0, 0}; }
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    return simscape_gold(p[M::T_brk], p[M::w_brk], p[M::T_C], p[M::f_v], s.v);
  }
};

// Pressure-dependent Coulomb force of both cylinder blocks, and a bound on
// its magnitude that also covers cancellation between preload and negative
// gauge pressures.
inline LD cylinder_fc(LD f_pr, LD f_cfr, LD p_a, LD p_b) { return f_pr + f_cfr * (p_a + p_b); }
inline LD cylinder_fc_mag(LD f_pr, LD f_cfr, LD p_a, LD p_b) { return fabsl(f_pr) + f_cfr * (fabsl(p_a) + fabsl(p_b)); }

template <>
struct Spec<SimscapeCylinder> {
  using M = SimscapeCylinder;
  static std::vector<double> params(Rng& r) {
    std::vector<double> p(M::kNumParams);
    p[M::F_pr] = nonneg(r, 1e-1, 1e4);
    p[M::f_cfr] = nonneg(r, 1e-9, 1e-4);
    p[M::K_brk] = at_or_above(r, 1.0);
    p[M::f_vfr] = nonneg(r, 1e-3, 1e5);
    p[M::c_v] = nonneg(r, 1e-2, 1e4);
    p[M::v_th] = loguniform(r, 1e-7, 1e-1);
    return p;
  }
  static std::vector<double> thresholds(const std::vector<double>& p) {
    std::vector<double> t{p[M::v_th]};
    if (p[M::c_v] > 0) t.push_back(1.0 / p[M::c_v]);
    return t;
  }
  static Sample<double> inputs(Rng& r, double v) { return {v, pressure(r), pressure(r), 0}; }
  // |v| > v_th: F = F_C (1 + (K_brk-1) exp(-c_v |v|)) sign(v) + f_vfr v
  // |v| <= v_th: F = K v, K = (F_C (1 + (K_brk-1) exp(-c_v v_th)) + f_vfr v_th) / v_th
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    const LD f_c = cylinder_fc(p[M::F_pr], p[M::f_cfr], s.p_a, s.p_b);
    const LD fc_mag = cylinder_fc_mag(p[M::F_pr], p[M::f_cfr], s.p_a, s.p_b);
    const LD k_brk = p[M::K_brk], c_v = p[M::c_v], f_vfr = p[M::f_vfr], v_th = p[M::v_th];
    const LD v = s.v;
    const LD av = fabsl(v);
    if (av > v_th) {
      const LD sgn = v > 0 ? 1.0L : -1.0L;
      const LD excess = (k_brk - 1) * expl(-c_v * av);
      return {f_c * (1 + excess) * sgn + f_vfr * v, fc_mag * (1 + excess * (1 + c_v * av)) + fabsl(f_vfr * v)};
    }
    const LD excess = (k_brk - 1) * expl(-c_v * v_th);
    const LD k = (f_c * (1 + excess) + f_vfr * v_th) / v_th;
    return {k * v, (fc_mag * (1 + excess * (1 + c_v * v_th)) / v_th + f_vfr) * av};
  }
};

template <>
struct Spec<SimscapeCylinderIL> {
  using M = SimscapeCylinderIL;
  static std::vector<double> params(Rng& r) {
    std::vector<double> p(M::kNumParams);
    p[M::F_pr] = nonneg(r, 1e-1, 1e4);
    p[M::f_cfr] = nonneg(r, 1e-9, 1e-4);
    p[M::R_brk] = at_or_above(r, 1.0);
    p[M::v_brk] = loguniform(r, 1e-6, 1.0);
    p[M::f_v] = nonneg(r, 1e-3, 1e5);
    return p;
  }
  static std::vector<double> thresholds(const std::vector<double>& p) {
    const double vb = p[M::v_brk];
    return {vb, vb / 10, std::sqrt(2.0) * vb};
  }
  static Sample<double> inputs(Rng& r, double v) { return {v, pressure(r), pressure(r), 0}; }
  // F = sqrt(2e)(R_brk-1) F_C (v/v_st) exp(-(v/v_st)^2) + F_C tanh(v/v_coul) + f_v v
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    const LD f_c = cylinder_fc(p[M::F_pr], p[M::f_cfr], s.p_a, s.p_b);
    const LD fc_mag = cylinder_fc_mag(p[M::F_pr], p[M::f_cfr], s.p_a, s.p_b);
    const LD v_st = kSqrt2L * (LD)p[M::v_brk];
    const LD v_coul = (LD)p[M::v_brk] / 10.0L;
    const LD v = s.v;
    const LD x = v / v_st;
    const LD g = kSqrt2eL * ((LD)p[M::R_brk] - 1) * x * expl(-(x * x));
    const LD t = tanhl(v / v_coul);
    const LD viscous = (LD)p[M::f_v] * v;
    return {g * f_c + f_c * t + viscous, fc_mag * (fabsl(g) * (1 + 2 * x * x) + fabsl(t)) + fabsl(viscous)};
  }
};

// ------------------------------------------------------------ 20-sim family
inline double normal_force(Rng& r) { return chance(r, 0.05) ? 0.0 : loguniform(r, 1e-1, 1e5); }

template <>
struct Spec<TwentySimC> {
  using M = TwentySimC;
  static std::vector<double> params(Rng& r) {
    return {nonneg(r, 1e-3, 1.0), loguniform(r, 1.0, 1e6)};  // mu_c, slope
  }
  static std::vector<double> thresholds(const std::vector<double>& p) { return {1.0 / p[M::slope]}; }
  static Sample<double> inputs(Rng& r, double v) { return {v, 0, 0, normal_force(r)}; }
  // F = F_n mu_c tanh(slope v)
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    const LD f = (LD)s.f_n * p[M::mu_c] * tanhl((LD)p[M::slope] * s.v);
    return {f, fabsl(f)};
  }
};

template <>
struct Spec<TwentySimV> {
  using M = TwentySimV;
  static std::vector<double> params(Rng& r) { return {nonneg(r, 1e-4, 10.0)}; }  // mu_v
  static std::vector<double> thresholds(const std::vector<double>&) { return {1e-3, 1.0}; }
  static Sample<double> inputs(Rng& r, double v) { return {v, 0, 0, normal_force(r)}; }
  // F = F_n mu_v v
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    const LD f = (LD)s.f_n * p[M::mu_v] * s.v;
    return {f, fabsl(f)};
  }
};

template <>
struct Spec<TwentySimCV> {
  using M = TwentySimCV;
  static std::vector<double> params(Rng& r) {
    return {nonneg(r, 1e-3, 1.0), nonneg(r, 1e-4, 10.0), loguniform(r, 1.0, 1e6)};  // mu_c, mu_v, slope
  }
  static std::vector<double> thresholds(const std::vector<double>& p) { return {1.0 / p[M::slope]}; }
  static Sample<double> inputs(Rng& r, double v) { return {v, 0, 0, normal_force(r)}; }
  // F = F_n (mu_c tanh(slope v) + mu_v v)
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    const LD c = (LD)p[M::mu_c] * tanhl((LD)p[M::slope] * s.v);
    const LD visc = (LD)p[M::mu_v] * s.v;
    return {(LD)s.f_n * (c + visc), fabsl((LD)s.f_n) * (fabsl(c) + fabsl(visc))};
  }
};

template <>
struct Spec<TwentySimSCVS> {
  using M = TwentySimSCVS;
  static std::vector<double> params(Rng& r) {
    std::vector<double> p(M::kNumParams);
    p[M::mu_c] = nonneg(r, 1e-3, 1.0);
    p[M::mu_s] = at_or_above(r, p[M::mu_c] > 0 ? p[M::mu_c] : loguniform(r, 1e-3, 1.0));
    p[M::mu_v] = nonneg(r, 1e-4, 10.0);
    p[M::slope] = loguniform(r, 1.0, 1e6);
    p[M::v_st] = loguniform(r, 1e-5, 1.0);
    return p;
  }
  static std::vector<double> thresholds(const std::vector<double>& p) { return {1.0 / p[M::slope], p[M::v_st]}; }
  static Sample<double> inputs(Rng& r, double v) { return {v, 0, 0, normal_force(r)}; }
  // F = F_n ((mu_c + (mu_s |tanh(slope v)| - mu_c) exp(-(v/v_st)^2)) sign(v) + mu_v v)
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    const LD mu_s = p[M::mu_s], mu_c = p[M::mu_c], mu_v = p[M::mu_v];
    const LD v = s.v, fn = s.f_n;
    const LD t = fabsl(tanhl((LD)p[M::slope] * v));
    const LD x = v / (LD)p[M::v_st];
    const LD e = expl(-(x * x));
    const LD sgn = v > 0 ? 1.0L : (v < 0 ? -1.0L : 0.0L);
    const LD f = fn * ((mu_c + (mu_s * t - mu_c) * e) * sgn + mu_v * v);
    // mu_c - mu_c e cancels near v = 0: the bound keeps both magnitudes.
    const LD scale = fabsl(fn) * ((mu_c + (mu_s * t + mu_c) * e * (1 + 2 * x * x)) * fabsl(sgn) + fabsl(mu_v * v));
    return {f, scale};
  }
};

// --------------------------------------------------------- Coulomb + viscous
template <>
struct Spec<CoulombViscous> {
  using M = CoulombViscous;
  static std::vector<double> params(Rng& r) {
    // F_C, f_v, v_eps (exact sign, v_eps = 0, in a third of the sets)
    return {nonneg(r, 1e-2, 1e4), nonneg(r, 1e-3, 1e5), nonneg(r, 1e-7, 1e-1, 0.33)};
  }
  static std::vector<double> thresholds(const std::vector<double>& p) { return {p[M::v_eps] > 0 ? p[M::v_eps] : 1e-3}; }
  static Sample<double> inputs(Rng&, double v) { return {v, 0, 0, 0}; }
  // F = F_C sign(v) + f_v v (v_eps = 0); F = F_C tanh(v/v_eps) + f_v v (v_eps > 0)
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    const LD v = s.v;
    LD dir;
    if (p[M::v_eps] > 0) dir = tanhl(v / (LD)p[M::v_eps]);
    else dir = v > 0 ? 1.0L : (v < 0 ? -1.0L : 0.0L);
    const LD f = (LD)p[M::F_C] * dir + (LD)p[M::f_v] * v;
    return {f, fabsl(f)};
  }
};

// ------------------------------------------------- free-exponent Stribeck
// F = (F_C + (F_s-F_C) exp(-(|v|/v_s)^delta)) dir(v) + f_v v, dir = sign or tanh(v/v_eps)
inline LD dir_gold(LD v_eps, LD v) {
  if (v_eps > 0) return tanhl(v / v_eps);
  return v > 0 ? 1.0L : (v < 0 ? -1.0L : 0.0L);
}
inline Gold stribeck_delta_gold(LD f_c, LD f_s, LD v_s, LD delta, LD f_v, LD v_eps, LD v) {
  const LD x = fabsl(v) / v_s;
  const LD e = x == 0 ? 1.0L : expl(-powl(x, delta));
  const LD dir = dir_gold(v_eps, v);
  const LD f = (f_c + (f_s - f_c) * e) * dir + f_v * v;
  // exp(-x^delta) amplifies the relative error of x by delta x^delta (and of
  // delta by x^delta |ln x|).
  const LD xd = x == 0 ? 0.0L : powl(x, delta);
  const LD cond = 1 + xd * (delta + fabsl(logl(x == 0 ? 1.0L : x)) * delta);
  return {f, (f_c + (f_s + f_c) * e * cond) * fabsl(dir) + fabsl(f_v * v)};
}
inline double stribeck_exponent(Rng& r) {
  if (chance(r, 0.2)) return chance(r, 0.5) ? 1.0 : 2.0;
  return loguniform(r, 0.2, 20.0);
}

template <>
struct Spec<StribeckDelta> {
  using M = StribeckDelta;
  static std::vector<double> params(Rng& r) {
    std::vector<double> p(M::kNumParams);
    p[M::F_C] = nonneg(r, 1e-2, 1e4);
    p[M::F_s] = at_or_above(r, p[M::F_C] > 0 ? p[M::F_C] : loguniform(r, 1e-2, 1e4));
    p[M::v_s] = loguniform(r, 1e-6, 1.0);
    p[M::delta] = stribeck_exponent(r);
    p[M::f_v] = nonneg(r, 1e-3, 1e5);
    p[M::v_eps] = nonneg(r, 1e-7, 1e-2, 0.5);
    return p;
  }
  static std::vector<double> thresholds(const std::vector<double>& p) {
    std::vector<double> t{p[M::v_s]};
    if (p[M::v_eps] > 0) t.push_back(p[M::v_eps]);
    return t;
  }
  static Sample<double> inputs(Rng&, double v) { return {v, 0, 0, 0}; }
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    return stribeck_delta_gold(p[M::F_C], p[M::F_s], p[M::v_s], p[M::delta], p[M::f_v], p[M::v_eps], s.v);
  }
};

template <>
struct Spec<StribeckAsymmetric> {
  using M = StribeckAsymmetric;
  static std::vector<double> params(Rng& r) {
    std::vector<double> p(M::kNumParams);
    for (int side : {0, 4}) {  // F_C, F_s, v_s, f_v of each direction
      p[M::F_C_pos + side] = nonneg(r, 1e-2, 1e4);
      p[M::F_s_pos + side] = at_or_above(r, p[M::F_C_pos + side] > 0 ? p[M::F_C_pos + side] : loguniform(r, 1e-2, 1e4));
      p[M::v_s_pos + side] = loguniform(r, 1e-6, 1.0);
      p[M::f_v_pos + side] = nonneg(r, 1e-3, 1e5);
    }
    p[M::delta] = stribeck_exponent(r);
    p[M::v_eps] = nonneg(r, 1e-7, 1e-2, 0.5);
    return p;
  }
  static std::vector<double> thresholds(const std::vector<double>& p) {
    std::vector<double> t{p[M::v_s_pos], p[M::v_s_neg]};
    if (p[M::v_eps] > 0) t.push_back(p[M::v_eps]);
    return t;
  }
  static Sample<double> inputs(Rng&, double v) { return {v, 0, 0, 0}; }
  // v >= 0 takes the _pos set, v < 0 the _neg set.
  static Gold gold(const std::vector<double>& p, const Sample<double>& s) {
    const int side = s.v >= 0 ? 0 : 4;
    return stribeck_delta_gold(p[M::F_C_pos + side], p[M::F_s_pos + side], p[M::v_s_pos + side], p[M::delta],
                               p[M::f_v_pos + side], p[M::v_eps], s.v);
  }
};

}  // namespace stribeck::test
