// The report of an ensemble drawn from a fit (simulate [ensemble] from_fit,
// docs/reports.md): the ensemble group records the fit and the drawn names,
// and the page shows the probability of stick-slip with its Monte Carlo
// error and the distributions of the breakaway force and the stick-slip
// amplitude, draws that stick and slip apart from the others. Expected
// values come from the rig's physics and from simulate's --json, not from
// the report code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/report/figure.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::run_cli;
using test::temp_dir;
using test::write_temp_file;

// test_fit_propagation.cpp's Coulomb spring-mass rig: F_C drawn log-normal
// (1.2 N, 0.25 N) against a breakaway of 1.5 N; a draw sticks and slips
// exactly when F_C < 1.5 N, and its breakaway force is then 1.5 N (to the
// spring's rise in one 1 ms output step, 0.002 N, and the table's 4 digits);
// a draw with F_C > 1.5 N is outside the model's range (breakaway below the
// sliding force) and not run.
std::string coulomb_config(const std::string& tag, bool from_fit) {
  nlohmann::json fit;
  fit["model"] = "coulomb-viscous";
  fit["parameters"]["F_C"] = {{"value", 1.2}, {"std_error", 0.25}, {"fixed", false}};
  fit["parameters"]["f_v"] = {{"value", 0.0}, {"std_error", nullptr}, {"fixed", true}};
  fit["parameters"]["v_eps"] = {{"value", 0.0}, {"std_error", nullptr}, {"fixed", true}};
  fit["correlation"] = {{"parameters", {"F_C"}}, {"transforms", {"log"}}, {"matrix", {{1.0}}}};
  const std::string fit_path = write_temp_file(tag + "_fit.json", fit.dump(2));
  return write_temp_file(tag + ".toml",
                         "[system]\nmass = 1.0\nstiffness = 20.0\ndrive_velocity = 0.1\n"
                         "[friction]\nmodel = \"coulomb-viscous\"\nform = \"stiction\"\nbreakaway = 1.5\n"
                         "[simulation]\nt_end = 12.0\ndt = 1e-3\n[ensemble]\ndesign = \"random\"\nseed = 5\n"
                         "device = \"cpu\"\npoints = 400\n" +
                             (from_fit ? "from_fit = \"" + fit_path + "\"\n"
                                       : std::string("[ensemble.params]\nF_C = \"uniform:1.0:1.4\"\n")));
}

std::map<std::string, std::string> ensemble_attributes(const std::string& path) {
  const data::h5::File f = data::h5::open_file(path);
  const data::h5::Group g = data::h5::open_group(f.id(), "ensemble", path);
  std::map<std::string, std::string> a;
  for (const std::string& n : data::h5::attribute_names(g.id()))
    if (n == "from_fit" || n == "drawn") a[n] = data::h5::read_string_attribute(g.id(), n, path);
  return a;
}

const report::Section* find_section(const report::Document& d, const std::string& title) {
  for (const auto& s : d.sections)
    if (s.title == title) return &s;
  return nullptr;
}

