#pragma once
// Simscape Fluids (Hydraulics, Isothermal) Cylinder Friction block: pressure-
// dependent Coulomb force, exponential Stribeck transition, and a linear zone
// |v| <= v_th around zero velocity.
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

struct SimscapeCylinder : StaticLaw {
  static constexpr const char* kId = "simscape-cylinder";
  static constexpr const char* kName = "Simscape Cylinder Friction (hydraulic)";
  static constexpr const char* kEquation =
      "F_C = F_pr + f_cfr*(p_A+p_B); |v| > v_th: F = F_C*(1+(K_brk-1)*exp(-c_v*|v|))*sign(v) + "
      "f_vfr*v; |v| <= v_th: F = K*v, K = (F_C*(1+(K_brk-1)*exp(-c_v*v_th)) + f_vfr*v_th)/v_th";
  static constexpr const char* kOutputUnit = "N";
  enum Param { F_pr, f_cfr, K_brk, f_vfr, c_v, v_th, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("F_pr", "N", 10.0, "preload force (seal squeeze)", ParamRole::kPreload),
      nonnegative("f_cfr", "N/Pa", 1e-6, "Coulomb friction coefficient per chamber pressure",
                  ParamRole::kPressureCoefficient),
      at_least("K_brk", "1", 1.0, 1.0, "breakaway friction force increase coefficient", ParamRole::kBreakawayRatio),
      nonnegative("f_vfr", "N/(m/s)", 100.0, "viscous friction coefficient", ParamRole::kViscous),
      nonnegative("c_v", "s/m", 10.0, "transition coefficient", ParamRole::kStribeckRate),
      positive("v_th", "m/s", 1e-4, "half-width of the linear zone around zero velocity", ParamRole::kSmoothing),
  }};
  static constexpr std::array<ParamRelation, 0> kRelations{};
  static constexpr unsigned kInputs = kChannelVelocity | kChannelPressureA | kChannelPressureB;

  template <class T>
  struct Coeffs {
    T f_pr;
    T f_cfr;
    T k_brk_minus_1;
    T c_v;
    T f_vfr;
    T v_th;
    T linear_slope;  // (1 + (K_brk-1) exp(-c_v v_th)) / v_th: K = F_C * linear_slope + f_vfr
  };

  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    const T kb1 = p[K_brk] - T(1);
    return Coeffs<T>{
        p[F_pr], p[f_cfr], kb1, p[c_v], p[f_vfr], p[v_th], (T(1) + kb1 * math::exp(-p[c_v] * p[v_th])) / p[v_th]};
  }
  template <class T>
  STRIBECK_HD_INLINE static T force(const Coeffs<T>& c, const Sample<T>& s) {
    const T f_c = c.f_pr + c.f_cfr * (s.p_a + s.p_b);
    const T av = math::abs(s.v);
    // exp is evaluated for every sample, inside the linear zone too, and the
    // zone selected afterwards: a branch-free body lets the CPU sweep vectorise
    // across parameter sets (the vector exp has no masked form), and costs the
    // GPU nothing outside the zone, where nearly all samples of a trace lie.
    const T decay = math::exp_neg_mul(c.c_v, av);
    // Outside the zone v != 0, so sign(v) * m = copysign(m, v) for the
    // magnitude m >= 1: one bit operation instead of two compares.
    const T coulomb_part = (av > c.v_th) ? math::copysign(T(1) + c.k_brk_minus_1 * decay, s.v) : c.linear_slope * s.v;
    return f_c * coulomb_part + c.f_vfr * s.v;
  }
  // force and its derivatives by the coefficients (v_th only selects the zone:
  // no derivative, as for Jets).
  template <class T>
  STRIBECK_HD_INLINE static T force_grad(const Coeffs<T>& c, const Sample<T>& s, Coeffs<T>& d) {
    const T pressure = s.p_a + s.p_b;
    const T f_c = c.f_pr + c.f_cfr * pressure;
    const T av = math::abs(s.v);
    const T decay = math::exp_neg_mul(c.c_v, av);
    const bool outside = av > c.v_th;
    const T sv = math::copysign(T(1), s.v);
    const T coulomb_part = outside ? math::copysign(T(1) + c.k_brk_minus_1 * decay, s.v) : c.linear_slope * s.v;
    d.f_pr = coulomb_part;
    d.f_cfr = coulomb_part * pressure;
    d.k_brk_minus_1 = outside ? f_c * (sv * decay) : T(0);
    d.c_v = outside ? f_c * (sv * (c.k_brk_minus_1 * (decay * -av))) : T(0);
    d.f_vfr = s.v;
    d.v_th = T(0);
    d.linear_slope = outside ? T(0) : f_c * s.v;
    return f_c * coulomb_part + c.f_vfr * s.v;
  }
};

}  // namespace stribeck
