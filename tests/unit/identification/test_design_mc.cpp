// Monte Carlo check of `stribeck design`'s prediction (issue 33 item 1), the
// small in-process counterpart of bench/design_mc.sh: on a short servo-axis
// and a short hydraulic-cylinder case, design_experiment chooses a test; its
// noise realisations and those of the reference test (generate_log with
// force noise, deterministic seeds) are fitted as identify fits them. Their
// spread must be the standard errors the design predicts, identify's 95 %
// intervals must cover the truth at the nominal rate, and identify's
// reported standard errors must be the predicted ones. The tolerances follow
// from the sample size n alone:
// - a standard deviation estimated from n Gaussian draws has a relative
//   standard error of 1/sqrt(2(n-1)) (2.2 % at n = 1000), so the ratio
//   predicted / empirical must lie within 3.5 of them (+-7.8 %, inside the
//   issue's +-10 %), and the ratio of two such (the shrink of the worst
//   relative standard deviation, design against reference) within
//   3.5 sqrt(2) of them;
// - the count of n intervals covering the truth is binomial(n, 0.95), and
//   must lie in its central 99.9 % band (926..971 of 1000, about the issue's
//   93-97 %);
// - identify's standard error at a fit is sigma_hat sqrt((J^T J)^-1) at the
//   estimate; over n fits sigma_hat averages to sigma within
//   1/sqrt(2 N n) (N samples) and the Jacobian moves by the relative error
//   of the estimate (about 1 %), so the mean reported error is the
//   prediction (the design's information at the truth) within 2 %.
// The prediction is first order (the Fisher information at the truth); the
// bias check (the mean fit within 4 of its standard errors of the truth)
// shows the fit is linear over its spread on these logs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "stribeck/identification/design.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/text_number.hpp"
#include "stribeck/workloads/design_file.hpp"
#include "stribeck/workloads/generator.hpp"

