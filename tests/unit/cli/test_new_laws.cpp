// The laws of issue 33 item 3 (docs/models.md): stribeck-delta (free
// Stribeck exponent), stribeck-asymmetric (a parameter set per direction) and
// elastoplastic (Dupont et al. 2002). Golden values come from
// tests/data/new_laws/reference.py, written from the equations with SciPy's
// Radau for the state model (golden.csv beside it); the truths compare with
// existing laws where the new ones reduce to them.
#include <gtest/gtest.h>

#include <ceres/jet.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/workloads/eval.hpp"
#include "cli_runner.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

template <class M>
double force_of(const std::vector<double>& p, double v, double f_n = 0) {
  return M::force(M::prepare(p.data()), Sample<double>{v, 0, 0, f_n});
}

struct GoldenRow {
  std::string kind, set, profile;
  double time, velocity, state, force, dzdt;
};

const std::vector<GoldenRow>& golden() {
  static const std::vector<GoldenRow> rows = [] {
    std::vector<GoldenRow> r;
    std::ifstream in(std::string(STRIBECK_SOURCE_DIR) + "/tests/data/new_laws/golden.csv");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::stringstream ss(line);
      GoldenRow g;
      std::string cell[8];
      for (auto& c : cell) std::getline(ss, c, ',');
      g.kind = cell[0], g.set = cell[1], g.profile = cell[2];
      g.time = std::stod(cell[3]), g.velocity = std::stod(cell[4]), g.state = std::stod(cell[5]);
      g.force = std::stod(cell[6]), g.dzdt = std::stod(cell[7]);
      r.push_back(g);
    }
    return r;
  }();
  return rows;
}

// The parameter sets of reference.py.
const std::map<std::string, std::vector<double>> kDeltaSets{{"d1", {20, 25, 0.01, 1, 100, 0}},
                                                            {"d2", {20, 25, 0.01, 2, 100, 0}},
                                                            {"d05", {3, 7, 2e-3, 0.5, 10, 1e-4}},
                                                            {"d8", {1, 1.5, 1e-3, 8, 0, 0}}};
const std::map<std::string, std::vector<double>> kEpSets{{"A", {1e5, 316.2277660168379, 0.4, 1, 1.5, 1e-3, 0.5}},
                                                         {"B", {2e5, 0, 2, 2, 3, 5e-3, 0.9}}};

TEST(NewLaws, StribeckDeltaMatchesTheReference) {
  int n = 0;
  for (const auto& g : golden()) {
    if (g.kind != "delta") continue;
    const double f = force_of<StribeckDelta>(kDeltaSets.at(g.set), g.velocity);
    EXPECT_NEAR(f, g.force, 1e-13 * (std::abs(g.force) + 1)) << g.set << " v=" << g.velocity;
    ++n;
  }
  EXPECT_EQ(n, 48);
}

TEST(NewLaws, StribeckDeltaOneIsTheCylinderLawsExponentialDecay) {
  // simscape-cylinder outside its linear zone: F_C (1 + (K_brk-1) e^{-c_v|v|}) sign(v) + f_vfr v, which is
  // delta = 1 with F_s = K_brk F_C and v_s = 1/c_v (pressures 0, so F_C = F_pr).
  const std::vector<double> cyl{20, 0, 1.25, 100, 100, 1e-6};  // F_pr, f_cfr, K_brk, f_vfr, c_v, v_th
  const std::vector<double> d{20, 25, 0.01, 1, 100, 0};
  for (double v : {2e-6, 1e-4, 3e-3, 0.01, 0.05, 0.7}) {
    for (double sv : {v, -v}) {
      const double cylinder =
          SimscapeCylinder::force(SimscapeCylinder::prepare(cyl.data()), Sample<double>{sv, 0, 0, 0});
      EXPECT_NEAR(force_of<StribeckDelta>(d, sv), cylinder, 1e-12 * std::abs(cylinder)) << sv;
    }
  }
}

