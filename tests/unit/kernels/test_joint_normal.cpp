// The sweep space's multivariate normal (kJointNormal axes): draws in
// internal coordinates whose sample mean and covariance are the given ones,
// mapped by each component's transform (identity, log, excess over another
// axis), on every non-grid design.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "stribeck/kernels/sweep/space.hpp"

namespace stribeck::sweep {
namespace {

// Three joint components (identity, log, excess over axis 0) and one fixed
// axis between them, so component order and axis order differ.
struct JointCase {
  std::vector<double> list;  // mean, then the lower Cholesky factor
  SpaceView s;
  double mean[3] = {2.0, std::log(0.5), 0.3};
  double cov[3][3] = {{0.04, 0.01, -0.006}, {0.01, 0.09, 0.0}, {-0.006, 0.0, 0.0025}};

  JointCase(Design d, std::uint64_t points) {
    // Cholesky of cov, computed here in long double (independent of the code under test).
    long double L[3][3] = {};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j <= i; ++j) {
        long double x = cov[i][j];
        for (int k = 0; k < j; ++k) x -= L[i][k] * L[j][k];
        L[i][j] = i == j ? std::sqrt(x) : x / L[j][j];
      }
    list.assign(mean, mean + 3);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) list.push_back(static_cast<double>(L[i][j]));
    s.design = d;
    s.dims = 4;
    s.points = points;
    s.seed = 7;
    s.axis[0] = Axis{AxisKind::kJointNormal, 0, kJointIdentity, 0, -HUGE_VAL, HUGE_VAL, 0};
    s.axis[1] = Axis{AxisKind::kFixed, 1, 42.0, 0, -HUGE_VAL, HUGE_VAL, 0};
    s.axis[2] = Axis{AxisKind::kJointNormal, 2, kJointExcess, 0, -HUGE_VAL, HUGE_VAL, 0};  // over axis 0
    s.axis[3] = Axis{AxisKind::kJointNormal, 1, kJointLog, 0, -HUGE_VAL, HUGE_VAL, 0};
    s.joint = 3;
    s.joint_offset = 0;
    s.list_values = list.data();
  }
};

void expect_moments(Design d, std::uint64_t n, double tol_sd) {
  JointCase c(d, n);
  std::vector<std::vector<double>> y(3, std::vector<double>(n));
  double out[4];
  for (std::uint64_t i = 0; i < n; ++i) {
    space_point(c.s, i, out);
    ASSERT_EQ(out[1], 42.0);
    ASSERT_GT(out[3], 0.0);
    y[0][i] = out[0];
    y[1][i] = std::log(out[3]);
    y[2][i] = out[2] - out[0];
  }
  double m[3];
  for (int a = 0; a < 3; ++a) {
    long double sum = 0;
    for (double v : y[a]) sum += v;
    m[a] = static_cast<double>(sum / n);
    // Standard error of a mean: sd / sqrt(n).
    EXPECT_NEAR(m[a], c.mean[a], tol_sd * std::sqrt(c.cov[a][a] / n)) << "component " << a;
  }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b <= a; ++b) {
      long double sum = 0;
      for (std::uint64_t i = 0; i < n; ++i) sum += (y[a][i] - m[a]) * (y[b][i] - m[b]);
      const double cab = static_cast<double>(sum / (n - 1));
      // Standard error of a sample covariance: sqrt((s_aa s_bb + s_ab^2) / n).
      const double se = std::sqrt((c.cov[a][a] * c.cov[b][b] + c.cov[a][b] * c.cov[a][b]) / n);
      EXPECT_NEAR(cab, c.cov[a][b], tol_sd * se) << "covariance " << a << "," << b;
    }
}

TEST(JointNormal, RandomDrawsHaveTheGivenMeanAndCovariance) { expect_moments(Design::kRandom, 200000, 5.0); }

TEST(JointNormal, SobolAndLatinHypercubeDrawsHaveTheGivenMeanAndCovariance) {
  // Quasi-random points integrate smooth moments better than random ones:
  // the same 5-sigma bound of independent draws holds with room to spare.
  expect_moments(Design::kSobol, 1 << 16, 5.0);
  expect_moments(Design::kLatinHypercube, 50000, 5.0);
}

TEST(JointNormal, AFirstSobolPointAtZeroStaysFinite) {
  JointCase c(Design::kSobol, 4);
  c.s.scramble = false;  // point 0 of the plain sequence is u = 0 in every dimension
  double out[4];
  space_point(c.s, 0, out);
  for (double v : out) EXPECT_TRUE(std::isfinite(v));
}

TEST(JointNormal, ZeroCovarianceGivesTheMeanExactly) {
  JointCase c(Design::kRandom, 16);
  for (size_t k = 3; k < c.list.size(); ++k) c.list[k] = 0.0;
  double out[4];
  for (std::uint64_t i = 0; i < 16; ++i) {
    space_point(c.s, i, out);
    EXPECT_EQ(out[0], 2.0);
    EXPECT_EQ(out[3], std::exp(std::log(0.5)));
    EXPECT_EQ(out[2], 2.0 + 0.3);
  }
}

}  // namespace
}  // namespace stribeck::sweep
