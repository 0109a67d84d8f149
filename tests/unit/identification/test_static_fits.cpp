// Identification: parameters recovered from synthetic noisy logs (generated
// here from the kernels' models with seeded noise, static_truths.hpp),
// uncertainty, warnings, bad input, and the real pneumatic seal data when
// present. (`stribeck identify` on such logs:
// tests/unit/cli/test_identification.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "static_truths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck {
namespace {

using ident::FitOptions;
using ident::FitSummary;
using test::expect_recovered;
using test::model_force;
using test::synth;
using test::true_params;
using test::Truth;
using test::truths;

// A misfit caused by a parameter held at its default (the cylinder's linear
// zone v_th, the tanh steepness `slope` of 20-sim) is named with the value the
// parameter goes to when freed; a log at the default, or the parameter held
// by --fix, gets no such warning.
TEST(Identification, AParameterHeldAtAWrongDefaultIsNamed) {
  struct Case {
    Truth truth;
    std::string param;
    double default_value;
  };
  const std::vector<Case> cases = {
      {{"simscape-cylinder",
        {{"F_pr", 50}, {"f_cfr", 2e-5}, {"K_brk", 1.5}, {"f_vfr", 200}, {"c_v", 20}, {"v_th", 5e-4}},
        1e-5,
        0.3,
        0.5},
       "v_th",
       1e-4},
      {{"20sim-cv", {{"mu_c", 0.12}, {"mu_v", 0.05}, {"slope", 100}}, 1e-4, 1, 0.5}, "slope", 1000},
  };
  // A rig's record: four pressure (and normal force) levels, each a sweep
  // through the speeds of both directions; the noise estimate differences
  // neighbouring samples, as it does on real logs.
  auto sweep = [](const Truth& t, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> U(0, 1);
    std::normal_distribution<double> N(0, t.noise);
    const auto p = true_params(t);
    data::Experiment e;
    e.name = "sweep";
    e.source = "test";
    for (int level = 0; level < 4; ++level) {
      const double ps = (1 + 2 * level) * 1e5, fn = 500 + 250 * level;
      std::vector<double> v(800);
      for (auto& x : v) x = (U(rng) < 0.5 ? -1 : 1) * t.v_lo * std::pow(t.v_hi / t.v_lo, U(rng));
      std::sort(v.begin(), v.end());
      for (double x : v) {
        e.channels["velocity"].push_back(x);
        e.channels["pressure_a"].push_back(0.7 * ps);
        e.channels["pressure_b"].push_back(0.3 * ps);
        e.channels["normal_force"].push_back(fn);
        e.channels["force"].push_back(model_force(t.model, p, x, 0.7 * ps, 0.3 * ps, fn) + N(rng));
      }
    }
    return std::vector<data::Experiment>{e};
  };
  auto named = [](const FitSummary& s, const std::string& p) {
    for (const auto& w : s.warnings)
      if (w.rfind(p + " is held at", 0) == 0) return w;
    return std::string();
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.truth.model);
    const double truth = true_params(c.truth)[find_model(c.truth.model)->param_index(c.param)];
    const FitSummary s = ident::fit(sweep(c.truth, 11), c.truth.model, FitOptions{});
    const std::string w = named(s, c.param);
    ASSERT_FALSE(w.empty()) << "no warning names " << c.param << ": rmse " << s.rmse << ", " << s.report();
    EXPECT_EQ(s.param(c.param).value, c.default_value) << "the reported fit keeps the parameter held";
    // Freed from the held optimum, the parameter moves toward the truth (at
    // least half the way, on a log scale)...
    const size_t at = w.find("goes to ");
    ASSERT_NE(at, std::string::npos) << w;
    const double freed = std::stod(w.substr(at + 8));
    EXPECT_LT(std::abs(std::log(freed / truth)), 0.5 * std::abs(std::log(c.default_value / truth))) << w;
    // ... and the fit the hint proposes recovers the truth.
    const size_t list = w.find("--free ");
    ASSERT_NE(list, std::string::npos) << w;
    FitOptions hinted;
    std::stringstream names(w.substr(list + 7, w.find(')', list) - list - 7));
    for (std::string n; std::getline(names, n, ',');) hinted.free.push_back(n);
    const FitSummary again = ident::fit(sweep(c.truth, 11), c.truth.model, hinted);
    EXPECT_NEAR(again.param(c.param).value, truth, 3 * again.param(c.param).std_error) << again.report();
    EXPECT_LT(again.rmse, 1.2 * c.truth.noise) << again.report();
    EXPECT_EQ(named(again, c.param), "");

    Truth at_default = c.truth;
    at_default.params.pop_back();  // the parameter at its default
    EXPECT_EQ(named(ident::fit(sweep(at_default, 11), c.truth.model, FitOptions{}), c.param), "");
    FitOptions held;
    held.fix = {c.param + "=" + std::to_string(c.default_value)};
    EXPECT_EQ(named(ident::fit(sweep(c.truth, 11), c.truth.model, held), c.param), "");
  }
}

