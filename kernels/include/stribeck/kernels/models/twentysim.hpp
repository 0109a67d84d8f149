#pragma once
// The 20-sim friction family (library Mechanical/Translation/Friction): every
// force is the normal force F_n times a friction coefficient law in v.
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

namespace twentysim_defaults {
constexpr double kMuC = 0.1;    // Coulomb friction coefficient [-]
constexpr double kMuS = 0.15;   // static friction coefficient [-]
constexpr double kMuV = 0.01;   // viscous friction coefficient [s/m]
constexpr double kSlope = 1e3;  // tanh steepness [s/m]: 99.5 % of mu_c at 3 mm/s
constexpr double kVSt = 0.01;   // Stribeck velocity [m/s]
}  // namespace twentysim_defaults

struct TwentySimC : StaticLaw {
  static constexpr const char* kId = "20sim-c";
  static constexpr const char* kName = "20-sim Coulomb friction";
  static constexpr const char* kEquation = "F = F_n*mu_c*tanh(slope*v)";
  static constexpr const char* kOutputUnit = "N";
  enum Param { mu_c, slope, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("mu_c", "1", twentysim_defaults::kMuC, "Coulomb friction coefficient", ParamRole::kCoulomb),
      positive("slope", "s/m", twentysim_defaults::kSlope, "tanh steepness at zero velocity", ParamRole::kSmoothing),
  }};
  static constexpr std::array<ParamRelation, 0> kRelations{};
  static constexpr unsigned kInputs = kChannelVelocity | kChannelNormalForce;

  template <class T>
  struct Coeffs {
    T mu_c, slope;
  };
  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return Coeffs<T>{p[mu_c], p[slope]};
  }
  template <class T>
  STRIBECK_HD_INLINE static T force(const Coeffs<T>& c, const Sample<T>& s) {
    return s.f_n * c.mu_c * math::tanh(c.slope * s.v);
  }
  // force and its derivatives by the coefficients.
  template <class T>
  STRIBECK_HD_INLINE static T force_grad(const Coeffs<T>& c, const Sample<T>& s, Coeffs<T>& d) {
    const T th = math::tanh(c.slope * s.v);
    d.mu_c = s.f_n * th;
    d.slope = s.f_n * c.mu_c * (T(1) - th * th) * s.v;
    return s.f_n * c.mu_c * th;
  }
};

struct TwentySimV : StaticLaw {
  static constexpr const char* kId = "20sim-v";
  static constexpr const char* kName = "20-sim viscous friction";
  static constexpr const char* kEquation = "F = F_n*mu_v*v";
  static constexpr const char* kOutputUnit = "N";
  enum Param { mu_v, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("mu_v", "s/m", twentysim_defaults::kMuV, "viscous friction coefficient", ParamRole::kViscous),
  }};
  static constexpr std::array<ParamRelation, 0> kRelations{};
  static constexpr unsigned kInputs = kChannelVelocity | kChannelNormalForce;

  template <class T>
  struct Coeffs {
    T mu_v;
  };
  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return Coeffs<T>{p[mu_v]};
  }
  template <class T>
  STRIBECK_HD_INLINE static T force(const Coeffs<T>& c, const Sample<T>& s) {
    return s.f_n * c.mu_v * s.v;
  }
  // force and its derivative by the coefficient.
  template <class T>
  STRIBECK_HD_INLINE static T force_grad(const Coeffs<T>& c, const Sample<T>& s, Coeffs<T>& d) {
    d.mu_v = s.f_n * s.v;
    return s.f_n * c.mu_v * s.v;
  }
};