TEST(NewLaws, StribeckDeltaTwoIsTheGaussianOf20simAndLuGre) {
  const std::vector<double> d{0.1, 0.15, 0.01, 2, 0.01, 0};
  // 20sim-scvs with F_n = 1 and a tanh steep enough to be 1 at these speeds.
  const std::vector<double> scvs{0.15, 0.1, 0.01, 1e12, 0.01};  // mu_s, mu_c, mu_v, slope, v_st
  // LuGre's steady state: sign(v) g(v) + sigma2 v with the same Gaussian g.
  const std::vector<double> lugre{1e5, 300, 0.01, 0.1, 0.15, 0.01};
  const auto lc = LuGre::prepare(lugre.data());
  for (double v : {1e-6, 2e-3, 0.01, 0.02, 0.1, -1e-6, -5e-3, -0.03}) {
    const double f = force_of<StribeckDelta>(d, v);
    EXPECT_NEAR(f, force_of<TwentySimSCVS>(scvs, v, 1.0), 1e-14) << v;
    EXPECT_NEAR(f, LuGre::steady_force(lc, v), 1e-14) << v;
  }
}

TEST(NewLaws, StribeckDeltaDegenerateValues) {
  const std::vector<double> p{20, 25, 0.01, 2, 100, 0};
  EXPECT_EQ(force_of<StribeckDelta>(p, 0.0), 0.0);  // sign(0) = 0, as every law
  // With smoothing the law is continuous through 0 and odd.
  const std::vector<double> ps{20, 25, 0.01, 2, 100, 1e-4};
  EXPECT_NEAR(force_of<StribeckDelta>(ps, 1e-9), 25 * std::tanh(1e-5) + 1e-7, 1e-15);
  EXPECT_EQ(force_of<StribeckDelta>(ps, -3e-3), -force_of<StribeckDelta>(ps, 3e-3));
  // A large exponent is a step at v_s: F_s below, F_C above, exp(-1) between at v_s exactly.
  const std::vector<double> step{20, 25, 0.01, 2000, 0, 0};  // 0.98^2000 = e^-40.4, 1.02^2000 = e^39.6
  EXPECT_NEAR(force_of<StribeckDelta>(step, 0.0098), 25.0, 1e-12);
  EXPECT_EQ(force_of<StribeckDelta>(step, 0.0102), 20.0);
  EXPECT_NEAR(force_of<StribeckDelta>(step, 0.01), 20 + 5 * std::exp(-1.0), 1e-12);
  // A tiny Stribeck velocity leaves Coulomb + viscous at every measurable speed.
  const std::vector<double> tiny{20, 25, 1e-300, 1, 100, 0};
  EXPECT_EQ(force_of<StribeckDelta>(tiny, 1e-6), 20 + 1e-4);
  // An exponent below 1: still 1 at v = 0 with finite derivatives (Jets), and
  // those agree with central differences elsewhere.
  using J = ceres::Jet<double, 6>;
  const double q[] = {3, 7, 2e-3, 0.5, 10, 0};
  J pj[6];
  for (int i = 0; i < 6; ++i) pj[i] = J(q[i], i);
  const J f0 = StribeckDelta::force(StribeckDelta::prepare(pj), Sample<J>{J(0.0), J(0.0), J(0.0), J(0.0)});
  EXPECT_EQ(f0.a, 0.0);
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(std::isfinite(f0.v[i])) << i;
  const double v = 1.3e-3;
  const J f = StribeckDelta::force(StribeckDelta::prepare(pj), Sample<J>{J(v), J(0.0), J(0.0), J(0.0)});
  for (int i = 0; i < 5; ++i) {
    std::vector<double> hi(q, q + 6), lo(q, q + 6);
    const double h = 1e-6 * q[i];
    hi[i] += h, lo[i] -= h;
    const double fd = (force_of<StribeckDelta>(hi, v) - force_of<StribeckDelta>(lo, v)) / (2 * h);
    EXPECT_NEAR(f.v[i], fd, 1e-6 * (std::abs(fd) + 1)) << i;
  }
}

