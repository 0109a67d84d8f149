// plan_sweep(SweepSpec, traces): the typed planning API the coarse search of
// a fit calls. A spec and the config that says the same thing must plan the
// same sweep and rank the same points; a spec is checked as a config is.
#include <gtest/gtest.h>

#include "stribeck/data/error.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/sweep.hpp"
#include "stribeck/workloads/sweep_run.hpp"

namespace stribeck {
namespace {

const char* kConfig =
    "model = \"simscape-cylinder\"\n"
    "[design]\ntype = \"sobol\"\npoints = 512\nseed = 7\n"
    "[params]\nF_pr = { uniform = [5.0, 60.0] }\nc_v = { loguniform = [1.0, 100.0] }\nv_th = 2e-4\n"
    "[[trace]]\nprofile = \"sine\"\nname = \"ref\"\nsamples = 300\np_a = 5e6\np_b = 1e6\n"
    "reference = { F_pr = 30, c_v = 12 }\n"
    "[metrics]\nkeep = [\"rmse\", \"energy\"]\nobjective = \"rmse\"\ntop_k = 7\n";

// The same sweep as kConfig, typed: the axes as ParamSpecs, the metrics as
// ids, the traces made from the experiments the config's profile gives.
workloads::SweepSpec spec_of_config() {
  workloads::SweepSpec s;
  s.model = "simscape-cylinder";
  s.design = sweep::Design::kSobol;
  s.points = 512;
  s.seed = 7;
  workloads::ParamSpec f_pr{"F_pr", sweep::AxisKind::kUniform, 5.0, 60.0};
  workloads::ParamSpec c_v{"c_v", sweep::AxisKind::kLogUniform, 1.0, 100.0};
  workloads::ParamSpec v_th{"v_th", sweep::AxisKind::kFixed, 2e-4};
  s.params = {f_pr, c_v, v_th};
  s.metrics = {sweep::kRmse, sweep::kEnergy};
  s.objective = sweep::kRmse;
  s.top_k = 7;
  return s;
}

std::vector<workloads::SweepTrace> traces_of(const workloads::SweepConfig& c) {
  const ModelInfo& m = workloads::require_model(c.model);
  std::vector<workloads::SweepTrace> out;
  for (const data::Experiment& e : workloads::load_sweep_experiments(c, m))
    out.push_back(workloads::make_sweep_trace(m, e));
  return out;
}

TEST(SweepSpec, PlansAndRanksAsTheConfigThatSaysTheSame) {
  const workloads::SweepConfig c = workloads::parse_sweep_config(kConfig, "spec.toml");
  const workloads::SweepPlan from_config = workloads::plan_sweep(c);
  const workloads::SweepPlan from_spec = workloads::plan_sweep(spec_of_config(), traces_of(c));
  ASSERT_EQ(from_spec.space.points, 512u);
  EXPECT_EQ(from_spec.space.points, from_config.space.points);
  EXPECT_EQ(from_spec.metrics, from_config.metrics);
  EXPECT_EQ(from_spec.objective, from_config.objective);
  EXPECT_EQ(from_spec.top_k, 7);
  for (std::uint64_t i : {0u, 1u, 255u, 511u}) {
    std::vector<double> a(from_spec.space.dims), b(from_spec.space.dims);
    from_spec.point(i, a.data());
    from_config.point(i, b.data());
    EXPECT_EQ(a, b) << "point " << i;
  }
  workloads::SweepRunOptions ro;
  ro.device = "cpu";
  const workloads::SweepSummary typed = workloads::run_sweep(from_spec, ro);
  const workloads::SweepSummary configured = workloads::run_sweep(from_config, c, ro);
  ASSERT_EQ(typed.top.size(), 7u);
  ASSERT_EQ(typed.top.size(), configured.top.size());
  for (size_t k = 0; k < typed.top.size(); ++k) {
    EXPECT_EQ(typed.top[k].index, configured.top[k].index);
    EXPECT_EQ(typed.top[k].objective, configured.top[k].objective);  // bit for bit
    EXPECT_EQ(typed.top[k].params, configured.top[k].params);
  }
  // The reference force was made at F_pr = 30, c_v = 12: the best point of
  // the design lies nearer it than the box's middle does.
  EXPECT_LT(std::abs(typed.top[0].params[0] - 30.0), 27.5 / 2);
}

TEST(SweepSpec, IsCheckedAsAConfigIs) {
  const workloads::SweepConfig c = workloads::parse_sweep_config(kConfig, "spec.toml");
  workloads::SweepSpec s = spec_of_config();
  s.where = "identify";
  auto message = [&](const workloads::SweepSpec& spec, std::vector<workloads::SweepTrace> traces) {
    try {
      workloads::plan_sweep(spec, std::move(traces));
    } catch (const data::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(s, {}), "identify: no input trace: add a [[trace]] with file = \"rig.h5\" or profile = \"sine\"");
  workloads::SweepSpec unknown = s;
  unknown.params[0].name = "F_nope";
  unknown.params[0].where = "identify";
  EXPECT_NE(message(unknown, traces_of(c)).find("identify: model simscape-cylinder has no parameter 'F_nope'"),
            std::string::npos);
  workloads::SweepSpec no_points = s;
  no_points.points = 0;
  EXPECT_NE(message(no_points, traces_of(c)), "accepted");
  // Without an objective: rmse where a trace has a measured force.
  workloads::SweepSpec by_default = s;
  by_default.objective = -1;
  EXPECT_EQ(workloads::plan_sweep(by_default, traces_of(c)).objective, sweep::kRmse);
  // A run of a spec's plan writes no file.
  workloads::SweepRunOptions ro;
  ro.output = "never.h5";
  EXPECT_THROW(workloads::run_sweep(workloads::plan_sweep(s, traces_of(c)), ro), std::invalid_argument);
}

}  // namespace
}  // namespace stribeck
