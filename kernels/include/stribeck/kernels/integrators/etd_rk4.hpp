#pragma once
// Exponential time-differencing RK4 (Cox & Matthews, J. Comput. Phys. 176,
// 2002: ETDRK4) for a state vector one of whose components relaxes fast and
// linearly:
//
//   dx_K/dt = f_K(t, x) = u(t, x) - lambda(t, x) x_K,
//
// a bristle state z' = v - lambda(v) z (LuGre: lambda = sigma0 |v| / g(v),
// about 1e4 1/s while sliding on the paper's bristle). Within a step the
// rate is frozen at lambda0 (its value at the step's start) and the
// remainder N = f_K + lambda0 x_K = u - (lambda - lambda0) x_K is weighted
// by the phi functions of c = -lambda0 h, so the relaxation towards a
// constant forcing is exact however stiff (the step is set by the rest of the
// system: docs/dynamics.md). The other components take the classical RK4
// stages, which are ETDRK4's at c = 0.
//
// Not Lawson's integrating factor (RK4 on w = exp(lambda0 t) x_K): there the
// forcing u enters as exp(lambda0 t) u, which RK4 cannot follow across a
// step with lambda0 h >> 1; at lambda0 h = 10 its steady bristle deflection
// is h u / 6 instead of u / lambda0 (67 % too large), and on the stick-slip
// rig at the output step 1e-3 s the stick-slip disappears.
#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

// phi_3's Taylor series sum_j c^j / (j + 3)! to within rounding for |c| < 1:
// to c^15 / 18! in FP64 (the next term is below 2^-53 / 6), c^8 / 11! in
// FP32; the constants are single literals (no double arithmetic in FP32).
template <class T>
STRIBECK_HD_INLINE T etd_phi3_series(const T& c) {
  T s;
  if constexpr (sizeof(T) >= 8) {
    s = T(1.0 / 6402373705728000.0);
    s = s * c + T(1.0 / 355687428096000.0);
    s = s * c + T(1.0 / 20922789888000.0);
    s = s * c + T(1.0 / 1307674368000.0);
    s = s * c + T(1.0 / 87178291200.0);
    s = s * c + T(1.0 / 6227020800.0);
    s = s * c + T(1.0 / 479001600.0);
    s = s * c + T(1.0 / 39916800.0);
  } else {
    s = T(1.0 / 39916800.0);
  }
  s = s * c + T(1.0 / 3628800.0);
  s = s * c + T(1.0 / 362880.0);
  s = s * c + T(1.0 / 40320.0);
  s = s * c + T(1.0 / 5040.0);
  s = s * c + T(1.0 / 720.0);
  s = s * c + T(1.0 / 120.0);
  s = s * c + T(1.0 / 24.0);
  s = s * c + T(1.0 / 6.0);
  return s;
}

// phi_1..phi_3 at c <= 0 (phi_1 = (e^c - 1)/c, phi_2 = (e^c - 1 - c)/c^2,
// phi_3 = (e^c - 1 - c - c^2/2)/c^3), given e = exp(c). For |c| < 1 phi_3 is
// its series and phi_2, phi_1 follow by phi_k = 1/k! + c phi_(k+1), which
// does not cancel there; otherwise the closed forms by the same recurrence
// downwards, which do not cancel for |c| >= 1, multiplied by 1/c (one
// division instead of three on the step's path). Both are computed and one
// selected, so SIMD lanes take no branch.
template <class T>
STRIBECK_HD_INLINE void etd_phi(const T& c, const T& e, T& p1, T& p2, T& p3) {
  const T s = etd_phi3_series(c);
  const T s2 = T(0.5) + c * s, s1 = T(1) + c * s2;
  const bool small = c > T(-1);
  const T c_safe = small ? T(-1) : c;  // the closed forms are not used for small c, but must stay finite
  const T r = T(1) / c_safe;
  const T q1 = (e - T(1)) * r, q2 = (q1 - T(1)) * r, q3 = (q2 - T(0.5)) * r;
  p1 = small ? s1 : q1;
  p2 = small ? s2 : q2;
  p3 = small ? s : q3;
}