TEST(NewLaws, AsymmetricWithEqualSetsIsTheSymmetricLaw) {
  for (const auto& [name, d] : kDeltaSets) {
    // F_C, F_s, v_s, f_v for each direction, then delta and v_eps.
    const std::vector<double> a{d[0], d[1], d[2], d[4], d[0], d[1], d[2], d[4], d[3], d[5]};
    for (double v : {0.0, 1e-7, -1e-7, 1e-3, -1e-3, 0.02, -0.02, 1.0, -1.0})
      EXPECT_EQ(force_of<StribeckAsymmetric>(a, v), force_of<StribeckDelta>(d, v)) << name << " v=" << v;
  }
}

TEST(NewLaws, AsymmetricTakesEachDirectionsOwnSet) {
  const std::vector<double> a{20, 25, 0.01, 100, 10, 12, 0.02, 50, 1, 0};
  const std::vector<double> pos{20, 25, 0.01, 1, 100, 0}, neg{10, 12, 0.02, 1, 50, 0};
  for (double v : {1e-6, 0.01, 0.3}) {
    EXPECT_EQ(force_of<StribeckAsymmetric>(a, v), force_of<StribeckDelta>(pos, v));
    EXPECT_EQ(force_of<StribeckAsymmetric>(a, -v), force_of<StribeckDelta>(neg, -v));
  }
  // Hand-computed: v = -0.01: -(10 + 2 e^{-0.5}) - 0.5.
  EXPECT_NEAR(force_of<StribeckAsymmetric>(a, -0.01), -(10 + 2 * std::exp(-0.5)) - 0.5, 1e-13);
  EXPECT_EQ(force_of<StribeckAsymmetric>(a, 0.0), 0.0);
  // Relations are checked per direction.
  const ModelInfo& m = *find_model("stribeck-asymmetric");
  std::vector<double> bad = a;
  bad[StribeckAsymmetric::F_s_neg] = 9;
  const auto errors = validate_params(m, bad.data());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("F_s_neg = 9 must be >= F_C_neg = 10"), std::string::npos) << errors[0];
}

TEST(NewLaws, ElastoPlasticRightHandSideMatchesTheReference) {
  int n = 0;
  for (const auto& g : golden()) {
    if (g.kind != "ep_rhs") continue;
    const auto c = ElastoPlastic::prepare(kEpSets.at(g.set).data());
    const Sample<double> s{g.velocity, 0, 0, 0};
    const double dz = ElastoPlastic::dzdt(c, s, g.state);
    EXPECT_NEAR(dz, g.dzdt, 1e-13 * std::abs(g.velocity)) << g.set << " v=" << g.velocity << " z=" << g.state;
    EXPECT_NEAR(ElastoPlastic::output(c, s, g.state, dz), g.force, 1e-12 * (std::abs(g.force) + 1));
    ++n;
  }
  EXPECT_EQ(n, 80);
}

// The trace form through `stribeck eval`'s library entry, against SciPy's
// Radau on the same sampled velocity (linear between samples). The tolerance,
// 2e-3 F_s, is the trace form's accuracy (the worst measured: 1.1e-3 F_s,
// set B's plateaus, at the low-speed sub-steps of the bristle rule).
TEST(NewLaws, ElastoPlasticTraceMatchesScipyRadau) {
  std::map<std::string, std::vector<const GoldenRow*>> traces;
  for (const auto& g : golden())
    if (g.kind == "ep_trace") traces[g.set + "/" + g.profile].push_back(&g);
  ASSERT_EQ(traces.size(), 10u);
  for (const auto& [key, rows] : traces) {
    const std::string set = key.substr(0, key.find('/'));
    const auto& p = kEpSets.at(set);
    const std::string in = test::temp_dir() + "ep_" + set + "_" + rows[0]->profile + ".csv", out = in + ".out.csv";
    {
      std::ofstream f(in);
      f.precision(17);
      f << "time,velocity\n";
      for (const auto* r : rows) f << r->time << "," << r->velocity << "\n";
    }
    std::vector<std::string> params;
    for (size_t i = 0; i < p.size(); ++i)
      params.push_back(std::string(ElastoPlastic::kParams[i].name) + "=" + format_number(p[i]));
    evaluate_file(EvalOptions{"elastoplastic", params, in, out, std::nullopt});
    CsvReader r(out);
    std::vector<double> v;
    std::vector<std::string_view> cells;
    size_t i = 0;
    double worst = 0;
    while (r.next(v, cells)) {
      ASSERT_LT(i, rows.size());
      worst = std::max(worst, std::abs(v[r.column("model_force")] - rows[i]->force));
      ++i;
    }
    EXPECT_EQ(i, rows.size());
    EXPECT_LT(worst, 2e-3 * p[ElastoPlastic::F_s]) << key;
    if (key == "B/presliding") EXPECT_LT(worst, 1e-9) << "purely elastic: the trace form is exact";
  }
}

