// poly_exp (kernels/poly_exp.hpp), the AVX-512 lanes' exp in double, against
// expl in long double (64-bit mantissa: 11 more bits than the result), over
// its whole domain, and its special values.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include "stribeck/kernels/poly_exp.hpp"

namespace stribeck {
namespace {

// |poly_exp(x) - e^x| in units of the last place of e^x (for subnormal and
// zero results, the smallest subnormal).
double ulp_error(double x) {
  const long double exact = expl(static_cast<long double>(x));
  const double got = math::poly_exp(x);
  const int e = exact == 0 ? -1074 : std::max(std::ilogb(static_cast<double>(exact)), -1022) - 52;
  return static_cast<double>(fabsl(static_cast<long double>(got) - exact) / std::ldexp(1.0L, e));
}

TEST(PolyExp, WithinOneUlpOverTheWholeFiniteRange) {
  double worst = 0, at = 0;
  auto check = [&](double x) {
    const double u = ulp_error(x);
    if (u > worst) worst = u, at = x;
  };
  std::mt19937_64 rng(20261125);
  std::uniform_real_distribution<double> wide(-745.2, 709.78);  // results from the smallest subnormal to near DBL_MAX
  for (int i = 0; i < 2000000; ++i) check(wide(rng));
  std::uniform_real_distribution<double> small(-1.0, 1.0);  // the Stribeck decays' range, where r = x
  for (int i = 0; i < 1000000; ++i) check(small(rng));
  for (double x = -708.5; x > -745.2; x -= 1e-4) check(x);  // subnormal results: one rounding
  for (double x = -1e-6; x <= 1e-6; x += 1e-9) check(x);    // around 0, where e^x = 1 + x
  EXPECT_LE(worst, 1.0) << "at x = " << at;
}

TEST(PolyExp, SpecialValuesAndTheEndsOfTheRange) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(math::poly_exp(std::nan(""))));
  EXPECT_EQ(math::poly_exp(kInf), kInf);
  EXPECT_EQ(math::poly_exp(-kInf), 0.0);
  EXPECT_EQ(math::poly_exp(0.0), 1.0);
  EXPECT_EQ(math::poly_exp(-0.0), 1.0);
  EXPECT_EQ(math::poly_exp(1.0), std::exp(1.0));
  // The largest finite result and the first overflow (e^709.7827128933840 < DBL_MAX < e^709.78271289338400...01).
  EXPECT_TRUE(std::isfinite(math::poly_exp(709.782712893384)));
  EXPECT_NEAR(math::poly_exp(709.782712893384) / DBL_MAX, 1.0, 1e-13);
  EXPECT_EQ(math::poly_exp(709.79), kInf);
  EXPECT_EQ(math::poly_exp(1e300), kInf);
  // The smallest subnormal and below.
  EXPECT_EQ(math::poly_exp(-745.1332191019411), std::ldexp(1.0, -1074));
  EXPECT_EQ(math::poly_exp(-746.0), 0.0);
  EXPECT_EQ(math::poly_exp(-1e300), 0.0);
}

}  // namespace
}  // namespace stribeck