TEST(Identification, RecoversEveryStaticModelWithinThreeStandardErrors) {
  size_t static_models = 0;
  for (const auto& m : all_models()) static_models += !m.dynamic;
  ASSERT_EQ(truths().size(), static_models);
  for (const auto& t : truths()) {
    SCOPED_TRACE(t.model);
    const FitSummary s = ident::fit({synth(t, 3000, 7)}, t.model, FitOptions{});
    expect_recovered(s, t);
    EXPECT_NEAR(s.r_squared, 1.0, 0.05);
    EXPECT_LT(std::abs(s.autocorrelation_lag1), 0.1);
  }
}

TEST(Identification, CylinderLawJointlyOverFourPressureLevels) {
  const Truth t = truths()[3];  // simscape-cylinder-il
  std::vector<data::Experiment> log;
  for (int i = 0; i < 4; ++i) log.push_back(synth(t, 1500, 20 + i, (1 + 2 * i) * 1e5));
  const FitSummary s = ident::fit(log, t.model, FitOptions{});
  expect_recovered(s, t);
  // One pressure level cannot separate preload and pressure coefficient.
  const FitSummary one = ident::fit({log[0]}, t.model, FitOptions{});
  EXPECT_FALSE(one.converged);
  EXPECT_EQ(one.status, ident::FitStatus::kSingular);
  std::string all;
  for (const auto& w : one.warnings) all += w + "\n";
  EXPECT_NE(all.find("F_pr"), std::string::npos) << all;
  EXPECT_NE(all.find("f_cfr"), std::string::npos) << all;
}

// --free names the fitted parameters; every other one is held at the
// model's default (it used to be held at its data-driven guess, which the
// docs did not say), and --fix of a freed parameter is a contradiction.
TEST(Identification, FreeHoldsTheRestAtTheModelDefaults) {
  const Truth t = truths()[3];  // simscape-cylinder-il
  std::vector<data::Experiment> log;
  for (int i = 0; i < 3; ++i) log.push_back(synth(t, 800, 40 + i, (1 + 2 * i) * 1e5));
  FitOptions o;
  o.free = {"F_pr", "f_cfr"};
  const FitSummary s = ident::fit(log, t.model, o);
  const ModelInfo& m = *find_model(t.model);
  EXPECT_EQ(s.free_parameters, 2);
  for (const auto& p : m.params) {
    if (p.name == std::string("F_pr") || p.name == std::string("f_cfr")) continue;
    EXPECT_EQ(s.param(p.name).value, p.default_value) << p.name;
  }
  o.fix = {"F_pr=10"};
  EXPECT_THROW(ident::fit(log, t.model, o), data::InputError);
}

