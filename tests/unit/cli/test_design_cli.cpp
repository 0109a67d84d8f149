// `stribeck design` and `stribeck generate --design` through the program
// (docs/identification.md, "Experiment design"): the design file and JSON
// it writes, the log generate makes of it (the designed trajectories), and
// the one-line refusals that leave no output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "cli_runner.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/workloads/design_file.hpp"
#include "stribeck/workloads/generator.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

bool exists(const std::string& p) { return std::ifstream(p).good(); }

class DesignCli : public ::testing::Test {
 protected:
  void SetUp() override {
    d_ = test::temp_dir() + "design_cli/";
    std::system(("mkdir -p " + d_).c_str());
  }
  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(d_ + name) << text;
    return d_ + name;
  }
  std::string d_;
};

const char* kRig =
    "stroke = \"300 mm\"\nv_max = \"200 mm/s\"\na_max = 10\nduration = 16\nrate = 500\nforce_noise = \"0.5 N\"\n"
    "max_experiments = 2\n";

TEST_F(DesignCli, WritesADesignThatGenerateReproduces) {
  const std::string rig = file("rig.toml", kRig);
  std::string out;
  const int rc = test::run_cli("design -m simscape-translational --guess F_brk=30,v_brk=0.005 --rig " + rig +
                                   " --profiles plateaus,triangle,steps --candidates 12 -o " + d_ + "d.toml --json " +
                                   d_ + "d.json",
                               &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("reference"), std::string::npos) << out;
  std::ifstream jin(d_ + "d.json");
  const nlohmann::json j = nlohmann::json::parse(jin);
  EXPECT_EQ(j["model"], "simscape-translational");
  EXPECT_EQ(j["criterion"], "worst-rse");
  ASSERT_EQ(j["design"]["parameters"].size(), 4u);
  ASSERT_EQ(j["reference"]["parameters"].size(), 4u);
  EXPECT_EQ(j["design"]["parameters"][1]["name"], "v_brk");
  EXPECT_GT(j["design"]["parameters"][1]["std_error"].get<double>(), 0);
  // The design is never worse than the reference by its own criterion.
  EXPECT_LE(j["design"]["criterion_value"].get<double>(), j["reference"]["criterion_value"].get<double>());
  // The certified bound on the best test of the rig: never above the design,
  // printed, in the JSON and in DESIGN.toml's comment.
  ASSERT_TRUE(j["bound"]["computed"].get<bool>()) << j["bound"].dump();
  const double bound = j["bound"]["worst_relative_std_error"].get<double>();
  EXPECT_LE(bound, j["design"]["worst_relative_std_error"].get<double>());
  EXPECT_NEAR(j["bound"]["design_above_bound"].get<double>(),
              j["design"]["worst_relative_std_error"].get<double>() / bound - 1, 1e-12);
  EXPECT_NE(out.find("best any test of the rig's duration can do: worst relative std error >= "), std::string::npos)
      << out;
  std::ifstream tin(d_ + "d.toml");
  const std::string toml((std::istreambuf_iterator<char>(tin)), std::istreambuf_iterator<char>());
  EXPECT_NE(toml.find("# best any test of the rig's duration can do"), std::string::npos) << toml;
  const workloads::DesignFile d = workloads::read_design_file(d_ + "d.toml");
  ASSERT_EQ(d.experiments.size(), 2u);
  double total = 0;
  for (const auto& e : d.experiments) total += e.duration;
  EXPECT_NEAR(total, 16, 1e-9);

  ASSERT_EQ(test::run_cli("generate --design " + d_ + "d.toml --noise force=0.5 -o " + d_ + "log.h5", &out), 0) << out;
  const auto logs = data::read_log(d_ + "log.h5");
  ASSERT_EQ(logs.size(), 2u);
  std::vector<double> prior;
  for (const auto& [n, v] : d.params) prior.push_back(v);
  EXPECT_EQ(prior[0], 30);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(logs[k].name, d.experiments[k].name);
    // The trajectory is the one plain `generate` makes of the same settings.
    workloads::GeneratorOptions o;
    o.model = d.model;
    o.params = prior;
    o.profile = d.experiments[k].profile;
    o.duration = d.experiments[k].duration;
    o.rate_hz = d.experiments[k].rate_hz;
    o.v_max = d.experiments[k].v_max;
    const auto direct = workloads::generate_log(o);
    EXPECT_EQ(logs[k].channels.at("velocity"), direct.front().channels.at("velocity"));
    EXPECT_EQ(logs[k].channels.at("position"), direct.front().channels.at("position"));
  }
  // Trajectory flags contradict a design.
  EXPECT_EQ(test::run_cli("generate --design " + d_ + "d.toml --vmax 1 -o " + d_ + "log2.h5", &out), 2);
  EXPECT_NE(out.find("--vmax with --design"), std::string::npos) << out;
  EXPECT_FALSE(exists(d_ + "log2.h5"));
}

