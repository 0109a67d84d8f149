#pragma once
// One interface for every friction model, memoryless or not:
//
//   auto c  = M::prepare(params);              // once per parameter set
//   typename M::template State<T> st = ...;    // empty for static laws
//   T F = model_step<M>(c, sample, st, dt);    // once per sample
//
// Static laws ignore the state and dt; dynamic models (LuGre, Dahl, ...)
// advance their state over dt and return the force at the end of the step.
#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/sample.hpp"

namespace stribeck {

template <class M, class T>
STRIBECK_HD_INLINE T model_step(const typename M::template Coeffs<T>& c, const Sample<T>& s,
                                typename M::template State<T>& state, const T& dt) {
  if constexpr (M::kDynamic) {
    return M::step(c, s, state, dt);
  } else {
    (void)state;
    (void)dt;
    return M::force(c, s);
  }
}

// Convenience for static laws: force from raw parameters (tests, one-off calls).
template <class M, class T>
STRIBECK_HD_INLINE T static_force(const T* params, const Sample<T>& s) {
  static_assert(!M::kDynamic, "static_force is for memoryless laws");
  return M::force(M::prepare(params), s);
}

}  // namespace stribeck
