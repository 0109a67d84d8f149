#pragma once
// The elasto-plastic model (Dupont, Hayward, Armstrong, Altpeter, "Single
// state elastoplastic friction models", IEEE TAC 47(5), 2002): LuGre's
// bristle with a breakaway function alpha that keeps small deflections purely
// elastic, so a force below the breakaway level causes no drift:
//
//   dz/dt = v (1 - alpha(z, v) z / z_ss(v)),   F = sigma0 z + sigma1 dz/dt + sigma2 v
//   z_ss(v) = sign(v) g(v) / sigma0,   g(v) = F_C + (F_s - F_C) exp(-(v/v_s)^2)
//   alpha = 0                                         sign(z) != sign(v) or |z| <= z_ba
//         = 1/2 + 1/2 sin(pi (|z| - (|z_ss| + z_ba)/2) / (|z_ss| - z_ba))   z_ba < |z| < |z_ss|
//         = 1                                         |z| >= |z_ss|
//
// The paper requires 0 < z_ba < |z_ss(v)| at every v, i.e. z_ba < F_C/sigma0
// (g >= F_C when F_s >= F_C). The parameter is therefore the ratio
// r_ba = z_ba / (F_C/sigma0) in [0, 1): every value in its range is a valid
// model, whatever sigma0 and F_C a sweep or a fit gives them. r_ba = 0 starts
// the band at z = 0 (no purely elastic zone); r_ba -> 1 makes it a step at
// |z_ss| (elastic-perfectly-plastic at speed).
//
// Trace form. Along a sample interval the velocity is linear; it is cut into
// sub-steps as the LuGre bristle is (bristle.hpp: more where g(v) is steep or
// v changes sign), each at its midpoint velocity, over which z_ss is frozen
// and the equation is one in the distance slid x: with u = z sign(v),
// du/dx = 1 - alpha(u) u / |z_ss|. It is solved zone by zone: exactly
// (u += dx) in the elastic zone, exactly (exponential approach to |z_ss|)
// where alpha = 1, and in the band by exponential Rosenbrock-Euler steps
// (second order, exact for the linearisation, stable however stiff) that
// move u by at most 1/32 of the band: against SciPy's Radau on the profiles
// of tests/data/new_laws the force is then within 1.2e-3 F_s (1/4 of the
// band gave 1.1e-2 F_s, all of it in sigma1 dz/dt near the band's top).
#include <array>
#include <cmath>
#include <type_traits>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/models/bristle.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

struct ElastoPlastic {
  static constexpr double kPi = 3.14159265358979323846;
  static constexpr bool kDynamic = true;
  static constexpr const char* kId = "elastoplastic";
  static constexpr const char* kName = "Elasto-plastic friction (Dupont et al. 2002)";
  static constexpr const char* kEquation =
      "dz/dt = v*(1 - alpha(z,v)*z/z_ss(v)), z_ss(v) = sign(v)*g(v)/sigma0, "
      "g(v) = F_C + (F_s-F_C)*exp(-(v/v_s)^2), z_ba = r_ba*F_C/sigma0, alpha = 0 (sign(z) != sign(v) or |z| <= z_ba), "
      "1/2 + 1/2*sin(pi*(|z| - (|z_ss|+z_ba)/2)/(|z_ss|-z_ba)) (z_ba < |z| < |z_ss|), 1 (|z| >= |z_ss|), "
      "F = sigma0*z + sigma1*dz/dt + sigma2*v";
  static constexpr const char* kOutputUnit = "N";
  static constexpr const char* kStateName = "z";
  static constexpr const char* kStateUnit = "m";
  enum Param { sigma0, sigma1, sigma2, F_C, F_s, v_s, r_ba, kNumParams };
  static constexpr std::array<ParamInfo, kNumParams> kParams{{
      positive("sigma0", "N/m", 1e5, "bristle stiffness", ParamRole::kBristleStiffness),
      nonnegative("sigma1", "N/(m/s)", 316.2277660168379, "bristle damping", ParamRole::kBristleDamping),
      nonnegative("sigma2", "N/(m/s)", 0.4, "viscous friction coefficient", ParamRole::kViscous),
      positive("F_C", "N", 1.0, "Coulomb friction force", ParamRole::kCoulomb),
      positive("F_s", "N", 1.5, "static (stiction) friction force", ParamRole::kBreakaway),
      positive("v_s", "m/s", 0.001, "Stribeck velocity", ParamRole::kStribeckVelocity),
      ParamInfo{"r_ba", "1", 0.5, 0.0, 1.0, false, true,
                "breakaway deflection z_ba over F_C/sigma0: below z_ba the bristle is purely elastic",
                ParamRole::kElasticFraction},
  }};
  static constexpr std::array<ParamRelation, 1> kRelations{{
      {F_s, F_C, "static friction must not be below Coulomb friction"},
  }};
  static constexpr unsigned kInputs = kChannelVelocity;

