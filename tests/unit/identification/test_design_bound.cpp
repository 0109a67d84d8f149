// The certified bound of `stribeck design` (design.hpp: DesignBound): equal
// to bench/peers/design_bound.py's on the bench rigs within that peer's own
// certificate gap, equal to a closed form where one parameter is free, never
// above a test's prediction; none for a law with memory; and the `levels`
// candidate on a rig whose stroke caps the time at speed (issue 33 item 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "design_bound.hpp"
#include "design_plateaus.hpp"
#include "../common/design_bench_rigs.hpp"
#include "stribeck/identification/design.hpp"
#include "stribeck/workloads/design_file.hpp"

namespace stribeck {
namespace {

// bench/peers/design_bound.py (SciPy's HiGHS and SLSQP, 200 speeds, the
// certificate on 1,991), 2026-11-29: its optimal measure's worst relative
// standard error and the lower bound it certified.
struct Peer {
  double measure, lower;
};
constexpr Peer kServo{0.003360529636187563, 0.0033416084313745557};
constexpr Peer kCylinder{0.013524540885596193, 0.013514676339574613};

TEST(DesignBound, EqualsThePeersOnTheBenchRigsWithinItsCertificateGap) {
  for (bool servo : {true, false}) {
    const ident::DesignRequest r = test::design_bench_rig(servo);
    const ident::DesignEvaluation ref = ident::reference_design(r);
    const ident::DesignBound b = ident::design_bound(r, ref.prediction);
    const Peer peer = servo ? kServo : kCylinder;
    const char* name = servo ? "servo" : "cylinder";
    ASSERT_TRUE(b.computed) << name << ": " << b.why_not;
    EXPECT_EQ(b.grid_speeds, 1991) << name;
    // Both are lower bounds of one optimum that the peer's measure reaches
    // within its gap (the peer counts 30,000 samples, this bound one more
    // per experiment: 1e-4 of the variance at most).
    EXPECT_NEAR(b.worst_rse, peer.lower, peer.measure - peer.lower) << name;
    EXPECT_LE(b.worst_rse, peer.measure) << name;
    EXPECT_LE(b.worst_rse, b.measure_rse * (1 + 1e-12)) << name;
    EXPECT_LE(b.measure_rse, b.worst_rse * 1.002) << name << ": the optimisation did not converge";
    // No test does better: the reference neither.
    EXPECT_GT(ref.prediction.worst_rse, b.worst_rse) << name;
  }
}

// Simscape Rotational Friction with only T_brk free: dF/dT_brk =
// sqrt(2e) x exp(-x^2), x = w / (sqrt(2) w_brk), whose largest value is 1
// at w = w_brk. So the best test holds w_brk the whole time (the stroke
// allows all but 2e-7 of it there) and its relative standard error is
// sigma / (T_brk sqrt(N)), N the samples a test of the rig can have
// (floor(T rate) + 1 per experiment).
TEST(DesignBound, OneFreeParameterPutsAllTimeAtItsMostInformativeSpeed) {
  ident::DesignRequest r;
  r.model = "simscape-rotational";
  const double T_brk = 1.2, w_brk = 0.1, sigma = 0.05;
  r.prior = {T_brk, w_brk, 0.8, 0.05};
  r.fit.fix = {"w_brk=0.1", "T_C=0.8", "f_v=0.05"};
  r.rig.stroke = 1000;
  r.rig.v_max = 10;  // w_brk on the certificate's grid (10^(-5 k / 1990), k = 796)
  r.rig.a_max = 100;
  r.rig.duration = 10;
  r.rig.rate_hz = 100;
  r.rig.force_noise = sigma;
  r.rig.max_experiments = r.experiments = 1;
  r.profiles = {"levels", "plateaus"};
  const double closed = sigma / (T_brk * std::sqrt(std::floor(10 * 100.0) + 1));
  const ident::DesignResult d = ident::design_experiment(r);
  ASSERT_EQ(d.design.prediction.parameters.size(), 1u);
  ASSERT_TRUE(d.bound.computed) << d.bound.why_not;
  EXPECT_NEAR(d.bound.worst_rse, closed, 1e-5 * closed);
  EXPECT_NEAR(d.bound.measure_rse, closed, 1e-5 * closed);
  // The design (a plateau at w_brk) reaches it within its ramps, not below.
  EXPECT_GE(d.design.prediction.worst_rse, d.bound.worst_rse * (1 - 1e-9));
  EXPECT_LE(d.design.prediction.worst_rse, closed * 1.01);
}

// The cylinder law's gradient is affine in the pressure, so a point at a
// pressure between two others holds less information than their mixture
// ((1-t) g0 g0^T + t g1 g1^T - g g^T = t(1-t)(g0-g1)(g0-g1)^T): a range's
// bound is that of its two ends, and a level between them changes nothing.
TEST(DesignBound, PressureRangeCountsAsItsEnds) {
  ident::DesignRequest r = test::design_bench_rig(false);
  const ident::Prediction at = ident::reference_design(r).prediction;
  const ident::DesignBound three = ident::design_bound(r, at);
  r.rig.pressure_levels = {2e6, 10e6};
  const ident::DesignBound ends = ident::design_bound(r, at);
  r.rig.pressure_levels.clear();
  r.rig.pressure_range = true;
  r.rig.pressure_min = 2e6;
  r.rig.pressure_max = 10e6;
  const ident::DesignBound range = ident::design_bound(r, at);
  ASSERT_TRUE(three.computed && ends.computed && range.computed) << range.why_not;
  EXPECT_EQ(range.worst_rse, ends.worst_rse);
  EXPECT_NEAR(three.worst_rse, ends.worst_rse, 2e-4 * ends.worst_rse);
}

TEST(DesignBound, LawsWithMemoryGetNoneAndSayWhy) {
  ident::DesignRequest r = test::design_bench_rig(true);
  r.model = "lugre";
  ident::Prediction at;
  at.parameters.push_back({"F_C", "N", 1.0});
  const ident::DesignBound b = ident::design_bound(r, at);
  EXPECT_FALSE(b.computed);
  EXPECT_NE(b.why_not.find("memory"), std::string::npos) << b.why_not;
  const std::string line = ident::design_bound_line(b, 0.01);
  EXPECT_EQ(line, "no bound on the best test: " + b.why_not + "\n");
}

// The position of a log, integrated here from its velocity: max - min.
double travel(const data::Experiment& log, double rate) {
  const auto& v = log.channels.at("velocity");
  double x = 0, lo = 0, hi = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    x += 0.5 * (v[i] + v[i - 1]) / rate;
    lo = std::min(lo, x), hi = std::max(hi, x);
  }
  return hi - lo;
}

// A servo axis with 2 rad of travel at 20 rad/s and 100 rad/s^2: at 10 rad/s
// a trip spends 0.1 s at speed and 0.2 s ramping, so at most a third of any
// test is that fast (share_cap). The saddle point's measure puts more there;
// its plateau test, whose ramps between passes would take more than the
// whole test at its shares (before: no `levels` candidate), gets fewer
// passes and stays within the stroke; so does the capped optimum's, a
// candidate too. The design beats the reference and not the bound.
TEST(DesignBound, LevelsKeepToTheStrokeWhereItBinds) {
  ident::DesignRequest r = test::design_bench_rig(true);
  r.rig.stroke = 2;
  r.rig.duration = 20;
  r.profiles = {"levels", "plateaus"};
  EXPECT_NEAR(ident::detail::share_cap(r.rig, 10.0), 1.0 / 3, 1e-15);
  const ident::DesignEvaluation ref = ident::reference_design(r);
  const auto saddle = ident::detail::optimal_measure(r, ref.prediction);
  EXPECT_TRUE(ident::detail::exceeds_caps(r.rig, saddle));
  const ident::detail::BoundSolution best = ident::detail::solve_bound(r, ref.prediction);
  ASSERT_TRUE(best.bound.computed) << best.bound.why_not;
  EXPECT_FALSE(ident::detail::exceeds_caps(r.rig, best.measure));
  for (const auto& m : {saddle, best.measure}) {
    const auto test = ident::detail::plateau_test(r, m);
    if (&m == &saddle) ASSERT_FALSE(test.empty());
    if (test.empty()) continue;
    const ident::DesignEvaluation levels = ident::evaluate_design(r, test);
    ASSERT_TRUE(levels.feasible) << levels.infeasible;
    EXPECT_GE(levels.prediction.worst_rse, best.bound.worst_rse);
    const auto logs = workloads::generate_design(workloads::DesignFile{"simscape-rotational", true, {}, test}, r.prior,
                                                 workloads::GeneratorOptions{});
    for (const auto& log : logs) EXPECT_LE(travel(log, r.rig.rate_hz), r.rig.stroke) << log.name;
  }
  const ident::DesignResult d = ident::design_experiment(r);
  const auto logs =
      workloads::generate_design(workloads::DesignFile{"simscape-rotational", true, {}, d.design.experiments}, r.prior,
                                 workloads::GeneratorOptions{});
  for (const auto& log : logs) EXPECT_LE(travel(log, r.rig.rate_hz), r.rig.stroke) << log.name;
  EXPECT_LT(d.design.prediction.worst_rse, d.reference.prediction.worst_rse);
  EXPECT_GE(d.design.prediction.worst_rse, d.bound.worst_rse);
}

}  // namespace
}  // namespace stribeck