TEST(Identification, ForceBalanceMassOffsetAndPressureFromPositionLog) {
  // Sinusoidal strokes sampled at 1 kHz; only time, position, pressures, force.
  const double m = 2.5, offset = -7.0, Fc = 20, fv = 100, A_a = 2e-3, A_b = 1e-3;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> N(0, 0.3);
  data::Experiment e;
  e.name = "strokes";
  e.source = "test";
  for (int i = 0; i < 6000; ++i) {
    const double t = i * 1e-3, w = 2 * M_PI * 1.3;
    const double x = 0.05 * std::sin(w * t) + 0.01 * std::sin(3.1 * w * t);
    const double v = 0.05 * w * std::cos(w * t) + 0.031 * w * std::cos(3.1 * w * t);
    const double a = -0.05 * w * w * std::sin(w * t) - 0.01 * 9.61 * w * w * std::sin(3.1 * w * t);
    const double pa = 3e5 + 1e5 * std::sin(0.7 * t), pb = 2e5;
    e.channels["time"].push_back(t);
    e.channels["position"].push_back(x);
    e.channels["pressure_a"].push_back(pa);
    e.channels["pressure_b"].push_back(pb);
    e.channels["force"].push_back(Fc * (v > 0 ? 1 : -1) + fv * v + m * a + A_a * pa - A_b * pb + offset + N(rng));
  }
  FitOptions o;
  o.inertia = true;
  o.offset = true;
  o.area_a = A_a;
  o.area_b = A_b;
  const FitSummary s = ident::fit({e}, "coulomb-viscous", o);
  ASSERT_TRUE(s.converged) << s.report();
  for (auto [name, truth] : {std::pair{"mass", m}, {"offset", offset}, {"F_C", Fc}, {"f_v", fv}}) {
    const auto& p = s.param(name);
    EXPECT_LT(std::abs(p.value - truth), std::max(3 * p.std_error, 0.01 * std::abs(truth)))
        << name << " = " << p.value << " +/- " << p.std_error << "\n"
        << s.report();
  }
  // Without a velocity channel, and without time: a clear error.
  e.channels.erase("time");
  EXPECT_THROW(ident::fit({e}, "coulomb-viscous", o), data::InputError);
}

TEST(Identification, AsymmetricFitAndSignificanceTest) {
  Truth t{"coulomb-viscous", {{"F_C", 20}, {"f_v", 100}}, 1e-3, 1, 0.5};
  data::Experiment pos = synth(t, 1500, 41, -1, +1);
  Truth tn = t;
  tn.params[0].second = 26;
  data::Experiment neg = synth(tn, 1500, 42, -1, -1);
  data::Experiment both = pos;
  both.name = "both";
  for (auto& [c, x] : both.channels) x.insert(x.end(), neg.channels[c].begin(), neg.channels[c].end());
  FitOptions o;
  o.asymmetric = true;
  const FitSummary s = ident::fit({both}, t.model, o);
  ASSERT_TRUE(s.converged) << s.report();
  EXPECT_LT(std::abs(s.param("F_C+").value - 20), 3 * s.param("F_C+").std_error) << s.report();
  EXPECT_LT(std::abs(s.param("F_C-").value - 26), 3 * s.param("F_C-").std_error) << s.report();
  ASSERT_TRUE(s.has_asymmetry_test);
  EXPECT_EQ(s.asymmetry.dof, 2);
  // Multistart on an asymmetric layout searches on the fit's own residuals.
  FitOptions om = o;
  om.starts = 4;
  om.coarse_points = 32;
  const FitSummary sm = ident::fit({both}, t.model, om);
  EXPECT_EQ(sm.starts, 4);
  EXPECT_EQ(sm.search_device, "cpu (fit residuals, Sobol')");
  EXPECT_LE(sm.cost, s.cost * (1 + 1e-9));
  EXPECT_TRUE(s.asymmetry.significant) << s.report();
  // Symmetric logs: the test has its nominal 5 % false-alarm rate, so of 20
  // independent logs at most a few may come out significant (P(>4) < 2 %).
  int alarms = 0;
  for (unsigned seed = 100; seed < 120; ++seed)
    alarms += ident::fit({synth(t, 1000, seed)}, t.model, o).asymmetry.significant;
  EXPECT_LE(alarms, 4);
}

TEST(Identification, WarnsWhenTheLogLacksLowSpeeds) {
  Truth t = truths()[2];  // simscape-cylinder: K_brk, c_v act below ~0.1 m/s
  t.v_lo = 0.5;
  const FitSummary s = ident::fit({synth(t, 3000, 5)}, t.model, FitOptions{});
  EXPECT_FALSE(s.converged);
  std::string all;
  for (const auto& w : s.warnings) all += w + "\n";
  EXPECT_NE(all.find("K_brk"), std::string::npos) << all;
  EXPECT_NE(all.find("no samples below |v| = 0.5"), std::string::npos) << all;
  // JSON carries the same verdict.
  const std::string j = ident::to_json(s);
  EXPECT_NE(j.find("\"converged\": false"), std::string::npos);
  EXPECT_NE(j.find("K_brk"), std::string::npos);
}

