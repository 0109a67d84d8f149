#pragma once
// A prescribed input signal that a GPU thread can evaluate without memory
// traffic: u(t) = offset + slope*t + amplitude*sin(2 pi frequency t).
// Covers the experiments of issue 5: constant drive speed, force ramps for
// breakaway, sines for presliding and pressure ripple.
#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

constexpr double kTwoPi = 6.28318530717958647692528676655900577;

template <class T>
struct Profile {
  T offset = T(0);
  T slope = T(0);      // per second
  T amplitude = T(0);
  T frequency = T(0);  // Hz

  STRIBECK_HD_INLINE T value(const T& t) const {
    using std::sin;
    return offset + slope * t + (amplitude != T(0) ? amplitude * sin(T(kTwoPi) * frequency * t) : T(0));
  }
  STRIBECK_HD_INLINE T rate(const T& t) const {
    using std::cos;
    const T w = T(kTwoPi) * frequency;
    return slope + (amplitude != T(0) ? amplitude * w * cos(w * t) : T(0));
  }
};

template <class T>
STRIBECK_HD_INLINE Profile<T> constant_profile(const T& u) {
  Profile<T> p;
  p.offset = u;
  return p;
}

}  // namespace stribeck
