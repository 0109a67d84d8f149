#pragma once
// The Dahl model (Dahl 1968/1976): friction as a function of displacement
// only, dF/dx = sigma0 * sign(u) |u|^alpha, u = 1 - F sign(v)/F_C. The state
// is the friction force itself.
//
// Being rate independent, it integrates exactly over any displacement with a
// fixed direction: |u| obeys d|u|/d|x| = -(sigma0/F_C) |u|^alpha, so
//   alpha = 1:  |u| = |u0| exp(-sigma0 |dx| / F_C)
//   otherwise:  |u|^(1-alpha) = |u0|^(1-alpha) + (alpha-1) sigma0 |dx| / F_C
// (clamped at u = 0, which alpha < 1 reaches after finite travel). Along a
// sampled trace the velocity is linear between samples, so the step splits at
// a velocity zero crossing and is exact.
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

struct Dahl {
  static constexpr bool kDynamic = true;
  static constexpr const char* kId = "dahl";
  static constexpr const char* kName = "Dahl friction";
  static constexpr const char* kEquation = "dF/dt = sigma0*v*sign(u)*|u|^alpha, u = 1 - F*sign(v)/F_C";
  static constexpr const char* kOutputUnit = "N";
  static constexpr const char* kStateName = "F";
  static constexpr const char* kStateUnit = "N";
  enum Param { sigma0, F_C, alpha, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      positive("sigma0", "N/m", 1e5, "rest stiffness (slope of F over x at F = 0)", ParamRole::kBristleStiffness),
      positive("F_C", "N", 1.0, "Coulomb friction force", ParamRole::kCoulomb),
      positive("alpha", "1", 1.0, "shape exponent (1: exponential approach to F_C)", ParamRole::kShape),
  }};
  static constexpr std::array<ParamRelation, 0> kRelations{};
  static constexpr unsigned kInputs = kChannelVelocity;

  template <class T>
  struct Coeffs {
    T sigma0, f_c, alpha, k;  // k = sigma0 / F_C
  };
  template <class T>
  using State = BristleState<T>;

  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return Coeffs<T>{p[sigma0], p[F_C], p[alpha], p[sigma0] / p[F_C]};
  }

  // Steady state, reached after enough travel in one direction: F_C sign(v)
  // whatever the speed (the static part identification fits,
  // identification/src/dynamic_fit.cpp).
  template <class T>
  STRIBECK_HD_INLINE static T steady_force(const Coeffs<T>& c, const T& v) {
    return c.f_c * math::sign(v);
  }

  // Exact F after a displacement dx of one direction.
  template <class T>
  STRIBECK_HD_INLINE static T travel(const Coeffs<T>& c, const T& f, const T& dx) {
    const T s = math::sign(dx);
    if (s == T(0)) return f;
    const T u0 = T(1) - f * s / c.f_c;
    const T a0 = math::abs(u0);
    // Saturated (F = F_C sign(dx)) it stays there; said outright, since the
    // power law's derivative is infinite at u = 0 (ceres::Jet would carry NaN).
    if (a0 == T(0)) return f;
    T a;
    if (c.alpha == T(1)) {
      a = a0 * math::exp(-c.k * math::abs(dx));
    } else {
      const T one_m = T(1) - c.alpha;
      const T w = math::pow(a0, one_m) - one_m * c.k * math::abs(dx);
      a = (w > T(0)) ? math::pow(w, T(1) / one_m) : T(0);
    }
    return s * c.f_c * (T(1) - math::sign(u0) * a);
  }

  template <class T>
  STRIBECK_HD_INLINE static T dzdt(const Coeffs<T>& c, const Sample<T>& s, const T& z) {
    const T u = T(1) - z * math::sign(s.v) / c.f_c;
    return c.sigma0 * s.v * math::sign(u) * math::pow(math::abs(u), c.alpha);
  }
  template <class T>
  STRIBECK_HD_INLINE static T output(const Coeffs<T>&, const Sample<T>&, const T& z, const T&) {
    return z;
  }
  // |d(dF/dt)/dF| = alpha k |v| |u|^(alpha-1): bounded (|u| <= 2) for
  // alpha >= 1 only. For alpha < 1 the ODE is not Lipschitz where the force
  // saturates (u -> 0), which an explicit integrator cannot resolve; system
  // simulation then refuses the parameter set (ode_ok), while the trace form
  // above is exact for every alpha.
  template <class T>
  STRIBECK_HD_INLINE static T relax_rate(const Coeffs<T>& c, const Sample<T>& s, const T& z) {
    const T u = math::abs(T(1) - z * math::sign(s.v) / c.f_c);
    return c.alpha * c.k * math::abs(s.v) * (c.alpha == T(1) ? T(1) : math::pow(u, c.alpha - T(1)));
  }
  template <class T>
  STRIBECK_HD_INLINE static bool ode_ok(const Coeffs<T>& c) {
    return c.alpha >= T(1);
  }
  template <class T>
  STRIBECK_HD_INLINE static T stiffness(const Coeffs<T>& c, const Sample<T>&) {
    return c.sigma0;
  }
  template <class T>
  STRIBECK_HD_INLINE static T damping(const Coeffs<T>&, const Sample<T>&) {
    return T(0);
  }

  template <class T>
  STRIBECK_HD_INLINE static T step(const Coeffs<T>& c, const Sample<T>& s, State<T>& st, const T& dt) {
    const T v0 = st.v_prev, v1 = s.v;
    if (v0 * v1 < T(0)) {  // direction reverses inside the interval: split there
      const T theta = v0 / (v0 - v1);
      st.z = travel(c, st.z, T(0.5) * v0 * theta * dt);
      st.z = travel(c, st.z, T(0.5) * v1 * (T(1) - theta) * dt);
    } else {
      st.z = travel(c, st.z, T(0.5) * (v0 + v1) * dt);
    }
    st.v_prev = v1;
    return st.z;
  }
};

}  // namespace stribeck