struct TwentySimCV : StaticLaw {
  static constexpr const char* kId = "20sim-cv";
  static constexpr const char* kName = "20-sim Coulomb + viscous friction";
  static constexpr const char* kEquation = "F = F_n*(mu_c*tanh(slope*v) + mu_v*v)";
  static constexpr const char* kOutputUnit = "N";
  enum Param { mu_c, mu_v, slope, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("mu_c", "1", twentysim_defaults::kMuC, "Coulomb friction coefficient", ParamRole::kCoulomb),
      nonnegative("mu_v", "s/m", twentysim_defaults::kMuV, "viscous friction coefficient", ParamRole::kViscous),
      positive("slope", "s/m", twentysim_defaults::kSlope, "tanh steepness at zero velocity", ParamRole::kSmoothing),
  }};
  static constexpr std::array<ParamRelation, 0> kRelations{};
  static constexpr unsigned kInputs = kChannelVelocity | kChannelNormalForce;

  template <class T>
  struct Coeffs {
    T mu_c, mu_v, slope;
  };
  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return Coeffs<T>{p[mu_c], p[mu_v], p[slope]};
  }
  template <class T>
  STRIBECK_HD_INLINE static T force(const Coeffs<T>& c, const Sample<T>& s) {
    return s.f_n * (c.mu_c * math::tanh(c.slope * s.v) + c.mu_v * s.v);
  }
  // force and its derivatives by the coefficients.
  template <class T>
  STRIBECK_HD_INLINE static T force_grad(const Coeffs<T>& c, const Sample<T>& s, Coeffs<T>& d) {
    const T th = math::tanh(c.slope * s.v);
    d.mu_c = s.f_n * th;
    d.mu_v = s.f_n * s.v;
    d.slope = s.f_n * (c.mu_c * (T(1) - th * th) * s.v);
    return s.f_n * (c.mu_c * th + c.mu_v * s.v);
  }
};

struct TwentySimSCVS : StaticLaw {
  static constexpr const char* kId = "20sim-scvs";
  static constexpr const char* kName = "20-sim static + Coulomb + viscous + Stribeck friction";
  static constexpr const char* kEquation =
      "F = F_n*((mu_c + (mu_s*|tanh(slope*v)| - mu_c)*exp(-(v/v_st)^2))*sign(v) + mu_v*v)";
  static constexpr const char* kOutputUnit = "N";
  enum Param { mu_s, mu_c, mu_v, slope, v_st, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      nonnegative("mu_s", "1", twentysim_defaults::kMuS, "static friction coefficient", ParamRole::kBreakaway),
      nonnegative("mu_c", "1", twentysim_defaults::kMuC, "Coulomb friction coefficient", ParamRole::kCoulomb),
      nonnegative("mu_v", "s/m", twentysim_defaults::kMuV, "viscous friction coefficient", ParamRole::kViscous),
      positive("slope", "s/m", twentysim_defaults::kSlope, "tanh steepness at zero velocity", ParamRole::kSmoothing),
      positive("v_st", "m/s", twentysim_defaults::kVSt, "Stribeck velocity", ParamRole::kStribeckVelocity),
  }};
  static constexpr std::array<ParamRelation, 1> kRelations{{
      {mu_s, mu_c, "static friction coefficient must not be below Coulomb friction coefficient"},
  }};
  static constexpr unsigned kInputs = kChannelVelocity | kChannelNormalForce;

  template <class T>
  struct Coeffs {
    T mu_s, mu_c, mu_v, slope, inv_v_st;
  };
  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    return Coeffs<T>{p[mu_s], p[mu_c], p[mu_v], p[slope], T(1) / p[v_st]};
  }
  template <class T>
  STRIBECK_HD_INLINE static T force(const Coeffs<T>& c, const Sample<T>& s) {
    const T x = s.v * c.inv_v_st;
    const T mu = c.mu_c + (c.mu_s * math::abs(math::tanh(c.slope * s.v)) - c.mu_c) * math::exp(-(x * x));
    return s.f_n * (mu * math::sign(s.v) + c.mu_v * s.v);
  }
  // force and its derivatives by the coefficients (d|tanh|/dtanh = sign of
  // tanh, +1 at 0, as for Jets).
  template <class T>
  STRIBECK_HD_INLINE static T force_grad(const Coeffs<T>& c, const Sample<T>& s, Coeffs<T>& d) {
    const T x = s.v * c.inv_v_st;
    const T th = math::tanh(c.slope * s.v);
    const T a = math::abs(th);
    const T e = math::exp(-(x * x));
    const T sg = math::sign(s.v);
    const T mu = c.mu_c + (c.mu_s * a - c.mu_c) * e;
    const T fs = s.f_n * sg;
    d.mu_s = fs * (a * e);
    d.mu_c = fs * (T(1) - e);
    d.mu_v = s.f_n * s.v;
    d.slope = fs * (c.mu_s * (math::copysign(T(1), th) * (T(1) - th * th) * s.v) * e);
    d.inv_v_st = fs * ((c.mu_s * a - c.mu_c) * (e * (T(-2) * x * s.v)));
    return s.f_n * (mu * sg + c.mu_v * s.v);
  }
};

}  // namespace stribeck
