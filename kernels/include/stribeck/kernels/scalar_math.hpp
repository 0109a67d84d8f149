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
#include "stribeck/kernels/poly_exp.hpp"

namespace stribeck {

// log2(e): the GPU's FP32 exp forms below are exp2 of the argument times it.
constexpr double kLog2e = 1.44269504088896340735992468100189214;

namespace math {

// In FP32 on the GPU, exp is the special-function unit's exp2 after one
// multiply by log2(e), with subnormal results flushed to zero
// (ex2.approx.ftz: the multiply and one MUFU instruction; __expf adds three
// instructions to produce subnormals, the accurate expf about fifteen, where
// the sweep's whole per-sample budget is about 25). Its error, that of
// __expf, 2 + floor(1.173 |x|) ulp by the CUDA Math API, is under 1e-6
// relative for |x| <= 10, far inside the FP32 tolerance (docs/models.md);
// results below 2^-126 (x < -87.3) are 0. In the CPU lanes' AVX-512 build
// (STRIBECK_POLY_EXP), it is poly_exp, inlined (poly_exp.hpp says why), in
// double and in float (rounded from double).
// Everywhere else (double, the CPU, Jets) exp is the standard library's.
template <class T>
STRIBECK_HD_INLINE T exp(const T& x) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return __nvvm_ex2_approx_ftz_f(x * float(kLog2e));
#elif defined(STRIBECK_POLY_EXP)
  if constexpr (std::is_same_v<T, double>) return poly_exp(x);
  // In float too: glibc's expf takes a slow errno path on underflow, which a
  // sliding Stribeck term exp(-(v/v_s)^2) reaches at every step (half the
  // FP32 lanes' time in perf); poly_exp in double rounds to the float.
  if constexpr (std::is_same_v<T, float>) return float(poly_exp(double(x)));
#endif
  using std::exp;
  return exp(x);
}
// exp(-(c x)), the exponential decay of Stribeck curves (x a speed, c the
// decay coefficient). In FP32 on the GPU it is exp2(x k) with k = -log2(e) c,
// which the compiler computes once when c is loop-invariant (a per-thread
// coefficient): one multiply and the MUFU per evaluation instead of two
// multiplies. Its error is exp's plus an ulp of the argument. Everywhere else
// it is exp(-(c x)) as written.
template <class T>
STRIBECK_HD_INLINE T exp_neg_mul(const T& c, const T& x) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return __nvvm_ex2_approx_ftz_f(x * (c * -float(kLog2e)));
#endif
  return exp(-c * x);
}
// exp(-(x s)^2), the Gaussian decay of Stribeck curves (x a velocity, s the
// inverse Stribeck velocity). In FP32 on the GPU it is exp2(x^2 * c) with
// c = -log2(e) s^2, which the compiler computes once when s is
// loop-invariant (the per-thread coefficient of a sweep or an ensemble): two
// multiplies and the MUFU instead of three multiplies, one fewer step on the
// critical path of every RK4 stage. Its error is exp's plus a few ulp of the
// argument, i.e. under 1e-7 of the curve's amplitude. Everywhere else it is
// exp(-(x s)^2) as written.
template <class T>
STRIBECK_HD_INLINE T exp_neg_sq(const T& x, const T& s) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return __nvvm_ex2_approx_ftz_f((x * x) * (s * s * -float(kLog2e)));
#endif
  const T u = x * s;
  return exp(-(u * u));
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
// a / b where a few ulp do not matter. In FP32 on the GPU, the
// special-function unit's reciprocal and a multiply (div.approx.ftz, three
// instructions with its use; the IEEE division is about fourteen, with a
// slow-path branch). Its error is 2 ulp for 2^-126 <= |b| <= 2^126 (the
// range of every rate and force here); subnormal operands count as zero.
// Everywhere else it is the correctly rounded division.
template <class T>
STRIBECK_HD_INLINE T fast_divide(const T& a, const T& b) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return __nvvm_div_approx_ftz_f(a, b);
#endif
  return a / b;
}
// sqrt(x) where a few ulp do not matter (step-size bounds): in FP32 on the
// GPU, the special-function unit's approximation (sqrt.approx.ftz, relative
// error about 2^-23; the IEEE sqrt is about fifteen instructions); everywhere
// else the correctly rounded sqrt.
template <class T>
STRIBECK_HD_INLINE T fast_sqrt(const T& x) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return __nvvm_sqrt_approx_ftz_f(x);
#endif
  using std::sqrt;
  return sqrt(x);
}
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

// Running extrema: max(x, m) and min(x, m) for an accumulator m that is never
// NaN; a NaN x leaves m unchanged (the non-finite status catches it). On the
// GPU fmax/fmin have exactly these semantics in one instruction (a compare and
// select are two); on the CPU the compare and select compile to one
// maxss/minss (vector forms too), which fmax would not.
template <class T>
STRIBECK_HD_INLINE T running_max(const T& x, const T& m) {
#ifdef __CUDA_ARCH__
  return fmax(x, m);
#else
  return x > m ? x : m;
#endif
}
template <class T>
STRIBECK_HD_INLINE T running_min(const T& x, const T& m) {
#ifdef __CUDA_ARCH__
  return fmin(x, m);
#else
  return x < m ? x : m;
#endif
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
