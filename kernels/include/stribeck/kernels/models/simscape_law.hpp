#pragma once
// The Simscape Stribeck + Coulomb + viscous law, shared by the Translational
// and Rotational Friction blocks and by Cylinder Friction (IL):
//
//   F = sqrt(2e) (F_brk - F_C) exp(-(v/v_st)^2) (v/v_st) + F_C tanh(v/v_coul) + f_v v
//   v_st = sqrt(2) v_brk,   v_coul = v_brk / 10
//
// The three blocks differ only in how (F_brk - F_C) and F_C are obtained, so
// the law is written once here on per-parameter-set coefficients.
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

template <class T>
struct SimscapeLawCoeffs {
  T stribeck_amp;  // sqrt(2e) (F_brk - F_C)
  T inv_v_st;      // 1 / (sqrt(2) v_brk)
  T coulomb;       // F_C
  T inv_v_coul;    // 10 / v_brk
  T viscous;       // f_v
};

template <class T>
STRIBECK_HD_INLINE SimscapeLawCoeffs<T> simscape_law_coeffs(const T& f_brk_minus_fc, const T& v_brk, const T& f_c,
                                                            const T& f_v) {
  return SimscapeLawCoeffs<T>{T(kSqrt2e) * f_brk_minus_fc, T(1) / (T(kSqrt2) * v_brk), f_c, T(10) / v_brk, f_v};
}

template <class T>
STRIBECK_HD_INLINE T simscape_law(const SimscapeLawCoeffs<T>& c, const T& v) {
  const T x = v * c.inv_v_st;
  return c.stribeck_amp * math::exp(-(x * x)) * x + c.coulomb * math::tanh(v * c.inv_v_coul) + c.viscous * v;
}

// simscape_law and its derivative by each coefficient (d, in the coefficients'
// layout): the analytic Jacobians of the identification (chained with the
// coefficients' derivatives by the parameters, once per block). The value is
// simscape_law's, written the same way; ModelGradients.* checks d against Jets.
template <class T>
STRIBECK_HD_INLINE T simscape_law_grad(const SimscapeLawCoeffs<T>& c, const T& v, SimscapeLawCoeffs<T>& d) {
  const T x = v * c.inv_v_st;
  const T e = math::exp(-(x * x));
  const T th = math::tanh(v * c.inv_v_coul);
  d.stribeck_amp = e * x;
  d.inv_v_st = c.stribeck_amp * e * (T(1) - T(2) * (x * x)) * v;
  d.coulomb = th;
  d.inv_v_coul = c.coulomb * (T(1) - th * th) * v;
  d.viscous = v;
  return c.stribeck_amp * e * x + c.coulomb * th + c.viscous * v;
}

}  // namespace stribeck
