// Input profiles of the simulations (kernels/systems/profile.hpp): a table
// of samples interpolated linearly between them and held outside them.
#include <gtest/gtest.h>

#include "stribeck/kernels/systems/profile.hpp"

namespace stribeck {
namespace {

TEST(Profile, TableIsInterpolatedAndHeld) {
  const double t[] = {0.0, 1.0, 3.0};
  const double y[] = {2.0, 4.0, 0.0};
  Profile<double> p = constant_profile(1.0);
  p.table_t = t;
  p.table_y = y;
  p.table_n = 3;
  EXPECT_DOUBLE_EQ(p.value(-1.0), 3.0);  // held before the first sample
  EXPECT_DOUBLE_EQ(p.value(0.5), 4.0);
  EXPECT_DOUBLE_EQ(p.value(2.0), 3.0);
  EXPECT_DOUBLE_EQ(p.value(5.0), 1.0);  // held after the last
  EXPECT_DOUBLE_EQ(p.rate(0.5), 2.0);
  EXPECT_DOUBLE_EQ(p.rate(2.0), -2.0);
  EXPECT_DOUBLE_EQ(p.rate(5.0), 0.0);
}

}  // namespace
}  // namespace stribeck
