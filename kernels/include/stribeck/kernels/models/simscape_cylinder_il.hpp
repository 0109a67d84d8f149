#pragma once
// Simscape Fluids (Isothermal Liquid) Cylinder Friction (IL) block: the
// Translational Friction law with a pressure-dependent Coulomb force and the
// breakaway force given as a ratio to it.
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/models/simscape_law.hpp"
#include "stribeck/kernels/sample.hpp"

namespace stribeck {

struct SimscapeCylinderIL : StaticLaw {
  static constexpr const char* kId = "simscape-cylinder-il";
  static constexpr const char* kName = "Simscape Cylinder Friction (IL)";
  static constexpr const char* kEquation =
      "F_C = F_pr + f_cfr*(p_A+p_B); F = sqrt(2e)(R_brk-1)*F_C*(v/v_st)*exp(-(v/v_st)^2) + "
      "F_C*tanh(v/v_coul) + f_v*v, v_st = sqrt(2)*v_brk, v_coul = v_brk/10";
  static constexpr const char* kOutputUnit = "N";
  enum Param { F_pr, f_cfr, R_brk, v_brk, f_v, kNumParams };
  // Defaults match simscape-cylinder's: same preload, pressure coefficient and
  // viscous coefficient, no Stribeck peak (R_brk = 1 as K_brk = 1), and v_brk
  // chosen so the Coulomb threshold v_brk/10 equals the hydraulic v_th.
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("F_pr", "N", 10.0, "preload force (seal squeeze)", ParamRole::kPreload),
      nonnegative("f_cfr", "N/Pa", 1e-6, "Coulomb friction coefficient per chamber pressure",
                  ParamRole::kPressureCoefficient),
      at_least("R_brk", "1", 1.0, 1.0, "breakaway to Coulomb friction force ratio", ParamRole::kBreakawayRatio),
      positive("v_brk", "m/s", 1e-3, "breakaway friction velocity", ParamRole::kStribeckVelocity),
      nonnegative("f_v", "N/(m/s)", 100.0, "viscous friction coefficient", ParamRole::kViscous),
  }};
  static constexpr std::array<ParamRelation, 0> kRelations{};
  static constexpr unsigned kInputs = kChannelVelocity | kChannelPressureA | kChannelPressureB;

  template <class T>
  struct Coeffs {
    T f_pr;
    T f_cfr;
    SimscapeLawCoeffs<T> law;  // per unit Coulomb force: amp = sqrt(2e)(R_brk-1), coulomb = 1
  };

  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return Coeffs<T>{p[F_pr], p[f_cfr], simscape_law_coeffs(p[R_brk] - T(1), p[v_brk], T(1), p[f_v])};
  }
  template <class T>
  STRIBECK_HD_INLINE static T force(const Coeffs<T>& c, const Sample<T>& s) {
    // The Stribeck and Coulomb terms scale with F_C; the viscous term does not.
    SimscapeLawCoeffs<T> law = c.law;
    const T f_c = c.f_pr + c.f_cfr * (s.p_a + s.p_b);
    law.stribeck_amp = law.stribeck_amp * f_c;
    law.coulomb = f_c;
    return simscape_law(law, s.v);
  }
  // force and its derivatives by the coefficients (law.coulomb is not used).
  template <class T>
  STRIBECK_HD_INLINE static T force_grad(const Coeffs<T>& c, const Sample<T>& s, Coeffs<T>& d) {
    SimscapeLawCoeffs<T> law = c.law;
    const T pressure = s.p_a + s.p_b;
    const T f_c = c.f_pr + c.f_cfr * pressure;
    law.stribeck_amp = law.stribeck_amp * f_c;
    law.coulomb = f_c;
    SimscapeLawCoeffs<T> dl;
    const T f = simscape_law_grad(law, s.v, dl);
    const T d_fc = dl.stribeck_amp * c.law.stribeck_amp + dl.coulomb;
    d.f_pr = d_fc;
    d.f_cfr = d_fc * pressure;
    d.law = dl;
    d.law.stribeck_amp = dl.stribeck_amp * f_c;
    d.law.coulomb = T(0);
    return f;
  }
};

}  // namespace stribeck
