// `stribeck design` in the library (design.hpp): the predicted standard errors
// against information computed here independently (by hand for a law linear
// in its parameters, by a central-difference Jacobian of the law written out
// in long double for a nonlinear one), the criterion's ordering, the rig's
// limits, and the requests it refuses.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "../common/temp_dir.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/identification/design.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/workloads/design_file.hpp"
#include "stribeck/workloads/generator.hpp"

namespace stribeck {
namespace {

workloads::RigLimits rig(double stroke = 0.5) {
  workloads::RigLimits r;
  r.stroke = stroke;
  r.v_max = 0.2;
  r.a_max = 20;
  r.duration = 24;
  r.rate_hz = 500;
  r.force_noise = 0.5;
  r.max_experiments = 2;
  return r;
}

ident::DesignRequest request(const std::string& model, std::vector<double> prior) {
  ident::DesignRequest r;
  r.model = model;
  r.prior = std::move(prior);
  r.rig = rig();
  r.profiles = {"triangle", "plateaus", "steps"};
  return r;
}

workloads::DesignedExperiment experiment(const std::string& profile, double v, double duration) {
  workloads::DesignedExperiment e;
  e.name = "e1";
  e.profile = profile;
  e.duration = duration;
  e.rate_hz = 500;
  e.v_max = v;
  return e;
}

data::Experiment noiseless(const std::string& model, const std::vector<double>& p,
                           const workloads::DesignedExperiment& e) {
  return workloads::generate_log(workloads::generator_options(e, model, p)).front();
}

// Coulomb + viscous with an exact sign is linear in (F_C, f_v): the
// information is sum [sign v, v]^T [sign v, v] / sigma^2 over the samples.
TEST(Design, LinearLawMatchesTheInformationByHand) {
  const std::vector<double> p = {20.0, 100.0, 0.0};  // F_C, f_v, v_eps = 0
  const auto r = request("coulomb-viscous", p);
  const data::Experiment log = noiseless(r.model, p, experiment("triangle", 0.1, 8));
  const ident::Prediction got = ident::predict(r, {log}, 0.5);
  Eigen::Matrix2d F = Eigen::Matrix2d::Zero();
  for (double v : log.channels.at("velocity")) {
    const Eigen::Vector2d row((v > 0) - (v < 0), v);
    F += row * row.transpose() / (0.5 * 0.5);
  }
  const Eigen::Matrix2d C = F.inverse();
  ASSERT_EQ(got.parameters.size(), 2u);
  EXPECT_EQ(got.parameters[0].name, "F_C");
  EXPECT_NEAR(got.parameters[0].std_error, std::sqrt(C(0, 0)), 1e-9 * std::sqrt(C(0, 0)));
  EXPECT_NEAR(got.parameters[1].std_error, std::sqrt(C(1, 1)), 1e-9 * std::sqrt(C(1, 1)));
  EXPECT_NEAR(got.cov[1], C(0, 1), 1e-8 * std::sqrt(C(0, 0) * C(1, 1)));
  EXPECT_NEAR(got.parameters[0].relative, std::sqrt(C(0, 0)) / 20.0, 1e-9);
  EXPECT_TRUE(got.determined);
}

// Simscape Translational Friction, written out here from its documented
// equation: F = sqrt(2e)(F_brk-F_C) exp(-(v/v_st)^2) v/v_st + F_C tanh(v/v_coul) + f_v v.
long double simscape(const long double* x, long double v) {
  const long double F_brk = x[0], v_brk = x[1], F_C = x[2], f_v = x[3];
  const long double v_st = std::sqrt(2.0L) * v_brk, v_coul = v_brk / 10;
  return std::sqrt(2 * std::exp(1.0L)) * (F_brk - F_C) * std::exp(-(v / v_st) * (v / v_st)) * (v / v_st) +
         F_C * std::tanh(v / v_coul) + f_v * v;
}

TEST(Design, NonlinearLawMatchesACentralDifferenceJacobian) {
  const std::vector<double> p = {30.0, 0.01, 20.0, 100.0};
  auto r = request("simscape-translational", p);
  const data::Experiment log = noiseless(r.model, p, experiment("plateaus", 0.1, 12));
  const double sigma = 0.3;
  const ident::Prediction got = ident::predict(r, {log}, sigma);
  Eigen::Matrix4d F = Eigen::Matrix4d::Zero();
  for (double v : log.channels.at("velocity")) {
    Eigen::Vector4d row;
    for (int j = 0; j < 4; ++j) {
      long double up[4], dn[4];
      for (int i = 0; i < 4; ++i) up[i] = dn[i] = p[i];
      const long double h = 1e-6L * p[j];
      up[j] += h;
      dn[j] -= h;
      row(j) = static_cast<double>((simscape(up, v) - simscape(dn, v)) / (2 * h));
    }
    F += row * row.transpose() / (sigma * sigma);
  }
  const Eigen::Matrix4d C = F.inverse();
  ASSERT_EQ(got.parameters.size(), 4u);
  const char* names[] = {"F_brk", "v_brk", "F_C", "f_v"};
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(got.parameters[j].name, names[j]);
    EXPECT_NEAR(got.parameters[j].std_error, std::sqrt(C(j, j)), 1e-5 * std::sqrt(C(j, j))) << names[j];
  }
}

// Two experiments' information adds: the joint standard errors are those of
// the summed information, smaller than either experiment's alone.
TEST(Design, InformationOfExperimentsAdds) {
  const std::vector<double> p = {20.0, 100.0, 0.0};
  const auto r = request("coulomb-viscous", p);
  const data::Experiment a = noiseless(r.model, p, experiment("triangle", 0.1, 8));
  data::Experiment b = noiseless(r.model, p, experiment("steps", 0.05, 8));
  b.name = "e2";
  const auto pa = ident::predict(r, {a}, 1.0), pb = ident::predict(r, {b}, 1.0), ab = ident::predict(r, {a, b}, 1.0);
  auto info = [](const ident::Prediction& q) {
    Eigen::Matrix2d C;
    C << q.cov[0], q.cov[1], q.cov[2], q.cov[3];
    return Eigen::Matrix2d(C.inverse());
  };
  const Eigen::Matrix2d sum = info(pa) + info(pb), joint = info(ab);
  EXPECT_LT((sum - joint).norm(), 1e-8 * joint.norm());
}

// Constant velocity at v_max leaves the Stribeck velocity to the transitions;
// plateaus down to v_max/1000 see the whole curve: v_brk's relative standard
// error is far smaller, and the worst-RSE criterion prefers plateaus.
TEST(Design, LowSpeedPlateausBeatConstantVelocityForTheStribeckVelocity) {
  auto r = request("simscape-translational", {30.0, 0.005, 20.0, 100.0});
  r.rig.stroke = 10;
  const auto plateaus = ident::evaluate_design(r, {experiment("plateaus", 0.2, 24)});
  const auto creep = ident::evaluate_design(r, {experiment("creep", 0.2, 24)});
  ASSERT_TRUE(plateaus.feasible) << plateaus.infeasible;
  ASSERT_TRUE(creep.feasible) << creep.infeasible;
  const double rse_p = plateaus.prediction.parameters[1].relative, rse_c = creep.prediction.parameters[1].relative;
  EXPECT_LT(3 * rse_p, rse_c) << "plateaus " << rse_p << ", constant velocity " << rse_c;
  EXPECT_LT(plateaus.prediction.criterion, creep.prediction.criterion);
}

// Predicted relative standard errors above kLinearRegimeMaxRse (10 %) are
// flagged: the standard errors scale with the force noise, so the same
// reference test is within the regime at 0.5 N and beyond it at 200 N; the
// flag of each parameter is its relative standard error against 10 %,
// and the table marks and warns exactly when one is beyond.
TEST(Design, FlagsPredictionsBeyondTheLinearRegime) {
  auto r = request("simscape-translational", {30.0, 0.005, 20.0, 100.0});
  ident::DesignResult quiet, loud;
  quiet.design = quiet.reference = ident::reference_design(r);
  r.rig.force_noise = 200;
  loud.design = loud.reference = ident::reference_design(r);
  ASSERT_TRUE(quiet.reference.feasible && loud.reference.feasible);
  for (const auto* e : {&quiet.reference, &loud.reference})
    for (const auto& p : e->prediction.parameters) EXPECT_EQ(ident::linear_regime(p), p.relative <= 0.10) << p.name;
  EXPECT_LT(quiet.reference.prediction.worst_rse, 0.10);
  EXPECT_GT(loud.reference.prediction.worst_rse, 0.10);
  const std::string warning = "first-order prediction; the fit is nonlinear at this noise: check by Monte Carlo";
  EXPECT_EQ(ident::design_table(quiet).find(warning), std::string::npos) << ident::design_table(quiet);
  EXPECT_EQ(ident::design_table(quiet).find('*'), std::string::npos) << ident::design_table(quiet);
  EXPECT_NE(ident::design_table(loud).find(warning), std::string::npos) << ident::design_table(loud);
  EXPECT_NE(ident::design_table(loud).find("%*"), std::string::npos) << ident::design_table(loud);
  // No relative standard error (an offset): judged by nothing, not flagged;
  // undetermined: flagged.
  ident::PredictedParameter offset;
  offset.std_error = 1;
  EXPECT_TRUE(ident::linear_regime(offset));
  EXPECT_FALSE(ident::linear_regime(ident::PredictedParameter{}));
}

// Every designed experiment meets the stroke, speed and acceleration
// limits, checked on its trajectory generated here again.
TEST(Design, DesignsStayWithinTheRigsLimits) {
  auto r = request("simscape-translational", {30.0, 0.005, 20.0, 100.0});
  r.rig.stroke = 0.05;
  r.rig.a_max = 2;
  r.experiments = 2;
  r.candidates = 24;
  r.profiles = {"plateaus", "creep", "triangle", "multisine"};
  const ident::DesignResult d = ident::design_experiment(r);
  ASSERT_EQ(d.design.experiments.size(), 2u);
  double total = 0;
  for (const auto* ev : {&d.design, &d.reference})
    for (const auto& e : ev->experiments) {
      const data::Experiment log = noiseless(r.model, r.prior, e);
      const auto& x = log.channels.at("position");
      const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
      EXPECT_LE(*hi - *lo, r.rig.stroke * (1 + 1e-9)) << e.profile;
      for (double a : log.channels.at("acceleration")) ASSERT_LE(std::abs(a), r.rig.a_max * (1 + 1e-9)) << e.profile;
      EXPECT_LE(e.v_max, r.rig.v_max);
      if (ev == &d.design) total += e.duration;
    }
  EXPECT_NEAR(total, r.rig.duration, 1e-9);
  EXPECT_LE(d.design.prediction.criterion, d.reference.prediction.criterion);
  // A design exceeding the stroke is infeasible as given.
  const auto wide = ident::evaluate_design(r, {experiment("creep", 0.2, 24)});
  EXPECT_FALSE(wide.feasible);
}

TEST(Design, RefusesWhatItCannotDesign) {
  auto r = request("lugre", {});
  const ModelInfo* lugre = find_model("lugre");
  for (const auto& q : lugre->params) r.prior.push_back(q.default_value);
  // A law with memory is designed (test_design_dynamic.cpp), not with a
  // prior that breaks its rules (F_s below F_C).
  r.prior[static_cast<size_t>(lugre->param_index("F_s"))] = 0.5;
  EXPECT_THROW(ident::design_experiment(r), data::InputError);
  auto c = request("simscape-cylinder", {10, 1e-6, 1.5, 100, 10, 1e-4});
  try {
    ident::design_experiment(c);
    ADD_FAILURE() << "no pressure in the rig";
  } catch (const data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pressure"), std::string::npos) << e.what();
  }
  auto u = request("coulomb-viscous", {20, 100, 0});
  u.profiles = {"zigzag"};
  EXPECT_THROW(ident::design_experiment(u), data::InputError);
  u.profiles = {"triangle"};
  u.experiments = 3;  // the rig allows 2
  EXPECT_THROW(ident::design_experiment(u), data::InputError);
  u.experiments = 1;
  u.rig.stroke = 1e-9;  // nothing moves within it
  EXPECT_THROW(ident::design_experiment(u), data::InputError);
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = test::temp_dir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(DesignFiles, RigLimitsReadUnitsAndRefuseMissingOrNonPositiveLimits) {
  const std::string ok = write("rig_ok.toml",
                               "stroke = \"200 mm\"\nv_max = 0.2\na_max = \"5 m/s^2\"\nduration = \"2 min\"\n"
                               "rate = 1000\nforce_noise = \"5 N\"\npressure_levels = [\"20 bar\", 6e6]\n"
                               "max_experiments = 3\n");
  const workloads::RigLimits r = workloads::read_rig_limits(ok, false, true);
  EXPECT_DOUBLE_EQ(r.stroke, 0.2);
  EXPECT_DOUBLE_EQ(r.duration, 120);
  ASSERT_EQ(r.pressure_levels.size(), 2u);
  EXPECT_DOUBLE_EQ(r.pressure_levels[0], 2e6);
  EXPECT_EQ(r.max_experiments, 3);
  const std::string missing = write("rig_missing.toml", "stroke = 0.2\nv_max = 0.2\n");
  try {
    workloads::read_rig_limits(missing, false, false);
    ADD_FAILURE();
  } catch (const data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'a_max' is missing"), std::string::npos) << e.what();
  }
  const std::string zero =
      write("rig_zero.toml", "stroke = 0\nv_max = 0.2\na_max = 5\nduration = 10\nrate = 100\nforce_noise = 1\n");
  EXPECT_THROW(workloads::read_rig_limits(zero, false, false), data::InputError);
  const std::string unit = write(
      "rig_unit.toml", "stroke = \"2 bar\"\nv_max = 0.2\na_max = 5\nduration = 10\nrate = 100\nforce_noise = 1\n");
  EXPECT_THROW(workloads::read_rig_limits(unit, false, false), data::InputError);
  // A pressure model needs the pressures.
  const std::string none =
      write("rig_none.toml", "stroke = 1\nv_max = 0.2\na_max = 5\nduration = 10\nrate = 100\nforce_noise = 1\n");
  EXPECT_THROW(workloads::read_rig_limits(none, false, true), data::InputError);
}

TEST(DesignFiles, DesignTomlReadsBackWhatWasWritten) {
  workloads::DesignFile d;
  d.model = "simscape-cylinder";
  d.params = {{"F_pr", 10}, {"f_cfr", 1e-6}, {"K_brk", 1.5}, {"f_vfr", 100}, {"c_v", 10}, {"v_th", 1e-4}};
  workloads::DesignedExperiment a = experiment("multisine", 0.0123456789, 12.5);
  a.has_pressure = true;
  a.pressure_a = 2.5e6;
  a.band_lo_hz = 0.3;
  a.band_hi_hz = 3.7;
  a.tones = 4;
  a.phase_seed = 123456;
  workloads::DesignedExperiment b = experiment("plateaus", 0.1, 7.5);
  b.name = "e2";
  b.has_pressure = true;
  b.pressure_a = 1e7;
  d.experiments = {a, b};
  const std::string path = write("design.toml", workloads::design_toml(d, "a test\nsecond line"));
  const workloads::DesignFile back = workloads::read_design_file(path);
  EXPECT_EQ(back.model, d.model);
  ASSERT_EQ(back.params.size(), 6u);
  EXPECT_EQ(back.params[1].second, 1e-6);
  ASSERT_EQ(back.experiments.size(), 2u);
  EXPECT_EQ(back.experiments[0].v_max, a.v_max);
  EXPECT_EQ(back.experiments[0].band_hi_hz, 3.7);
  EXPECT_EQ(back.experiments[0].tones, 4);
  EXPECT_EQ(back.experiments[0].phase_seed, 123456u);
  EXPECT_EQ(back.experiments[1].pressure_a, 1e7);
  EXPECT_EQ(back.experiments[1].duration, 7.5);
  // The trajectories generated from the file are those of the design.
  std::vector<double> p;
  for (const auto& [n, v] : d.params) p.push_back(v);
  workloads::GeneratorOptions sensors;
  sensors.noise["force"] = 1.0;
  const auto logs = workloads::generate_design(back, p, sensors);
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(logs[0].name, "e1");
  for (size_t k = 0; k < 2; ++k)
    EXPECT_EQ(logs[k].channels.at("velocity"), noiseless(d.model, p, d.experiments[k]).channels.at("velocity"));
  // Each experiment has its own noise stream.
  const auto& f0 = logs[0].channels.at("force");
  const auto& t0 = logs[0].channels.at("friction_true");
  const auto& f1 = logs[1].channels.at("force");
  const auto& t1 = logs[1].channels.at("friction_true");
  EXPECT_NE(f0[0] - t0[0], f1[0] - t1[0]);
  const std::string bad = write("design_bad.toml", "format = \"other\"\nversion = 1\n");
  EXPECT_THROW(workloads::read_design_file(bad), data::InputError);
}

}  // namespace
}  // namespace stribeck
