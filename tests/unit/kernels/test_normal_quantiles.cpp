// The normal quantiles written as constants (normal_quantiles.hpp), checked
// against the equation they stand for, Phi(z) = erfc(-z/sqrt 2)/2, evaluated
// in long double.
#include <gtest/gtest.h>

#include <cmath>

#include "stribeck/kernels/normal_quantiles.hpp"

namespace stribeck {
namespace {

long double phi(long double z) { return 0.5L * std::erfc(-z / std::sqrt(2.0L)); }

TEST(NormalQuantiles, Z975IsWithinOneUlpBelowTheQuantile) {
  const double z = math::kZ975, up = std::nextafter(z, 3.0);
  // One ulp of z moves Phi by about 1.3e-17; long double's erfc is good to
  // about 1e-19 here, so the signs are decided by z, not by rounding. (A
  // 50-digit evaluation: Phi(z) - 0.975 = -1.0876e-17, Phi(up) - 0.975 =
  // +2.1012e-18, so `up` is the nearest double; the header says why z is kept.)
  EXPECT_LT(phi(z), 0.975L);
  EXPECT_GT(phi(up), 0.975L);
  EXPECT_NEAR(static_cast<double>(phi(z) - 0.975L), -1.0876e-17, 1e-19);
}

}  // namespace
}  // namespace stribeck
