#pragma once
// The breakaway of the stiction form (stiction.hpp), per direction: the stuck
// contact holds -neg <= F_req <= pos. A direction-asymmetric law
// (stribeck-asymmetric) breaks away at its own static force on each side, so
// one number for both would either let the contact go below the law's static
// force on one side or hold it past it on the other.
//
// Written once for `simulate`, the CPU ensemble and the GPU kernels, so the
// three cannot check it differently.
#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/scalar_math.hpp"
#include "stribeck/kernels/systems/body.hpp"
#include "stribeck/kernels/systems/smooth_friction.hpp"

namespace stribeck {

template <class T>
struct StictionBreakaway {
  T pos = T(0);  // the most the stuck contact holds against F_req > 0
  T neg = T(0);  // the most it holds against F_req < 0 (a magnitude)
};

// The model parameters that are the law's own breakaway on each side (F_brk,
// T_brk, F_s; F_s_pos and F_s_neg), or -1 where the config gives it.
struct BreakawayParams {
  int pos = -1;
  int neg = -1;
};

// The law's force just off zero speed on each side (|F(+1e-12)|,
// |F(-1e-12)|): what the contact slides against right after breakaway
// (StictionBody::slide), so the least the stuck contact must hold there or it
// breaks away, re-sticks and breaks away again (chatter).
template <class M, class T>
STRIBECK_HD_INLINE StictionBreakaway<T> stiction_slide0(const typename M::template Coeffs<T>& fc,
                                                        const BodyInputs<T>& in) {
  return {math::abs(M::force(fc, friction_sample(in, T(1e-12)))),
          math::abs(M::force(fc, friction_sample(in, T(-1e-12))))};
}

// The breakaway on each side: `given` where `from` names no parameter, else
// the law's parameter p[from.*], raised to slide0 where the law pulls more
// just off zero speed (an exact sign with a viscous term: F_s + f_v 1e-12), so
// a law's own static force never chatters.
template <class T>
STRIBECK_HD_INLINE StictionBreakaway<T> stiction_breakaway(const T& given, const BreakawayParams& from, const T* p,
                                                           const StictionBreakaway<T>& slide0) {
  StictionBreakaway<T> b{given, given};
  if (from.pos >= 0) b.pos = p[from.pos] < slide0.pos ? slide0.pos : p[from.pos];
  if (from.neg >= 0) b.neg = p[from.neg] < slide0.neg ? slide0.neg : p[from.neg];
  return b;
}

// 0 when the breakaway is > 0 and at least slide0 on both sides; else the
// first side where it is not: +1 (v > 0) or -1 (v < 0).
template <class T>
STRIBECK_HD_INLINE int stiction_short_side(const StictionBreakaway<T>& brk, const StictionBreakaway<T>& slide0) {
  if (!(brk.pos > T(0)) || !(brk.pos >= slide0.pos)) return 1;
  if (!(brk.neg > T(0)) || !(brk.neg >= slide0.neg)) return -1;
  return 0;
}

}  // namespace stribeck
