#pragma once
// exp(x) in double as straight-line arithmetic the compiler inlines and
// vectorises: the CPU SIMD lanes' exp on AVX-512 (math::exp selects it where
// the build defines STRIBECK_POLY_EXP: workloads/CMakeLists.txt, the x86_64_v4
// lanes level only).
//
// Why not the C library's vector exp there: libmvec's _ZGVeN8v_exp is faster
// in isolation (0.72 against 0.93 ns per value on the build VM's Zen 4), but
// it is a call, and the vector ABI makes every vector register
// caller-saved, so each call spills and reloads all of a lane group's
// coefficients and partial sums. Inlined, the grid sweep's FP64 sample cost
// fell from 2.27 to 1.70 ns (bench/RESULTS.md, 2026-11-25). With AVX2 the
// balance is the other way (2.35 against 3.18 ns: no 64-bit conversions and
// half the registers), so the x86_64_v3 level keeps libmvec.
//
// Method: x = n ln2 + r with n = round(x log2 e) (the 1.5 * 2^52 shift, which
// also leaves n in the low bits of t), |r| <= ln2/2 + tiny from a two-part
// ln2 (Cody-Waite, the high part exact in 11 bits of n), e^r by its Taylor
// polynomial of degree 13 (truncation below r^14/14! < 5e-18 relative), and
// the scaling by 2^n as two multiplies by 2^n1 and 2^n2 (n1 + n2 = n), so
// that subnormal results are rounded once and 2^1024 is never formed. x is
// clamped to [-746, 709.8] first: below, e^x rounds to 0; above, it
// overflows to +inf. NaN is returned as is. Error: within 1 ulp of the
// exactly rounded value over the whole range (tests/unit/kernels/test_poly_exp.cpp
// checks 2e7 arguments against long double and the special values).
#include <cstdint>

namespace stribeck::math {

inline __attribute__((always_inline)) double poly_exp(double x) {
  const double xc = x < -746.0 ? -746.0 : (x > 709.8 ? 709.8 : x);
  constexpr double kShift = 0x1.8p52;
  const double t = xc * 0x1.71547652b82fep0 + kShift;  // log2(e)
  const double n = t - kShift;
  double r = __builtin_fma(-n, 0x1.62e42fefa39efp-1, xc);  // ln2, high part
  r = __builtin_fma(-n, 0x1.abc9e3b39803fp-56, r);         // ln2, low part
  // e^r = 1 + r (1 + r q(r)), q = sum_k r^k / (k + 2)!, k = 0..11, q by
  // Estrin's scheme: six dependent operations after r instead of Horner's
  // thirteen. The exp of every RK4 stage lies on the stage's critical path,
  // which is what the FP64 ensemble lanes wait on (bench/RESULTS.md,
  // 2026-11-29). The last two steps stay Horner's: their single rounding of
  // 1 + r (...) keeps the 1 ulp bound (1 + (r + r^2 q) rounds twice: 1.04 ulp).
  const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  const double a0 = __builtin_fma(r, 1.0 / 6.0, 0.5), a1 = __builtin_fma(r, 1.0 / 120.0, 1.0 / 24.0);
  const double a2 = __builtin_fma(r, 1.0 / 5040.0, 1.0 / 720.0);
  const double a3 = __builtin_fma(r, 1.0 / 362880.0, 1.0 / 40320.0);
  const double a4 = __builtin_fma(r, 1.0 / 39916800.0, 1.0 / 3628800.0);
  const double a5 = __builtin_fma(r, 1.0 / 6227020800.0, 1.0 / 479001600.0);  // 1/13!, 1/12!
  const double b0 = __builtin_fma(r2, a1, a0), b1 = __builtin_fma(r2, a3, a2), b2 = __builtin_fma(r2, a5, a4);
  const double q = __builtin_fma(r8, b2, __builtin_fma(r4, b1, b0));
  const double p = __builtin_fma(__builtin_fma(q, r, 1.0), r, 1.0);
  // n + 1100 (in [23, 2124]) from t's low bits, unsigned so that only logical
  // shifts are needed (AVX2 has no 64-bit arithmetic shift); then the biased
  // exponents of 2^n1 and 2^n2, n1 = floor((n + 1100) / 2) - 550.
  const std::uint64_t nb = __builtin_bit_cast(std::uint64_t, t) - __builtin_bit_cast(std::uint64_t, kShift) + 1100u;
  const std::uint64_t e1 = (nb >> 1) + (1023u - 550u);
  const std::uint64_t e2 = nb - (nb >> 1) + (1023u - 550u);
  const double y = p * __builtin_bit_cast(double, e1 << 52) * __builtin_bit_cast(double, e2 << 52);
  return x != x ? x : y;
}

}  // namespace stribeck::math
