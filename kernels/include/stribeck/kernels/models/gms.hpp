#pragma once
// The generalized Maxwell-slip model (Al-Bender, Lampaert, Swevers, "The
// generalized Maxwell-slip model: a novel model for friction simulation and
// compensation", IEEE TAC 50(11), 2005; Lampaert et al., ICRA 2003): N
// elementary slip blocks in parallel, element i a spring k_i that carries at
// most the fraction alpha_i of the Stribeck curve s(v). Its presliding
// hysteresis has non-local memory: a reversal inside a loop returns, when the
// motion comes back, to the force of the earlier reversal point.
//
//   s(v)   = F_C + (F_s - F_C) exp(-(|v|/v_s)^delta)
//   m_i(v) = alpha_i s(v) / k_i                  (element i's largest deflection)
//   u_i    = z_i sign(v)                          (deflection along the motion)
//   dz_i/dt = v min(1, (m_i - u_i) / (eps m_i))   u_i < m_i (sticking)
//           = C (sign(v) - z_i / m_i)             u_i >= m_i (slipping)
//   F = sum_i k_i z_i + (sigma1/N) sum_i dz_i/dt + sigma2 v,   eps = 1/16
//
// The switch of the references (stick at rate v up to m_i, then slip) has its
// sticking rate tapered to 0 over the last eps = 1/16 of m_i, so the
// right-hand side is continuous (Lipschitz) in z: the body simulations
// integrate it with RK4 without chattering on the slip surface, and the
// damping term sigma1 dz/dt has one value there (docs/models.md, "Generalized
// Maxwell-slip"). The parameterisation makes every point of the ranges a
// valid model: k_i = sigma0 kappa_i and alpha_i by stick-breaking from the
// fractions kf_j, af_j in (0, 1), so sum kappa_i = sum alpha_i = 1.
//
// Trace form: the sample interval is cut into sub-steps as the LuGre bristle
// is (bristle.hpp), each at its midpoint velocity with s frozen; there each
// zone is solved exactly: sticking u += |v| h up to (1 - eps) m, the taper's
// exponential approach to m over the distance slid, the slip's exponential
// approach to m from above over time (rate C / m).
#include <array>

#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/models/bristle.hpp"
#include "stribeck/kernels/models/stribeck_delta.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

constexpr int kGmsMaxElements = 4;

namespace gms_detail {
constexpr const char* kIds[] = {"", "gms1", "gms2", "gms3", "gms4"};
constexpr const char* kNames[] = {"", "Generalized Maxwell-slip, 1 element (Al-Bender, Lampaert, Swevers 2005)",
                                  "Generalized Maxwell-slip, 2 elements (Al-Bender, Lampaert, Swevers 2005)",
                                  "Generalized Maxwell-slip, 3 elements (Al-Bender, Lampaert, Swevers 2005)",
                                  "Generalized Maxwell-slip, 4 elements (Al-Bender, Lampaert, Swevers 2005)"};
constexpr const char* kStiffnessFractions[] = {"kf_1", "kf_2", "kf_3"};
constexpr const char* kLevelFractions[] = {"af_1", "af_2", "af_3"};
}  // namespace gms_detail

// Element 1's deflection is `z` (the state eval writes and --initial-state
// sets), elements 2..N are zr; v_prev as in BristleState.
template <class T, int N>
struct GmsState {
  T z;
  T v_prev;
  T zr[N > 1 ? N - 1 : 1];  // zr[0] unused when N = 1
};

template <int N>
struct Gms {
  static_assert(N >= 1 && N <= kGmsMaxElements, "gms1 .. gms4");
  static constexpr bool kDynamic = true;
  static constexpr int kElements = N;
  static constexpr const char* kId = gms_detail::kIds[N];
  static constexpr const char* kName = gms_detail::kNames[N];
  static constexpr const char* kEquation =
      "s(v) = F_C + (F_s-F_C)*exp(-(|v|/v_s)^delta), m_i = alpha_i*s(v)/k_i, u_i = z_i*sign(v), "
      "dz_i/dt = v*min(1, 16*(m_i-u_i)/m_i) (u_i < m_i), C*(sign(v) - z_i/m_i) (u_i >= m_i), "
      "F = sum(k_i*z_i) + sigma1/N*sum(dz_i/dt) + sigma2*v, k_i = sigma0*kappa_i, "
      "kappa_i and alpha_i by stick-breaking from kf_j and af_j";
  static constexpr const char* kOutputUnit = "N";
  static constexpr const char* kStateName = "z_1";
  static constexpr const char* kStateUnit = "m";
  // The sticking rate's taper: the last 1/16 of m_i.
  static constexpr double kTaper = 0.0625;
  enum Param : int { sigma0, sigma1, sigma2, F_C, F_s, v_s, delta, C, kFirstFraction };
  static constexpr int kNumParams = kFirstFraction + 2 * (N - 1);
  // Index of the stiffness fraction kf_{j+1} and of the level fraction af_{j+1}, j < N - 1.
  static constexpr int kf(int j) { return kFirstFraction + j; }
  static constexpr int af(int j) { return kFirstFraction + N - 1 + j; }