// Truths of the paper: below z_ba the bristle is a spring (no drift, so the
// state returns exactly when the displacement does); in steady sliding the
// force is LuGre's steady state g(v) sign(v) + sigma2 v.
TEST(NewLaws, ElastoPlasticIsElasticBelowBreakawayAndSlidesLikeLuGre) {
  const std::vector<double> p{1e5, 300, 0.4, 1, 1.5, 1e-3, 0.8};  // z_ba = 8e-6 m
  const auto c = ElastoPlastic::prepare(p.data());
  ElastoPlastic::State<double> st{0, 0};
  // Forth and back over x in [0, 7e-6] m (< z_ba) for 2 cycles: z follows x
  // (to the trapezoid rule's 5e-13 m on the linear-between-samples velocity).
  for (int i = 1; i <= 20000; ++i) {
    const double t = i * 1e-4, v = 3.5e-6 * 2 * M_PI * std::sin(2 * M_PI * t);
    ElastoPlastic::step(c, Sample<double>{v, 0, 0, 0}, st, 1e-4);
    ASSERT_NEAR(st.z, 3.5e-6 * (1 - std::cos(2 * M_PI * t)), 1e-11) << t;
  }
  // LuGre, same sigma0, F_C, F_s, v_s: the steady state after sliding.
  const std::vector<double> lg{1e5, 300, 0.4, 1, 1.5, 1e-3};
  const auto lc = LuGre::prepare(lg.data());
  for (double vel : {2e-4, 1e-3, 0.02, -5e-3}) {
    ElastoPlastic::State<double> s{0, vel};
    double f = 0;
    for (int i = 0; i < 2000; ++i) f = ElastoPlastic::step(c, Sample<double>{vel, 0, 0, 0}, s, 1e-3);
    EXPECT_NEAR(f, LuGre::steady_force(lc, vel), 1e-9) << vel;
    EXPECT_NEAR(f, ElastoPlastic::steady_force(c, vel), 1e-9) << vel;
  }
  // The ODE form: no drift at all below z_ba (dz/dt = v), LuGre's rate at and above |z_ss|.
  const Sample<double> s{0.01, 0, 0, 0};
  EXPECT_EQ(ElastoPlastic::dzdt(c, s, 7.9e-6), 0.01);
  EXPECT_EQ(ElastoPlastic::dzdt(c, s, -3e-5), 0.01);  // loaded against its deflection: elastic
  const double zss = ElastoPlastic::z_ss(c, 0.01);
  EXPECT_NEAR(ElastoPlastic::dzdt(c, s, 1.2 * zss), LuGre::dzdt(lc, s, 1.2 * zss), 1e-15);
}

// ------------------------------------------------------------ every command
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class NewLawsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    d_ = test::temp_dir() + "new_laws_cli/";
    std::system(("mkdir -p " + d_).c_str());
  }
  int cli(const std::string& args, std::string* out = nullptr) { return test::run_cli(args, out); }
  std::string d_;
};

