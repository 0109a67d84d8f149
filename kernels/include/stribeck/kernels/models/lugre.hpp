#pragma once
// The LuGre model (Canudas de Wit, Olsson, Astrom, Lischinsky, IEEE TAC 40(3),
// 1995), with the paper's example parameters as defaults.
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/models/bristle.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

struct LuGre {
  static constexpr bool kDynamic = true;
  // dz/dt = v - a(v) z with a independent of z: the form ETDRK4 integrates
  // exactly for a frozen a (integrators/etd_rk4.hpp).
  static constexpr bool kLinearRelaxation = true;
  static constexpr const char* kId = "lugre";
  static constexpr const char* kName = "LuGre dynamic friction (Canudas de Wit et al. 1995)";
  static constexpr const char* kEquation =
      "dz/dt = v - sigma0*|v|*z/g(v), g(v) = F_C + (F_s-F_C)*exp(-(v/v_s)^2), "
      "F = sigma0*z + sigma1*dz/dt + sigma2*v";
  static constexpr const char* kOutputUnit = "N";
  static constexpr const char* kStateName = "z";
  static constexpr const char* kStateUnit = "m";
  enum Param { sigma0, sigma1, sigma2, F_C, F_s, v_s, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      positive("sigma0", "N/m", 1e5, "bristle stiffness", ParamRole::kBristleStiffness),
      nonnegative("sigma1", "N/(m/s)", 316.2277660168379, "bristle damping (paper: sqrt(1e5))",
                  ParamRole::kBristleDamping),
      nonnegative("sigma2", "N/(m/s)", 0.4, "viscous friction coefficient", ParamRole::kViscous),
      positive("F_C", "N", 1.0, "Coulomb friction force", ParamRole::kCoulomb),
      positive("F_s", "N", 1.5, "static (stiction) friction force", ParamRole::kBreakaway),
      positive("v_s", "m/s", 0.001, "Stribeck velocity", ParamRole::kStribeckVelocity),
  }};
  static constexpr std::array<ParamRelation, 1> kRelations{{
      {F_s, F_C, "static friction must not be below Coulomb friction"},
  }};
  // Sufficient condition for passivity of the map v -> F (Barabanov & Ortega
  // 2000 sharpened the paper's condition to this form). Breaking it is legal
  // (the paper's own example does) but the model may then create energy.
  static bool passive(const double* p) { return p[sigma2] > p[sigma1] * (p[F_s] - p[F_C]) / p[F_C]; }
  static constexpr std::array<ParamWarning, 1> kWarnings{{
      {&passive,
       "passivity condition sigma2 > sigma1*(F_s-F_C)/F_C fails; the model is not "
       "guaranteed dissipative (it can feed energy into the system)"},
  }};
  static constexpr unsigned kInputs = kChannelVelocity;

  template <class T>
  struct Coeffs {
    T sigma0, sigma1, sigma2, inv_sigma0_fc, inv_sigma0_ds, inv_v_s, v_s;  // v_s: Stribeck velocity (sub-step scale)
  };
  template <class T>
  using State = BristleState<T>;

  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return Coeffs<T>{p[sigma0],     p[sigma1], p[sigma2], p[F_C] / p[sigma0], (p[F_s] - p[F_C]) / p[sigma0],
                     T(1) / p[v_s], p[v_s]};
  }
  // z_ss(v) = g(v)/sigma0: steady-state deflection magnitude.
  template <class T>
  STRIBECK_HD_INLINE static T z_ss(const Coeffs<T>& c, const T& v) {
    return c.inv_sigma0_fc + c.inv_sigma0_ds * math::exp_neg_sq(v, c.inv_v_s);
  }

  // Steady-state force at constant v (z settled at sign(v) z_ss(v)):
  //   F_ss(v) = g(v) sign(v) + sigma2 v,  g(v) = F_C + (F_s - F_C) exp(-(v/v_s)^2).
  // The static part identification fits (identification/src/dynamic_fit.cpp).
  template <class T>
  STRIBECK_HD_INLINE static T steady_force(const Coeffs<T>& c, const T& v) {
    return c.sigma0 * math::sign(v) * z_ss(c, v) + c.sigma2 * v;
  }

  // ODE form (system simulation): dz/dt and the force for given v, z.
  // dz/dt = v - a z with a = relax_rate: written through it so that a
  // driver needing both at one instant (the stability bound) divides once.
  template <class T>
  STRIBECK_HD_INLINE static T dzdt(const Coeffs<T>& c, const Sample<T>& s, const T& z) {
    return s.v - relax_rate(c, s, z) * z;
  }
  template <class T>
  STRIBECK_HD_INLINE static T output(const Coeffs<T>& c, const Sample<T>& s, const T& z, const T& zdot) {
    return c.sigma0 * z + c.sigma1 * zdot + c.sigma2 * s.v;
  }
  // Bounds for the explicit integrators' step: |d(dz/dt)/dz|, force per
  // bristle deflection, and force per velocity.
  template <class T>
  STRIBECK_HD_INLINE static T relax_rate(const Coeffs<T>& c, const Sample<T>& s, const T&) {
    return math::fast_divide(math::abs(s.v), z_ss(c, s.v));
  }
  // The bristle ODE is Lipschitz for every valid parameter set.
  template <class T>
  STRIBECK_HD_INLINE static bool ode_ok(const Coeffs<T>&) {
    return true;
  }
  template <class T>
  STRIBECK_HD_INLINE static T stiffness(const Coeffs<T>& c, const Sample<T>&) {
    return c.sigma0;
  }
  template <class T>
  STRIBECK_HD_INLINE static T damping(const Coeffs<T>& c, const Sample<T>&) {
    return c.sigma1 + c.sigma2;
  }

  // Trace form: advance z from the previous sample to this one over dt (exact
  // for piecewise-constant v, sub-stepped for linear v; see bristle.hpp) and
  // return the force at the end of the step. dt = 0 only reads the force.
  template <class T>
  STRIBECK_HD_INLINE static T step(const Coeffs<T>& c, const Sample<T>& s, State<T>& st, const T& dt) {
    st.z = bristle_advance(st.z, st.v_prev, s.v, dt, c.v_s, [&](const T& v) { return z_ss(c, v); });
    st.v_prev = s.v;
    return output(c, s, st.z, dzdt(c, s, st.z));
  }
};

}  // namespace stribeck
