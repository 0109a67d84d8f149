// Ensembles drawn from a fit, the library's part (workloads/fit_prior.hpp,
// fit_draws.hpp): the fit's covariance mapped to internal coordinates and
// drawn as one multivariate normal, what cannot be drawn refused, and the
// quantiles of the drawn metrics with their intervals from the order
// statistics. (simulate [ensemble] from_fit against the closed form of a
// Coulomb spring-mass rig: tests/unit/cli/test_fit_propagation.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fit_json.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/workloads/fit_draws.hpp"
#include "stribeck/workloads/fit_prior.hpp"
#include "stribeck/workloads/params.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::fit_json;
using test::write_temp_file;

// Draws with small relative standard errors: the delta method is then exact
// to first order, so the draws' external covariance is the fit's.
TEST(FitPrior, DrawsReproduceTheFitsExternalCovariance) {
  const ModelInfo& m = workloads::require_model("simscape-translational");
  const std::vector<std::string> names{"F_brk", "v_brk", "F_C", "f_v"};
  const std::vector<double> x{25.0, 0.1, 20.0, 100.0}, se{0.02, 1e-4, 0.015, 0.1};
  const std::vector<std::vector<double>> corr{
      {1.0, -0.3, 0.6, 0.1}, {-0.3, 1.0, -0.2, 0.0}, {0.6, -0.2, 1.0, -0.4}, {0.1, 0.0, -0.4, 1.0}};
  const std::string path =
      write_temp_file("fit4.json", fit_json(m.id, names, {"excess:F_C", "log", "log", "identity"}, x, se, corr, {}));
  const workloads::FitPrior p = workloads::read_fit_prior(path, m, "test");
  ASSERT_EQ(p.names, names);
  ASSERT_EQ(p.transform[0], sweep::kJointExcess);
  ASSERT_EQ(p.base[0], 2);
  // The space add_prior_axes builds (workloads/src/ensemble.cpp).
  std::vector<double> list(p.mean);
  list.insert(list.end(), p.chol.begin(), p.chol.end());
  sweep::SpaceView s;
  s.design = sweep::Design::kRandom;
  s.dims = 4;
  s.seed = 11;
  s.joint = 4;
  s.list_values = list.data();
  for (int j = 0; j < 4; ++j) {
    s.axis[j].kind = sweep::AxisKind::kJointNormal;
    s.axis[j].count = static_cast<std::uint64_t>(j);
    s.axis[j].a = p.transform[j];
    s.axis[j].b = p.base[j] >= 0 ? p.base[j] : 0;
  }
  const std::uint64_t n = 100000;
  s.points = n;
  std::vector<std::vector<double>> draws(4, std::vector<double>(n));
  double out[4];
  for (std::uint64_t i = 0; i < n; ++i) {
    sweep::space_point(s, i, out);
    for (int a = 0; a < 4; ++a) draws[a][i] = out[a];
  }
  double mean[4];
  for (int a = 0; a < 4; ++a) {
    long double sum = 0;
    for (double v : draws[a]) sum += v;
    mean[a] = static_cast<double>(sum / n);
    EXPECT_NEAR(mean[a], x[a], 5 * se[a] / std::sqrt(double(n)) + 1e-3 * se[a]) << names[a];
  }
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b <= a; ++b) {
      long double sum = 0;
      for (std::uint64_t i = 0; i < n; ++i) sum += (draws[a][i] - mean[a]) * (draws[b][i] - mean[b]);
      const double c = static_cast<double>(sum / (n - 1)), want = corr[a][b] * se[a] * se[b];
      const double tol = 5 * std::sqrt((se[a] * se[a] * se[b] * se[b] + want * want) / n) + 1e-2 * se[a] * se[b];
      EXPECT_NEAR(c, want, tol) << names[a] << ", " << names[b];
    }
}

TEST(FitPrior, RefusesWhatItCannotDraw) {
  const ModelInfo& m = workloads::require_model("coulomb-viscous");
  auto message = [&](const std::string& text) {
    try {
      workloads::read_fit_prior(write_temp_file("bad.json", text), m, "cfg.toml:3:1: from_fit");
    } catch (const data::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto ok = nlohmann::json::parse(fit_json(m.id, {"F_C"}, {"log"}, {1.2}, {0.1}, {{1.0}}, {{"f_v", 0.0}}));
  EXPECT_NE(message(ok.dump()).find("no error"), std::string::npos);
  auto other = ok;
  other["model"] = "lugre";
  EXPECT_NE(message(other.dump()).find("a fit of \"lugre\", not of coulomb-viscous"), std::string::npos);
  auto undetermined = ok;
  undetermined["parameters"]["F_C"]["std_error"] = nullptr;
  EXPECT_NE(message(undetermined.dump()).find("F_C has no standard error"), std::string::npos);
  auto old = ok;
  old["correlation"].erase("transforms");
  EXPECT_NE(message(old.dump()).find("no correlation.transforms"), std::string::npos);
  EXPECT_NE(message("{not json").find("not JSON"), std::string::npos);
  const auto flat = nlohmann::json::parse(
      fit_json(m.id, {"F_C", "f_v"}, {"log", "identity"}, {1.2, 3.0}, {0.1, 0.2}, {{1.0, 1.0}, {1.0, 1.0}}, {}));
  EXPECT_NE(message(flat.dump()).find("not positive definite"), std::string::npos);
  EXPECT_NE(message(ok.dump()).rfind("no error", 0), std::string::npos);
}

TEST(FitDraws, QuantilesAndTheirIntervalsFromTheOrderStatistics) {
  // Draws k / n (k = 0 .. n-1) of a uniform: the p-quantile is p to 1/n, and
  // its 95 % interval spans ranks n p -/+ 1.96 sqrt(n p (1 - p)); points that
  // did not run (status != 0) are left out.
  workloads::EnsembleResult r;
  const int n = 20000;
  for (int k = 0; k < n; ++k) {
    StickSlipMetrics<double> m;
    m.breakaway_force = double(k) / n;
    m.period = 2.0;
    r.metrics.push_back(m);
  }
  StickSlipMetrics<double> stopped;
  stopped.status = 2;
  stopped.breakaway_force = 99;
  r.metrics.push_back(stopped);
  r.totals.status_counts[0] = n;
  r.totals.stick_slip = n / 4;
  const workloads::FitDrawsSummary s = workloads::summarize_fit_draws(r, "");
  EXPECT_DOUBLE_EQ(s.stick_slip.value, 0.25);
  EXPECT_DOUBLE_EQ(s.stick_slip.std_error, std::sqrt(0.25 * 0.75 / n));
  ASSERT_EQ(s.quantiles.size(), 4u);
  const workloads::MetricQuantiles& b = s.quantiles[0];
  EXPECT_EQ(b.metric, "breakaway_force");
  EXPECT_EQ(b.draws, std::uint64_t(n));
  for (int i = 0; i < 3; ++i) {
    const double p = workloads::MetricQuantiles::kProbabilities[i], half = 1.96 * std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(b.value[i], p, 1.0 / n);
    EXPECT_NEAR(b.lo[i], p - half, 1.5 / n);
    EXPECT_NEAR(b.hi[i], p + half, 1.5 / n);
  }
  EXPECT_EQ(s.quantiles[3].metric, "period");
  EXPECT_EQ(s.quantiles[3].value[1], 2.0);
  EXPECT_NE(workloads::fit_draws_report(s, "fit.json", "covariance").find("breakaway_force: 5 % 0.05 [0.04"),
            std::string::npos)
      << workloads::fit_draws_report(s, "fit.json", "covariance");
}

}  // namespace
}  // namespace stribeck