// A short rig with large force noise predicts relative standard errors
// beyond the first-order regime (> 10 %): the table marks them and warns, and
// --json flags them per parameter; the 16 s rig at 0.5 N stays within it.
TEST_F(DesignCli, FlagsPredictionsBeyondTheLinearRegime) {
  const std::string noisy = file("noisy.toml",
                                 "stroke = \"300 mm\"\nv_max = \"200 mm/s\"\na_max = 10\nduration = 2\nrate = 500\n"
                                 "force_noise = \"40 N\"\nmax_experiments = 2\n");
  const std::string quiet = file("rig.toml", kRig);
  const std::string warning =
      "first-order prediction; the fit is nonlinear at this noise: check by Monte Carlo (bench/design_mc.sh)";
  for (const auto& [rig, beyond] : {std::pair{noisy, true}, std::pair{quiet, false}}) {
    std::string out;
    ASSERT_EQ(test::run_cli("design -m simscape-translational --guess F_brk=30,v_brk=0.005 --rig " + rig +
                                " --profiles plateaus,steps --candidates 4 -o " + d_ + "f.toml --json " + d_ + "f.json",
                            &out),
              0)
        << out;
    EXPECT_EQ(out.find(warning) != std::string::npos, beyond) << out;
    std::ifstream jin(d_ + "f.json");
    const nlohmann::json j = nlohmann::json::parse(jin);
    int flagged = 0;
    for (const char* test : {"design", "reference"})
      for (const auto& p : j[test]["parameters"]) {
        const bool linear = p["relative_std_error"].get<double>() <= 0.10;
        EXPECT_EQ(p["linear_regime"].get<bool>(), linear) << test << " " << p["name"];
        flagged += !linear;
      }
    EXPECT_EQ(flagged > 0, beyond) << j.dump(1);
  }
}

// --reference-output writes the reference test as a DESIGN.toml: the
// experiments --json reports for the reference, and generate --design makes
// of it the plateau trajectories plain generate makes of those settings.
TEST_F(DesignCli, WritesAReferenceThatGenerateReproduces) {
  const std::string rig = file("rig.toml", kRig);
  std::string out;
  ASSERT_EQ(test::run_cli("design -m simscape-translational --guess F_brk=30,v_brk=0.005 --rig " + rig +
                              " --profiles steps --candidates 4 -o " + d_ + "d.toml --reference-output " + d_ +
                              "r.toml --json " + d_ + "r.json",
                          &out),
            0)
      << out;
  std::ifstream jin(d_ + "r.json");
  const nlohmann::json j = nlohmann::json::parse(jin);
  const workloads::DesignFile r = workloads::read_design_file(d_ + "r.toml");
  ASSERT_EQ(r.experiments.size(), j["reference"]["experiments"].size());
  ASSERT_EQ(r.experiments.size(), 2u);
  EXPECT_EQ(r.model, "simscape-translational");
  ASSERT_EQ(test::run_cli("generate --design " + d_ + "r.toml -o " + d_ + "r.h5", &out), 0) << out;
  const auto logs = data::read_log(d_ + "r.h5");
  ASSERT_EQ(logs.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    const auto& x = j["reference"]["experiments"][k];
    EXPECT_EQ(r.experiments[k].profile, "plateaus");
    EXPECT_EQ(x["profile"], "plateaus");
    EXPECT_EQ(logs[k].name, x["name"].get<std::string>());
    workloads::GeneratorOptions o;
    o.model = "simscape-translational";
    o.params = {30, 0.005, 20, 100};
    o.profile = "plateaus";
    o.duration = x["duration"].get<double>();
    o.rate_hz = x["rate"].get<double>();
    o.v_max = x["v_max"].get<double>();
    const auto direct = workloads::generate_log(o);
    EXPECT_EQ(logs[k].channels.at("velocity"), direct.front().channels.at("velocity"));
    EXPECT_EQ(logs[k].channels.at("position"), direct.front().channels.at("position"));
  }
}

