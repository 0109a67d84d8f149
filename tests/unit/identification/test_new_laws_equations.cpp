// The laws of issue 33 item 3 (docs/models.md): stribeck-delta (free
// Stribeck exponent), stribeck-asymmetric (a parameter set per direction) and
// elastoplastic (Dupont et al. 2002). Golden values come from
// tests/data/new_laws/reference.py, written from the equations with SciPy's
// Radau for the state model (golden.csv beside it); the truths compare with
// existing laws where the new ones reduce to them. (Here because the
// derivatives are checked with Ceres' Jets; every command on the new laws:
// tests/unit/cli/test_new_laws.cpp.)
#include <gtest/gtest.h>

#include <ceres/jet.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "stribeck/data/csv_reader.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "stribeck/workloads/eval.hpp"
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
    workloads::evaluate_file(workloads::EvalOptions{"elastoplastic", params, in, out, std::nullopt});
    data::CsvReader r(out);
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

}  // namespace
}  // namespace stribeck
