// Dynamic fits on real measured logs nobody here made (issue 31, "Real data
// for tests"): the pneumatic cylinder seal strokes of
// ../shared/data/pneumatic-seals (CC0; origin, columns and licence in its
// SOURCES.md; read from there, never copied into the repository, skipped
// when absent). The joint stage's RMSE must come within 2 % of an
// independent simulation-error fit's (bench/peers/scipy_lugre_fit.py), or the
// fit must say that its search did not settle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "stribeck/identification/fit.hpp"

namespace stribeck {
namespace {

std::string shared_dir() {
  if (const char* env = std::getenv("STRIBECK_SHARED_DIR")) return env;
  return STRIBECK_SHARED_DIR;
}

// Rows 15 ... 3014 of a seal log (the authors drop the first 15; 3000
// samples, about 30 s, four strokes; time steps of 10 ms with gaps up to
// 30 ms): time [s], velocity by central differences of the piston position
// (one-sided at the ends), and the seal friction as the authors take it,
// load-cell force minus gauge pressure times the 25 mm bore's area.
data::Experiment seal_excerpt(const std::string& path) {
  std::ifstream in(path);
  std::vector<double> t, x, f;
  std::string line;
  const double area = M_PI * 0.0125 * 0.0125;
  for (int row = 0; std::getline(in, line) && row < 3015; ++row) {
    std::istringstream ls(line);
    double c[7];
    for (double& v : c) ls >> v;
    if (!ls || row < 15) continue;
    t.push_back(c[0] * 1e-3);
    x.push_back(c[4] * 1e-3);
    f.push_back(c[6] - c[5] * 1e5 * area);
  }
  const size_t n = t.size();
  std::vector<double> v(n);
  for (size_t k = 0; k < n; ++k) {
    const size_t a = k ? k - 1 : 0, b = k + 1 < n ? k + 1 : n - 1;
    v[k] = (x[b] - x[a]) / (t[b] - t[a]);
  }
  data::Experiment e;
  e.name = "seal";
  e.source = path;
  e.channels["time"] = t;
  e.channels["velocity"] = v;
  e.channels["force"] = f;
  return e;
}

TEST(RealLogs, LuGreOnPneumaticSealStrokesReachesTheSciPySimulationErrorFit) {
  const std::string dir = shared_dir() + "/data/pneumatic-seals/";
  if (!std::ifstream(dir + "KDN_3bar.csv")) GTEST_SKIP() << "no seal data in " << dir;
  // Golden RMSE [N]: the best of the independent simulation-error fit
  //   /usr/bin/python3 bench/peers/scipy_lugre_fit.py LOG.csv --offset --fs-above-fc --start S
  // on this excerpt written as a time,velocity,force CSV (2026-11-28), from
  // S = 6e4,100,50,5,7,0.005 | 4e4,1,50,2,5,0.01 | 2e4,10,20,5,6,0.002: KDN
  // 0.509620 (the first; the others 0.5732, 0.5727); O-ring 0.6095 from all
  // three, and 0.576696 from S = 23212.3,1e-9,43.4787,4.98528,4.9959,1.254e9
  // and 23212.3,1e-3,43.4787,4.9,5.0,1 (Stribeck's basin: sigma1 = 0, no
  // Stribeck dip). Stribeck reached 0.5106 and 0.5772 that day.
  struct Case {
    const char* file;
    double golden_rmse;
  };
  for (const Case& c : {Case{"KDN_3bar.csv", 0.509620}, Case{"O-ring_3bar.csv", 0.576696}}) {
    SCOPED_TRACE(c.file);
    const data::Experiment log = seal_excerpt(dir + c.file);
    ASSERT_EQ(log.size(), 3000u);
    ident::FitOptions o;
    o.offset = true;
    const ident::FitSummary s = ident::fit({log}, "lugre", o);
    SCOPED_TRACE(s.report());
    bool unsettled = false;
    for (const auto& w : s.warnings) unsettled = unsettled || w.find("the search did not settle") != std::string::npos;
    EXPECT_TRUE(s.rmse <= 1.02 * c.golden_rmse || unsettled) << "rmse " << s.rmse << " against " << c.golden_rmse;
    // One account of the search and the noise on a real log too.
    EXPECT_GE(s.starts_at_best, 1);
    EXPECT_TRUE(std::isfinite(s.noise_estimate) && s.noise_estimate > 0);
  }
}

}  // namespace
}  // namespace stribeck
