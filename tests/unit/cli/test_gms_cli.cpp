// The generalized Maxwell-slip models gms1..gms4 through every command
// (docs/models.md, "Generalized Maxwell-slip"): models, eval, sweeps,
// simulate and ensembles, export-params, identify (a fit of its own
// generated log, and --compare across element counts); and the derivatives
// the fits take of its trace form on Jets.
#include <gtest/gtest.h>

#include <ceres/jet.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "stribeck/data/csv_reader.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "stribeck/kernels/text_number.hpp"
#include "stribeck/workloads/params.hpp"
#include "cli_runner.hpp"
#include "scratch_files.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::slurp;

class GmsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    d_ = test::temp_dir() + "gms_cli/";
    std::system(("mkdir -p " + d_).c_str());
  }
  int cli(const std::string& args, std::string* out = nullptr) { return test::run_cli(args, out); }
  std::string d_;
};

TEST_F(GmsCli, ModelsListsOneModelPerElementCount) {
  std::string out;
  ASSERT_EQ(cli("models --json", &out), 0) << out;
  std::map<std::string, size_t> params;
  for (const auto& m : nlohmann::json::parse(out)) params[m["id"].get<std::string>()] = m["parameters"].size();
  EXPECT_EQ(params["gms1"], 8u);
  EXPECT_EQ(params["gms2"], 10u);
  EXPECT_EQ(params["gms3"], 12u);
  EXPECT_EQ(params["gms4"], 14u);
  // A fraction is open at both ends: 1 would leave the next element nothing.
  ASSERT_EQ(cli("eval -q --model gms2 -p kf_1=1 -i " + d_ + "none.csv -o " + d_ + "x.csv", &out), 2);
  EXPECT_NE(out.find("kf_1 = 1 must be < 1"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

// The start's note says how the steady-state stage thinned its samples in
// words: 7,198 moving samples of a 1 kHz ramps log against a budget of 4,096
// are every 2nd, not "every 2th".
TEST_F(GmsCli, TheStartNoteNamesTheThinningAsAnOrdinal) {
  std::string out;
  ASSERT_EQ(cli("generate -q --model gms1 --profile ramps --vmax 5mm/s -o " + d_ + "ramps.h5", &out), 0) << out;
  ASSERT_EQ(cli("identify " + d_ + "ramps.h5 --model gms1", &out), 0) << out;
  EXPECT_NE(out.find(", every 2nd of them fitted; "), std::string::npos) << out;
  EXPECT_EQ(out.find("2th"), std::string::npos) << out;
}

// eval along a CSV trace gives the kernel's trace form sample by sample, and
// its state column is element 1's deflection.
TEST_F(GmsCli, EvalIsTheTraceForm) {
  std::ofstream csv(d_ + "trace.csv");
  csv << "time,velocity\n";
  std::vector<double> t, v;
  for (int k = 0; k <= 2000; ++k) {
    t.push_back(k * 1e-3);
    v.push_back(2e-3 * std::sin(2 * M_PI * 1.5 * t.back()) * std::exp(-t.back()));
    csv << format_number(t.back()) << "," << format_number(v.back()) << "\n";
  }
  csv.close();
  std::string out;
  ASSERT_EQ(cli("eval -q --model gms3 -p C=0.02 -p af_1=0.2 -i " + d_ + "trace.csv -o " + d_ + "out.csv", &out), 0)
      << out;
  std::vector<double> p = workloads::require_model("gms3").defaults();
  p[Gms3::C] = 0.02;
  p[Gms3::af(0)] = 0.2;
  const auto c = Gms3::prepare(p.data());
  Gms3::State<double> st{};
  st.v_prev = v[0];
  data::CsvReader r(d_ + "out.csv");
  const int fi = r.column("model_force"), zi = r.column("model_state");
  ASSERT_GE(fi, 0);
  ASSERT_GE(zi, 0);
  std::vector<double> row;
  std::vector<std::string_view> cells;
  size_t k = 0;
  for (; r.next(row, cells); ++k) {
    ASSERT_LT(k, t.size());
    const double expect = model_step<Gms3>(c, Sample<double>{v[k], 0, 0, 0}, st, k ? t[k] - t[k - 1] : 0.0);
    ASSERT_NEAR(row[fi], expect, 1e-12 * (1 + std::abs(expect))) << k;
    ASSERT_NEAR(row[zi], st.z, 1e-18) << k;
  }
  EXPECT_EQ(k, t.size());
}

TEST_F(GmsCli, SweepsRunOverItsParameters) {
  std::string out;
  const std::string file = d_ + "sweep.h5";
  ASSERT_EQ(cli("sweep -q -m gms2 -p C=log:1e-3:1e-1:3 -p af_1=linear:0.2:0.8:4 --profile sine,samples=256 "
                "--design grid -o " +
                    file + " --json -",
                &out),
            0)
      << out;
  EXPECT_EQ(nlohmann::json::parse(out)["points"].get<long>(), 12) << out;
}

TEST_F(GmsCli, SimulateRunsTheRigAndAnEnsemble) {
  const std::string system =
      "[system]\nmass = 1.0\nstiffness = 2.0\ndrive_velocity = 0.1\nfriction_on = \"ground\"\n[friction]\n"
      "model = \"gms3\"\n[friction.params]\nsigma1 = 1.0\nsigma2 = 1.0\n[simulation]\nt_end = 0.5\ndt = 1e-3\n";
  std::ofstream(d_ + "single.toml") << system;
  std::ofstream(d_ + "ens.toml") << system
                                 << "[ensemble]\ndevice = \"cpu\"\n[ensemble.params]\nkf_1 = \"linear:0.2:0.8:4\"\n"
                                    "drive_velocity = \"linear:0.01:0.3:3\"\n";
  std::string out;
  ASSERT_EQ(cli("simulate -q " + d_ + "single.toml -o " + d_ + "single.csv", &out), 0) << out;
  EXPECT_GT(slurp(d_ + "single.csv").size(), 1000u);
  ASSERT_EQ(cli("simulate -q " + d_ + "ens.toml -o " + d_ + "ens.h5 --json -", &out), 0) << out;
  EXPECT_NE(out.find("12"), std::string::npos) << out;
}

// "Fit their own generated logs": gms2 generated with a truth over slow
// ramps through zero (the two-element presliding curve at every reversal,
// and the attraction C where the element maxima fall as the speed crosses
// the Stribeck region), at 250 Hz: 2001 samples, a quarter of the 1 kHz
// log's, fitted in a twentieth of its time (fewer samples per simulation,
// and the joint stage settles in fewer starts), with the same assertions.
const std::map<std::string, double> kGms2Truth{{"sigma0", 1e5}, {"sigma1", 300}, {"sigma2", 0.4}, {"F_C", 1},
                                               {"F_s", 1.5},    {"v_s", 1e-3},   {"delta", 2},    {"C", 1e-3},
                                               {"kf_1", 0.7},   {"af_1", 0.4}};
constexpr double kGms2Noise = 0.01;

std::string generate_gms2(const std::string& dir) {
  std::string gen = "generate -q --model gms2";
  for (const auto& [k, v] : kGms2Truth) gen += " -p " + k + "=" + format_number(v);
  const std::string log = dir + "gms2.h5";
  std::string out;
  EXPECT_EQ(test::run_cli(gen + " --profile ramps --duration 8 --rate 250 --vmax 5mm/s --noise force=" +
                              format_number(kGms2Noise) + " --seed 7 -o " + log,
                          &out),
            0)
      << out;
  return log;
}

// identify recovers every free parameter within 3 standard errors at the
// noise floor.
TEST_F(GmsCli, IdentifyRecoversGms2FromItsGeneratedLog) {
  const std::string log = generate_gms2(d_), fit = d_ + "gms2.json";
  std::string out;
  ASSERT_EQ(cli("identify -q " + log + " --model gms2 --json " + fit, &out), 0) << out;
  const auto j = nlohmann::json::parse(slurp(fit));
  EXPECT_TRUE(j["converged"].get<bool>()) << j.dump(1);
  for (const auto& [name, t] : kGms2Truth) {
    const auto& p = j["parameters"][name];
    ASSERT_FALSE(p.value("fixed", false)) << name;
    const double v = p["value"].get<double>(), se = p["std_error"].get<double>();
    EXPECT_LT(std::abs(v - t), 3 * se) << name << " = " << v << " +/- " << se << ", true " << t;
  }
  EXPECT_NEAR(j["rmse"].get<double>(), kGms2Noise, 0.1 * kGms2Noise) << j.dump(1);
}

// --compare across element counts ranks the log's own count first by AIC:
// one element cannot make its two-stage presliding curve, a third adds
// nothing (its fit is singular).
TEST_F(GmsCli, CompareRanksTheElementCountsByAic) {
  const std::string log = generate_gms2(d_);
  std::string out;
  ASSERT_EQ(cli("identify -q " + log + " --compare gms1,gms2,gms3 --max-starts 12 --json " + d_ + "compare.json", &out),
            0)
      << out;
  const auto c = nlohmann::json::parse(slurp(d_ + "compare.json"));
  ASSERT_EQ(c["ranking"].size(), 3u) << c.dump(1);
  EXPECT_EQ(c["ranking"][0]["model"].get<std::string>(), "gms2") << c.dump(1);
  std::map<std::string, double> rmse;
  for (const auto& f : c["ranking"]) rmse[f["model"].get<std::string>()] = f["rmse"].get<double>();
  EXPECT_GT(rmse["gms1"], 2 * kGms2Noise) << c.dump(1);
  EXPECT_NEAR(rmse["gms2"], kGms2Noise, 0.1 * kGms2Noise) << c.dump(1);
  EXPECT_LT(rmse["gms3"], 1.1 * kGms2Noise) << c.dump(1);
}

// A steady-state stage no start of which gives a usable solution names the
// stage and only the values the user gave: not the stage's own fixes of the
// dynamic parameters (which it ignores), nor the user's values of them.
TEST_F(GmsCli, FailedSteadyStageNamesOnlyTheUsersOptions) {
  const std::string log = d_ + "gms_fail.h5";
  std::string out;
  ASSERT_EQ(cli("generate -q --model gms1 --profile triangle --duration 2 --rate 250 --vmax 1mm/s -o " + log, &out), 0)
      << out;
  ASSERT_EQ(cli("identify -q " + log + " --model gms1 --init F_s=1e308 --fix sigma0=2e5 --init sigma1=3 --json " + d_ +
                    "fail.json",
                &out),
            2)
      << out;
  EXPECT_EQ(out.rfind("stribeck: error: --init F_s=1e308: the model's force is not finite at the start this gives (no "
                      "start of the steady-state stage of the gms1 fit gave a usable solution)",
                      0),
            0u)
      << out;
  EXPECT_EQ(out.find("sigma"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_FALSE(std::ifstream(d_ + "fail.json").good());
}

// export-params: JSON exactly; no tool's friction block has the model.
TEST_F(GmsCli, ExportParamsOnlyToJson) {
  std::string out;
  const std::string log = d_ + "gms_x.h5", fit = d_ + "gms_x.json";
  ASSERT_EQ(cli("generate -q --model gms2 --profile triangle --duration 2 --vmax 5mm/s -o " + log, &out), 0) << out;
  ASSERT_EQ(cli("identify -q " + log + " --model gms2 --starts 1 --json " + fit, &out), 0) << out;
  ASSERT_EQ(cli("export-params " + fit + " --to json -o " + d_ + "x.json", &out), 0) << out;
  EXPECT_NE(out.find("gms2 -> json, exact"), std::string::npos) << out;
  for (const char* target : {"20sim", "simscape", "modelica"}) {
    ASSERT_EQ(cli("export-params " + fit + " --to " + target + " -o " + d_ + "x.out", &out), 2) << target << "\n"
                                                                                                << out;
    EXPECT_NE(out.find(std::string("model gms2 has no ") + target + " export"), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
}

// The fits differentiate the trace form on Jets: its derivatives by every
// parameter equal central differences of the double trace (presliding loops
// and sliding, so every zone of every element is crossed).
TEST(GmsGradients, TraceJetsMatchCentralDifferences) {
  using M = Gms3;
  using J = ceres::Jet<double, M::kNumParams>;
  std::vector<double> p = workloads::require_model(M::kId).defaults();
  p[M::sigma1] = 40;
  p[M::delta] = 1.5;
  std::vector<double> v;
  for (int k = 0; k <= 1500; ++k) v.push_back(1e-3 * std::sin(2 * M_PI * 3 * k * 1e-3) * (0.05 + k / 1500.0));
  auto trace_d = [&](const std::vector<double>& q) {
    const auto c = M::prepare(q.data());
    M::State<double> st{};
    st.v_prev = v[0];
    std::vector<double> f;
    for (size_t k = 0; k < v.size(); ++k)
      f.push_back(model_step<M>(c, Sample<double>{v[k], 0, 0, 0}, st, k ? 1e-3 : 0));
    return f;
  };
  J pj[M::kNumParams];
  for (int i = 0; i < M::kNumParams; ++i) pj[i] = J(p[i], i);
  const auto cj = M::prepare(pj);
  M::State<J> st{};
  st.v_prev = J(v[0]);
  std::vector<J> fj;
  for (size_t k = 0; k < v.size(); ++k)
    fj.push_back(model_step<M>(cj, Sample<J>{J(v[k]), J(0), J(0), J(0)}, st, J(k ? 1e-3 : 0)));
  for (int i = 0; i < M::kNumParams; ++i) {
    std::vector<double> up = p, dn = p;
    const double h = 1e-6 * p[i];
    up[i] += h, dn[i] -= h;
    const auto fu = trace_d(up), fd = trace_d(dn);
    double worst = 0, scale = 0;
    for (size_t k = 0; k < v.size(); ++k) {
      const double fdiff = (fu[k] - fd[k]) / (2 * h);
      worst = std::max(worst, std::abs(fj[k].v[i] - fdiff));
      scale = std::max(scale, std::abs(fdiff));
    }
    EXPECT_LT(worst, 1e-4 * scale + 1e-9) << workloads::require_model(M::kId).params[i].name;
  }
}

}  // namespace
}  // namespace stribeck
