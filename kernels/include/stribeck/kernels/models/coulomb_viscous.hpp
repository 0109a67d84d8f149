#pragma once
// Plain Coulomb + viscous friction, with optional tanh smoothing of the sign.
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

struct CoulombViscous : StaticLaw {
  static constexpr const char* kId = "coulomb-viscous";
  static constexpr const char* kName = "Coulomb + viscous friction";
  static constexpr const char* kEquation =
      "F = F_C*sign(v) + f_v*v (v_eps = 0); F = F_C*tanh(v/v_eps) + f_v*v (v_eps > 0)";
  static constexpr const char* kOutputUnit = "N";
  enum Param { F_C, f_v, v_eps, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("F_C", "N", 20.0, "Coulomb friction force", ParamRole::kCoulomb),
      nonnegative("f_v", "N/(m/s)", 100.0, "viscous friction coefficient", ParamRole::kViscous),
      nonnegative("v_eps", "m/s", 0.0, "tanh smoothing velocity; 0 = exact sign", ParamRole::kSmoothing),
  }};
  static constexpr std::array<ParamRelation, 0> kRelations{};
  static constexpr unsigned kInputs = kChannelVelocity;

  template <class T>
  struct Coeffs {
    T f_c, f_v, v_eps;
  };
  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return Coeffs<T>{p[F_C], p[f_v], p[v_eps]};
  }
  template <class T>
  STRIBECK_HD_INLINE static T force(const Coeffs<T>& c, const Sample<T>& s) {
    // Both candidates are computed and one is selected (tanh(v/0) is discarded):
    // a branch-free body is what lets the CPU sweep vectorise across parameter
    // sets; on the GPU the tanh is paid either way by warps that mix v_eps = 0.
    const T smooth = math::tanh(s.v / c.v_eps);
    const T dir = (c.v_eps > T(0)) ? smooth : math::sign(s.v);
    return c.f_c * dir + c.f_v * s.v;
  }
  // force and its derivatives by the coefficients (none by v_eps at v_eps = 0).
  template <class T>
  STRIBECK_HD_INLINE static T force_grad(const Coeffs<T>& c, const Sample<T>& s, Coeffs<T>& d) {
    const bool smoothed = c.v_eps > T(0);
    const T smooth = math::tanh(s.v / c.v_eps);
    const T dir = smoothed ? smooth : math::sign(s.v);
    d.f_c = dir;
    d.f_v = s.v;
    d.v_eps = smoothed ? c.f_c * ((T(1) - smooth * smooth) * (-(s.v / c.v_eps) / c.v_eps)) : T(0);
    return c.f_c * dir + c.f_v * s.v;
  }
};

}  // namespace stribeck