TEST_F(NewLawsCli, ModelsListsTheNewLaws) {
  std::string out;
  ASSERT_EQ(cli("models --json", &out), 0) << out;
  const auto j = nlohmann::json::parse(out);
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& m : j) by_id[m["id"].get<std::string>()] = m;
  for (const char* id : {"stribeck-delta", "stribeck-asymmetric", "elastoplastic"}) ASSERT_TRUE(by_id.count(id)) << id;
  EXPECT_EQ(by_id["stribeck-delta"]["parameters"].size(), 6u);
  EXPECT_EQ(by_id["stribeck-asymmetric"]["parameters"].size(), 10u);
  EXPECT_EQ(by_id["elastoplastic"]["parameters"].size(), 7u);
  // r_ba's range is [0, 1): 1 is refused in one line naming it.
  ASSERT_EQ(cli("eval -q --model elastoplastic -p r_ba=1 -i " + d_ + "none.csv -o " + d_ + "x.csv", &out), 2);
  EXPECT_NE(out.find("r_ba = 1 must be < 1"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

TEST_F(NewLawsCli, SweepsRunOverTheNewLawsParameters) {
  for (const std::string& flags :
       {std::string("-m stribeck-delta -p delta=linear:0.5:3:4 -p v_s=log:1e-3:1e-1:3 --profile sine,samples=64"),
        std::string("-m stribeck-asymmetric -p F_C_neg=linear:5:20:3 -p delta=list:1,2 --profile sine,samples=64"),
        std::string("-m elastoplastic -p r_ba=linear:0:0.9:4 -p sigma0=log:1e4:1e6:3 --profile sine,samples=256")}) {
    std::string out;
    const std::string file = d_ + "sweep.h5";
    std::remove(file.c_str());
    ASSERT_EQ(cli("sweep -q " + flags + " --design grid -o " + file + " --json -", &out), 0) << flags << "\n" << out;
    const auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["points"].get<long>(), flags.find("list:1,2") != std::string::npos ? 6 : 12) << out;
  }
}

TEST_F(NewLawsCli, SimulateRunsTheElastoPlasticRigAndAnEnsemble) {
  const std::string system =
      "[system]\nmass = 1.0\nstiffness = 2.0\ndrive_velocity = 0.1\nfriction_on = \"ground\"\n[friction]\n"
      "model = \"elastoplastic\"\n[friction.params]\nsigma1 = 1.0\nsigma2 = 1.0\nr_ba = 0.7\n[simulation]\n"
      "t_end = 0.5\ndt = 1e-3\n";
  std::ofstream(d_ + "single.toml") << system;
  std::ofstream(d_ + "ens.toml") << system
                                 << "[ensemble]\ndevice = \"cpu\"\n[ensemble.params]\nr_ba = \"linear:0:0.9:4\"\n"
                                    "drive_velocity = \"linear:0.01:0.3:3\"\n";
  std::string out;
  ASSERT_EQ(cli("simulate -q " + d_ + "single.toml -o " + d_ + "single.csv", &out), 0) << out;
  EXPECT_GT(slurp(d_ + "single.csv").size(), 1000u);
  ASSERT_EQ(cli("simulate -q " + d_ + "ens.toml -o " + d_ + "ens.h5 --json -", &out), 0) << out;
  EXPECT_NE(out.find("12"), std::string::npos) << out;
  for (const char* law : {"stribeck-delta", "stribeck-asymmetric"}) {
    std::ofstream(d_ + "static.toml") << "[system]\nmass = 1.0\nstiffness = 2.0\ndrive_velocity = 0.1\n"
                                         "friction_on = \"ground\"\n[friction]\nmodel = \""
                                      << law
                                      << "\"\n[friction.params]\nv_eps = 1e-3\n[simulation]\nt_end = 0.5\ndt = 1e-3\n";
    ASSERT_EQ(cli("simulate -q " + d_ + "static.toml -o " + d_ + "static.csv", &out), 0) << law << "\n" << out;
  }
}

// export-params: every law to JSON exactly; a static law to Simscape
// approximately (fitted over the log's velocities), with the breakaway of
// both laws reported; the elasto-plastic model nowhere but JSON (no tool's
// friction block has its breakaway function).
TEST_F(NewLawsCli, ExportParamsWhereTheTargetHasTheLaw) {
  std::string out;
  for (const char* model : {"stribeck-delta", "elastoplastic"}) {
    const std::string log = d_ + model + "_x.h5", fit = d_ + model + "_x.json";
    ASSERT_EQ(cli(std::string("generate -q --model ") + model + " --profile triangle --duration 2 -o " + log, &out), 0)
        << out;
    ASSERT_EQ(cli("identify -q " + log + " --model " + model + " --json " + fit, &out), 0) << out;
    ASSERT_EQ(cli("export-params " + fit + " --to json -o " + d_ + "x.json", &out), 0) << out;
    EXPECT_NE(out.find(std::string(model) + " -> json, exact"), std::string::npos) << out;
  }
  const std::string delta_fit = d_ + "stribeck-delta_x.json";
  ASSERT_EQ(cli("export-params " + delta_fit + " --to json -o " + d_ + "x.json", &out), 0) << out;
  EXPECT_NE(out.find("breakaway 25 N (fit 25 N)"), std::string::npos) << out;
  ASSERT_EQ(
      cli("export-params " + delta_fit + " --to simscape --data " + d_ + "stribeck-delta_x.h5 -o " + d_ + "x.m", &out),
      0)
      << out;
  EXPECT_NE(out.find("stribeck-delta -> simscape, approximate"), std::string::npos) << out;
  for (const char* target : {"20sim", "simscape", "modelica"}) {
    ASSERT_EQ(cli("export-params " + d_ + "elastoplastic_x.json --to " + target + " -o " + d_ + "x.out", &out), 2)
        << target << "\n"
        << out;
    EXPECT_NE(out.find(std::string("model elastoplastic has no ") + target + " export"), std::string::npos) << out;
  }
}

// "Fit their own generated logs": `generate` with a truth, `identify`
// recovers every free parameter within 3 standard errors, with an RMSE at
// the noise floor.
void expect_recovers(const std::string& dir, const std::string& model, const std::map<std::string, double>& truth,
                     const std::string& gen_flags, double noise, const std::string& fit_flags = "") {
  std::string gen = "generate -q --model " + model;
  for (const auto& [k, v] : truth) gen += " -p " + k + "=" + format_number(v);
  std::string out;
  const std::string log = dir + model + ".h5", fit = dir + model + ".json";
  ASSERT_EQ(
      test::run_cli(gen + " " + gen_flags + " --noise force=" + format_number(noise) + " --seed 7 -o " + log, &out), 0)
      << out;
  ASSERT_EQ(test::run_cli("identify -q " + log + " --model " + model + " " + fit_flags + " --json " + fit, &out), 0)
      << out;
  const auto j = nlohmann::json::parse(slurp(fit));
  EXPECT_TRUE(j["converged"].get<bool>()) << j.dump(1);
  for (const auto& [name, t] : truth) {
    const auto& p = j["parameters"][name];
    if (p.value("fixed", false)) continue;
    const double v = p["value"].get<double>(), se = p["std_error"].get<double>();
    EXPECT_LT(std::abs(v - t), 3 * se) << model << " " << name << " = " << v << " +/- " << se << ", true " << t;
  }
  EXPECT_NEAR(j["rmse"].get<double>(), noise, 0.1 * noise) << j.dump(1);
}

TEST_F(NewLawsCli, IdentifyRecoversStribeckDeltaFromItsGeneratedLog) {
  expect_recovers(d_, "stribeck-delta", {{"F_C", 20}, {"F_s", 28}, {"v_s", 5e-3}, {"delta", 1.3}, {"f_v", 150}},
                  "--profile plateaus --duration 6 --vmax 0.1", 0.2);
}

TEST_F(NewLawsCli, IdentifyRecoversStribeckAsymmetricFromItsGeneratedLog) {
  expect_recovers(d_, "stribeck-asymmetric",
                  {{"F_C_pos", 20},
                   {"F_s_pos", 28},
                   {"v_s_pos", 5e-3},
                   {"f_v_pos", 150},
                   {"F_C_neg", 14},
                   {"F_s_neg", 18},
                   {"v_s_neg", 1e-2},
                   {"f_v_neg", 90},
                   {"delta", 1.6}},
                  "--profile plateaus --duration 6 --vmax 0.1", 0.2);
}

TEST_F(NewLawsCli, IdentifyRecoversElastoPlasticFromItsGeneratedLog) {
  expect_recovers(
      d_, "elastoplastic",
      {{"sigma0", 1e5}, {"sigma1", 300}, {"sigma2", 0.4}, {"F_C", 1}, {"F_s", 1.5}, {"v_s", 1e-3}, {"r_ba", 0.6}},
      "--profile plateaus --duration 6 --vmax 5mm/s --rate 2000", 0.01);
}

}  // namespace
}  // namespace stribeck
