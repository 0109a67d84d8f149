// Sweep designs: the index -> point mapping of grid, random, Latin hypercube
// and Sobol' designs, checked against independent constructions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "stribeck/kernels/sweep/space.hpp"

namespace stribeck::sweep {
namespace {

SpaceView unit_space(Design d, int dims, std::uint64_t points, std::uint64_t seed = 1) {
  SpaceView s;
  s.design = d;
  s.dims = dims;
  s.points = points;
  s.seed = seed;
  for (int k = 0; k < dims; ++k) {
    s.axis[k].kind = AxisKind::kUniform;
    s.axis[k].a = 0;
    s.axis[k].b = 1;
  }
  return s;
}

TEST(SweepDesign, GridIsCartesianProductWithLastAxisFastest) {
  SpaceView s;
  s.design = Design::kGrid;
  s.dims = 3;
  const double list[] = {7, -1, 3.5};
  s.list_values = list;
  s.axis[0] = Axis{AxisKind::kList, 3, 0, 0, -HUGE_VAL, HUGE_VAL, 0};
  s.axis[1] = Axis{AxisKind::kLinear, 5, 1.0, 2.0, -HUGE_VAL, HUGE_VAL, 0};
  s.axis[2] = Axis{AxisKind::kLog, 4, 1e-3, 1.0, -HUGE_VAL, HUGE_VAL, 0};
  s.points = 3 * 5 * 4;
  std::uint64_t i = 0;
  double p[3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 5; ++b)
      for (int c = 0; c < 4; ++c, ++i) {
        space_point(s, i, p);
        EXPECT_EQ(p[0], list[a]) << i;
        EXPECT_NEAR(p[1], 1.0 + 0.25 * b, 1e-15) << i;
        EXPECT_NEAR(p[2], std::pow(10.0, -3.0 + c), 1e-15 * std::pow(10.0, -3.0 + c) * 8) << i;
      }
  space_point(s, 4 * 1 + 3, p);  // ends of ranges are exact
  EXPECT_EQ(p[1], 1.25);
  EXPECT_EQ(p[2], 1.0);
}

TEST(SweepDesign, SobolUnscrambledMatchesScipy) {
  // scipy.stats.qmc.Sobol(d=16, scramble=False).random(1024)[i] * 2^32
  // (scipy 1.10, Joe-Kuo 6.21201 direction numbers, Gray-code order).
  struct Row {
    std::uint64_t i;
    std::uint32_t x[16];
  };
  const Row rows[] = {
      {1,
       {2147483648u, 2147483648u, 2147483648u, 2147483648u, 2147483648u, 2147483648u, 2147483648u, 2147483648u,
        2147483648u, 2147483648u, 2147483648u, 2147483648u, 2147483648u, 2147483648u, 2147483648u, 2147483648u}},
      {5,
       {3758096384u, 3758096384u, 536870912u, 1610612736u, 3758096384u, 2684354560u, 3758096384u, 1610612736u,
        1610612736u, 536870912u, 1610612736u, 3758096384u, 3758096384u, 536870912u, 3758096384u, 1610612736u}},
      {11,
       {1879048192u, 2415919104u, 805306368u, 2952790016u, 3489660928u, 268435456u, 2952790016u, 2952790016u,
        2952790016u, 268435456u, 4026531840u, 1342177280u, 805306368u, 805306368u, 2415919104u, 805306368u}},
      {100,
       {1778384896u, 1107296256u, 3321888768u, 3120562176u, 3791650816u, 3187671040u, 100663296u, 2046820352u,
        2717908992u, 2986344448u, 1979711488u, 2919235584u, 2046820352u, 3657433088u, 1375731712u, 2113929216u}},
      {777,
       {2973761536u, 4022337536u, 700448768u, 1178599424u, 2730491904u, 1530920960u, 817889280u, 3275751424u,
        1497366528u, 1388314624u, 3200253952u, 2990538752u, 1648361472u, 2034237440u, 2445279232u, 2210398208u}},
      {1023,
       {4194304u, 3233808384u, 2629828608u, 624951296u, 801112064u, 1883242496u, 599785472u, 2654994432u, 1480589312u,
        3653238784u, 2915041280u, 155189248u, 557842432u, 2856321024u, 1556086784u, 1992294400u}},
  };
  for (const Row& r : rows)
    for (int d = 0; d < 16; ++d) EXPECT_EQ(sobol_bits(r.i, d), r.x[d]) << "point " << r.i << " dim " << d;
  for (int d = 0; d < 16; ++d) EXPECT_EQ(sobol_bits(0, d), 0u);
}

// Every elementary interval of a (0, m, 2)-net in base 2 holds exactly one
// point: Sobol' dimensions 1 and 2 form one, and Owen scrambling keeps it.
TEST(SweepDesign, ScrambledSobolKeepsNetProperty) {
  const int m = 8, n = 1 << m;
  SpaceView s = unit_space(Design::kSobol, 2, n, 12345);
  for (int k = 0; k <= m; ++k) {  // 2^k x 2^(m-k) boxes
    std::vector<int> hits(n, 0);
    double p[2];
    for (int i = 0; i < n; ++i) {
      space_point(s, i, p);
      const int a = static_cast<int>(p[0] * (1 << k)), b = static_cast<int>(p[1] * (1 << (m - k)));
      ++hits[a * (1 << (m - k)) + b];
    }
    for (int h : hits) ASSERT_EQ(h, 1) << "boxes 2^" << k << " x 2^" << (m - k);
  }
}

TEST(SweepDesign, ScrambleDependsOnSeedAndIsDeterministic) {
  SpaceView a = unit_space(Design::kSobol, 4, 64, 1), b = unit_space(Design::kSobol, 4, 64, 2);
  double pa[4], pa2[4], pb[4];
  int differ = 0;
  for (int i = 0; i < 64; ++i) {
    space_point(a, i, pa);
    space_point(a, i, pa2);
    space_point(b, i, pb);
    for (int d = 0; d < 4; ++d) {
      EXPECT_EQ(pa[d], pa2[d]);
      differ += pa[d] != pb[d];
    }
  }
  EXPECT_GT(differ, 200);
}

TEST(SweepDesign, LatinHypercubeHasOnePointPerStratum) {
  for (std::uint64_t n : {1ull, 7ull, 100ull, 1000ull}) {
    SpaceView s = unit_space(Design::kLatinHypercube, 3, n, 99);
    std::vector<std::vector<int>> hits(3, std::vector<int>(n, 0));
    double p[3];
    for (std::uint64_t i = 0; i < n; ++i) {
      space_point(s, i, p);
      for (int d = 0; d < 3; ++d) {
        ASSERT_GE(p[d], 0.0);
        ASSERT_LT(p[d], 1.0);
        ++hits[d][static_cast<std::size_t>(p[d] * static_cast<double>(n))];
      }
    }
    for (int d = 0; d < 3; ++d)
      for (std::uint64_t k = 0; k < n; ++k) ASSERT_EQ(hits[d][k], 1) << "n " << n << " dim " << d << " stratum " << k;
  }
}

TEST(SweepDesign, PermuteIndexIsABijection) {
  for (std::uint64_t n : {1ull, 2ull, 3ull, 5ull, 64ull, 1000ull, 4097ull}) {
    std::set<std::uint64_t> seen;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t j = permute_index(i, n, 77);
      ASSERT_LT(j, n);
      seen.insert(j);
    }
    EXPECT_EQ(seen.size(), n);
  }
}

TEST(SweepDesign, RandomDesignIsUniform) {
  const std::uint64_t n = 100000;
  SpaceView s = unit_space(Design::kRandom, 2, n, 5);
  double sum[2] = {0, 0}, p[2];
  int low[2] = {0, 0};
  for (std::uint64_t i = 0; i < n; ++i) {
    space_point(s, i, p);
    for (int d = 0; d < 2; ++d) {
      ASSERT_GE(p[d], 0.0);
      ASSERT_LT(p[d], 1.0);
      sum[d] += p[d];
      low[d] += p[d] < 0.1;
    }
  }
  for (int d = 0; d < 2; ++d) {
    EXPECT_NEAR(sum[d] / n, 0.5, 5 * std::sqrt(1.0 / 12 / n));  // 5 sigma
    EXPECT_NEAR(low[d], 0.1 * n, 5 * std::sqrt(0.09 * n));
  }
}

TEST(SweepDesign, NormalQuantileInvertsTheCdf) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(normal_quantile(1e-10), -6.361340902404056, 1e-12);
  // Phi(x) rounds to 1 in double above ~5, so the round trip stops there.
  for (double x = -8; x <= 5; x += 0.37) EXPECT_NEAR(normal_quantile(normal_cdf(x)), x, 1e-9 * (1 + std::fabs(x)));
}