// The prediction is of identify's own fit: on a noisy log of the design,
// identify reports the standard errors the design predicted, up to its
// noise estimate (s / sigma has a relative spread of 1/sqrt(2N), 0.8 % for
// these 8,000 samples; 5 % is six of them) and its Jacobian taken at the
// estimate instead of the truth.
TEST_F(DesignCli, PredictedStdErrorsAreWhatIdentifyReports) {
  const std::string rig = file("rig.toml", kRig);
  std::string out;
  ASSERT_EQ(test::run_cli("design -m simscape-translational --guess F_brk=30,v_brk=0.005 --rig " + rig +
                              " --profiles plateaus,steps --candidates 4 -o " + d_ + "p.toml --json " + d_ + "p.json",
                          &out),
            0)
      << out;
  ASSERT_EQ(test::run_cli("generate --design " + d_ + "p.toml --noise force=0.5 --seed 3 -o " + d_ + "p.h5", &out), 0)
      << out;
  ASSERT_EQ(test::run_cli("identify " + d_ + "p.h5 --model simscape-translational --json " + d_ + "pfit.json", &out), 0)
      << out;
  std::ifstream din(d_ + "p.json"), fin(d_ + "pfit.json");
  const nlohmann::json d = nlohmann::json::parse(din), f = nlohmann::json::parse(fin);
  ASSERT_EQ(d["design"]["parameters"].size(), 4u);
  for (const auto& p : d["design"]["parameters"]) {
    const double predicted = p["std_error"].get<double>();
    const double reported = f["parameters"][p["name"].get<std::string>()]["std_error"].get<double>();
    EXPECT_NEAR(reported / predicted, 1.0, 0.05) << p["name"];
  }
}

TEST_F(DesignCli, BadInputIsOneLineAndWritesNothing) {
  const std::string rig = file("rig.toml", kRig);
  const std::string no_noise =
      file("rig_nonoise.toml", "stroke = 0.3\nv_max = 0.2\na_max = 10\nduration = 16\nrate = 500\n");
  const std::string fit = file("fit.json", R"({"model": "coulomb-viscous", "parameters": {"F_C": {"value": 20}}})");
  struct Case {
    std::string args, says;
  } cases[] = {
      {"-m nosuch --rig " + rig, "nosuch"},
      {"-m lugre --rig " + rig + " --guess F_s=0.5", "Coulomb"},
      {"-m simscape-translational --rig " + no_noise, "force_noise"},
      {"-m simscape-translational --rig " + rig + " --profiles zigzag", "zigzag"},
      {"-m simscape-translational --rig " + rig + " --criterion g", "--criterion"},
      {"-m simscape-translational --rig " + rig + " --prior " + fit, "coulomb-viscous"},
      {"-m simscape-cylinder --rig " + rig, "pressure"},
      {"-m simscape-translational --rig " + rig + " --experiments 3", "max_experiments"},
      {"-m simscape-translational --rig " + rig + " --reference-output " + d_ + "bad.toml", "elsewhere"},
  };
  for (const auto& c : cases) {
    std::string out;
    EXPECT_EQ(
        test::run_cli("design " + c.args + " --candidates 4 -o " + d_ + "bad.toml --json " + d_ + "bad.json", &out), 2)
        << c.args << "\n"
        << out;
    EXPECT_NE(out.find("stribeck: error: "), std::string::npos) << out;
    EXPECT_NE(out.find(c.says), std::string::npos) << c.args << ": " << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_FALSE(exists(d_ + "bad.toml"));
    EXPECT_FALSE(exists(d_ + "bad.json"));
  }
  // The reference is written with the design or not at all.
  std::string out;
  EXPECT_EQ(test::run_cli("design -m simscape-translational --rig " + rig + " --experiments 3 -o " + d_ +
                              "bad.toml --reference-output " + d_ + "bad_ref.toml",
                          &out),
            2)
      << out;
  EXPECT_FALSE(exists(d_ + "bad_ref.toml"));
}

}  // namespace
}  // namespace stribeck