namespace stribeck {
namespace {

// The count k of n Bernoulli(p) trials lies in [lo, hi] with probability
// >= 1 - alpha (each tail <= alpha / 2), from the binomial pmf in logs.
void binomial_band(int n, double p, double alpha, int* lo, int* hi) {
  std::vector<double> pmf(n + 1);
  for (int k = 0; k <= n; ++k)
    pmf[k] = std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(p) +
                      (n - k) * std::log1p(-p));
  double tail = 0;
  *lo = 0;
  while (tail + pmf[*lo] <= alpha / 2) tail += pmf[(*lo)++];
  tail = 0;
  *hi = n;
  while (tail + pmf[*hi] <= alpha / 2) tail += pmf[(*hi)--];
}

struct McCase {
  std::string model;
  std::map<std::string, double> truth;
  workloads::RigLimits rig;
};

struct McParam {
  std::vector<double> values;
  double predicted = 0, reported_sum = 0;
  int covered = 0;
};

ident::DesignRequest request(const McCase& c) {
  const ModelInfo& m = *find_model(c.model);
  ident::DesignRequest r;
  r.model = c.model;
  r.prior = m.defaults();
  for (const auto& [name, value] : c.truth) r.prior[m.param_index(name)] = value;
  r.rig = c.rig;
  r.experiments = c.rig.max_experiments;
  r.profiles = workloads::generator_profiles();  // design's default: every family
  r.candidates = 32;
  return r;
}

// n realisations of the evaluated test, fitted as identify fits them but
// from one start at the truth: the automatic global search (tested in
// IdentificationSearch.*) costs 100 times more and reaches the same optimum
// on these logs (equal to 5 digits over 300 realisations of the servo case).
std::map<std::string, McParam> monte_carlo(const McCase& c, const ident::DesignRequest& r,
                                           const ident::DesignEvaluation& ev, int n) {
  std::map<std::string, McParam> out;
  for (const auto& p : ev.prediction.parameters) {
    EXPECT_TRUE(std::isfinite(p.std_error)) << p.name << " is not determined by the test";
    out[p.name].predicted = p.std_error;
  }
  ident::FitOptions o;
  o.keep_signals = false;
  o.starts = 1;
  for (const auto& [name, value] : c.truth) o.initial.push_back(name + "=" + format_number(value));
  for (int k = 1; k <= n; ++k) {
    std::vector<data::Experiment> logs;
    for (const auto& e : ev.experiments) {
      workloads::GeneratorOptions g = workloads::generator_options(e, c.model, r.prior);
      g.noise["force"] = c.rig.force_noise;
      g.seed = static_cast<std::uint64_t>(k) * 1000 + logs.size();
      for (auto& x : workloads::generate_log(g)) {
        x.name = e.name;
        logs.push_back(std::move(x));
      }
    }
    const ident::FitSummary s = ident::fit(logs, c.model, o);
    for (const auto& p : s.parameters) {
      auto it = out.find(p.name);
      if (it == out.end()) continue;
      McParam& m = it->second;
      m.values.push_back(p.value);
      m.reported_sum += p.std_error;
      const double t = c.truth.at(p.name);
      m.covered += p.determined && p.ci95_lo <= t && t <= p.ci95_hi;
    }
  }
  return out;
}

// Checks one test's realisations; returns the worst relative empirical
// standard deviation over its parameters.
double expect_prediction_holds(const McCase& c, const ident::DesignRequest& r, const ident::DesignEvaluation& ev,
                               const char* which, int n) {
  EXPECT_TRUE(ev.feasible) << which << ": " << ev.infeasible;
  const auto params = monte_carlo(c, r, ev, n);
  EXPECT_FALSE(params.empty()) << which;
  const double std_tolerance = 3.5 / std::sqrt(2.0 * (n - 1));
  int cover_lo = 0, cover_hi = 0;
  binomial_band(n, 0.95, 1e-3, &cover_lo, &cover_hi);
  double worst = 0;
  for (const auto& [name, m] : params) {
    EXPECT_EQ(static_cast<int>(m.values.size()), n) << which << " " << name;
    if (static_cast<int>(m.values.size()) != n) continue;
    double mean = 0;
    for (double v : m.values) mean += v / n;
    double ss = 0;
    for (double v : m.values) ss += (v - mean) * (v - mean);
    const double sd = std::sqrt(ss / (n - 1));
    const double t = c.truth.at(name);
    const double ratio = m.predicted / sd, reported = m.reported_sum / n;
    const double bias = (mean - t) / (sd / std::sqrt(n));
    worst = std::max(worst, sd / std::abs(t));
    std::printf(
        "%s %s %-6s truth %-8.4g empirical std %-10.4g (%.2f %%) predicted %-10.4g ratio %.3f mean reported "
        "%-10.4g covered %d/%d bias %.2f SEM\n",
        c.model.c_str(), which, name.c_str(), t, sd, 100 * sd / std::abs(t), m.predicted, ratio, reported, m.covered, n,
        bias);
    EXPECT_NEAR(ratio, 1.0, std_tolerance)
        << which << " " << name << ": predicted " << m.predicted << ", empirical " << sd;
    EXPECT_NEAR(reported / m.predicted, 1.0, 0.02) << which << " " << name << ": identify reports " << reported;
    EXPECT_GE(m.covered, cover_lo) << which << " " << name << ": intervals too narrow (band " << cover_lo << "-"
                                   << cover_hi << ")";
    EXPECT_LE(m.covered, cover_hi) << which << " " << name << ": intervals too wide (band " << cover_lo << "-"
                                   << cover_hi << ")";
    EXPECT_LT(std::abs(bias), 4.0) << which << " " << name << ": the mean fit " << mean << " is off the truth";
  }
  return worst;
}

// The design and the reference hold their predictions, and the empirical
// shrink of the worst relative standard deviation is the predicted one.
void expect_design_holds(const McCase& c, int n) {
  const ident::DesignRequest r = request(c);
  const ident::DesignResult d = ident::design_experiment(r);
  const double design = expect_prediction_holds(c, r, d.design, "design", n);
  const double reference = expect_prediction_holds(c, r, d.reference, "reference", n);
  const double predicted = d.reference.prediction.worst_rse / d.design.prediction.worst_rse;
  std::printf("%s: worst relative std, reference / design: %.3f (predicted %.3f)\n", c.model.c_str(),
              reference / design, predicted);
  EXPECT_NEAR(reference / design / predicted, 1.0, 3.5 * std::sqrt(2.0) / std::sqrt(2.0 * (n - 1)));
}

workloads::RigLimits rig(double stroke, double v_max, double a_max, double noise, int experiments) {
  workloads::RigLimits l;
  l.stroke = stroke;
  l.v_max = v_max;
  l.a_max = a_max;
  l.duration = 4;
  l.rate_hz = 500;
  l.force_noise = noise;
  l.max_experiments = experiments;
  return l;
}

// A servo axis (Simscape Rotational Friction): 4 s at 500 Hz, 0.2 N*m of
// torque noise, 10 rad of travel.
TEST(DesignMonteCarlo, ServoAxisSpreadIsThePredictedOne) {
  McCase c;
  c.model = "simscape-rotational";
  c.truth = {{"T_brk", 1.2}, {"w_brk", 0.1}, {"T_C", 0.8}, {"f_v", 0.05}};
  c.rig = rig(10, 20, 100, 0.2, 1);
  expect_design_holds(c, 1000);
}

// A hydraulic cylinder (Simscape Cylinder Friction, hydraulic): 4 s at
// 500 Hz over two experiments at 20 or 100 bar, 5 N of force noise, 0.2 m
// of stroke.
TEST(DesignMonteCarlo, HydraulicCylinderSpreadIsThePredictedOne) {
  McCase c;
  c.model = "simscape-cylinder";
  c.truth = {{"F_pr", 100}, {"f_cfr", 1e-5}, {"K_brk", 1.8}, {"c_v", 50}, {"f_vfr", 1000}};
  c.rig = rig(0.2, 0.2, 5, 5, 2);
  c.rig.pressure_levels = {2e6, 10e6};
  expect_design_holds(c, 1000);
}

}  // namespace
}  // namespace stribeck
