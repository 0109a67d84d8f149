#pragma once
// Classic fourth-order Runge-Kutta on a fixed-size state held in registers,
// and the step-size rule that keeps it stable.
//
// RK4's stability region reaches -2.785 on the negative real axis and +-2.828i
// on the imaginary axis, so a step h with h * rho <= kRk4StableRho is stable
// for every eigenvalue of modulus <= rho, damped or oscillatory.
#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

// Kept below the true bound (2.785) so that an estimate of rho that is a
// little low still gives a stable step.
constexpr double kRk4StableRho = 2.0;

// One RK4 step of dx/dt = f(t, x) in place whose first stage k1 = f(t, x)
// is already known (a driver that evaluates the system at the step's start
// anyway, for its output, passes that derivative instead of paying for it
// twice); f(t, x, dxdt) writes dxdt.
template <int N, class T, class F>
STRIBECK_HD_HOT void rk4_step_k1(const F& f, const T& t, T (&x)[N], const T& h, const T (&k1)[N]) {
  T k2[N], k3[N], k4[N], y[N];
  const T h2 = h * T(0.5);
  for (int i = 0; i < N; ++i) y[i] = x[i] + h2 * k1[i];
  f(t + h2, y, k2);
  for (int i = 0; i < N; ++i) y[i] = x[i] + h2 * k2[i];
  f(t + h2, y, k3);
  for (int i = 0; i < N; ++i) y[i] = x[i] + h * k3[i];
  f(t + h, y, k4);
  const T h6 = h * T(1.0 / 6.0);  // a multiply: a float division costs about 14 GPU instructions
  for (int i = 0; i < N; ++i) x[i] += h6 * (k1[i] + T(2) * (k2[i] + k3[i]) + k4[i]);
}

// One RK4 step of dx/dt = f(t, x) in place.
template <int N, class T, class F>
STRIBECK_HD_HOT void rk4_step(const F& f, const T& t, T (&x)[N], const T& h) {
  T k1[N];
  f(t, x, k1);
  rk4_step_k1(f, t, x, h, k1);
}

// Number of sub-steps that splits `dt` into stable RK4 steps for spectral
// radius estimate `rho` (>= 1); returns max_substeps + 1 when more are needed.
template <class T>
STRIBECK_HD_INLINE int rk4_substeps(const T& dt, const T& rho, int max_substeps) {
  const T need = dt * rho / T(kRk4StableRho);
  if (!(need <= T(max_substeps))) return max_substeps + 1;  // also catches NaN
  int n = static_cast<int>(need);
  if (T(n) < need) ++n;
  return n < 1 ? 1 : n;
}

// x * 0 is (+-)0 for finite x and NaN for an infinity or NaN, and a sum of
// such terms cannot overflow: one multiply-add per state and a single test
// (a test per state costs three GPU instructions each). Needs IEEE
// arithmetic: nothing here is compiled with -ffast-math.
template <int N, class T>
STRIBECK_HD_INLINE bool all_finite(const T (&x)[N]) {
  T probe = x[0] * T(0);
  for (int i = 1; i < N; ++i) probe += x[i] * T(0);
  return probe == T(0);
}

}  // namespace stribeck
