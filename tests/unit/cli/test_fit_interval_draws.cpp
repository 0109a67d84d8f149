// Ensembles drawn from a fit's intervals (simulate [ensemble] from_fit_draw =
// "profile-intervals", docs/dynamics.md) on a real fit: a log generated
// with a cylinder's breakaway just above none, so that identify reports
// asymmetric profile intervals, fitted with --json and drawn; the drawn
// parameters' 2.5 % and 97.5 % quantiles are the fit's interval ends, and the
// output says which draw was used. (The distribution itself:
// tests/unit/workloads/test_fit_prior_intervals.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/point_file.hpp"
#include "stribeck/report/figure.hpp"
#include "scratch_files.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::run_cli;
using test::temp_dir;
using test::write_temp_file;

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(test::slurp(path)); }

// The ensemble group's attributes that say how it was drawn ("" when absent).
std::string ensemble_attribute(const std::string& path, const std::string& name) {
  const data::h5::File f = data::h5::open_file(path);
  const data::h5::Group g = data::h5::open_group(f.id(), "ensemble", path);
  if (!data::h5::has_attribute(g.id(), name)) return "";
  return data::h5::read_string_attribute(g.id(), name, path);
}

// simscape-cylinder with K_brk = 1.005 (a breakaway 0.5 % above the Coulomb
// level) on plateaus at two pressures with 2 N of force noise: the cost is
// far from quadratic in K_brk and c_v, and identify reports their profile
// intervals (seen: K_brk 1.0059 [1.0033, 1.0099], c_v 39 [17.6, 91], and
// F_pr, f_cfr, f_vfr profile intervals too).
std::string cylinder_fit() {
  const std::string log = temp_dir() + "cyl.h5", fit = temp_dir() + "cyl_fit.json";
  std::string out;
  EXPECT_EQ(run_cli("generate -m simscape-cylinder -p F_pr=20 -p f_cfr=2e-5 -p K_brk=1.005 -p f_vfr=150 -p c_v=40 "
                    "-p v_th=1e-4 --profile plateaus --rate 1000 --duration 10 --pressure-levels 10bar,40bar "
                    "--noise force=2 --seed 7 -q -o " +
                        log,
                    &out),
            0)
      << out;
  EXPECT_EQ(run_cli("identify " + log + " --model simscape-cylinder --fix v_th=1e-4 -q --json " + fit, &out), 0) << out;
  return fit;
}

// A heavy body (1000 kg, so the law's linear zone needs no sub-steps) coasting
// for 10 ms: the draws are what is tested here, not the dynamics.
std::string config(const std::string& tag, const std::string& ensemble) {
  return write_temp_file(tag + ".toml",
                         "[system]\nmass = 1000.0\npressure_a = 2e6\ninitial_velocity = 0.01\n"
                         "[friction]\nmodel = \"simscape-cylinder\"\n"
                         "[simulation]\nt_end = 0.01\ndt = 1e-3\n"
                         "[ensemble]\ndesign = \"random\"\nseed = 3\ndevice = \"cpu\"\n" +
                             ensemble);
}

