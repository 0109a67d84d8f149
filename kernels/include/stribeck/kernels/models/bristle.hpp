#pragma once
// The bristle equation shared by the LuGre family,
//
//   dz/dt = v - |v| z / z_ss(v),      z_ss(v) = g(v) / sigma0 > 0,
//
// integrated along a sampled velocity trace. For constant v it is linear in z
// with rate a = |v| / z_ss(v), so the update over h is exact:
//
//   z(h) = z e^{-a h} + (1 - e^{-a h}) sign(v) z_ss(v)
//
// stable for every step however stiff sigma0 is (written with expm1 so float
// keeps its accuracy when a h is tiny). Between two samples the velocity is
// taken as linear from v0 to v1; each sub-step uses the exact update at its
// midpoint velocity (second order in the sub-step). Where g(v) is steep, i.e.
// when the interval reaches into |v| < 3 v_s or crosses zero, sub-steps are
// added until none changes v by more than v_s/16: in the stiff limit z sits
// on z_ss of the frozen velocity, and this bounds the resulting force error
// by about 0.43 (F_s - F_C) (v_s/16)/v_s = 0.027 (F_s - F_C) at the steepest
// point of g (docs/dynamics.md has measured errors). Outside that range g is
// flat to exp(-9) and one sub-step is exact enough.
#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

constexpr int kBristleMaxSubsteps = 256;

// Exact update of z over h at constant velocity v; z_ss = z_ss(v).
template <class T>
STRIBECK_HD_INLINE T bristle_relax(const T& z, const T& v, const T& z_ss, const T& h) {
  const T em1 = math::expm1(-math::abs(v) * h / z_ss);  // e^{-a h} - 1
  return z + em1 * (z - math::sign(v) * z_ss);
}

// Sub-steps from velocity v0 to v1: 1 where g is flat (both ends beyond
// 3 v_s on one side), otherwise doubled until none changes v by more than
// v_s/16 (at most kBristleMaxSubsteps). Every state law stepped along a
// trace (LuGre family, elasto-plastic, GMS) takes its sub-steps from here.
template <class T>
STRIBECK_HD_INLINE int bristle_substeps(const T& v0, const T& v1, const T& v_s) {
  const T a0 = math::abs(v0), a1 = math::abs(v1);
  const bool flat = v0 * v1 > T(0) && (a0 < a1 ? a0 : a1) > T(3) * v_s;
  int n = 1;
  if (!flat) {
    const T adv = math::abs(v1 - v0), v_res = v_s * T(0.0625);
    while (n < kBristleMaxSubsteps && adv > T(n) * v_res) n *= 2;
  }
  return n;
}

// Advances z from velocity v0 to v1 over dt (linear velocity in between).
// `zss(v)` returns z_ss(v) = g(v)/sigma0; v_s is the Stribeck velocity.
template <class T, class Zss>
STRIBECK_HD_INLINE T bristle_advance(T z, const T& v0, const T& v1, const T& dt, const T& v_s, const Zss& zss) {
  const T dv = v1 - v0;
  const int n = bristle_substeps(v0, v1, v_s);
  const T h = dt / T(n);
  for (int i = 0; i < n; ++i) {
    const T vm = v0 + dv * ((T(i) + T(0.5)) / T(n));
    z = bristle_relax(z, vm, zss(vm), h);
  }
  return z;
}

}  // namespace stribeck
