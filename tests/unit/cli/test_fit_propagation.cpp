// Ensembles drawn from a fit (simulate [ensemble] from_fit): the fit's
// covariance mapped to internal coordinates and drawn as one multivariate
// normal, and the probability of stick-slip with its Monte Carlo error,
// against the closed form of a Coulomb spring-mass rig.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/workloads/fit_draws.hpp"
#include "stribeck/workloads/fit_prior.hpp"
#include "stribeck/workloads/params.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::run_cli;
using test::temp_dir;
using test::write_temp_file;

// A fit's JSON as identify --json writes it (the keys from_fit reads).
std::string fit_json(const std::string& model, const std::vector<std::string>& names,
                     const std::vector<std::string>& transforms, const std::vector<double>& values,
                     const std::vector<double>& se, const std::vector<std::vector<double>>& corr,
                     const std::vector<std::pair<std::string, double>>& fixed) {
  nlohmann::json j;
  j["model"] = model;
  for (size_t a = 0; a < names.size(); ++a)
    j["parameters"][names[a]] = {{"value", values[a]}, {"std_error", se[a]}, {"fixed", false}};
  for (const auto& [n, v] : fixed) j["parameters"][n] = {{"value", v}, {"std_error", nullptr}, {"fixed", true}};
  j["correlation"] = {{"parameters", names}, {"transforms", transforms}, {"matrix", corr}};
  return j.dump(2);
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Draws with small relative standard errors: the delta method is then exact
// to first order, so the draws' external covariance is the fit's.
TEST(FitPrior, DrawsReproduceTheFitsExternalCovariance) {
  const ModelInfo& m = require_model("simscape-translational");
  const std::vector<std::string> names{"F_brk", "v_brk", "F_C", "f_v"};
  const std::vector<double> x{25.0, 0.1, 20.0, 100.0}, se{0.02, 1e-4, 0.015, 0.1};
  const std::vector<std::vector<double>> corr{
      {1.0, -0.3, 0.6, 0.1}, {-0.3, 1.0, -0.2, 0.0}, {0.6, -0.2, 1.0, -0.4}, {0.1, 0.0, -0.4, 1.0}};
  const std::string path =
      write_temp_file("fit4.json", fit_json(m.id, names, {"excess:F_C", "log", "log", "identity"}, x, se, corr, {}));
  const FitPrior p = read_fit_prior(path, m, "test");
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
  const ModelInfo& m = require_model("coulomb-viscous");
  auto message = [&](const std::string& text) {
    try {
      read_fit_prior(write_temp_file("bad.json", text), m, "cfg.toml:3:1: from_fit");
    } catch (const InputError& e) {
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

// Coulomb friction F_C and a breakaway force B on an undamped spring-mass
// (1 kg, 20 N/m: a slip lasts about a second, a stick (B - F_C) s at 0.1 m/s)
// driven at constant velocity: after the first breakaway the body slides on
// F_C, overshoots and sticks again whenever B > F_C, so stick-slip happens
// exactly when B > F_C. With F_C drawn log-normal from the fit (log is its
// internal coordinate, sigma = se / F_C), P = Phi((ln B - ln F_C) / sigma).
struct CoulombRig {
  double fc = 1.2, se = 0.25, breakaway = 1.5;
  std::string fit, config;

  explicit CoulombRig(std::uint64_t points) {
    fit = write_temp_file("coulomb_fit.json", fit_json("coulomb-viscous", {"F_C"}, {"log"}, {fc}, {se}, {{1.0}},
                                                       {{"f_v", 0.0}, {"v_eps", 0.0}}));
    config = write_temp_file("coulomb_" + std::to_string(points) + ".toml",
                             "[system]\nmass = 1.0\nstiffness = 20.0\ndrive_velocity = 0.1\n"
                             "[friction]\nmodel = \"coulomb-viscous\"\nform = \"stiction\"\nbreakaway = " +
                                 std::to_string(breakaway) +
                                 "\n[simulation]\nt_end = 12.0\ndt = 1e-3\n"
                                 "[ensemble]\ndesign = \"random\"\nseed = 5\ndevice = \"cpu\"\npoints = " +
                                 std::to_string(points) + "\nfrom_fit = \"" + fit + "\"\n");
  }
  double closed_form() const { return normal_cdf((std::log(breakaway) - std::log(fc)) / (se / fc)); }

  nlohmann::json run(const std::string& tag) const {
    const std::string out = temp_dir() + tag + ".h5", js = temp_dir() + tag + ".json";
    std::string log;
    EXPECT_EQ(run_cli("simulate " + config + " -o " + out + " --json " + js + " -q", &log), 0) << log;
    std::ifstream in(js);
    std::stringstream ss;
    ss << in.rdbuf();
    return nlohmann::json::parse(ss.str());
  }
};

TEST(FitPropagation, StickSlipProbabilityMatchesTheClosedFormOfACoulombRig) {
  // And converges: a quarter of the draws has twice the standard error, and
  // both estimates lie within four of their standard errors of the closed form.
  const CoulombRig small(1000), large(4000);
  const double want = large.closed_form();
  double se_of[2];
  for (int k = 0; k < 2; ++k) {
    const CoulombRig& rig = k == 0 ? small : large;
    const std::uint64_t n = k == 0 ? 1000 : 4000;
    const nlohmann::json j = rig.run("coulomb" + std::to_string(n));
    const auto& p = j["from_fit"]["stick_slip_probability"];
    ASSERT_TRUE(p.is_object()) << j.dump();
    const double got = p["value"], se = p["std_error"];
    EXPECT_EQ(p["draws"], n);
    EXPECT_NEAR(se, std::sqrt(want * (1 - want) / double(n)), 0.15 * se);
    EXPECT_NEAR(got, want, 4 * se) << n << " draws; closed form " << want;
    EXPECT_EQ(j["from_fit"]["drawn"], nlohmann::json::array({"F_C"}));
    se_of[k] = se;
  }
  EXPECT_NEAR(se_of[0] / se_of[1], 2.0, 0.2);
}

TEST(FitPropagation, IdentifyJsonIsAFitToDrawFrom) {
  // What identify --json writes: one transform per free parameter, in the
  // order of the correlation matrix, which read_fit_prior takes as it is.
  const std::string js = temp_dir() + "fit_cyl.json";
  std::string log;
  ASSERT_EQ(run_cli(std::string("identify ") + STRIBECK_SOURCE_DIR +
                        "/data/examples/cylinder_plateaus.h5 --model simscape-cylinder --json " + js + " -q",
                    &log),
            0)
      << log;
  std::ifstream in(js);
  const nlohmann::json j = nlohmann::json::parse(in);
  const auto& names = j["correlation"]["parameters"];
  const auto& transforms = j["correlation"]["transforms"];
  ASSERT_EQ(transforms.size(), names.size());
  for (const auto& t : transforms) {
    const std::string s = t;
    EXPECT_TRUE(s == "identity" || s == "log" || s.rfind("excess:", 0) == 0) << s;
  }
  const FitPrior p = read_fit_prior(js, require_model("simscape-cylinder"), "test");
  EXPECT_EQ(p.names.size(), names.size());
  EXPECT_EQ(p.values.size(), j["parameters"].size());
}

TEST(FitDraws, QuantilesAndTheirIntervalsFromTheOrderStatistics) {
  // Draws k / n (k = 0 .. n-1) of a uniform: the p-quantile is p to 1/n, and
  // its 95 % interval spans ranks n p -/+ 1.96 sqrt(n p (1 - p)); points that
  // did not run (status != 0) are left out.
  EnsembleResult r;
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
  const FitDrawsSummary s = summarize_fit_draws(r, "");
  EXPECT_DOUBLE_EQ(s.stick_slip.value, 0.25);
  EXPECT_DOUBLE_EQ(s.stick_slip.std_error, std::sqrt(0.25 * 0.75 / n));
  ASSERT_EQ(s.quantiles.size(), 4u);
  const MetricQuantiles& b = s.quantiles[0];
  EXPECT_EQ(b.metric, "breakaway_force");
  EXPECT_EQ(b.draws, std::uint64_t(n));
  for (int i = 0; i < 3; ++i) {
    const double p = MetricQuantiles::kProbabilities[i], half = 1.96 * std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(b.value[i], p, 1.0 / n);
    EXPECT_NEAR(b.lo[i], p - half, 1.5 / n);
    EXPECT_NEAR(b.hi[i], p + half, 1.5 / n);
  }
  EXPECT_EQ(s.quantiles[3].metric, "period");
  EXPECT_EQ(s.quantiles[3].value[1], 2.0);
  EXPECT_NE(fit_draws_report(s, "fit.json").find("breakaway_force: 5 % 0.05 [0.04"), std::string::npos)
      << fit_draws_report(s, "fit.json");
}

TEST(FitPropagation, ConfigMistakesAreOneLineErrors) {
  const CoulombRig rig(10);
  std::string cfg;
  {
    std::ifstream in(rig.config);
    std::stringstream ss;
    ss << in.rdbuf();
    cfg = ss.str();
  }
  auto expect_error = [&](const std::string& text, const std::string& want) {
    const std::string path = write_temp_file("bad_from_fit.toml", text), out = temp_dir() + "never.h5";
    std::string log;
    EXPECT_EQ(run_cli("simulate " + path + " -o " + out + " -q", &log), 2) << log;
    EXPECT_NE(log.find(want), std::string::npos) << log;
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
    EXPECT_FALSE(std::ifstream(out).good());
  };
  std::string grid = cfg;
  grid.replace(grid.find("design = \"random\""), 17, "design = \"grid\"");
  grid.replace(grid.find("points = 10"), 11, "");
  expect_error(grid, "draws from a fit need design = \"random\"");
  std::string twice = cfg + "[ensemble.params]\nF_C = \"uniform:1:2\"\n";
  expect_error(twice, "F_C is drawn from the fit (from_fit); remove it from [ensemble.params]");
  std::string fixed = cfg;
  fixed.replace(fixed.find("[simulation]"), 12, "[friction.params]\nF_C = 1.0\n[simulation]");
  expect_error(fixed, "parameter 'F_C' is drawn from the fit (from_fit); remove it here");
  std::string missing = cfg;
  missing.replace(missing.find(rig.fit), rig.fit.size(), temp_dir() + "no_such_fit.json");
  expect_error(missing, "cannot open the fit");
}

}  // namespace
}  // namespace stribeck
