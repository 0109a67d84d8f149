#pragma once
// LuGre with a normal-force input, parameterised the 20-sim way: every force is
// the normal force F_n times a coefficient, so the bristle deflection z does
// not depend on F_n (it cancels in z_ss = g/sigma0) and a changing clamp or
// pressure load scales the friction without disturbing the bristle state.
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/models/bristle.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/models/twentysim.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

struct TwentySimLuGre {
  static constexpr bool kDynamic = true;
  static constexpr bool kLinearRelaxation = true;  // LuGre's bristle rate (lugre.hpp)
  static constexpr const char* kId = "20sim-lugre";
  static constexpr const char* kName = "20-sim LuGre friction (normal force times coefficients)";
  static constexpr const char* kEquation =
      "dz/dt = v - sigma0*|v|*z/mu(v), mu(v) = mu_c + (mu_s-mu_c)*exp(-(v/v_st)^2), "
      "F = F_n*(sigma0*z + sigma1*dz/dt + mu_v*v)";
  static constexpr const char* kOutputUnit = "N";
  static constexpr const char* kStateName = "z";
  static constexpr const char* kStateUnit = "m";
  enum Param { mu_c, mu_s, mu_v, v_st, sigma0, sigma1, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      positive("mu_c", "1", twentysim_defaults::kMuC, "Coulomb friction coefficient", ParamRole::kCoulomb),
      positive("mu_s", "1", twentysim_defaults::kMuS, "static friction coefficient", ParamRole::kBreakaway),
      nonnegative("mu_v", "s/m", twentysim_defaults::kMuV, "viscous friction coefficient", ParamRole::kViscous),
      positive("v_st", "m/s", twentysim_defaults::kVSt, "Stribeck velocity", ParamRole::kStribeckVelocity),
      positive("sigma0", "1/m", 1e4, "bristle stiffness per newton of normal force", ParamRole::kBristleStiffness),
      nonnegative("sigma1", "s/m", 0.01, "bristle damping per newton of normal force", ParamRole::kBristleDamping),
  }};
  static constexpr std::array<ParamRelation, 1> kRelations{{
      {mu_s, mu_c, "static friction coefficient must not be below Coulomb friction coefficient"},
  }};
  static bool passive(const double* p) { return p[mu_v] > p[sigma1] * (p[mu_s] - p[mu_c]) / p[mu_c]; }
  static constexpr std::array<ParamWarning, 1> kWarnings{{
      {&passive,
       "passivity condition mu_v > sigma1*(mu_s-mu_c)/mu_c fails; the model is not "
       "guaranteed dissipative (it can feed energy into the system)"},
  }};
  static constexpr unsigned kInputs = kChannelVelocity | kChannelNormalForce;

  // The bristle law is LuGre's (lugre.hpp) per newton of normal force: the
  // coefficients are LuGre's with F_C = mu_c, F_s = mu_s, sigma2 = mu_v,
  // v_s = v_st, and every force is multiplied by F_n.
  template <class T>
  using Coeffs = LuGre::Coeffs<T>;
  template <class T>
  using State = BristleState<T>;

  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    T q[LuGre::kNumParams];
    q[LuGre::sigma0] = p[sigma0];
    q[LuGre::sigma1] = p[sigma1];
    q[LuGre::sigma2] = p[mu_v];
    q[LuGre::F_C] = p[mu_c];
    q[LuGre::F_s] = p[mu_s];
    q[LuGre::v_s] = p[v_st];
    return LuGre::prepare(q);
  }
  template <class T>
  STRIBECK_HD_INLINE static T z_ss(const Coeffs<T>& c, const T& v) {
    return LuGre::z_ss(c, v);
  }
  // Steady-state force at constant v: F_n (mu(v) sign(v) + mu_v v), LuGre's
  // per newton (the static part identification fits,
  // identification/src/dynamic_fit.cpp).
  template <class T>
  STRIBECK_HD_INLINE static T steady_force(const Coeffs<T>& c, const Sample<T>& s) {
    return s.f_n * LuGre::steady_force(c, s.v);
  }
  template <class T>
  STRIBECK_HD_INLINE static T dzdt(const Coeffs<T>& c, const Sample<T>& s, const T& z) {
    return LuGre::dzdt(c, s, z);
  }
  template <class T>
  STRIBECK_HD_INLINE static T output(const Coeffs<T>& c, const Sample<T>& s, const T& z, const T& zdot) {
    return s.f_n * LuGre::output(c, s, z, zdot);
  }
  template <class T>
  STRIBECK_HD_INLINE static T relax_rate(const Coeffs<T>& c, const Sample<T>& s, const T& z) {
    return LuGre::relax_rate(c, s, z);
  }
  template <class T>
  STRIBECK_HD_INLINE static bool ode_ok(const Coeffs<T>& c) {
    return LuGre::ode_ok(c);
  }
  template <class T>
  STRIBECK_HD_INLINE static T stiffness(const Coeffs<T>& c, const Sample<T>& s) {
    return math::abs(s.f_n) * LuGre::stiffness(c, s);
  }
  template <class T>
  STRIBECK_HD_INLINE static T damping(const Coeffs<T>& c, const Sample<T>& s) {
    return math::abs(s.f_n) * LuGre::damping(c, s);
  }
  template <class T>
  STRIBECK_HD_INLINE static T step(const Coeffs<T>& c, const Sample<T>& s, State<T>& st, const T& dt) {
    return s.f_n * LuGre::step(c, s, st, dt);
  }
};

}  // namespace stribeck
