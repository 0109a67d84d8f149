// Axis ticks of the reports (report/src/ticks.cpp): nice values inside the
// range and labels that tell every tick apart, in either notation; never
// "0" for a nonzero tick (a 1e-7...1e-5 axis read "0" at every tick).
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "stribeck/report/figure.hpp"

namespace {

using stribeck::report::axis_ticks;
using stribeck::report::tick_label;
using stribeck::report::Ticks;

// Ticks inside [lo, hi], increasing, at least two, labels distinct, and a
// label reads "0" exactly when its value is zero and reads back to its value.
void check_axis(double lo, double hi, bool log = false) {
  SCOPED_TRACE("range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]" + (log ? " log" : ""));
  const Ticks t = axis_ticks(lo, hi, log);
  ASSERT_EQ(t.values.size(), t.labels.size());
  ASSERT_GE(t.values.size(), 2u);
  EXPECT_LE(t.values.size(), 12u);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    const double v = t.values[i];
    const std::string& l = t.labels[i];
    SCOPED_TRACE("tick " + l);
    EXPECT_GE(v, lo - 1e-9 * std::abs(lo));
    EXPECT_LE(v, hi + 1e-9 * std::abs(hi));
    if (i) EXPECT_GT(v, t.values[i - 1]);
    EXPECT_TRUE(seen.insert(l).second) << "label repeated";
    EXPECT_EQ(l == "0", v == 0);
    EXPECT_NEAR(std::stod(l), v, 1e-9 * std::max(std::abs(v), (hi - lo)));
    EXPECT_EQ(l.find("e+"), std::string::npos);
    EXPECT_EQ(l.find("e-0"), std::string::npos);
  }
}

TEST(ReportTicks, SmallPositiveRangeReadsScientificNeverZero) {
  const Ticks t = axis_ticks(1e-7, 1e-5);
  ASSERT_FALSE(t.labels.empty());
  for (const auto& l : t.labels) EXPECT_NE(l.find('e'), std::string::npos) << l;
  EXPECT_EQ(t.labels.back(), "1e-5");
  EXPECT_EQ(t.labels.front(), "2e-6");
  check_axis(1e-7, 1e-5);
}

TEST(ReportTicks, NiceValuesForAZeroToSixtyAxis) {
  const Ticks t = axis_ticks(-2.7272727, 62.727272);
  const std::vector<std::string> want{"0", "10", "20", "30", "40", "50", "60"};
  EXPECT_EQ(t.labels, want);
  check_axis(-2.7272727, 62.727272);
}

TEST(ReportTicks, RangesAcrossTwentyFourDecades) {
  for (int e = -12; e <= 12; ++e) {
    const double s = std::pow(10.0, e);
    check_axis(0, s);
    check_axis(s, 7 * s);
    check_axis(-3 * s, -s);
    check_axis(-s, 2.5 * s);
  }
  const Ticks big = axis_ticks(0, 3e12);
  EXPECT_EQ(big.labels[1], "5e11");
  const Ticks mid = axis_ticks(1e12, 2e12);
  EXPECT_EQ(mid.labels[1], "1.2e12");
}

TEST(ReportTicks, ZeroCrossingHasOneZero) {
  const Ticks t = axis_ticks(-0.2, 0.2);
  EXPECT_EQ(t.labels, (std::vector<std::string>{"-0.2", "-0.15", "-0.1", "-0.05", "0", "0.05", "0.1", "0.15", "0.2"}));
  int zeros = 0;
  for (std::size_t i = 0; i < t.values.size(); ++i) zeros += t.labels[i] == "0";
  EXPECT_EQ(zeros, 1);
  check_axis(-0.2, 0.2);
  check_axis(-3e-6, 1e-6);
  check_axis(-250, 14);
}

TEST(ReportTicks, TinySpansTellTicksApart) {
  check_axis(1.0, 1.0 + 1e-9);
  check_axis(1e6, 1e6 + 0.003);
  check_axis(-5e-8, -5e-8 + 1e-14);
  // No span at all: one tick, the value itself.
  const Ticks one = axis_ticks(42, 42);
  ASSERT_EQ(one.values.size(), 1u);
  EXPECT_EQ(std::stod(one.labels[0]), 42);
}

TEST(ReportTicks, LogAxesHaveDecades) {
  const Ticks t = axis_ticks(1e-7, 1e-5, true);
  EXPECT_EQ(t.labels, (std::vector<std::string>{"1e-7", "1e-6", "1e-5"}));
  const Ticks f = axis_ticks(0.9, 1100, true);
  EXPECT_EQ(f.labels, (std::vector<std::string>{"1", "10", "100", "1000"}));
  check_axis(1e-12, 1e12, true);
  EXPECT_LE(axis_ticks(1e-12, 1e12, true).values.size(), 7u);
  // Less than two decades: 1, 2, 5 per decade.
  const Ticks n = axis_ticks(1.5, 60, true);
  EXPECT_EQ(n.labels, (std::vector<std::string>{"2", "5", "10", "20", "50"}));
  check_axis(3e-9, 4e-8, true);
  // Less than 2x: linear ticks.
  check_axis(1.1, 1.9, true);
}

TEST(ReportTicks, LabelOfAValue) {
  EXPECT_EQ(tick_label(2e-6, 1e-6, true), "2e-6");
  EXPECT_EQ(tick_label(1.5e-6, 5e-7, true), "1.5e-6");
  EXPECT_EQ(tick_label(0.25, 0.05, false), "0.25");
  EXPECT_EQ(tick_label(0, 1e-7, true), "0");
  EXPECT_EQ(tick_label(-4e-7, 2e-7, true), "-4e-7");
}

}  // namespace