  static constexpr std::array<ParamInfo, kNumParams> make_params() {
    std::array<ParamInfo, kNumParams> a{};
    a[sigma0] = positive("sigma0", "N/m", 1e5, "total element stiffness sum k_i (the presliding stiffness)",
                         ParamRole::kBristleStiffness);
    a[sigma1] = nonnegative("sigma1", "N/(m/s)", 316.2277660168379, "presliding damping (each element sigma1/N)",
                            ParamRole::kBristleDamping);
    a[sigma2] = nonnegative("sigma2", "N/(m/s)", 0.4, "viscous friction coefficient", ParamRole::kViscous);
    a[F_C] = positive("F_C", "N", 1.0, "Coulomb friction force", ParamRole::kCoulomb);
    a[F_s] = positive("F_s", "N", 1.5, "static (stiction) friction force", ParamRole::kBreakaway);
    a[v_s] = positive("v_s", "m/s", 0.001, "Stribeck velocity", ParamRole::kStribeckVelocity);
    a[delta] = positive("delta", "1", 2.0, "Stribeck exponent (1: exponential/Tustin, 2: Gaussian)", ParamRole::kShape);
    a[C] = positive("C", "m/s", 0.01, "attraction: rate at which a slipping element returns to its maximum",
                    ParamRole::kAttraction);
    for (int j = 0; j + 1 < N; ++j) {
      // Defaults: kappa = 0.6, 0.24, ... (distinct break displacements), alpha_i = 1/N.
      a[kf(j)] = ParamInfo{gms_detail::kStiffnessFractions[j],
                           "1",
                           0.6,
                           0.0,
                           1.0,
                           true,
                           true,
                           "share of the stiffness left after the elements before it that this element takes",
                           ParamRole::kElementFraction};
      a[af(j)] = ParamInfo{gms_detail::kLevelFractions[j],
                           "1",
                           1.0 / (N - j),
                           0.0,
                           1.0,
                           true,
                           true,
                           "share of the friction level left after the elements before it that this element takes",
                           ParamRole::kElementFraction};
    }
    return a;
  }
  static constexpr std::array<ParamInfo, kNumParams> kParams = make_params();
  static constexpr std::array<ParamRelation, 1> kRelations{{
      {F_s, F_C, "static friction must not be below Coulomb friction"},
  }};
  static constexpr unsigned kInputs = kChannelVelocity;

  template <class T>
  struct Coeffs {
    T k[N];      // element stiffnesses k_i
    T w[N];      // alpha_i / k_i: m_i = w_i s(v)
    T sigma1_n;  // sigma1 / N
    T sigma2, f_c, ds, inv_v_s, v_s, delta, c;
  };
  template <class T>
  using State = GmsState<T, N>;

  template <class T>
  STRIBECK_HD_INLINE static Coeffs<T> prepare(const T* p) {
    Coeffs<T> c;
    // Stick-breaking: element i takes the fraction kf_i (af_i) of what the
    // elements before it left; the last one takes the rest.
    T k_left = p[sigma0], a_left = T(1);
    for (int i = 0; i + 1 < N; ++i) {
      c.k[i] = k_left * p[kf(i)];
      c.w[i] = a_left * p[af(i)] / c.k[i];
      k_left = k_left * (T(1) - p[kf(i)]);
      a_left = a_left * (T(1) - p[af(i)]);
    }
    c.k[N - 1] = k_left;
    c.w[N - 1] = a_left / k_left;
    c.sigma1_n = p[sigma1] / T(N);
    c.sigma2 = p[sigma2];
    c.f_c = p[F_C];
    c.ds = p[F_s] - p[F_C];
    c.inv_v_s = T(1) / p[v_s];
    c.v_s = p[v_s];
    c.delta = p[delta];
    c.c = p[C];
    return c;
  }
  // The Stribeck curve s(v) > 0.
  template <class T>
  STRIBECK_HD_INLINE static T curve(const Coeffs<T>& c, const T& v) {
    return c.f_c + c.ds * stribeck_delta_decay(c.inv_v_s, c.delta, v);
  }
  // Steady sliding (every element at u_i = m_i, dz/dt = 0): s(v) sign(v) + sigma2 v.
  template <class T>
  STRIBECK_HD_INLINE static T steady_force(const Coeffs<T>& c, const T& v) {
    return curve(c, v) * math::sign(v) + c.sigma2 * v;
  }

