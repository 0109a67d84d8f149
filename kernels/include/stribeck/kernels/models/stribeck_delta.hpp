#pragma once
// A Stribeck curve with a free exponent (the generalised exponential law of
// Armstrong-Helouvry 1991 and Bo & Pavelescu 1982):
//
//   F = (F_C + (F_s - F_C) exp(-(|v|/v_s)^delta)) dir(v) + f_v v,
//   dir(v) = sign(v) (v_eps = 0), tanh(v/v_eps) (v_eps > 0)
//
// delta = 1 is the exponential (Tustin) decay, delta = 2 the Gaussian one of
// LuGre and 20-sim; delta -> inf a step at v_s. The law is written once on a
// per-direction coefficient set so that stribeck-asymmetric reuses it.
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

template <class T>
struct StribeckDeltaSide {
  T f_c, ds, inv_v_s, f_v;  // ds = F_s - F_C
};

// The decay exp(-(|v|/v_s)^delta). At v = 0 it is 1, said outright: the
// derivative of pow at 0 is infinite for delta < 1 and ceres::Jet would carry
// it (both branches are computed; the select drops the unused one). Where
// (|v|/v_s)^delta >= kStribeckDecayZero the decay is 0, said outright too:
// exp already rounds to 0 there (in float and double), but once the power
// overflows (v_s far below |v|, or a large delta, as a fit's trial steps
// reach) a Jet's derivative of it is inf x log and exp's is 0 x inf = NaN,
// where the true derivative is 0 to double precision.
constexpr double kStribeckDecayZero = 746.0;  // exp(-746) = 0 in double
template <class T>
STRIBECK_HD_INLINE T stribeck_delta_decay(const T& inv_v_s, const T& delta, const T& v) {
  const T x = math::abs(v) * inv_v_s;
  const T p = math::pow(x, delta);
  const T e = p < T(kStribeckDecayZero) ? math::exp(-p) : T(0);
  return x > T(0) ? e : T(1);
}

// Magnitude part of the law for one direction, times dir, plus the viscous term.
template <class T>
STRIBECK_HD_INLINE T stribeck_delta_side(const StribeckDeltaSide<T>& c, const T& delta, const T& dir, const T& v) {
  return (c.f_c + c.ds * stribeck_delta_decay(c.inv_v_s, delta, v)) * dir + c.f_v * v;
}

// sign(v) (v_eps = 0) or tanh(v/v_eps): both candidates are computed and one
// selected, as in coulomb-viscous (a branch-free body vectorises).
template <class T>
STRIBECK_HD_INLINE T stribeck_delta_dir(const T& v_eps, const T& v) {
  const T smooth = math::tanh(v / v_eps);
  return (v_eps > T(0)) ? smooth : math::sign(v);
}

struct StribeckDelta : StaticLaw {
  static constexpr const char* kId = "stribeck-delta";
  static constexpr const char* kName = "Stribeck curve with a free exponent (delta = 1 Tustin, 2 Gaussian)";
  static constexpr const char* kEquation =
      "F = (F_C + (F_s-F_C)*exp(-(|v|/v_s)^delta))*dir(v) + f_v*v, "
      "dir(v) = sign(v) (v_eps = 0), tanh(v/v_eps) (v_eps > 0)";
  static constexpr const char* kOutputUnit = "N";
  enum Param { F_C, F_s, v_s, delta, f_v, v_eps, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("F_C", "N", 20.0, "Coulomb friction force", ParamRole::kCoulomb),
      nonnegative("F_s", "N", 25.0, "static (breakaway) friction force", ParamRole::kBreakaway),
      positive("v_s", "m/s", 0.01, "Stribeck velocity", ParamRole::kStribeckVelocity),
      positive("delta", "1", 2.0, "Stribeck exponent (1: exponential/Tustin, 2: Gaussian)", ParamRole::kShape),
      nonnegative("f_v", "N/(m/s)", 100.0, "viscous friction coefficient", ParamRole::kViscous),
      nonnegative("v_eps", "m/s", 0.0, "tanh smoothing velocity; 0 = exact sign", ParamRole::kSmoothing),
  }};
  static constexpr std::array<ParamRelation, 1> kRelations{{
      {F_s, F_C, "static friction must not be below Coulomb friction"},
  }};
  static constexpr unsigned kInputs = kChannelVelocity;

  template <class T>
  struct Coeffs {
    StribeckDeltaSide<T> side;
    T delta, v_eps;
  };
  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return Coeffs<T>{{p[F_C], p[F_s] - p[F_C], T(1) / p[v_s], p[f_v]}, p[delta], p[v_eps]};
  }
  template <class T>
  STRIBECK_HD_INLINE static T force(const Coeffs<T>& c, const Sample<T>& s) {
    return stribeck_delta_side(c.side, c.delta, stribeck_delta_dir(c.v_eps, s.v), s.v);
  }
};

}  // namespace stribeck
