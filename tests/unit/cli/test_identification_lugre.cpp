// `stribeck identify` fitting the dynamic LuGre model (two stages,
// docs/identification.md) from a log generated here (lugre_plateau_log.hpp)
// and written as CSV: the fit's JSON and its HDF5 results. (The library's
// fit of such logs: tests/unit/identification/test_lugre_fit.cpp.)
#include <gtest/gtest.h>

#include "lugre_plateau_log.hpp"
#include "temp_dir.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck {
namespace {

using test::lugre_plateaus::kNoise;
using test::lugre_plateaus::lugre_log;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(IdentifyCliLuGre, FitsLuGreFromACsvLogToJson) {
  const std::string dir = stribeck::test::temp_dir() + "/stribeck_identify_lugre";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  const data::Experiment e = lugre_log(21);
  {
    std::ofstream csv(dir + "/log.csv");
    csv << "time,velocity,force\n";
    csv.precision(17);
    for (size_t i = 0; i < e.size(); ++i)
      csv << e.channels.at("time")[i] << "," << e.channels.at("velocity")[i] << "," << e.channels.at("force")[i]
          << "\n";
  }
  const std::string cmd = std::string(STRIBECK_CLI) + " identify " + dir + "/log.csv --model lugre --json " + dir +
                          "/fit.json -o " + dir + "/fit.h5 > " + dir + "/out.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir + "/out.txt");
  const auto j = nlohmann::json::parse(slurp(dir + "/fit.json"));
  EXPECT_EQ(j["model"], "lugre");
  EXPECT_TRUE(j["converged"].get<bool>()) << slurp(dir + "/out.txt");
  EXPECT_NEAR(j["parameters"]["F_C"]["value"].get<double>(), 1.0, 0.02);
  EXPECT_NEAR(j["parameters"]["F_s"]["value"].get<double>(), 1.5, 0.03);
  EXPECT_NEAR(j["parameters"]["sigma0"]["value"].get<double>(), 1e5, 5e3);
  EXPECT_GT(j["parameters"]["sigma1"]["std_error"].get<double>(), 0.0);
  EXPECT_NEAR(j["rmse"].get<double>(), kNoise, 0.05 * kNoise);
  EXPECT_NE(slurp(dir + "/out.txt").find("two-stage"), std::string::npos) << slurp(dir + "/out.txt");
  // Correlations come from the joint stage (every parameter in one
  // problem): all of them are numbers, in the model's parameter order.
  const auto& cn = j["correlation"]["parameters"];
  ASSERT_EQ(cn.size(), 6u);
  EXPECT_EQ(cn[0], "sigma0");
  EXPECT_EQ(cn[1], "sigma1");
  for (const auto& row : j["correlation"]["matrix"])
    for (const auto& r : row) {
      ASSERT_TRUE(r.is_number());
      EXPECT_LE(std::abs(r.get<double>()), 1.0 + 1e-12);
    }
  EXPECT_NEAR(j["correlation"]["matrix"][2][2].get<double>(), 1.0, 1e-12);
  // The results group: the simulated force and residual add up to the measured force.
  data::h5::File f = data::h5::open_file(dir + "/fit.h5");
  const auto fitted =
      data::h5::read_doubles(data::h5::open_dataset(f.id(), "identify_lugre/log/fitted_force", "test"), "test");
  const auto resid =
      data::h5::read_doubles(data::h5::open_dataset(f.id(), "identify_lugre/log/residual", "test"), "test");
  ASSERT_EQ(fitted.size(), e.size());
  ASSERT_EQ(resid.size(), e.size());
  double ss = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    EXPECT_NEAR(fitted[i] + resid[i], e.channels.at("force")[i], 1e-9 * (1 + std::abs(fitted[i])));
    ss += resid[i] * resid[i];
  }
  EXPECT_NEAR(std::sqrt(ss / e.size()), kNoise, 0.05 * kNoise);
}

}  // namespace
}  // namespace stribeck
