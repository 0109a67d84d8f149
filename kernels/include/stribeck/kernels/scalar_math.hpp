#pragma once
// Elementary functions written once for float, double and ceres::Jet.
//
// Every model calls these instead of std:: directly: the unqualified calls find
// std:: overloads for float/double (host and device) and ceres:: overloads for
// Jets by argument-dependent lookup. Constants are always converted to T, so a
// float instantiation contains no double arithmetic.
#include <cmath>

#include "stribeck/kernels/config.hpp"

namespace stribeck {
namespace math {

template <class T>
STRIBECK_HD_INLINE T exp(const T& x) {
  using std::exp;
  return exp(x);
}
// exp(x) - 1 without cancellation for small |x| (the bristle update needs it
// when |v| dt / z_ss is tiny, especially in float).
template <class T>
STRIBECK_HD_INLINE T expm1(const T& x) {
  using std::expm1;
  return expm1(x);
}
template <class T>
STRIBECK_HD_INLINE T tanh(const T& x) {
  using std::tanh;
  return tanh(x);
}
template <class T>
STRIBECK_HD_INLINE T sqrt(const T& x) {
  using std::sqrt;
  return sqrt(x);
}
template <class T>
STRIBECK_HD_INLINE T abs(const T& x) {
  using std::abs;
  return abs(x);
}
template <class T>
STRIBECK_HD_INLINE T pow(const T& x, const T& y) {
  using std::pow;
  return pow(x, y);
}

// sign(v) with sign(0) = 0 (and sign(NaN) = 0), as the reference tools
// define it. For Jets the derivative is zero everywhere (the jump at 0 has no
// derivative). Written without branches: GCC cannot vectorise the nested
// select that two early returns become once v is the same in every SIMD lane
// (the CPU sweep's lanes), and the GPU gets straight-line code either way.
template <class T>
STRIBECK_HD_INLINE T sign(const T& x) {
  return static_cast<T>(x > T(0)) - static_cast<T>(x < T(0));
}

}  // namespace math

// Mathematical constants, written once in full double precision and converted
// to the scalar at the call site (T(kSqrt2e)).
constexpr double kSqrt2 = 1.41421356237309504880168872420969808;
constexpr double kSqrt2e = 2.33164398159712416726931069626780874;  // sqrt(2 e)

}  // namespace stribeck
