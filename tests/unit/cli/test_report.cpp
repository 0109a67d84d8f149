// A report of a fit the program made (report/, docs/reports.md): the
// Stribeck curve of a dynamic law is its steady state. (The figure model's
// decimation and the HTML page: tests/unit/report/test_report_figures.cpp.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "stribeck/report/figure.hpp"

namespace stribeck::report {
namespace {

// The Stribeck curve of a dynamic law (LuGre fitted to the bundled log) is
// its steady state, held at each velocity: g(v) sign(v) + sigma2 v with
// g(v) = F_C + (F_s - F_C) exp(-(v/v_s)^2), from the parameter table's
// values (6 digits); the curve spans the measured sliding range.
TEST(ReportStribeckCurve, DynamicLawIsItsSteadyState) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("stribeck-report-curve-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string log = (dir / "log.h5").string();
  fs::copy_file(std::string(STRIBECK_SOURCE_DIR) + "/data/examples/cylinder_plateaus.h5", log,
                fs::copy_options::overwrite_existing);
  const std::string cmd = std::string(STRIBECK_CLI) + " identify '" + log + "' --model lugre --starts 1 -o '" + log +
                          "' -q >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const Document doc = read_document(log);
  fs::remove_all(dir);
  const Figure* curve = nullptr;
  std::map<std::string, double> p;
  for (const auto& s : doc.sections)
    for (const auto& f : s.figures) {
      if (f.id == "fig-stribeck-curve") curve = &f;
      if (f.id == "fig-parameters")
        for (const auto& row : f.table.rows) p[row[0]] = std::stod(row[1]);
    }
  ASSERT_NE(curve, nullptr);
  const Series* law = nullptr;
  for (const auto& s : curve->series)
    if (s.name == "fitted law") law = &s;
  ASSERT_NE(law, nullptr);
  ASSERT_GT(law->x.size(), 100u);
  EXPECT_DOUBLE_EQ(law->x.front(), -0.2);  // the log's velocity range
  EXPECT_DOUBLE_EQ(law->x.back(), 0.2);
  for (const char* name : {"F_C", "F_s", "v_s", "sigma2"}) ASSERT_TRUE(p.count(name)) << name;
  for (std::size_t i = 0; i < law->x.size(); i += 37) {
    const double v = law->x[i];
    const double g = p["F_C"] + (p["F_s"] - p["F_C"]) * std::exp(-(v / p["v_s"]) * (v / p["v_s"]));
    const double want = (v > 0 ? g : -g) + p["sigma2"] * v;
    EXPECT_NEAR(law->y[i], want, 1e-4 * std::abs(want)) << "v = " << v;
  }
}

}  // namespace
}  // namespace stribeck::report
