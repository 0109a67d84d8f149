// The `levels` profile of a design (a plateau test with its own speeds and
// holds, as bench/peers/design_bound.py writes the best test of a rig):
// DESIGN.toml keeps it exactly, `generate --design` makes the schedule
// exactly (checked against the schedule computed here), and the information
// of its log is that of its plateaus' time shares (the measure) plus what
// the ramps between them add. And the search's `levels` candidate: its
// optimal measure and plateau test against the bounds design_bound.py
// certified for the bench rigs (golden values from Python and SciPy).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>
#include <vector>

#include "../common/design_bench_rigs.hpp"
#include "../common/temp_dir.hpp"
#include "design_plateaus.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/identification/design.hpp"
#include "stribeck/workloads/design_file.hpp"

namespace stribeck {
namespace {

constexpr double kRate = 500, kAccel = 4.0;

workloads::DesignedExperiment levels_experiment() {
  workloads::DesignedExperiment e;
  e.name = "e1";
  e.profile = "levels";
  e.duration = 10;
  e.rate_hz = kRate;
  e.levels = {0.2, -0.2, 0.01, -0.01, 0.05};
  e.holds = {1.5, 1.5, 2.0, 2.0, 1.0};
  e.ramp_accel = kAccel;
  e.v_max = 0.2;
  return e;
}

workloads::DesignFile design(const workloads::DesignedExperiment& e) {
  workloads::DesignFile d;
  d.model = "coulomb-viscous";
  d.params = {{"F_C", 20.0}, {"f_v", 100.0}, {"v_eps", 0.0}};
  d.experiments = {e};
  return d;
}

// The velocity of the schedule at time t: from rest, a ramp at kAccel to
// each level, its hold, a ramp to rest, rest.
double schedule(const workloads::DesignedExperiment& e, double t) {
  double start = 0, last = 0;
  for (size_t k = 0; k <= e.levels.size(); ++k) {
    const double to = k < e.levels.size() ? e.levels[k] : 0.0;
    const double ramp = std::abs(to - last) / kAccel, hold = k < e.holds.size() ? e.holds[k] : 1e300;
    if (t < start + ramp) return last + (to > last ? kAccel : -kAccel) * (t - start);
    if (t < start + ramp + hold) return to;
    start += ramp + hold;
    last = to;
  }
  return 0;
}

TEST(DesignLevels, TomlRoundTripKeepsTheLevelsExactly) {
  workloads::DesignedExperiment e = levels_experiment();
  e.levels[2] = 0.1 / 3;  // a speed without a short decimal form
  e.holds[0] = 1.0 / 7;
  const std::string path = test::write_temp_file("levels.toml", workloads::design_toml(design(e), "a levels test"));
  const workloads::DesignFile back = workloads::read_design_file(path);
  ASSERT_EQ(back.experiments.size(), 1u);
  const auto& b = back.experiments[0];
  EXPECT_EQ(b.profile, "levels");
  EXPECT_EQ(b.levels, e.levels);
  EXPECT_EQ(b.holds, e.holds);
  EXPECT_EQ(b.ramp_accel, e.ramp_accel);
  EXPECT_EQ(b.duration, e.duration);
}

TEST(DesignLevels, RefusesHoldsThatDoNotMatchTheLevels) {
  std::string text = workloads::design_toml(design(levels_experiment()), "");
  const std::string from = "holds_s = [1.5, 1.5, 2, 2, 1]";
  ASSERT_NE(text.find(from), std::string::npos) << text;
  text.replace(text.find(from), from.size(), "holds_s = [1.5, 1.5]");
  const std::string path = test::write_temp_file("levels_bad.toml", text);
  try {
    workloads::read_design_file(path);
    FAIL() << "read a design whose holds do not match its levels";
  } catch (const data::InputError& err) {
    EXPECT_NE(std::string(err.what()).find("'holds_s' has 2 values, 'levels_m_s' 5"), std::string::npos) << err.what();
  }
}

TEST(DesignLevels, GeneratedVelocityIsTheSchedule) {
  const workloads::DesignedExperiment e = levels_experiment();
  const auto logs = workloads::generate_design(design(e), {20.0, 100.0, 0.0}, workloads::GeneratorOptions{});
  ASSERT_EQ(logs.size(), 1u);
  const auto& t = logs[0].channels.at("time");
  const auto& v = logs[0].channels.at("velocity");
  ASSERT_EQ(v.size(), static_cast<size_t>(e.duration * kRate) + 1);
  double a_peak = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_NEAR(v[i], schedule(e, t[i]), 1e-12) << "at t = " << t[i];
    a_peak = std::max(a_peak, std::abs(logs[0].channels.at("acceleration")[i]));
  }
  EXPECT_DOUBLE_EQ(a_peak, kAccel);
  // Longer than the experiment: refused, nothing generated.
  workloads::DesignedExperiment longer = e;
  longer.holds[0] = 5;
  EXPECT_THROW(workloads::generate_design(design(longer), {20.0, 100.0, 0.0}, workloads::GeneratorOptions{}),
               data::InputError);
}

// Coulomb + viscous with an exact sign is linear in (F_C, f_v): each
// sample's information is [sign v, v]^T [sign v, v] / sigma^2. The measure's
// (each level held for its time at the rate) and the ramps' (v linear in t:
// the integrals of 1, |v| and v^2 over dv / a) are written by hand; the
// log's information is their sum within its sampling (a sample more or less
// per segment), and never less than the measure's alone.
TEST(DesignLevels, InformationIsTheMeasuresWithinTheRampTime) {
  const workloads::DesignedExperiment e = levels_experiment();
  const double sigma = 0.5;
  ident::DesignRequest r;
  r.model = "coulomb-viscous";
  r.prior = {20.0, 100.0, 0.0};
  r.rig.stroke = 1;
  r.rig.v_max = 0.2;
  r.rig.a_max = kAccel;
  r.rig.duration = e.duration;
  r.rig.rate_hz = kRate;
  r.rig.force_noise = sigma;
  const ident::DesignEvaluation ev = ident::evaluate_design(r, {e});
  ASSERT_TRUE(ev.feasible) << ev.infeasible;
  Eigen::Matrix2d held = Eigen::Matrix2d::Zero(), ramps = Eigen::Matrix2d::Zero();
  double shortest = 1e300, last = 0;
  for (size_t k = 0; k <= e.levels.size(); ++k) {
    const double v = k < e.levels.size() ? e.levels[k] : 0.0;
    if (k < e.levels.size()) {
      const Eigen::Vector2d row((v > 0) - (v < 0), v);
      held += e.holds[k] * kRate * row * row.transpose();
      shortest = std::min(shortest, e.holds[k]);
    }
    const double abs_v = std::abs(std::abs(v) * v - std::abs(last) * last) / 2;
    Eigen::Matrix2d ramp;
    ramp << std::abs(v - last), abs_v, abs_v, std::abs(v * v * v - last * last * last) / 3;
    ramps += ramp * kRate / kAccel;
    last = v;
  }
  const Eigen::Matrix2d measure = (held / (sigma * sigma)).inverse();
  const Eigen::Matrix2d with_ramps = ((held + ramps) / (sigma * sigma)).inverse();
  ASSERT_EQ(ev.prediction.parameters.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const double got = ev.prediction.parameters[i].std_error;
    EXPECT_LE(got, std::sqrt(measure(i, i)) * (1 + 1 / (shortest * kRate))) << ev.prediction.parameters[i].name;
    EXPECT_NEAR(got, std::sqrt(with_ramps(i, i)), 2e-3 * got) << ev.prediction.parameters[i].name;
    // The ramps matter here (more than the tolerance), so the sum is checked.
    EXPECT_GT(std::sqrt(measure(i, i)) - got, 4e-3 * got) << ev.prediction.parameters[i].name;
  }
}

// The certified lower bounds of bench/peers/design_bound.py on these rigs
// (bench/RESULTS.md, 2026-11-29 02:05): no test of the rig does better; and
// the worst relative std error of its plateau test.
constexpr double kServoBound = 0.0033416, kServoPlateaus = 0.0034531;
constexpr double kCylinderBound = 0.013515, kCylinderPlateaus = 0.013613;

// The measure's own worst relative standard error, its information from
// the servo law (Simscape Rotational Friction) differentiated by hand.
TEST(DesignLevels, OptimalMeasureReachesTheCertifiedBound) {
  const ident::DesignRequest r = test::design_bench_rig(true);
  const ident::DesignEvaluation ref = ident::reference_design(r);
  const auto m = ident::detail::optimal_measure(r, ref.prediction);
  ASSERT_FALSE(m.empty());
  const double Tb = 1.2, wb = 0.1, Tc = 0.8, fv = 0.05, k = std::sqrt(2 * std::exp(1.0));
  Eigen::Matrix4d M = Eigen::Matrix4d::Zero();
  double total = 0;
  for (const auto& s : m) {
    const double x = s.v / (std::sqrt(2.0) * wb), y = s.v / (wb / 10), e = std::exp(-x * x), t = std::tanh(y);
    // d/d(T_brk, w_brk, T_C, f_v), each times its value (relative).
    const Eigen::Vector4d g(Tb * k * e * x,
                            wb * (k * (Tb - Tc) * e * (1 - 2 * x * x) * (-x / wb) + Tc * (1 - t * t) * (-y / wb)),
                            Tc * (t - k * e * x), fv * s.v);
    M += s.share * g * g.transpose();
    total += s.share;
  }
  EXPECT_NEAR(total, 1.0, 1e-9);
  const double worst = std::sqrt((M * 30 * 1000 / (0.2 * 0.2)).inverse().diagonal().maxCoeff());
  EXPECT_GE(worst, kServoBound * (1 - 1e-6));
  EXPECT_LE(worst, kServoBound * 1.01);
}

// With `levels` alone among the families, the search's candidate is the
// plateau test of the optimal measure: within 3 % of design_bound.py's and
// never below the certified bound (the peer's, and the one design computes),
// 3x and more narrower than the reference on the servo rig.
TEST(DesignLevels, SearchReachesTheBestTestOfTheBenchRigs) {
  for (bool servo : {true, false}) {
    const ident::DesignResult d = ident::design_experiment(test::design_bench_rig(servo));
    const double worst = d.design.prediction.worst_rse;
    const double bound = servo ? kServoBound : kCylinderBound;
    const double plateaus = servo ? kServoPlateaus : kCylinderPlateaus;
    EXPECT_GE(worst, bound * (1 - 1e-6)) << (servo ? "servo" : "cylinder");
    ASSERT_TRUE(d.bound.computed) << d.bound.why_not;
    EXPECT_GE(worst, d.bound.worst_rse) << (servo ? "servo" : "cylinder");
    EXPECT_GE(d.reference.prediction.worst_rse, d.bound.worst_rse) << (servo ? "servo" : "cylinder");
    EXPECT_LE(worst, plateaus * 1.03) << (servo ? "servo" : "cylinder");
    for (const auto& e : d.design.experiments) {
      EXPECT_EQ(e.profile, "levels");
      EXPECT_LE(e.stroke_used, test::design_bench_rig(servo).rig.stroke);
    }
    if (servo) EXPECT_GE(d.reference.prediction.worst_rse / worst, 3.0);
  }
}

}  // namespace
}  // namespace stribeck