TEST(Identification, GlobalSearchCompareAndValidate) {
  const Truth t = truths()[0];
  data::Experiment a = synth(t, 2000, 11), b = synth(t, 2000, 12);
  FitOptions o;
  o.starts = 6;
  o.coarse_points = 64;
  const FitSummary s = ident::fit({a}, t.model, o);
  EXPECT_EQ(s.starts, 6);
  EXPECT_FALSE(s.search_device.empty());  // the sweep engine ranked the coarse points
  expect_recovered(s, t);
  // Refining more starts never ends worse than the data-driven guess alone.
  const FitSummary s1 = ident::fit({a}, t.model, FitOptions{});
  EXPECT_LE(s.cost, s1.cost * (1 + 1e-9));
  // A start from far away (v_brk 100x too large) still reaches the optimum with the search.
  FitOptions far = o;
  far.initial = {"v_brk=5", "F_brk=20", "F_C=20"};
  const FitSummary sf = ident::fit({a}, t.model, far);
  EXPECT_NEAR(sf.param("v_brk").value, 0.05, 3 * sf.param("v_brk").std_error) << sf.report();
  // Ranking: the Stribeck law beats plain Coulomb + viscous on Stribeck data.
  const auto ranked = ident::compare({a}, {"coulomb-viscous", t.model}, FitOptions{});
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].model, t.model);
  EXPECT_LT(ranked[0].aic, ranked[1].aic);
  // Hold-out validation: the error on unseen data is the noise level.
  a.name = "a";
  b.name = "b";
  FitOptions v;
  v.validate = {"b"};
  const FitSummary sv = ident::fit({a, b}, t.model, v);
  EXPECT_EQ(sv.samples, 2000);
  EXPECT_NEAR(sv.validation_rmse, t.noise, 0.1 * t.noise);
  EXPECT_TRUE(sv.experiments[1].held_out);
  // Robust loss: gross outliers barely move the estimate.
  data::Experiment c = a;
  for (size_t i = 0; i < c.size(); i += 50) c.channels["force"][i] += 500;
  FitOptions h;
  h.loss = "huber:2";
  const FitSummary sh = ident::fit({c}, t.model, h);
  EXPECT_NEAR(sh.param("F_C").value, 20, 0.5) << sh.report();
}

TEST(Identification, BadInputIsAClearErrorOrWarning) {
  const Truth t = truths()[8];  // coulomb-viscous
  data::Experiment e = synth(t, 200, 9);
  data::Experiment still = e;
  for (auto& v : still.channels["velocity"]) v = 0;
  EXPECT_THROW(ident::fit({still}, t.model, FitOptions{}), data::InputError);
  EXPECT_THROW(ident::fit({}, t.model, FitOptions{}), data::InputError);
  data::Experiment tiny = e;
  for (auto& [c, x] : tiny.channels) x.resize(2);
  EXPECT_THROW(ident::fit({tiny}, t.model, FitOptions{}), data::InputError);
  data::Experiment nop = e;
  nop.channels.erase("pressure_a");
  nop.channels.erase("pressure_b");
  try {
    ident::fit({nop}, "simscape-cylinder", FitOptions{});
    FAIL();
  } catch (const data::InputError& err) {
    EXPECT_NE(std::string(err.what()).find("pressure"), std::string::npos) << err.what();
  }
  data::Experiment nan = e;
  nan.channels["force"][17] = std::nan("");
  try {
    ident::fit({nan}, t.model, FitOptions{});
    FAIL();
  } catch (const data::InputError& err) {
    EXPECT_NE(std::string(err.what()).find("'force', sample 17"), std::string::npos) << err.what();
  }
  FitOptions bad;
  bad.fix = {"F_Q=3"};
  EXPECT_THROW(ident::fit({e}, t.model, bad), data::InputError);
  bad.fix = {};
  bad.bounds = {"F_C=5"};
  EXPECT_THROW(ident::fit({e}, t.model, bad), data::InputError);
  bad.bounds = {};
  bad.loss = "tukey:1";
  EXPECT_THROW(ident::fit({e}, t.model, bad), data::InputError);
  // One direction only: fitted, with a warning; asymmetric needs both.
  data::Experiment one = synth(t, 500, 10, -1, +1);
  FitOptions off;
  off.offset = true;
  const FitSummary s1 = ident::fit({one}, t.model, off);
  EXPECT_FALSE(s1.warnings.empty());
  EXPECT_FALSE(s1.converged) << s1.report();  // offset and F_C are one quantity here
  FitOptions asym;
  asym.asymmetric = true;
  EXPECT_THROW(ident::fit({one}, t.model, asym), data::InputError);
  // Constant velocity: F_C and f_v cannot be separated.
  data::Experiment cst = e;
  for (auto& v : cst.channels["velocity"]) v = 0.3;
  const FitSummary sc = ident::fit({cst}, t.model, FitOptions{});
  EXPECT_FALSE(sc.converged);
  EXPECT_GE(sc.warnings.size(), 2u) << sc.report();
  // Non-convergence is reported, not hidden.
  FitOptions few;
  few.max_iterations = 1;
  const FitSummary sf = ident::fit({synth(truths()[0], 500, 3)}, truths()[0].model, few);
  EXPECT_FALSE(sf.converged);
}

