#pragma once
// The free-exponent Stribeck curve (stribeck_delta.hpp) with its own
// Coulomb, static, Stribeck-velocity and viscous parameters for each
// direction of motion: cylinders whose seals or loads differ between
// extension and retraction. The exponent and the smoothing are shared.
//
//   v >= 0:  F = (F_C_pos + (F_s_pos - F_C_pos) exp(-(v/v_s_pos)^delta)) dir(v) + f_v_pos v
//   v <  0:  F = (F_C_neg + (F_s_neg - F_C_neg) exp(-(|v|/v_s_neg)^delta)) dir(v) + f_v_neg v
//
// With equal sets it is stribeck-delta; it is continuous at v = 0 only with
// v_eps > 0 (F(0) = 0 either way).
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/models/stribeck_delta.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

struct StribeckAsymmetric : StaticLaw {
  static constexpr const char* kId = "stribeck-asymmetric";
  static constexpr const char* kName = "Direction-asymmetric Stribeck curve with a free exponent";
  static constexpr const char* kEquation =
      "F = (F_C_d + (F_s_d-F_C_d)*exp(-(|v|/v_s_d)^delta))*dir(v) + f_v_d*v, d = pos (v >= 0) or neg (v < 0), "
      "dir(v) = sign(v) (v_eps = 0), tanh(v/v_eps) (v_eps > 0)";
  static constexpr const char* kOutputUnit = "N";
  enum Param { F_C_pos, F_s_pos, v_s_pos, f_v_pos, F_C_neg, F_s_neg, v_s_neg, f_v_neg, delta, v_eps, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("F_C_pos", "N", 20.0, "Coulomb friction force, v > 0", ParamRole::kCoulomb),
      nonnegative("F_s_pos", "N", 25.0, "static (breakaway) friction force, v > 0", ParamRole::kBreakaway),
      positive("v_s_pos", "m/s", 0.01, "Stribeck velocity, v > 0", ParamRole::kStribeckVelocity),
      nonnegative("f_v_pos", "N/(m/s)", 100.0, "viscous friction coefficient, v > 0", ParamRole::kViscous),
      nonnegative("F_C_neg", "N", 20.0, "Coulomb friction force, v < 0", ParamRole::kCoulomb),
      nonnegative("F_s_neg", "N", 25.0, "static (breakaway) friction force, v < 0", ParamRole::kBreakaway),
      positive("v_s_neg", "m/s", 0.01, "Stribeck velocity, v < 0", ParamRole::kStribeckVelocity),
      nonnegative("f_v_neg", "N/(m/s)", 100.0, "viscous friction coefficient, v < 0", ParamRole::kViscous),
      positive("delta", "1", 2.0, "Stribeck exponent, both directions (1: Tustin, 2: Gaussian)", ParamRole::kShape),
      nonnegative("v_eps", "m/s", 0.0, "tanh smoothing velocity; 0 = exact sign", ParamRole::kSmoothing),
  }};
  static constexpr std::array<ParamRelation, 2> kRelations{{
      {F_s_pos, F_C_pos, "static friction must not be below Coulomb friction (v > 0)"},
      {F_s_neg, F_C_neg, "static friction must not be below Coulomb friction (v < 0)"},
  }};
  static constexpr unsigned kInputs = kChannelVelocity;

  template <class T>
  struct Coeffs {
    StribeckDeltaSide<T> pos, neg;
    T delta, v_eps;
  };
  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return Coeffs<T>{{p[F_C_pos], p[F_s_pos] - p[F_C_pos], T(1) / p[v_s_pos], p[f_v_pos]},
                     {p[F_C_neg], p[F_s_neg] - p[F_C_neg], T(1) / p[v_s_neg], p[f_v_neg]},
                     p[delta],
                     p[v_eps]};
  }
  template <class T>
  STRIBECK_HD_INLINE static T force(const Coeffs<T>& c, const Sample<T>& s) {
    // Both sides are evaluated and one selected (branch-free, see stribeck-delta).
    const T dir = stribeck_delta_dir(c.v_eps, s.v);
    const T fp = stribeck_delta_side(c.pos, c.delta, dir, s.v);
    const T fn = stribeck_delta_side(c.neg, c.delta, dir, s.v);
    return s.v >= T(0) ? fp : fn;
  }
};

}  // namespace stribeck