  // dz_i/dt of one element at velocity v (sign sg) with m = m_i(v).
  template <class T>
  STRIBECK_HD_INLINE static T element_rate(const Coeffs<T>& c, const T& v, const T& sg, const T& z, const T& m) {
    const T u = z * sg;
    if (!(u < m)) return c.c * (sg - z / m);
    const T taper = (m - u) / (T(kTaper) * m);
    return taper < T(1) ? v * taper : v;
  }
  // Force and rates of every element at velocity v and deflections z[N].
  template <class T>
  STRIBECK_HD_INLINE static T rates(const Coeffs<T>& c, const T& v, const T* z, T* dz) {
    const T sg = math::sign(v), sv = curve(c, v);
    T f = c.sigma2 * v, rate_sum = T(0);
    for (int i = 0; i < N; ++i) {
      dz[i] = sg == T(0) ? T(0) : element_rate(c, v, sg, z[i], c.w[i] * sv);
      f = f + c.k[i] * z[i];
      rate_sum = rate_sum + dz[i];
    }
    return f + c.sigma1_n * rate_sum;
  }

  // ODE form (systems/smooth_friction.hpp): kExtraStates states beyond z.
  static constexpr int kExtraStates = N - 1;
  // Bound of |d(dz_i/dt)/dz_i| over every z: 1/(eps m_i) |v| in the taper,
  // C / m_i slipping; m_i >= w_i F_C-or-F_s, the smaller of the two levels.
  template <class T>
  STRIBECK_HD_INLINE static T relax_rate(const Coeffs<T>& c, const Sample<T>& s, const T&) {
    const T sv = curve(c, s.v);
    T w_min = c.w[0];
    for (int i = 1; i < N; ++i) w_min = c.w[i] < w_min ? c.w[i] : w_min;
    return (math::abs(s.v) * T(1.0 / kTaper) + c.c) / (w_min * sv);
  }
  template <class T>
  STRIBECK_HD_INLINE static bool ode_ok(const Coeffs<T>&) {
    return true;  // Lipschitz in z (the taper), s(v) >= min(F_C, F_s) > 0
  }
  template <class T>
  STRIBECK_HD_INLINE static T stiffness(const Coeffs<T>& c, const Sample<T>&) {
    T k = T(0);
    for (int i = 0; i < N; ++i) k = k + c.k[i];
    return k;
  }
  template <class T>
  STRIBECK_HD_INLINE static T damping(const Coeffs<T>& c, const Sample<T>&) {
    return c.sigma1_n * T(N) + c.sigma2;
  }

  // u_i along the motion after sliding d = |v| h over time h, m frozen.
  template <class T>
  STRIBECK_HD_INLINE static T slide(const Coeffs<T>& c, T u, const T& d, const T& h, const T& m) {
    if (!(u < m)) return m + (u - m) * math::exp(-c.c * h / m);
    const T band = T(kTaper) * m, u1 = m - band;
    T rest = d;
    if (u < u1) {
      if (rest <= u1 - u) return u + rest;
      rest = rest - (u1 - u);
      u = u1;
    }
    return m - (m - u) * math::exp(-rest / band);
  }
  template <class T>
  STRIBECK_HD_INLINE static T& element(State<T>& st, int i) {
    return i == 0 ? st.z : st.zr[i - 1];
  }
  // Trace form: advance the elements from the previous sample to this one
  // over dt and return the force at the end. dt = 0 only reads the force.
  template <class T>
  STRIBECK_HD_INLINE static T step(const Coeffs<T>& c, const Sample<T>& s, State<T>& st, const T& dt) {
    const T v0 = st.v_prev, v1 = s.v, dv = v1 - v0;
    const int n = bristle_substeps(v0, v1, c.v_s);
    T z[N];
    for (int i = 0; i < N; ++i) z[i] = element(st, i);
    const T h = dt / T(n);
    for (int j = 0; j < n; ++j) {
      const T vm = v0 + dv * ((T(j) + T(0.5)) / T(n));
      const T sg = math::sign(vm);
      if (sg == T(0)) continue;
      const T sv = curve(c, vm), d = math::abs(vm) * h;
      for (int i = 0; i < N; ++i) z[i] = sg * slide(c, z[i] * sg, d, h, c.w[i] * sv);
    }
    for (int i = 0; i < N; ++i) element(st, i) = z[i];
    st.v_prev = v1;
    T dz[N];
    return rates(c, v1, z, dz);
  }
};

using Gms1 = Gms<1>;
using Gms2 = Gms<2>;
using Gms3 = Gms<3>;
using Gms4 = Gms<4>;

}  // namespace stribeck
