// Ensembles drawn from a fit (simulate [ensemble] from_fit): the fit's
// covariance mapped to internal coordinates and drawn as one multivariate
// normal, and the probability of stick-slip with its Monte Carlo error,
// against the closed form of a Coulomb spring-mass rig.
// (The library's draws and quantiles: tests/unit/workloads/test_fit_prior_draws.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "fit_json.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/workloads/fit_prior.hpp"
#include "stribeck/workloads/params.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::fit_json;
using test::run_cli;
using test::temp_dir;
using test::write_temp_file;

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

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
  const workloads::FitPrior p = workloads::read_fit_prior(js, workloads::require_model("simscape-cylinder"), "test");
  EXPECT_EQ(p.names.size(), names.size());
  EXPECT_EQ(p.values.size(), j["parameters"].size());
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
