#pragma once
// The static models' truths and their synthetic logs, shared by the
// library's fits (tests/unit/identification/test_static_fits.cpp) and
// `stribeck identify` (tests/unit/cli/test_identification.cpp): random
// samples at log-uniform speeds in both directions with pressures and
// normal forces varying, force = the model in long double + seeded
// Gaussian noise, and what a fit of them must recover.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "stribeck/data/experiment.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"

namespace stribeck::test {

struct Truth {
  std::string model;
  std::vector<std::pair<std::string, double>> params;  // the rest at defaults
  double v_lo, v_hi;                                   // |v| range, log-uniform
  double noise;                                        // force noise standard deviation [N]
};

// Force of `model` at the sample, in long double through the model's own
// template (the same equation the fit uses, evaluated in higher precision).
inline double model_force(const std::string& id, const std::vector<double>& p, double v, double pa, double pb,
                          double fn) {
  long double f = 0;
  visit_model(StaticModels{}, id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    std::vector<long double> q(p.begin(), p.end());
    f = static_force<M, long double>(q.data(), Sample<long double>{v, pa, pb, fn});
  });
  return static_cast<double>(f);
}

inline std::vector<double> true_params(const Truth& t) {
  const ModelInfo& m = *find_model(t.model);
  std::vector<double> p = m.defaults();
  for (const auto& [n, x] : t.params) p[m.param_index(n)] = x;
  return p;
}

// A log of random samples: log-uniform speeds in both directions, pressures
// and normal forces varying, force = model + Gaussian noise.
inline data::Experiment synth(const Truth& t, int n, unsigned seed, double p_sum = -1, double v_sign = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(0, 1);
  std::normal_distribution<double> N(0, t.noise);
  const auto p = true_params(t);
  data::Experiment e;
  e.name = "synthetic" + std::to_string(seed);
  e.source = "test";
  for (const char* c : {"velocity", "pressure_a", "pressure_b", "normal_force", "force"}) e.channels[c] = {};
  for (int i = 0; i < n; ++i) {
    double v = t.v_lo * std::pow(t.v_hi / t.v_lo, U(rng));
    if (v_sign == 0 ? U(rng) < 0.5 : v_sign < 0) v = -v;
    const double ps = p_sum >= 0 ? p_sum : 1e5 + 9e5 * U(rng);
    const double pa = 0.7 * ps, pb = 0.3 * ps, fn = 500 + 1000 * U(rng);
    e.channels["velocity"].push_back(v);
    e.channels["pressure_a"].push_back(pa);
    e.channels["pressure_b"].push_back(pb);
    e.channels["normal_force"].push_back(fn);
    e.channels["force"].push_back(model_force(t.model, p, v, pa, pb, fn) + N(rng));
  }
  return e;
}

inline void expect_recovered(const ident::FitSummary& s, const Truth& t) {
  ASSERT_TRUE(s.converged) << s.report();
  const ModelInfo& m = *find_model(t.model);
  const auto p = true_params(t);
  int checked = 0;
  for (const auto& pe : s.parameters) {
    if (pe.fixed) continue;
    const double truth = p[m.param_index(pe.name)];
    ASSERT_TRUE(std::isfinite(pe.std_error)) << pe.name << "\n" << s.report();
    EXPECT_LT(std::abs(pe.value - truth), 3 * pe.std_error)
        << t.model << " " << pe.name << " = " << pe.value << " +/- " << pe.std_error << ", true " << truth;
    EXPECT_LE(pe.ci95_lo, pe.value);
    EXPECT_GE(pe.ci95_hi, pe.value);
    ++checked;
  }
  EXPECT_GE(checked, 1);
  EXPECT_NEAR(s.rmse, t.noise, 0.1 * t.noise) << s.report();
}

inline const std::vector<Truth>& truths() {
  static const std::vector<Truth> t = {
      {"simscape-translational", {{"F_brk", 30}, {"v_brk", 0.05}, {"F_C", 20}, {"f_v", 100}}, 1e-3, 1, 0.5},
      {"simscape-rotational", {{"T_brk", 3}, {"w_brk", 0.5}, {"T_C", 2}, {"f_v", 0.5}}, 1e-2, 10, 0.05},
      {"simscape-cylinder", {{"F_pr", 50}, {"f_cfr", 2e-5}, {"K_brk", 1.5}, {"f_vfr", 200}, {"c_v", 20}}, 1e-3, 1, 1.0},
      {"simscape-cylinder-il",
       {{"F_pr", 50}, {"f_cfr", 2e-5}, {"R_brk", 1.5}, {"v_brk", 0.02}, {"f_v", 200}},
       1e-3,
       1,
       1.0},
      {"20sim-c", {{"mu_c", 0.12}}, 1e-2, 1, 1.0},
      {"20sim-v", {{"mu_v", 0.02}}, 1e-2, 1, 1.0},
      {"20sim-cv", {{"mu_c", 0.12}, {"mu_v", 0.05}}, 1e-2, 1, 1.0},
      {"20sim-scvs", {{"mu_s", 0.2}, {"mu_c", 0.1}, {"mu_v", 0.05}, {"v_st", 0.02}}, 1e-3, 1, 1.0},
      {"coulomb-viscous", {{"F_C", 20}, {"f_v", 100}}, 1e-3, 1, 0.5},
      {"stribeck-delta", {{"F_C", 20}, {"F_s", 28}, {"v_s", 0.01}, {"delta", 1.4}, {"f_v", 100}}, 1e-3, 1, 0.5},
      {"stribeck-asymmetric",
       {{"F_C_pos", 20},
        {"F_s_pos", 28},
        {"v_s_pos", 0.01},
        {"f_v_pos", 100},
        {"F_C_neg", 15},
        {"F_s_neg", 19},
        {"v_s_neg", 0.02},
        {"f_v_neg", 80},
        {"delta", 1.4}},
       1e-3,
       1,
       0.5},
  };
  return t;
}

}  // namespace stribeck::test