  template <class T>
  struct Coeffs {
    T sigma0, sigma1, sigma2, inv_sigma0_fc, inv_sigma0_ds, inv_v_s, v_s, z_ba;
  };
  template <class T>
  using State = BristleState<T>;

  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    const T fc_over_sigma0 = p[F_C] / p[sigma0];
    return Coeffs<T>{p[sigma0],
                     p[sigma1],
                     p[sigma2],
                     fc_over_sigma0,
                     (p[F_s] - p[F_C]) / p[sigma0],
                     T(1) / p[v_s],
                     p[v_s],
                     p[r_ba] * fc_over_sigma0};
  }
  // |z_ss(v)| = g(v)/sigma0.
  template <class T>
  STRIBECK_HD_INLINE static T z_ss(const Coeffs<T>& c, const T& v) {
    return c.inv_sigma0_fc + c.inv_sigma0_ds * math::exp_neg_sq(v, c.inv_v_s);
  }
  // Steady sliding (alpha = 1, z = z_ss): the same curve as LuGre,
  // F_ss(v) = g(v) sign(v) + sigma2 v.
  template <class T>
  STRIBECK_HD_INLINE static T steady_force(const Coeffs<T>& c, const T& v) {
    return c.sigma0 * math::sign(v) * z_ss(c, v) + c.sigma2 * v;
  }

  // sin and cos of the band's phase, which lies in [-pi/2, pi/2]. In FP32 on
  // the GPU the intrinsics (error below 4e-7 there): sinf and cosf carry a
  // Payne-Hanek reduction in double for arguments this law never makes, and
  // FP32 per-sample code holds no double arithmetic (Fp32Purity).
  template <class T>
  STRIBECK_HD_INLINE static T band_sin(const T& x) {
#ifdef __CUDA_ARCH__
    if constexpr (std::is_same_v<T, float>) return __sinf(x);
#endif
    using std::sin;
    return sin(x);
  }
  template <class T>
  STRIBECK_HD_INLINE static T band_cos(const T& x) {
#ifdef __CUDA_ARCH__
    if constexpr (std::is_same_v<T, float>) return __cosf(x);
#endif
    using std::cos;
    return cos(x);
  }

  // alpha for the deflection along the motion u = z sign(v) (u <= 0: the
  // bristle is loaded against its deflection, alpha = 0), with zss = |z_ss(v)|.
  template <class T>
  STRIBECK_HD_INLINE static T alpha(const Coeffs<T>& c, const T& u, const T& zss) {
    if (!(u > T(0))) return T(0);
    if (!(u < zss)) return T(1);
    if (!(u > c.z_ba)) return T(0);
    const T w = zss - c.z_ba;
    return T(0.5) + T(0.5) * band_sin(T(kPi) * (u - T(0.5) * (zss + c.z_ba)) / w);
  }

  template <class T>
  STRIBECK_HD_INLINE static T dzdt(const Coeffs<T>& c, const Sample<T>& s, const T& z) {
    const T zss = z_ss(c, s.v);
    return s.v - alpha(c, z * math::sign(s.v), zss) * math::abs(s.v) * z / zss;
  }
  template <class T>
  STRIBECK_HD_INLINE static T output(const Coeffs<T>& c, const Sample<T>& s, const T& z, const T& zdot) {
    return c.sigma0 * z + c.sigma1 * zdot + c.sigma2 * s.v;
  }
  // Bound of |d(dz/dt)/dz| = |v| (alpha + u alpha'(u)) / zss over every z:
  // alpha <= 1, u <= zss in the band, alpha' <= pi / (2 (zss - z_ba)). It is
  // taken at every z (not at the current one) because an explicit step from
  // the elastic zone, where the rate is 0, may land in the band.
  template <class T>
  STRIBECK_HD_INLINE static T relax_rate(const Coeffs<T>& c, const Sample<T>& s, const T&) {
    const T zss = z_ss(c, s.v);
    return math::abs(s.v) / zss * (T(1) + T(0.5 * kPi) * zss / (zss - c.z_ba));
  }
  // Lipschitz: r_ba < 1 keeps a band of width >= (1 - r_ba) F_C/sigma0.
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

  // u after sliding a distance d >= 0 with zss frozen (see the header comment).
  static constexpr int kMaxBandSteps = 128;
  template <class T>
  STRIBECK_HD_INLINE static T slide(const Coeffs<T>& c, T u, T d, const T& zss) {
    const T z_lo = c.z_ba < zss ? c.z_ba : zss;  // end of the elastic zone
    if (u < z_lo) {
      const T room = z_lo - u;
      if (d <= room) return u + d;
      u = z_lo;
      d = d - room;
    }
    const T w = zss - z_lo;
    for (int i = 0; i < kMaxBandSteps && d > T(0) && zss - u > T(1e-4) * w; ++i) {
      const T m = T(0.5) * (zss + z_lo), k = T(kPi) / w;
      const T a = T(0.5) + T(0.5) * band_sin(k * (u - m));
      const T da = T(0.5) * k * band_cos(k * (u - m));
      const T f = T(1) - a * u / zss;     // du/dx, in (0, 1]
      const T jac = -(da * u + a) / zss;  // d f / du <= 0
      const T h_max = T(0.03125) * w / f;
      const T h = d < h_max ? d : h_max;
      const T y = jac * h;
      const T phi = y < T(0) ? math::expm1(y) / y : T(1);  // (e^y - 1)/y
      u = u + h * phi * f;
      d = d - h;
    }
    // alpha = 1 (or within 2.5e-8 of it): exact exponential approach to zss.
    if (d > T(0)) u = zss + (u - zss) * math::exp(-d / zss);
    return u;
  }
  // Trace form: advance z from the previous sample to this one over dt and
  // return the force at the end of the step. dt = 0 only reads the force.
  template <class T>
  STRIBECK_HD_INLINE static T step(const Coeffs<T>& c, const Sample<T>& s, State<T>& st, const T& dt) {
    const T v0 = st.v_prev, v1 = s.v, dv = v1 - v0;
    const int n = bristle_substeps(v0, v1, c.v_s);
    const T h = dt / T(n);
    for (int i = 0; i < n; ++i) {
      const T vm = v0 + dv * ((T(i) + T(0.5)) / T(n));
      const T sg = math::sign(vm);
      if (sg == T(0)) continue;
      st.z = sg * slide(c, st.z * sg, math::abs(vm) * h, z_ss(c, vm));
    }
    st.v_prev = v1;
    return output(c, s, st.z, dzdt(c, s, st.z));
  }
};

}  // namespace stribeck
