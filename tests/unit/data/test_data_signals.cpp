// Derived signals: the SG differentiator is exact on polynomials (also on
// non-uniform time and at the ends), its cut-off is where it says, and the
// segmentation finds the plateaus and reversals that were built in.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/signals.hpp"

namespace stribeck {
namespace {

constexpr double kPi = 3.14159265358979323846;

TEST(DataSignals, ExactOnPolynomialsWithJitteredTime) {
  std::vector<double> t, x;
  double tt = 0;
  for (int i = 0; i < 200; ++i) {
    t.push_back(tt);
    x.push_back(3.0 + 2.0 * tt - 5.0 * tt * tt);
    tt += 0.01 + 0.001 * ((i * 7) % 3);  // 10, 11, 12 ms steps
  }
  for (int M : {2, 5, 40}) {
    const auto v = data::sg_derivative(t, x, 1, M, 2);
    const auto a = data::sg_derivative(t, x, 2, M, 2);
    const auto s = data::sg_derivative(t, x, 0, M, 2);
    for (size_t i = 0; i < t.size(); ++i) {
      EXPECT_NEAR(v[i], 2.0 - 10.0 * t[i], 1e-9) << "M=" << M << " i=" << i;
      EXPECT_NEAR(a[i], -10.0, 1e-7) << "M=" << M << " i=" << i;
      EXPECT_NEAR(s[i], x[i], 1e-10);
    }
  }
}

TEST(DataSignals, CutoffIsTheMinus3dBPoint) {
  // Filter a sine at the reported cut-off in the time domain; its amplitude
  // in the interior must be 1/sqrt(2).
  for (int order : {2, 4}) {
    for (int M : {5, 12, 30}) {
      const double frac = data::sg_cutoff_fraction(M, order);
      std::vector<double> t(4000), x(4000);
      for (size_t i = 0; i < t.size(); ++i) {
        t[i] = static_cast<double>(i);
        x[i] = std::sin(2 * kPi * frac * t[i] + 0.3);
      }
      const auto y = data::sg_derivative(t, x, 0, M, order);
      double peak = 0;
      for (size_t i = 500; i < 3500; ++i) peak = std::max(peak, std::abs(y[i]));
      EXPECT_NEAR(peak, 1 / std::sqrt(2.0), 2e-3) << "order " << order << " M " << M;
    }
  }
  // The half-width search lands on the window whose cut-off is nearest.
  const int M = data::sg_half_width(5.0, 100.0, 2);
  EXPECT_LE(std::abs(data::sg_cutoff_fraction(M, 2) - 0.05), std::abs(data::sg_cutoff_fraction(M + 1, 2) - 0.05));
  EXPECT_LE(std::abs(data::sg_cutoff_fraction(M, 2) - 0.05), std::abs(data::sg_cutoff_fraction(M - 1, 2) - 0.05));
}

TEST(DataSignals, DeriveVelocityOfASlowSine) {
  data::Experiment e;
  e.name = "sine";
  e.source = "mem";
  std::vector<double> t(2001), x(2001);
  for (size_t i = 0; i < t.size(); ++i) {
    t[i] = 1e-3 * static_cast<double>(i);
    x[i] = 0.01 * std::sin(2 * kPi * t[i]);
  }
  e.channels = {{"time", t}, {"position", x}};
  e.units = {{"time", "s"}, {"position", "m"}};
  data::DeriveOptions o;
  o.cutoff_hz = 20;
  const auto s = data::derive_channels(e, {"velocity", "acceleration"}, o);
  EXPECT_DOUBLE_EQ(s.cutoff_hz, 20);
  const auto& v = e.channels.at("velocity");
  const auto& a = e.channels.at("acceleration");
  // A quadratic fit over +-M samples has a bias of order (omega*M*dt)^2: at
  // 1 Hz and M ~ 25 ms that is ~0.3 %; at the ends (shifted windows) more.
  const size_t M = static_cast<size_t>(s.half_width);
  for (size_t i = 0; i < t.size(); i += 10) {
    const bool edge = i < M || i + M >= t.size();
    EXPECT_NEAR(v[i], 0.02 * kPi * std::cos(2 * kPi * t[i]), (edge ? 2e-2 : 3e-3) * 0.02 * kPi) << i;
    if (!edge) EXPECT_NEAR(a[i], -0.04 * kPi * kPi * std::sin(2 * kPi * t[i]), 1e-2 * 0.04 * kPi * kPi) << i;
  }
  EXPECT_EQ(e.units.at("velocity"), "m/s");
  EXPECT_NE(e.attributes.at("derived_velocity").find("cutoff 20 Hz"), std::string::npos);
  EXPECT_THROW(data::derive_channels(e, {"velocity"}, o), data::InputError);  // never overwrite
}

TEST(DataSignals, ResampleIsLinearInterpolation) {
  data::Experiment e;
  e.name = "r";
  e.channels = {{"time", {0, 0.1, 0.25, 0.3, 0.4}}, {"force", {0, 1, 2.5, 3, 4}}};
  e.units = {{"time", "s"}, {"force", "N"}};
  data::resample_uniform(e, 0.05);
  ASSERT_EQ(e.size(), 9u);
  for (size_t k = 0; k < 9; ++k) {
    EXPECT_NEAR(e.channels.at("time")[k], 0.05 * static_cast<double>(k), 1e-15);
    EXPECT_NEAR(e.channels.at("force")[k], 0.5 * static_cast<double>(k), 1e-12);
  }
}

TEST(DataSignals, PlateausAndReversals) {
  // 1 s plateaus at +-0.01 and +-0.1 m/s with a 0.1 s ramp between them.
  const double levels[] = {0.01, -0.01, 0.1, -0.1};
  std::vector<double> t, v, f;
  double now = 0, prev = 0;
  const double dt = 1e-3;
  for (double level : levels) {
    for (int i = 0; i < 100; ++i, now += dt) {  // ramp
      t.push_back(now);
      v.push_back(prev + (level - prev) * i / 100.0);
      f.push_back((v.back() > 0 ? 10.0 : -10.0) + 100.0 * v.back());
    }
    for (int i = 0; i < 1000; ++i, now += dt) {
      t.push_back(now);
      v.push_back(level * (1 + 0.001 * ((i % 5) - 2)));
      f.push_back((level > 0 ? 10.0 : -10.0) + 100.0 * level + ((i % 2) ? 0.5 : -0.5));
    }
    prev = level;
  }
  const auto p = data::find_plateaus(t, v, f);
  ASSERT_EQ(p.size(), 4u);
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(p[k].direction, levels[k] > 0 ? 1 : -1);
    EXPECT_NEAR(p[k].velocity, levels[k], 1e-3 * std::abs(levels[k]));
    EXPECT_NEAR(p[k].force, (levels[k] > 0 ? 10.0 : -10.0) + 100.0 * levels[k], 1e-2);
    EXPECT_NEAR(p[k].force_std, 0.5, 1e-2);
    EXPECT_GE(p[k].duration, 0.95);
  }
  const auto r = data::find_reversals(v, 1e-4);
  ASSERT_EQ(r.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {  // each reversal lies between plateaus k and k+1, with the new sign
    EXPECT_GT(r[k], p[k].begin);
    EXPECT_LT(r[k], p[k + 1].end);
    EXPECT_GT(v[r[k]] * levels[k + 1], 0);
    EXPECT_LT(v[r[k] - 1] * levels[k + 1], 1e-4 * std::abs(levels[k + 1]));
  }
}

// The shipped example (scripts/make-examples.sh): three pressure levels, and
// a plateau analysis that finds the built-in Stribeck curve.
TEST(DataSignals, ExampleLogHoldsAStribeckCurve) {
  const auto exps = data::read_log(std::string(STRIBECK_SOURCE_DIR) + "/data/examples/cylinder_plateaus.h5");
  ASSERT_EQ(exps.size(), 3u);
  EXPECT_EQ(exps[0].name, "p10bar");
  EXPECT_EQ(exps[0].attributes.at("generator_model"), "simscape-cylinder");
  for (const auto& e : exps) {
    data::PlateauOptions po;
    po.min_duration = 0.5;
    const auto p = data::find_plateaus(e.channel("time"), e.channel("velocity"), e.channel("force"), po);
    EXPECT_EQ(p.size(), 24u) << e.name;  // 12 levels x 2 directions
    for (const auto& q : p) EXPECT_GT(q.force * q.direction, 0.0);
  }
}

// Real data (../shared, CC0): a pneumatic cylinder stroking at ~10 mm/s.
TEST(DataSignals, PneumaticSealImportDerivesVelocity) {
  const char* env = std::getenv("STRIBECK_SHARED_DIR");
  const std::string dir = std::string(env ? env : STRIBECK_SHARED_DIR) + "/data/pneumatic-seals";
  const std::string path = dir + "/O-ring_3bar.csv";
  if (!std::ifstream(path)) GTEST_SKIP() << path << " not present";
  data::ReadOptions o;
  o.columns = data::parse_column_specs("time=0:ms,position=4:mm,pressure_a=5:bar,force=6:N");
  auto exps = data::read_any_log(path, o);
  ASSERT_EQ(exps.size(), 1u);
  data::Experiment& e = exps[0];
  EXPECT_EQ(e.name, "O-ring_3bar");
  EXPECT_GT(e.size(), 1000u);
  const auto s = data::derive_channels(e, {"velocity"});
  EXPECT_GT(s.rate_hz, 80);
  EXPECT_LT(s.rate_hz, 110);
  // Strokes of ~40 mm at ~10 mm/s in both directions.
  data::PlateauOptions po;
  po.rel_tolerance = 0.3;
  po.abs_tolerance = 1e-3;
  po.min_duration = 1.0;
  const auto p = data::find_plateaus(e.channel("time"), e.channel("velocity"), e.channel("force"), po);
  int up = 0, down = 0;
  for (const auto& q : p) {
    EXPECT_GT(std::abs(q.velocity), 0.003);
    EXPECT_LT(std::abs(q.velocity), 0.03);
    (q.direction > 0 ? up : down)++;
  }
  EXPECT_GE(up, 3);
  EXPECT_GE(down, 3);
  const double p_mean = [&] {
    double s2 = 0;
    for (double x : e.channel("pressure_a")) s2 += x;
    return s2 / static_cast<double>(e.size());
  }();
  EXPECT_NEAR(p_mean, 3e5, 0.5e5);

  // The authors' own figure (SOURCES.md): friction range = mean(F - p*A) while
  // moving one way minus the other, about 8 N at 1 bar growing to about 16 N
  // at 7 bar for the O-ring (d = 25 mm, first 15 samples dropped).
  const double area = 3.14159265358979323846 * 0.0125 * 0.0125;
  std::vector<double> ranges;
  for (int bar : {1, 3, 5, 7}) {
    auto ex = data::read_any_log(dir + "/O-ring_" + std::to_string(bar) + "bar.csv", o).at(0);
    data::derive_channels(ex, {"velocity"});
    const auto& v = ex.channel("velocity");
    const auto& f = ex.channel("force");
    const auto& pa = ex.channel("pressure_a");
    double up = 0, down = 0;
    int nu = 0, nd = 0;
    for (size_t i = 15; i < ex.size(); ++i) {
      const double ff = f[i] - pa[i] * area;
      if (v[i] > 0.005) up += ff, ++nu;
      if (v[i] < -0.005) down += ff, ++nd;
    }
    ASSERT_GT(nu, 100);
    ASSERT_GT(nd, 100);
    ranges.push_back(up / nu - down / nd);
  }
  EXPECT_NEAR(ranges.front(), 8.0, 2.0);
  EXPECT_NEAR(ranges.back(), 16.0, 3.0);
  for (size_t k = 1; k < ranges.size(); ++k) EXPECT_GT(ranges[k], ranges[k - 1]);
}

}  // namespace
}  // namespace stribeck
