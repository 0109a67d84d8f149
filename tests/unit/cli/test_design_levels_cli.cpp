// A `levels` design (the plateau test bench/peers/design_bound.py writes as
// the best test of a rig) through the program: `generate --design` makes
// its log and `identify` reports the standard errors design's information
// predicts for it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "cli_runner.hpp"
#include "stribeck/identification/design.hpp"
#include "stribeck/workloads/design_file.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

// A servo axis (Simscape Rotational Friction) held at full speed, near the
// Stribeck velocity and below it, both directions, 10 s at 500 Hz.
const char* kLevels = R"(format = "stribeck-design"
version = 1
model = "simscape-rotational"
motion = "rotational"

[params]
T_brk = 1.2
w_brk = 0.1
T_C = 0.8
f_v = 0.05

[[experiment]]
name = "e1"
profile = "levels"
duration_s = 10
rate_hz = 500
v_max_rad_s = 8
levels_rad_s = [8, -8, 0.25, -0.25, 0.1, -0.1, 0.01, -0.01]
holds_s = [1, 1, 1.2, 1.2, 1, 1, 1.5, 1.5]
ramp_rad_s2 = 100
)";

// identify's standard errors differ from the prediction by its noise
// estimate (s / sigma spreads by 1/sqrt(2N), 0.3 % for 5,000 samples) and
// its Jacobian taken at the estimate instead of the truth: 5 %.
TEST(DesignLevelsCli, IdentifyReportsThePredictedStdErrors) {
  const std::string d = test::temp_dir();
  const std::string toml = test::write_temp_file("levels_servo.toml", kLevels);
  std::string out;
  ASSERT_EQ(test::run_cli("generate --design " + toml + " --noise force=0.02 --seed 5 -o " + d + "lv.h5", &out), 0)
      << out;
  ASSERT_EQ(test::run_cli("identify " + d + "lv.h5 --model simscape-rotational --json " + d + "lv.json", &out), 0)
      << out;
  const workloads::DesignFile design = workloads::read_design_file(toml);
  ident::DesignRequest r;
  r.model = design.model;
  for (const auto& [name, value] : design.params) r.prior.push_back(value);
  r.rig.stroke = 100;
  r.rig.v_max = 10;
  r.rig.a_max = 100;
  r.rig.duration = 10;
  r.rig.rate_hz = 500;
  r.rig.force_noise = 0.02;
  const ident::DesignEvaluation ev = ident::evaluate_design(r, design.experiments);
  ASSERT_TRUE(ev.feasible) << ev.infeasible;
  std::ifstream in(d + "lv.json");
  const nlohmann::json fit = nlohmann::json::parse(in);
  ASSERT_EQ(ev.prediction.parameters.size(), 4u);
  for (const auto& p : ev.prediction.parameters) {
    const double reported = fit["parameters"][p.name]["std_error"].get<double>();
    EXPECT_NEAR(reported / p.std_error, 1.0, 0.05) << p.name;
    EXPECT_LT(p.relative, 0.02) << p.name;  // well inside the linear regime
  }
}

}  // namespace
}  // namespace stribeck
