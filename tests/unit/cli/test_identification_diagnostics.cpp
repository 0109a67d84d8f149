// The static fit's report through the CLI (issue 31, items 4 and 5): the
// fit's JSON re-evaluated by `eval --params` over every sample of a stroke
// predicts the true friction, and where the fit saw every sample it is the
// fitted law. (The report itself: tests/unit/identification/test_fit_diagnostics.cpp.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "fit_diagnostics_cases.hpp"
#include "stribeck/workloads/generator.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/registry.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::count_of;
using test::expect_each_warning_once;
using test::params_of;
using test::stroke;

// The columns of a CSV file `eval` wrote, by name.
std::map<std::string, std::vector<double>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  std::stringstream h(line);
  for (std::string n; std::getline(h, n, ',');) names.push_back(n);
  std::map<std::string, std::vector<double>> cols;
  while (std::getline(in, line)) {
    std::stringstream r(line);
    size_t c = 0;
    for (std::string cell; std::getline(r, cell, ',') && c < names.size(); ++c)
      cols[names[c]].push_back(std::stod(cell));
  }
  return cols;
}

void write_csv(const std::string& path, const std::vector<data::Experiment>& log,
               const std::vector<std::string>& channels) {
  std::ofstream csv(path);
  csv.precision(17);
  for (size_t c = 0; c < channels.size(); ++c) csv << (c ? "," : "") << channels[c];
  csv << "\n";
  for (const auto& e : log)
    for (size_t i = 0; i < e.size(); ++i)
      for (size_t c = 0; c < channels.size(); ++c)
        csv << e.channel(channels[c])[i] << (c + 1 < channels.size() ? "," : "\n");
}

double rms_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double se = 0;
  for (size_t i = 0; i < a.size(); ++i) se += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(se / static_cast<double>(a.size()));
}

// The row's stroke through the CLI: the fit's JSON, re-evaluated by `eval
// --params` over every sample of the stroke, predicts the true friction (no
// breakaway of kilonewtons at the reversals the filtered fit never saw); and
// where the fit saw every sample, the re-evaluated law is the fitted one:
// the same RMSE.
TEST(FitDiagnosticsCli, TheReEvaluatedLawOfAFitWithoutABreakawayIsTheFittedLaw) {
  const std::string dir = test::temp_dir() + "/stribeck_fit_diagnostics_eval";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  write_log(dir + "/stroke.h5", workloads::generate_log(stroke(6, true)), data::Provenance{});
  write_csv(dir + "/twin.csv", workloads::generate_log(stroke(6, false)),
            {"velocity", "pressure_a", "pressure_b", "friction_true"});
  std::string out;
  ASSERT_EQ(
      test::run_cli("identify " + dir + "/stroke.h5 --model simscape-cylinder --inertia --json " + dir + "/stroke.json",
                    &out),
      0)
      << out;
  {
    std::ifstream jf(dir + "/stroke.json");
    const auto j = nlohmann::json::parse(jf);
    EXPECT_EQ(j["parameters"]["K_brk"]["value"].get<double>(), 1.0) << out;
    const auto warnings = j["warnings"].get<std::vector<std::string>>();
    expect_each_warning_once(warnings);
    EXPECT_EQ(count_of(out, "warning: "), warnings.size()) << out;
  }
  ASSERT_EQ(
      test::run_cli("eval --params " + dir + "/stroke.json -i " + dir + "/twin.csv -o " + dir + "/twin_eval.csv", &out),
      0)
      << out;
  auto twin = read_csv(dir + "/twin_eval.csv");
  ASSERT_EQ(twin["model_force"].size(), twin["friction_true"].size());
  EXPECT_LT(rms_difference(twin["model_force"], twin["friction_true"]), 3.0);

  // Every sample fitted (velocity recorded): the same RMSE.
  workloads::GeneratorOptions g;
  g.model = "simscape-cylinder";
  g.params = params_of(g.model, {{"F_pr", 20}, {"K_brk", 1}, {"f_vfr", 100}});
  g.profile = "steps";
  g.pressure_levels = {2e5, 6e5};
  g.noise["force"] = 0.5;
  g.seed = 3;
  const auto log = workloads::generate_log(g);
  write_log(dir + "/steps.h5", log, data::Provenance{});
  write_csv(dir + "/steps.csv", log, {"velocity", "pressure_a", "pressure_b", "force"});
  ASSERT_EQ(test::run_cli("identify " + dir + "/steps.h5 --model simscape-cylinder --json " + dir + "/fit.json", &out),
            0)
      << out;
  std::ifstream jf(dir + "/fit.json");
  const auto j = nlohmann::json::parse(jf);
  ASSERT_EQ(test::run_cli("eval --params " + dir + "/fit.json -i " + dir + "/steps.csv -o " + dir + "/eval.csv", &out),
            0)
      << out;
  auto ev = read_csv(dir + "/eval.csv");
  ASSERT_EQ(static_cast<long>(ev["model_force"].size()), j["samples"].get<long>());
  EXPECT_NEAR(rms_difference(ev["model_force"], ev["force"]), j["rmse"].get<double>(), 1e-9 * j["rmse"].get<double>());
}

}  // namespace
}  // namespace stribeck
