#pragma once
// Simscape Foundation Library, Rotational Friction block: the translational law
// in torque and angular velocity (the `velocity` channel holds rad/s).
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/models/simscape_law.hpp"
#include "stribeck/kernels/sample.hpp"

namespace stribeck {

struct SimscapeRotational : StaticLaw {
  static constexpr const char* kId = "simscape-rotational";
  static constexpr const char* kName = "Simscape Rotational Friction";
  static constexpr const char* kEquation =
      "T = sqrt(2e)(T_brk-T_C)*exp(-(w/w_st)^2)*(w/w_st) + T_C*tanh(w/w_coul) + f_v*w, "
      "w_st = sqrt(2)*w_brk, w_coul = w_brk/10";
  static constexpr const char* kOutputUnit = "N*m";
  enum Param { T_brk, w_brk, T_C, f_v, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("T_brk", "N*m", 25.0, "breakaway friction torque", ParamRole::kBreakaway),
      positive("w_brk", "rad/s", 0.1, "breakaway friction velocity", ParamRole::kStribeckVelocity),
      nonnegative("T_C", "N*m", 20.0, "Coulomb friction torque", ParamRole::kCoulomb),
      nonnegative("f_v", "N*m/(rad/s)", 100.0, "viscous friction coefficient", ParamRole::kViscous),
  }};
  static constexpr std::array<ParamRelation, 1> kRelations{{
      {T_brk, T_C, "breakaway friction torque must not be below Coulomb friction torque"},
  }};
  static constexpr unsigned kInputs = kChannelVelocity;

  template <class T>
  using Coeffs = SimscapeLawCoeffs<T>;

  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return simscape_law_coeffs(p[T_brk] - p[T_C], p[w_brk], p[T_C], p[f_v]);
  }
  template <class T>
  STRIBECK_HD_INLINE static T force(const Coeffs<T>& c, const Sample<T>& s) {
    return simscape_law(c, s.v);
  }
  // force and its derivatives by the coefficients (simscape_law_grad).
  template <class T>
  STRIBECK_HD_INLINE static T force_grad(const Coeffs<T>& c, const Sample<T>& s, Coeffs<T>& d) {
    return simscape_law_grad(c, s.v, d);
  }
};

}  // namespace stribeck
