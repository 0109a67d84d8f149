#pragma once
// Elementary functions written once for float, double and ceres::Jet.
//
// Every model calls these instead of std:: directly: the unqualified calls find
// std:: overloads for float/double (host and device) and ceres:: overloads for
// Jets by argument-dependent lookup. Constants are always converted to T, so a
// float instantiation contains no double arithmetic.
#include <cmath>
#include <type_traits>

#include "stribeck/kernels/config.hpp"

namespace stribeck {
namespace math {

// In FP32 on the GPU, exp is the special-function unit's exp2 after one
// multiply (__expf: two instructions instead of the accurate expf's eight,
// where the sweep's whole per-sample budget is about 25). Its error,
// 2 + floor(1.173 |x|) ulp by the CUDA Math API, is under 1e-6 relative for
// |x| <= 10, far inside the FP32 tolerance (docs/models.md). Everywhere else
// (double, the CPU, Jets) exp is the standard library's.
template <class T>
STRIBECK_HD_INLINE T exp(const T& x) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return __expf(x);
#endif
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
// |a| with the sign of b (for Jets, Ceres' overload).
template <class T>
STRIBECK_HD_INLINE T copysign(const T& a, const T& b) {
  using std::copysign;
  return copysign(a, b);
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