// Real measurements (../shared/data/pneumatic-seals, SOURCES.md): time [ms],
// raw voltages, position [mm], chamber gauge pressure [bar], force [N].
data::Experiment load_seal(const std::string& path, const std::string& name) {
  std::ifstream in(path);
  data::Experiment e;
  e.name = name;
  e.source = path;
  std::string line;
  int row = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    double c[7];
    for (double& x : c) ls >> x;
    if (!ls || row++ < 15) continue;  // the authors drop the first 15 samples
    e.channels["time"].push_back(c[0] * 1e-3);
    e.channels["position"].push_back(c[4] * 1e-3);
    e.channels["pressure_a"].push_back(c[5] * 1e5);
    e.channels["force"].push_back(c[6]);
  }
  return e;
}

std::string shared_dir() {
  if (const char* env = std::getenv("STRIBECK_SHARED_DIR")) return env;
  return STRIBECK_SHARED_DIR;
}

TEST(Identification, PneumaticSealCoulombForceRisesWithPressure) {
  const std::string dir = shared_dir() + "/data/pneumatic-seals/";
  if (!std::ifstream(dir + "O-ring_1bar.csv")) GTEST_SKIP() << "no seal data in " << dir;
  const double area = M_PI * 0.0125 * 0.0125;  // 25 mm bore
  std::vector<data::Experiment> log;
  std::vector<double> fc;
  FitOptions o;
  o.offset = true;
  o.area_a = area;
  o.fix = {"v_eps=0.002", "f_v=0"};  // the authors' constant friction level per direction
  for (int bar : {1, 3, 5, 7}) {
    log.push_back(load_seal(dir + "O-ring_" + std::to_string(bar) + "bar.csv", std::to_string(bar) + "bar"));
    const FitSummary s = ident::fit({log.back()}, "coulomb-viscous", o);
    ASSERT_TRUE(s.converged) << s.report();
    fc.push_back(s.param("F_C").value);
  }
  // The strokes run at one speed per direction, so a free viscous slope is
  // inseparable from the Coulomb level; the fit says so instead of guessing.
  FitOptions fv = o;
  fv.fix = {"v_eps=0.002"};
  const FitSummary both = ident::fit({log[0]}, "coulomb-viscous", fv);
  std::string all;
  for (const auto& w : both.warnings) all += w + "\n";
  EXPECT_NE(all.find("F_C and f_v cannot be separated"), std::string::npos) << both.report();
  // The authors' friction range (about twice F_C) grows from ~8 N to ~16 N.
  EXPECT_GT(fc[0], 2.0);
  EXPECT_LT(fc[0], 6.0);
  EXPECT_GT(fc[3], fc[0] + 2.0);
  EXPECT_GT(fc[3], fc[1]);
  // Jointly: the pressure coefficient of the cylinder law is positive and determined.
  FitOptions j = o;
  j.fix = {"R_brk=1", "v_brk=0.02", "f_v=0"};
  j.offset_per_experiment = true;
  const FitSummary s = ident::fit(log, "simscape-cylinder-il", j);
  EXPECT_TRUE(s.converged) << s.report();
  const auto& f_cfr = s.param("f_cfr");
  EXPECT_GT(f_cfr.value, 3 * f_cfr.std_error) << s.report();
  // F_C = F_pr + f_cfr*p: the authors' range 2*F_C runs from ~8 N (1 bar) to ~16 N (7 bar).
  const double fc1 = s.param("F_pr").value + f_cfr.value * 1e5, fc7 = s.param("F_pr").value + f_cfr.value * 7e5;
  EXPECT_GT(2 * fc1, 5.0);
  EXPECT_LT(2 * fc1, 11.0);
  EXPECT_GT(2 * fc7, 12.0);
  EXPECT_LT(2 * fc7, 20.0);
}

}  // namespace
}  // namespace stribeck
