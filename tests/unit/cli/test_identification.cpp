// `stribeck identify` on synthetic noisy logs (static_truths.hpp): a CSV
// log to JSON and results, the generator's parameters with mass and
// offset recovered, a joint fit of an HDF5 log with its results written
// next to the data, and bad input. (The library's fits of such logs:
// tests/unit/identification/test_static_fits.cpp.)
#include <gtest/gtest.h>

#include "static_truths.hpp"
#include "temp_dir.hpp"
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"

namespace stribeck {
namespace {

using test::synth;
using test::Truth;
using test::truths;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(IdentifyCli, FitsACsvLogWritesJsonAndResultsAndRejectsBadInput) {
  const std::string dir = stribeck::test::temp_dir() + "/stribeck_identify_cli";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  const Truth t = truths()[0];  // simscape-translational
  const data::Experiment e = synth(t, 2000, 77);
  {
    std::ofstream csv(dir + "/log.csv");
    csv << "velocity,force\n";
    csv.precision(17);
    for (size_t i = 0; i < e.size(); ++i)
      csv << e.channels.at("velocity")[i] << "," << e.channels.at("force")[i] << "\n";
  }
  const std::string cli = STRIBECK_CLI;
  const std::string cmd = cli + " identify " + dir + "/log.csv --model " + t.model + " --starts 3 --json " + dir +
                          "/fit.json -o " + dir + "/fit.h5 > " + dir + "/out.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir + "/out.txt");
  const auto j = nlohmann::json::parse(slurp(dir + "/fit.json"));
  EXPECT_EQ(j["model"], t.model);
  EXPECT_TRUE(j["converged"].get<bool>());
  for (const auto& [name, truth] : t.params) {
    const auto& p = j["parameters"][name];
    EXPECT_LT(std::abs(p["value"].get<double>() - truth), 3 * p["std_error"].get<double>()) << name;
    EXPECT_LT(p["ci95"][0].get<double>(), p["ci95"][1].get<double>());
    EXPECT_FALSE(p["fixed"].get<bool>());
  }
  EXPECT_NEAR(j["rmse"].get<double>(), t.noise, 0.1 * t.noise);
  EXPECT_NE(slurp(dir + "/out.txt").find("converged"), std::string::npos);
  // The results group holds fitted force + residual = measured force.
  {
    data::h5::File f = data::h5::open_file(dir + "/fit.h5");
    const std::string g = "identify_" + t.model + "/log/";
    const auto fitted = data::h5::read_doubles(data::h5::open_dataset(f.id(), g + "fitted_force", "test"), "test");
    const auto resid = data::h5::read_doubles(data::h5::open_dataset(f.id(), g + "residual", "test"), "test");
    ASSERT_EQ(fitted.size(), e.size());
    ASSERT_EQ(resid.size(), e.size());
    for (size_t i = 0; i < e.size(); i += 97)
      EXPECT_NEAR(fitted[i] + resid[i], e.channels.at("force")[i], 1e-9 * (1 + std::abs(fitted[i])));
  }
  // A second run does not overwrite the first results group.
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir + "/out.txt");
  EXPECT_NE(slurp(dir + "/out.txt").find("identify_" + t.model + "_2"), std::string::npos) << slurp(dir + "/out.txt");
  // Batch: each log fitted on its own, one CSV row per fit; --compare ranks models.
  {
    const data::Experiment e2 = synth(t, 1500, 78);
    std::ofstream csv(dir + "/log2.csv");
    csv << "velocity,force\n";
    csv.precision(17);
    for (size_t i = 0; i < e2.size(); ++i)
      csv << e2.channels.at("velocity")[i] << "," << e2.channels.at("force")[i] << "\n";
  }
  ASSERT_EQ(std::system((cli + " identify " + dir + "/log.csv " + dir + "/log2.csv --batch --model " + t.model +
                         " --table " + dir + "/table.csv > " + dir + "/out.txt 2>&1")
                            .c_str()),
            0)
      << slurp(dir + "/out.txt");
  const std::string table = slurp(dir + "/table.csv");
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3) << table;
  EXPECT_EQ(table.rfind("fit,model,status,converged,samples,rmse,r_squared,F_brk,F_brk_std_error", 0), 0u) << table;
  EXPECT_NE(table.find("log2.csv:log2," + t.model + ",converged,true,1500,"), std::string::npos) << table;
  ASSERT_EQ(std::system((cli + " identify " + dir + "/log.csv --compare coulomb-viscous," + t.model + " --json " + dir +
                         "/cmp.json > " + dir + "/out.txt 2>&1")
                            .c_str()),
            0)
      << slurp(dir + "/out.txt");
  const auto cmp = nlohmann::json::parse(slurp(dir + "/cmp.json"));
  ASSERT_EQ(cmp["ranking"].size(), 2u);
  EXPECT_EQ(cmp["ranking"][0]["model"], t.model);
  // Bad input: one line, exit status 2, no JSON written.
  std::remove((dir + "/bad.json").c_str());
  const int rc = std::system((cli + " identify " + dir + "/log.csv --model simscape-cylinder --json " + dir +
                              "/bad.json > " + dir + "/err.txt 2>&1")
                                 .c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  const std::string err = slurp(dir + "/err.txt");
  EXPECT_NE(err.find("pressure"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(std::ifstream(dir + "/bad.json").good());
}

TEST(IdentifyCli, RecoversTheGeneratorsParametersMassAndOffset) {
  // End to end through the data layer's synthetic rig: plateaus at four
  // pressure levels, mass and force offset, 0.5 N noise; identify derives the
  // acceleration itself.
  const std::string dir = stribeck::test::temp_dir() + "/stribeck_identify_gen";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  const std::string cli = STRIBECK_CLI;
  const std::map<std::string, double> truth = {{"F_pr", 40}, {"f_cfr", 3e-5}, {"R_brk", 1.4}, {"v_brk", 0.01},
                                               {"f_v", 150}, {"mass", 2},     {"offset", 3}};
  ASSERT_EQ(std::system((cli +
                         " generate --model simscape-cylinder-il -p F_pr=40 -p f_cfr=3e-5 -p R_brk=1.4 "
                         "-p v_brk=0.01 -p f_v=150 --profile plateaus --duration 6 --pressure-levels "
                         "1bar,3bar,5bar,7bar --mass 2 --noise force=0.5 --offset force=3 --seed 4 -o " +
                         dir + "/gen.h5 > " + dir + "/out.txt 2>&1")
                            .c_str()),
            0)
      << slurp(dir + "/out.txt");
  ASSERT_EQ(std::system((cli + " identify " + dir + "/gen.h5 --model simscape-cylinder-il --inertia --offset --json " +
                         dir + "/fit.json > " + dir + "/out.txt 2>&1")
                            .c_str()),
            0)
      << slurp(dir + "/out.txt");
  const auto j = nlohmann::json::parse(slurp(dir + "/fit.json"));
  EXPECT_TRUE(j["converged"].get<bool>()) << j.dump(1);
  for (const auto& [name, t] : truth) {
    const auto& p = j["parameters"][name];
    EXPECT_LT(std::abs(p["value"].get<double>() - t), 3 * p["std_error"].get<double>())
        << name << " = " << p["value"] << " +/- " << p["std_error"] << ", true " << t;
  }
}

TEST(IdentifyCli, HdfLogJointFitWithResultsWrittenNextToTheData) {
  const std::string dir = stribeck::test::temp_dir() + "/stribeck_identify_h5";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  // Four pressure levels of the cylinder law, plus a decoy experiment that must not be fitted.
  const Truth t = truths()[3];  // simscape-cylinder-il
  std::vector<data::Experiment> log;
  for (int i = 0; i < 5; ++i) {
    data::Experiment e = synth(t, 800, 60 + i, (1 + 2 * i) * 1e5);
    e.name = i < 4 ? "p" + std::to_string(1 + 2 * i) + "bar" : "decoy";
    if (i == 4)
      for (auto& f : e.channels["force"]) f += 1000;
    e.channels["time"].clear();
    for (size_t k = 0; k < e.size(); ++k) e.channels["time"].push_back(1e-3 * k);
    for (const auto& [c, x] : e.channels)
      e.units[c] = c == "velocity" ? "m/s" : c == "force" || c == "normal_force" ? "N" : c == "time" ? "s" : "Pa";
    log.push_back(e);
  }
  write_log(dir + "/rig.h5", log, data::Provenance{});
  const std::string cli = STRIBECK_CLI;
  std::string cmd =
      cli + " identify " + dir + "/rig.h5 --model " + t.model + " --json " + dir + "/fit.json -o " + dir + "/rig.h5";
  for (int i = 0; i < 4; ++i) cmd += " --experiment p" + std::to_string(1 + 2 * i) + "bar";
  ASSERT_EQ(std::system((cmd + " > " + dir + "/out.txt 2>&1").c_str()), 0) << slurp(dir + "/out.txt");
  const auto j = nlohmann::json::parse(slurp(dir + "/fit.json"));
  EXPECT_TRUE(j["converged"].get<bool>()) << j.dump(1);
  EXPECT_EQ(j["samples"].get<long>(), 3200);
  for (const auto& [name, truth] : t.params) {
    const auto& p = j["parameters"][name];
    EXPECT_LT(std::abs(p["value"].get<double>() - truth), 3 * p["std_error"].get<double>()) << name;
  }
  // The measured experiments read back unchanged; the results groups are skipped by read_log.
  const auto back = data::read_log(dir + "/rig.h5");
  ASSERT_EQ(back.size(), log.size());
  for (const auto& e : log) {
    const auto it = std::find_if(back.begin(), back.end(), [&](const data::Experiment& b) { return b.name == e.name; });
    ASSERT_NE(it, back.end()) << e.name;
    EXPECT_EQ(it->channel("force"), e.channel("force"));
  }
  data::h5::File f = data::h5::open_file(dir + "/rig.h5");
  const std::string g = "identify_" + t.model;
  EXPECT_TRUE(data::h5::has_child(f.id(), g));
  const auto res = data::h5::read_doubles(data::h5::open_dataset(f.id(), g + "/p5bar/residual", "test"), "test");
  ASSERT_EQ(res.size(), 800u);
  double ss = 0;
  for (double r : res) ss += r * r;
  EXPECT_NEAR(std::sqrt(ss / res.size()), t.noise, 0.15 * t.noise);
  EXPECT_FALSE(data::h5::has_child(data::h5::open_group(f.id(), g, "test").id(), "decoy"));
}

}  // namespace
}  // namespace stribeck