TEST(ReportFitDraws, ShowsTheProbabilityAndTheDistributionsOfTheDraws) {
  const std::string cfg = coulomb_config("rfd", true), out = temp_dir() + "rfd.h5", js = temp_dir() + "rfd.json";
  std::string log;
  ASSERT_EQ(run_cli("simulate " + cfg + " -o " + out + " --json " + js + " -q", &log), 0) << log;
  std::ifstream in(js);
  const nlohmann::json j = nlohmann::json::parse(in);
  const auto& p = j["from_fit"]["stick_slip_probability"];
  const double value = p["value"], se = p["std_error"];
  const std::uint64_t draws = p["draws"], outside = j["status"]["invalid_parameters"];
  ASSERT_EQ(draws, 400u);
  ASSERT_EQ(j["status"]["ok"].get<std::uint64_t>() + outside, 400u);
  ASSERT_GT(value, 0.1);
  ASSERT_LT(value, 0.9);

  const auto attrs = ensemble_attributes(out);
  ASSERT_EQ(attrs.count("from_fit"), 1u);
  EXPECT_NE(attrs.at("from_fit").find("rfd_fit.json"), std::string::npos);
  EXPECT_EQ(attrs.at("drawn"), "F_C");

  const report::Document doc = report::read_document(out);
  const report::Section* s = find_section(doc, "Drawn from the fit");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->figures.size(), 4u);
  // The probability as simulate's --json gives it, with its error.
  ASSERT_EQ(s->figures[0].text.size(), 1u);
  char want[128];
  std::snprintf(want, sizeof want, "P(stick-slip) = %.4g +/- %.2g", value, se);
  EXPECT_NE(s->figures[0].text[0].find(want), std::string::npos) << s->figures[0].text[0];
  EXPECT_NE(s->figures[0].text[0].find("400 draws of F_C"), std::string::npos) << s->figures[0].text[0];
  EXPECT_NE(s->figures[0].text[0].find("rfd_fit.json (covariance): P(stick-slip)"), std::string::npos)
      << s->figures[0].text[0];
  // The quantiles: breakaway_force first, and every draw that ran breaks away at 1.5 N.
  ASSERT_EQ(s->figures[1].kind, report::FigureKind::kTable);
  ASSERT_GE(s->figures[1].table.rows.size(), 2u);
  EXPECT_EQ(s->figures[1].table.rows[0][0], "breakaway_force [N]");
  EXPECT_NEAR(std::stod(s->figures[1].table.rows[0][2]), 1.5, 0.0025) << s->figures[1].table.rows[0][2];
  // Two series per histogram over the same bins: the draws that stick and
  // slip (value x 400 of them) and the others that ran; the breakaway force 1.5 N for
  // all; the amplitude of those that do not stick and slip zero, of those
  // that do, F_s - F_C of the draw (the spring force swings about the
  // sliding level), so above zero.
  const auto count = [](const report::Series& r) { return std::accumulate(r.y.begin(), r.y.end(), 0.0); };
  for (int f = 2; f < 4; ++f) {
    const report::Figure& h = s->figures[f];
    ASSERT_EQ(h.kind, report::FigureKind::kHistogram);
    ASSERT_EQ(h.series.size(), 2u);
    EXPECT_EQ(h.series[0].name, "stick-slip");
    EXPECT_EQ(h.series[1].name, "no stick-slip");
    EXPECT_EQ(h.series[0].x, h.series[1].x);
    EXPECT_DOUBLE_EQ(count(h.series[0]), std::round(value * 400));
    EXPECT_DOUBLE_EQ(count(h.series[0]) + count(h.series[1]), 400.0 - double(outside));
  }
  const report::Figure& amp = s->figures[3];
  EXPECT_EQ(amp.x_label, "amp_spring_force [N]");
  for (size_t b = 0; b < amp.series[0].x.size(); ++b) {
    if (amp.series[0].y[b] > 0) EXPECT_GT(amp.series[0].x[b], 0.0) << b;
    if (amp.series[1].y[b] > 0) EXPECT_EQ(b, 0u) << "a draw without stick-slip has an amplitude";
  }

  // The page (a content check; the browser check is Report.EveryKindDrawsInHeadlessChromium's).
  const std::string html = temp_dir() + "rfd.html";
  ASSERT_EQ(run_cli("report " + out + " -o " + html, &log), 0) << log;
  std::ifstream page(html);
  std::stringstream ss;
  ss << page.rdbuf();
  for (const std::string& piece :
       {std::string("Drawn from the fit"), std::string(want), std::string("fig-fit-draws-breakaway-force"),
        std::string("fig-fit-draws-amp-spring-force"), std::string("no stick-slip")})
    EXPECT_NE(ss.str().find(piece), std::string::npos) << piece;
}

TEST(ReportFitDraws, MergedShardsKeepTheFit) {
  // Shards of one drawn ensemble merge into a file the report reads as drawn from the fit.
  const std::string cfg = coulomb_config("rfd_shards", true), merged = temp_dir() + "rfd_merged.h5";
  std::string log, list;
  for (int i = 0; i < 2; ++i) {
    const std::string part = temp_dir() + "rfd_shard" + std::to_string(i) + ".h5";
    ASSERT_EQ(run_cli("simulate " + cfg + " -q --shard " + std::to_string(i) + "/2 -o " + part, &log), 0) << log;
    list += " " + part;
  }
  ASSERT_EQ(run_cli("merge" + list + " -o " + merged, &log), 0) << log;
  const auto attrs = ensemble_attributes(merged);
  ASSERT_EQ(attrs.count("from_fit"), 1u);
  EXPECT_NE(attrs.at("from_fit").find("rfd_shards_fit.json"), std::string::npos);
  EXPECT_EQ(attrs.at("drawn"), "F_C");
  EXPECT_NE(find_section(report::read_document(merged), "Drawn from the fit"), nullptr);
}

TEST(ReportFitDraws, OtherEnsemblesHaveNeitherTheAttributesNorTheSection) {
  const std::string cfg = coulomb_config("rfd_grid", false), out = temp_dir() + "rfd_grid.h5";
  std::string log;
  ASSERT_EQ(run_cli("simulate " + cfg + " -o " + out + " -q", &log), 0) << log;
  EXPECT_TRUE(ensemble_attributes(out).empty());
  const report::Document doc = report::read_document(out);
  EXPECT_EQ(find_section(doc, "Drawn from the fit"), nullptr);
  EXPECT_NE(find_section(doc, "Metric distributions (points with status ok)"), nullptr);
}

}  // namespace
}  // namespace stribeck
