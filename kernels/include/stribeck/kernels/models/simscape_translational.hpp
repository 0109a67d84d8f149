#pragma once
// Simscape Foundation Library, Translational Friction block.
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/models/simscape_law.hpp"
#include "stribeck/kernels/sample.hpp"

namespace stribeck {

struct SimscapeTranslational : StaticLaw {
  static constexpr const char* kId = "simscape-translational";
  static constexpr const char* kName = "Simscape Translational Friction";
  static constexpr const char* kEquation =
      "F = sqrt(2e)(F_brk-F_C)*exp(-(v/v_st)^2)*(v/v_st) + F_C*tanh(v/v_coul) + f_v*v, "
      "v_st = sqrt(2)*v_brk, v_coul = v_brk/10";
  static constexpr const char* kOutputUnit = "N";
  enum Param { F_brk, v_brk, F_C, f_v, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("F_brk", "N", 25.0, "breakaway friction force", ParamRole::kBreakaway),
      positive("v_brk", "m/s", 0.1, "breakaway friction velocity", ParamRole::kStribeckVelocity),
      nonnegative("F_C", "N", 20.0, "Coulomb friction force", ParamRole::kCoulomb),
      nonnegative("f_v", "N/(m/s)", 100.0, "viscous friction coefficient", ParamRole::kViscous),
  }};
  static constexpr std::array<ParamRelation, 1> kRelations{{
      {F_brk, F_C, "breakaway friction must not be below Coulomb friction"},
  }};
  static constexpr unsigned kInputs = kChannelVelocity;

  template <class T>
  using Coeffs = SimscapeLawCoeffs<T>;

  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return simscape_law_coeffs(p[F_brk] - p[F_C], p[v_brk], p[F_C], p[f_v]);
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