// phi_1..phi_3 at 2c from their values a1..a3 at c and e = exp(c), by the
// scaling relation phi_k(2c) = 2^-k (e phi_k(c) + sum_(j=1..k) phi_j(c) / (k - j)!)
// (Skaflestad & Wright, Appl. Numer. Math. 59, 2009): a step's phi functions
// from its half step's, instead of a second series and three more divisions.
// Every term is positive for c <= 0, so nothing cancels: within 4 units of
// 2^-53 of the exact values over c in [-1e3, -1e-10], where those of
// etd_phi at 2c are within 12 (a scan against long double).
template <class T>
STRIBECK_HD_INLINE void etd_phi_double(const T& e, const T& a1, const T& a2, const T& a3, T& p1, T& p2, T& p3) {
  const T e1 = e + T(1);
  p1 = T(0.5) * (e1 * a1);
  p2 = T(0.25) * (e1 * a2 + a1);
  p3 = T(0.125) * (e1 * a3 + a2 + T(0.5) * a1);
}

// One ETDRK4 step of dx/dt = f(t, x) in place, component K relaxing at
// lambda0 (>= 0), from the known first stage k1 = f(t, x); f(t, x, dxdt)
// writes the full derivative (the remainder is formed here as
// dxdt[K] + lambda0 y[K]). At lambda0 = 0 it is rk4_step_k1 up to rounding.
template <int K, int N, class T, class F>
STRIBECK_HD_HOT void etd_rk4_step_k1(const F& f, const T& t, T (&x)[N], const T& h, const T (&k1)[N],
                                     const T& lambda0) {
  static_assert(K >= 0 && K < N, "the relaxing component is one of the state's");
  T k2[N], k3[N], k4[N], y[N];
  const T h2 = h * T(0.5);
  const T c = -(lambda0 * h), eh = math::exp(c * T(0.5)), e = eh * eh;
  T a1, a2, a3, p1, p2, p3;
  etd_phi(c * T(0.5), eh, a1, a2, a3);
  etd_phi_double(eh, a1, a2, a3, p1, p2, p3);
  const T g = h2 * a1;  // (e^(c/2) - 1) / (-lambda0): the half step's weight of a constant remainder
  const T zk = x[K];
  const T n1 = k1[K] + lambda0 * zk;
  for (int i = 0; i < N; ++i) y[i] = x[i] + h2 * k1[i];
  const T za = eh * zk + g * n1;
  y[K] = za;
  f(t + h2, y, k2);
  const T n2 = k2[K] + lambda0 * za;
  for (int i = 0; i < N; ++i) y[i] = x[i] + h2 * k2[i];
  const T zb = eh * zk + g * n2;
  y[K] = zb;
  f(t + h2, y, k3);
  const T n3 = k3[K] + lambda0 * zb;
  for (int i = 0; i < N; ++i) y[i] = x[i] + h * k3[i];
  const T zc = eh * za + g * (T(2) * n3 - n1);
  y[K] = zc;
  f(t + h, y, k4);
  const T n4 = k4[K] + lambda0 * zc;
  const T h6 = h * T(1.0 / 6.0);
  for (int i = 0; i < N; ++i) x[i] += h6 * (k1[i] + T(2) * (k2[i] + k3[i]) + k4[i]);
  // Cox & Matthews' weights: h (phi1 - 3 phi2 + 4 phi3), h (2 phi2 - 4 phi3)
  // for each middle stage, h (4 phi3 - phi2); h/6, h/3, h/6 at c = 0.
  const T w1 = h * (p1 - T(3) * p2 + T(4) * p3), w2 = h * (T(2) * p2 - T(4) * p3), w4 = h * (T(4) * p3 - p2);
  x[K] = e * zk + w1 * n1 + w2 * (n2 + n3) + w4 * n4;
}

}  // namespace stribeck
