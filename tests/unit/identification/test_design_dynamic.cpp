// `stribeck design` for laws with memory (design_dynamic_information.cpp):
// the predicted covariance against the information of the simulated force
// differentiated here by central differences in long double (the kernels'
// trace step run on long double, not on the Jets design and identify use),
// the standard errors identify reports when it fits a noisy log of the
// design, the spread of a Monte Carlo of such fits against the prediction
// (DesignDynamicMonteCarlo.*, slow), and the bad requests.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/identification/design.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/text_number.hpp"
#include "stribeck/workloads/design_file.hpp"
#include "stribeck/workloads/generator.hpp"

namespace stribeck {
namespace {

// A short bench for a bristle: 4 s at 1 kHz, 20 mm of stroke, 20 mm/s, 10 mN
// of force noise (LuGre's default forces are about 1 N).
workloads::RigLimits short_rig() {
  workloads::RigLimits r;
  r.stroke = 0.02;
  r.v_max = 0.02;
  r.a_max = 1.0;
  r.duration = 4;
  r.rate_hz = 1000;
  r.force_noise = 0.01;
  r.max_experiments = 1;
  return r;
}

ident::DesignRequest request(const std::string& model, const std::map<std::string, double>& truth) {
  const ModelInfo& m = *find_model(model);
  ident::DesignRequest r;
  r.model = model;
  r.prior = m.defaults();
  for (const auto& [name, value] : truth) r.prior[static_cast<size_t>(m.param_index(name))] = value;
  r.rig = short_rig();
  r.profiles = {"triangle", "plateaus", "sine-sweep", "multisine"};
  r.candidates = 16;
  return r;
}

data::Experiment noiseless(const ident::DesignRequest& r, const workloads::DesignedExperiment& e) {
  data::Experiment log = workloads::generate_log(workloads::generator_options(e, r.model, r.prior)).front();
  log.name = e.name;
  return log;
}

workloads::DesignedExperiment triangle(double v, double duration) {
  workloads::DesignedExperiment e;
  e.name = "e1";
  e.profile = "triangle";
  e.duration = duration;
  e.rate_hz = 1000;
  e.v_max = v;
  return e;
}

// The model's force along `log` at parameters p, in long double: the
// kernels' trace step from rest (the log starts at v = 0, where the fit's
// start, the steady state at the first sample, is the zero state).
template <class M>
std::vector<long double> simulate(const std::vector<long double>& p, const data::Experiment& log) {
  const auto& v = log.channels.at("velocity");
  const auto& t = log.channels.at("time");
  const auto c = M::prepare(p.data());
  typename M::template State<long double> st{};
  std::vector<long double> f(v.size());
  for (size_t k = 0; k < v.size(); ++k) {
    const Sample<long double> s{v[k], 0.0L, 0.0L, 0.0L};
    f[k] = M::step(c, s, st, k ? static_cast<long double>(t[k]) - t[k - 1] : 0.0L);
  }
  return f;
}

// The prediction's covariance is sigma^2 (J_x^T J_x)^-1, J_x the central
// difference (step 1e-6 of each value, in long double: truncation ~1e-12,
// rounding ~1e-13) of the simulated force in the free parameters' values.
template <class M>
void expect_information_is_the_central_difference(const ident::DesignRequest& r, const data::Experiment& log) {
  ASSERT_EQ(log.channels.at("velocity").front(), 0.0);
  const double sigma = 0.01;
  const ident::Prediction got = ident::predict(r, {log}, sigma);
  const ModelInfo& m = *find_model(r.model);
  const int k = static_cast<int>(got.parameters.size());
  ASSERT_GE(k, 3) << r.model;
  const size_t n = log.size();
  Eigen::MatrixXd J(n, k);
  for (int a = 0; a < k; ++a) {
    const int j = m.param_index(got.parameters[a].name);
    ASSERT_GE(j, 0) << got.parameters[a].name;
    std::vector<long double> up(r.prior.begin(), r.prior.end()), dn = up;
    const long double h = 1e-6L * std::abs(up[j]);
    up[j] += h;
    dn[j] -= h;
    const auto fu = simulate<M>(up, log), fd = simulate<M>(dn, log);
    for (size_t i = 0; i < n; ++i) J(static_cast<long>(i), a) = static_cast<double>((fu[i] - fd[i]) / (2 * h));
  }
  // The information matrices compared entry by entry (each relative to its
  // row's and column's diagonal): the covariance's inverse carries the
  // Jacobian's error unamplified, where the covariance itself multiplies it
  // by the condition number (150 to 800 on these logs). The standard
  // errors then to 1e-4.
  const Eigen::MatrixXd F = J.transpose() * J / (sigma * sigma);
  Eigen::MatrixXd cov(k, k);
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) cov(a, b) = got.cov[static_cast<size_t>(a * k + b)];
  const Eigen::MatrixXd F_got = cov.inverse(), C = F.inverse();
  ASSERT_TRUE(got.determined) << r.model;
  for (int a = 0; a < k; ++a) {
    EXPECT_NEAR(got.parameters[a].std_error / std::sqrt(C(a, a)), 1.0, 1e-4)
        << r.model << " " << got.parameters[a].name;
    for (int b = 0; b < k; ++b)
      EXPECT_NEAR(F_got(a, b) / std::sqrt(F(a, a) * F(b, b)), F(a, b) / std::sqrt(F(a, a) * F(b, b)), 1e-6)
          << r.model << " " << got.parameters[a].name << " x " << got.parameters[b].name;
  }
}

TEST(DesignDynamic, LuGreCovarianceIsThatOfTheCentralDifferenceJacobian) {
  // A bristle time constant sigma1/sigma0 of 10 ms, so sigma1 acts over
  // several samples.
  const auto r = request("lugre", {{"sigma0", 2e4}, {"sigma1", 200}, {"v_s", 2e-3}});
  expect_information_is_the_central_difference<LuGre>(r, noiseless(r, triangle(0.01, 2)));
}

TEST(DesignDynamic, DahlAndGmsCovariancesAreThoseOfTheCentralDifferenceJacobian) {
  const auto dahl = request("dahl", {{"sigma0", 2e3}, {"alpha", 1.5}});
  expect_information_is_the_central_difference<Dahl>(dahl, noiseless(dahl, triangle(0.01, 2)));
  const auto gms = request("gms2", {});
  expect_information_is_the_central_difference<Gms2>(gms, noiseless(gms, triangle(0.01, 2)));
}

// The elasto-plastic law's state has a kink where the bristle leaves its
// elastic zone (at |z| = r_ba F_C / sigma0): sigma0 = 2.1e4 keeps that
// crossing between samples. (At 2e4 the triangle's travel reaches z_ba =
// 2.5e-5 m exactly at a sample; there the one-sided derivatives differ by
// 1e-3, the central difference averages them and the Jets take one.)
TEST(DesignDynamic, ElastoPlasticCovarianceIsThatOfTheCentralDifferenceJacobian) {
  const auto ep = request("elastoplastic", {{"sigma0", 2.1e4}, {"sigma1", 200}, {"v_s", 2e-3}});
  expect_information_is_the_central_difference<ElastoPlastic>(ep, noiseless(ep, triangle(0.01, 2)));
}

// A noisy log of each experiment of `ev` (force noise of the rig, seed s).
std::vector<data::Experiment> noisy(const ident::DesignRequest& r, const ident::DesignEvaluation& ev, std::uint64_t s) {
  std::vector<data::Experiment> logs;
  for (const auto& e : ev.experiments) {
    workloads::GeneratorOptions g = workloads::generator_options(e, r.model, r.prior);
    g.noise["force"] = r.rig.force_noise;
    g.seed = s * 1000 + logs.size();
    for (auto& x : workloads::generate_log(g)) {
      x.name = e.name;
      logs.push_back(std::move(x));
    }
  }
  return logs;
}

// The LuGre bristle of the tests below: a time constant sigma1/sigma0 of
// 10 ms and a Stribeck velocity of 2 mm/s, within the short rig's reach.
const std::map<std::string, double> kBristle = {{"sigma0", 2e4}, {"sigma1", 200}, {"sigma2", 5}, {"v_s", 2e-3}};

// identify (the default automatic search) on one noisy log of the design
// reports the standard errors design predicted: its sigma_hat sqrt((J^T
// J)^-1) at the estimate, sigma_hat within 1/sqrt(2 N) (1.1 % at 4,000
// samples) of the noise and the Jacobian moved by the estimate's relative
// error (the prediction's worst rse, below 5 % here), so within 5 %.
TEST(DesignDynamic, IdentifyReportsThePredictedStdErrorsOnANoisyLogOfTheDesign) {
  const auto r = request("lugre", kBristle);
  const ident::DesignResult d = ident::design_experiment(r);
  ASSERT_TRUE(d.design.feasible);
  ASSERT_EQ(d.design.prediction.parameters.size(), 6u);
  EXPECT_LT(d.design.prediction.worst_rse, 0.05);
  EXPECT_LE(d.design.prediction.criterion, d.reference.prediction.criterion);
  const ident::FitSummary s = ident::fit(noisy(r, d.design, 7), r.model, ident::FitOptions{});
  for (const auto& p : d.design.prediction.parameters) {
    const ident::ParameterEstimate& q = s.param(p.name);
    std::printf("%-7s truth %-9.4g fit %-9.4g predicted std %-9.4g reported %-9.4g (%.2f %%)\n", p.name.c_str(),
                p.value, q.value, p.std_error, q.std_error, 100 * p.relative);
    EXPECT_NEAR(q.std_error / p.std_error, 1.0, 0.05) << p.name;
  }
}

TEST(DesignDynamic, RefusesBadRequestsAndLogsInOneLine) {
  auto expect_one_line = [](const auto& call, const std::string& says) {
    try {
      call();
      ADD_FAILURE() << "no error; expected one naming " << says;
    } catch (const data::InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(says), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  };
  auto r = request("lugre", {{"F_s", 0.5}});  // below F_C = 1
  expect_one_line([&] { ident::design_experiment(r); }, "prior");
  r = request("lugre", kBristle);
  r.experiments = 2;  // the rig allows 1
  expect_one_line([&] { ident::design_experiment(r); }, "max_experiments");
  r.experiments = 1;
  data::Experiment log = noiseless(r, triangle(0.01, 1));
  auto& t = log.channels.at("time");
  t[5] = t[4];
  expect_one_line([&] { ident::predict(r, {log}, 0.01); }, "sample 5: time must increase strictly");
  log.channels.erase("time");
  expect_one_line([&] { ident::predict(r, {log}, 0.01); }, "no time channel");
}

// The chi-square quantile q of k degrees of freedom (Wilson-Hilferty; its
// relative error is below 1e-3 for k >= 50 in the tails used here).
double chi2_quantile(double z, int k) {
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

// 150 noise realisations of the design for LuGre on the short rig, fitted as
// identify fits them (two stages, the joint stage) but from one start at the
// truth (--init), as DesignMonteCarlo.* does: the automatic search (the
// test above) costs more per fit, and one start from the data's guesses
// alone lands in other basins on some of these logs (F_C and v_s far off,
// seen with these seeds). The
// sample variance s^2 of each parameter over n fits, (n-1) s^2 / sigma^2
// chi-square with n-1 degrees of freedom when the predicted sigma is right,
// must lie in its central 99.9 % band (z = -+3.29: s/sigma within about
// 0.82 .. 1.20 at n = 150), and the mean fit within 4 standard errors of the
// mean of the truth (the fit linear over its spread).
TEST(DesignDynamicMonteCarlo, LuGreSpreadIsThePredictedOne) {
  const auto r = request("lugre", kBristle);
  const ident::DesignResult d = ident::design_experiment(r);
  ASSERT_TRUE(d.design.feasible);
  const int n = 150;
  ident::FitOptions o;
  o.keep_signals = false;
  o.starts = 1;
  for (const auto& p : d.design.prediction.parameters) o.initial.push_back(p.name + "=" + format_number(p.value));
  std::map<std::string, std::vector<double>> fits;
  for (int k = 1; k <= n; ++k) {
    const ident::FitSummary s = ident::fit(noisy(r, d.design, static_cast<std::uint64_t>(k)), r.model, o);
    for (const auto& p : d.design.prediction.parameters) fits[p.name].push_back(s.param(p.name).value);
  }
  const double lo = chi2_quantile(-3.2905, n - 1) / (n - 1), hi = chi2_quantile(3.2905, n - 1) / (n - 1);
  for (const auto& p : d.design.prediction.parameters) {
    const std::vector<double>& x = fits[p.name];
    double mean = 0, ss = 0;
    for (double v : x) mean += v / n;
    for (double v : x) ss += (v - mean) * (v - mean);
    const double var = ss / (n - 1), ratio = var / (p.std_error * p.std_error);
    const double bias = (mean - p.value) / (p.std_error / std::sqrt(n));
    std::printf(
        "lugre %-7s truth %-9.4g empirical std %-9.4g predicted %-9.4g (%.2f %%) var ratio %.3f [%.3f, %.3f] "
        "bias %.2f SEM\n",
        p.name.c_str(), p.value, std::sqrt(var), p.std_error, 100 * p.relative, ratio, lo, hi, bias);
    EXPECT_GE(ratio, lo) << p.name;
    EXPECT_LE(ratio, hi) << p.name;
    EXPECT_LT(std::abs(bias), 4.0) << p.name;
  }
}

}  // namespace
}  // namespace stribeck