TEST(FitIntervalDraws, DrawsOfARealProfileFitHaveItsIntervalEndsAsQuantiles) {
  const std::string fit = cylinder_fit();
  const nlohmann::json j = read_json(fit);
  int profiles = 0;
  for (const auto& [name, e] : j["parameters"].items()) profiles += e["interval"] == "profile";
  ASSERT_GE(profiles, 1) << j.dump(2);
  const std::uint64_t n = 20000;
  const std::string out = temp_dir() + "cyl_draws.h5", js = temp_dir() + "cyl_draws.json";
  std::string log;
  ASSERT_EQ(run_cli("simulate " +
                        config("cyl_draws", "points = " + std::to_string(n) + "\nfrom_fit = \"" + fit +
                                                "\"\nfrom_fit_draw = \"profile-intervals\"\n") +
                        " -o " + out + " --json " + js,
                    &log),
            0)
      << log;
  EXPECT_NE(log.find("drawn from the fit " + fit + " (profile-intervals): P(stick-slip)"), std::string::npos) << log;
  EXPECT_EQ(read_json(js)["from_fit"]["draw"], "profile-intervals");
  EXPECT_EQ(ensemble_attribute(out, "from_fit_draw"), "profile-intervals");
  {
    // The report names the draw as the summary does.
    const report::Document doc = report::read_document(out);
    bool named = false;
    for (const report::Section& sec : doc.sections)
      for (const report::Figure& fig : sec.figures)
        for (const std::string& line : fig.text)
          named |= line.find(" (profile-intervals): P(stick-slip)") != std::string::npos;
    EXPECT_TRUE(named) << "the report of " << out;
  }
  const data::PointFile f(out);
  ASSERT_EQ(f.rows(), n);
  int checked = 0;
  for (const std::string& name : j["correlation"]["parameters"].get<std::vector<std::string>>()) {
    const auto& e = j["parameters"][name];
    // Every free parameter of this law is drawn in its own coordinate
    // (identity), so its external quantiles are its interval's ends.
    ASSERT_EQ(j["correlation"]["transforms"][checked], "identity") << name;
    std::vector<double> v;
    f.read_dimension(f.dimension_index(name), 0, n, v);
    std::sort(v.begin(), v.end());
    for (int end = 0; end < 2; ++end) {
      // The order statistics around rank n p, three binomial standard deviations either side.
      const double p = end == 0 ? 0.025 : 0.975, h = 3 * std::sqrt(n * p * (1 - p));
      const double want = e["ci95"][end].get<double>();
      EXPECT_LE(v[static_cast<size_t>(n * p - h)], want) << name << " " << e["interval"] << " end " << end;
      EXPECT_GE(v[static_cast<size_t>(n * p + h)], want) << name << " " << e["interval"] << " end " << end;
    }
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

TEST(FitIntervalDraws, TheCovarianceDrawIsNamedAndOtherEnsemblesAreUnchanged) {
  const std::string fit = cylinder_fit();
  const std::string cov = temp_dir() + "cyl_cov.h5", plain = temp_dir() + "cyl_plain.h5";
  std::string log;
  ASSERT_EQ(run_cli("simulate " + config("cyl_cov", "points = 50\nfrom_fit = \"" + fit + "\"\n") + " -o " + cov, &log),
            0)
      << log;
  EXPECT_NE(log.find("(covariance): P(stick-slip)"), std::string::npos) << log;
  EXPECT_EQ(ensemble_attribute(cov, "from_fit_draw"), "covariance");
  ASSERT_EQ(run_cli("simulate " + config("cyl_plain", "points = 50\n[ensemble.params]\nF_pr = \"uniform:19:21\"\n") +
                        " -o " + plain,
                    &log),
            0)
      << log;
  EXPECT_EQ(ensemble_attribute(plain, "from_fit_draw"), "");
  EXPECT_EQ(ensemble_attribute(plain, "from_fit"), "");
}

TEST(FitIntervalDraws, BadInputIsOneLineAndExit2WithNoOutput) {
  const std::string fit = cylinder_fit();
  nlohmann::json bare = read_json(fit);
  for (auto& [name, e] : bare["parameters"].items()) e.erase("ci95");  // a fit without intervals
  const std::string bare_fit = write_temp_file("cyl_bare_fit.json", bare.dump(2));
  auto expect_error = [&](const std::string& ensemble, const std::string& want) {
    const std::string out = temp_dir() + "never.h5";
    std::string log;
    EXPECT_EQ(run_cli("simulate " + config("cyl_bad", "points = 50\n" + ensemble) + " -o " + out, &log), 2) << log;
    EXPECT_NE(log.find("stribeck: error: "), std::string::npos) << log;
    EXPECT_NE(log.find(want), std::string::npos) << log;
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
    EXPECT_FALSE(std::ifstream(out).good());
  };
  expect_error("from_fit = \"" + fit + "\"\nfrom_fit_draw = \"profile\"\n",
               "'from_fit_draw' must be \"covariance\" or \"profile-intervals\"");
  expect_error("from_fit = \"" + fit + "\"\nfrom_fit_draw = 2\n",
               "'from_fit_draw' must be \"covariance\" or \"profile-intervals\"");
  expect_error("from_fit = \"" + bare_fit + "\"\nfrom_fit_draw = \"profile-intervals\"\n",
               "has no 95 % interval (ci95 and interval, written by identify --json)");
  expect_error("from_fit_draw = \"profile-intervals\"\n[ensemble.params]\nF_pr = \"uniform:19:21\"\n",
               "'from_fit_draw' needs from_fit");
}

}  // namespace
}  // namespace stribeck
