#pragma once
// Tells GCC that glibc's vector math library (libmvec, linked through libm)
// has SIMD versions of the elementary functions the friction laws call. glibc
// declares them itself only under -ffast-math, which this code must not use
// (it would drop NaN handling and reorder the sums). With these declarations,
// -fno-math-errno and -fno-trapping-math, loops that call exp/tanh vectorise into calls such as _ZGVdN4v_exp (4 doubles, AVX2).
#include <cmath>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
extern "C" {
__attribute__((__simd__("notinbranch"))) double exp(double) noexcept;
__attribute__((__simd__("notinbranch"))) float expf(float) noexcept;
__attribute__((__simd__("notinbranch"))) double tanh(double) noexcept;
__attribute__((__simd__("notinbranch"))) float tanhf(float) noexcept;
}
#endif