TEST(SweepDesign, TruncatedNormalAndLogAxesStayInRange) {
  SpaceView s;
  s.design = Design::kLatinHypercube;
  s.dims = 2;
  s.points = 2000;
  s.axis[0] = Axis{AxisKind::kNormal, 1, 100.0, 30.0, 50.0, 120.0, 0};
  s.axis[1] = Axis{AxisKind::kLogUniform, 1, 1e-4, 1e-1, -HUGE_VAL, HUGE_VAL, 0};
  double p[2], below_mean = 0, decade_low = 0;
  for (std::uint64_t i = 0; i < s.points; ++i) {
    space_point(s, i, p);
    ASSERT_GE(p[0], 50.0);
    ASSERT_LE(p[0], 120.0);
    ASSERT_GE(p[1], 1e-4);
    ASSERT_LE(p[1], 1e-1);
    below_mean += p[0] < 100.0;
    decade_low += p[1] < 1e-3;
  }
  // P(X < 100 | 50 <= X <= 120) = (Phi(0) - Phi(-5/3)) / (Phi(2/3) - Phi(-5/3)); LHS makes it exact to 1/n.
  const double expect = (0.5 - normal_cdf(-5.0 / 3)) / (normal_cdf(2.0 / 3) - normal_cdf(-5.0 / 3));
  EXPECT_NEAR(below_mean / s.points, expect, 1.5 / s.points);
  EXPECT_NEAR(decade_low / s.points, 1.0 / 3, 1.5 / s.points);
}

TEST(SweepDesign, NormalFarInTheUpperTailKeepsItsShape) {
  // N(0, 1) truncated to [6, 8]: the conditional median is 6 + ln(2)/6 to O(1/36) (exponential tail).
  SpaceView s;
  s.design = Design::kLatinHypercube;
  s.dims = 1;
  s.points = 1001;
  s.axis[0] = Axis{AxisKind::kNormal, 1, 0.0, 1.0, 6.0, 8.0, 0};
  std::vector<double> v;
  double p;
  for (std::uint64_t i = 0; i < s.points; ++i) space_point(s, i, &p), v.push_back(p);
  std::sort(v.begin(), v.end());
  EXPECT_GE(v.front(), 6.0);
  EXPECT_LE(v.back(), 8.0);
  EXPECT_NEAR(v[500], 6.0 + std::log(2.0) / 6.0, 0.01);
  // P(X > 7 | X >= 6) = Q(7)/Q(6) = 1.295e-3: LHS puts 1 or 2 of 1001 points there.
  const auto above = std::count_if(v.begin(), v.end(), [](double x) { return x > 7.0; });
  EXPECT_GE(above, 1);
  EXPECT_LE(above, 2);
}

}  // namespace
}  // namespace stribeck::sweep
