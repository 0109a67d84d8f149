// The generalized Maxwell-slip model (docs/models.md, "Generalized
// Maxwell-slip"): golden values from tests/data/gms/reference.py, written from
// the documented equations with SciPy's Radau (golden.csv beside it), and the
// properties the paper gives it: the Stribeck curve in steady sliding, closed
// presliding loops, non-local memory, and the body simulations' ODE form.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "stribeck/kernels/systems/smooth_friction.hpp"

namespace stribeck {
namespace {

struct GoldenRow {
  std::string kind, set, profile;
  double time, velocity, force;
  std::vector<double> z, dz;
};

std::vector<double> numbers(const std::string& cell) {
  std::vector<double> x;
  std::stringstream ss(cell);
  std::string item;
  while (std::getline(ss, item, ';'))
    if (!item.empty()) x.push_back(std::stod(item));
  return x;
}

const std::vector<GoldenRow>& golden() {
  static const std::vector<GoldenRow> rows = [] {
    std::vector<GoldenRow> r;
    std::ifstream in(std::string(STRIBECK_SOURCE_DIR) + "/tests/data/gms/golden.csv");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::stringstream ss(line);
      std::string cell[8];
      for (auto& c : cell) std::getline(ss, c, ',');
      GoldenRow g{
          cell[0],          cell[1],         cell[2], std::stod(cell[3]), std::stod(cell[4]), std::stod(cell[5]),
          numbers(cell[6]), numbers(cell[7])};
      r.push_back(g);
    }
    return r;
  }();
  return rows;
}

// reference.py's sets, in the model's parameter order: sigma0, sigma1,
// sigma2, F_C, F_s, v_s, delta, C, kf_1.., af_1...
const std::map<std::string, std::vector<double>> kSets{
    {"A", {1e5, 0.0, 0.4, 1.0, 1.5, 1e-3, 2.0, 0.05, 0.6, 0.6, 1.0 / 3.0, 0.5}},
    {"B", {2e5, 50.0, 2.0, 2.0, 3.0, 5e-3, 1.0, 0.01, 0.3, 0.7}}};

template <class F>
void with_set(const std::string& set, F&& f) {
  if (set == "A") f(ModelTag<Gms3>{});
  else f(ModelTag<Gms2>{});
}

TEST(Gms, RightHandSideMatchesTheReference) {
  int n = 0;
  for (const auto& g : golden()) {
    if (g.kind != "rhs") continue;
    with_set(g.set, [&](auto tag) {
      using M = typename decltype(tag)::type;
      const auto c = M::prepare(kSets.at(g.set).data());
      ASSERT_EQ(g.z.size(), static_cast<size_t>(M::kElements));
      double dz[M::kElements];
      const double f = M::rates(c, g.velocity, g.z.data(), dz);
      EXPECT_NEAR(f, g.force, 1e-12 * (1 + std::abs(g.force))) << g.set << " v=" << g.velocity;
      for (int i = 0; i < M::kElements; ++i)
        EXPECT_NEAR(dz[i], g.dz[i], 1e-12 * (std::abs(g.velocity) + 0.1)) << g.set << " element " << i;
    });
    ++n;
  }
  EXPECT_EQ(n, 120);
}

// The trace form (exact per sub-step, velocity frozen at its midpoint)
// against Radau on the continuous velocity: the sub-stepping error of the
// Stribeck curve, as LuGre's bristle (docs/dynamics.md).
TEST(Gms, TraceMatchesScipyRadau) {
  std::map<std::string, std::vector<const GoldenRow*>> traces;
  for (const auto& g : golden())
    if (g.kind == "trace") traces[g.set + "/" + g.profile].push_back(&g);
  ASSERT_EQ(traces.size(), 6u);
  for (const auto& [name, rows] : traces) {
    const std::string set = name.substr(0, 1);
    with_set(set, [&](auto tag) {
      using M = typename decltype(tag)::type;
      const std::vector<double>& p = kSets.at(set);
      const auto c = M::prepare(p.data());
      typename M::template State<double> st{};
      st.v_prev = rows[0]->velocity;
      double worst = 0;
      for (size_t k = 0; k < rows.size(); ++k) {
        const double dt = k ? rows[k]->time - rows[k - 1]->time : 0.0;
        const double f = model_step<M>(c, Sample<double>{rows[k]->velocity, 0, 0, 0}, st, dt);
        worst = std::max(worst, std::abs(f - rows[k]->force));
      }
      EXPECT_LT(worst, 2e-3 * p[M::F_s]) << name;
      RecordProperty(name, std::to_string(worst / p[M::F_s]));
    });
  }
}

template <class M>
double run_constant(const std::vector<double>& p, double v, double seconds, double dt) {
  const auto c = M::prepare(p.data());
  typename M::template State<double> st{};
  st.v_prev = v;
  double f = 0;
  for (double t = 0; t < seconds; t += dt) f = model_step<M>(c, Sample<double>{v, 0, 0, 0}, st, dt);
  return f;
}

TEST(Gms, SteadySlidingIsTheStribeckCurvePlusViscous) {
  for_each_model(ModelList<Gms1, Gms2, Gms3, Gms4>{}, [&](auto tag) {
    using M = typename decltype(tag)::type;
    std::vector<double> p = find_model(M::kId)->defaults();
    p[M::delta] = 1.5;
    for (double v : {2e-4, -1e-3, 3e-3, -0.02, 0.3}) {
      const double s = 1.0 + 0.5 * std::exp(-std::pow(std::abs(v) / 1e-3, 1.5));
      const double expect = s * (v > 0 ? 1 : -1) + 0.4 * v;
      EXPECT_NEAR(run_constant<M>(p, v, 2.0, 1e-3), expect, 1e-9) << M::kId << " v=" << v;
    }
  });
}

// A position x(t) in half-sine moves: returns the force after each move.
template <class M>
std::vector<double> forces_after_moves(const std::vector<double>& p, const std::vector<double>& dx, double T,
                                       std::vector<double>* trace = nullptr) {
  const auto c = M::prepare(p.data());
  typename M::template State<double> st{};
  const int n = 400;
  const double dt = T / n;
  std::vector<double> out;
  for (double d : dx) {
    double f = 0;
    for (int i = 1; i <= n; ++i) {
      const double v = d * M_PI / (2 * T) * std::sin(M_PI * i / n);
      f = model_step<M>(c, Sample<double>{v, 0, 0, 0}, st, dt);
      if (trace) trace->push_back(f);
    }
    out.push_back(f);
  }
  return out;
}

// A flat Stribeck curve at presliding speeds (v_s = 0.1 m/s), so the element
// maxima are the same at every reversal and the rules are exact.
std::vector<double> presliding_params() {
  std::vector<double> p = find_model("gms3")->defaults();
  p[Gms3::v_s] = 0.1;
  return p;
}

TEST(Gms, PreslidingLoopCloses) {
  const std::vector<double> p = presliding_params();
  // Element maxima: m_i = alpha_i F_s / k_i = 8.3, 20.8, 31.3 um; a +-15 um
  // cycle slips the first element every half cycle, the others stick.
  std::vector<double> dx{15e-6};
  for (int i = 0; i < 6; ++i) dx.push_back(i % 2 ? 30e-6 : -30e-6);
  std::vector<double> tr;
  const auto f = forces_after_moves<Gms3>(p, dx, 0.1, &tr);
  // The loop repeats from the second cycle on, sample by sample.
  const size_t cycle = 2 * 400;
  double worst = 0, span = 0;
  for (size_t k = 400 + cycle; k < 400 + 2 * cycle; ++k) {
    worst = std::max(worst, std::abs(tr[k] - tr[k + cycle]));
    span = std::max(span, std::abs(tr[k]));
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(span, 0.5);            // a real loop
  EXPECT_NEAR(f[2], -f[1], 1e-9);  // symmetric turning points
}

// Non-local memory (Al-Bender et al. 2005, Fig. 3): an inner loop started at
// a reversal point returns to it when the motion comes back, and a motion past
// the earlier outer reversal continues the outer branch (wiping out).
TEST(Gms, InnerLoopReturnsToTheEarlierReversalPoint) {
  const std::vector<double> p = presliding_params();
  // Up 60 (virgin), down 40 (reversal point R at 20 um), up 22, down 22
  // (back at R), up 62 (through the outer reversal at 60 um to 82).
  const auto f = forces_after_moves<Gms3>(p, {60e-6, -40e-6, 22e-6, -22e-6, 62e-6}, 0.2);
  EXPECT_NEAR(f[3], f[1], 1e-6) << "the inner loop returns to its reversal point";
  EXPECT_GT(std::abs(f[2] - f[1]), 0.1) << "an inner loop that slips elements";
  // Wiping out: the same ascent from R without the inner loop ends where it does.
  const auto g = forces_after_moves<Gms3>(p, {60e-6, -40e-6, 62e-6}, 0.2);
  EXPECT_NEAR(f[4], g[2], 1e-6);
  // And that outer branch is the virgin curve's continuation: past 60 um the
  // force is the one of a monotone ascent to the same position.
  const auto h = forces_after_moves<Gms3>(p, {82e-6}, 0.2);
  EXPECT_NEAR(g[2], h[0], 1e-6);
}

// The body simulations integrate the ODE form (smooth_friction.hpp): a
// force-driven body pushed slowly through presliding into sliding follows the
// trace form of the same model along the simulated velocity.
TEST(Gms, OdeFormFollowsTheTraceFormAlongTheSimulatedMotion) {
  for_each_model(ModelList<Gms1, Gms3>{}, [&](auto tag) {
    using M = typename decltype(tag)::type;
    const std::vector<double> p = find_model(M::kId)->defaults();
    BodySystem<double> b;
    b.mass = 0.1;
    b.external_force.slope = 2.0;  // 2 N/s: breaks away after 0.75 s
    SimOptions<double> o;
    o.t_end = 1.2;
    o.dt = 1e-4;
    std::vector<BodySnapshot<double>> snaps;
    auto keep = [&](const BodySnapshot<double>& s) { snaps.push_back(s); };
    ASSERT_EQ(simulate_smooth<M>(M::prepare(p.data()), b, o, keep), kSimOk) << M::kId;
    const auto c = M::prepare(p.data());
    typename M::template State<double> st{};
    double worst = 0, fmax = 0;
    for (size_t k = 0; k < snaps.size(); ++k) {
      const double f =
          model_step<M>(c, Sample<double>{snaps[k].v_rel, 0, 0, 0}, st, k ? snaps[k].t - snaps[k - 1].t : 0.0);
      worst = std::max(worst, std::abs(f - snaps[k].f_fric));
      fmax = std::max(fmax, std::abs(f));
    }
    EXPECT_GT(snaps.back().x[kBodyV], 0.01) << M::kId << ": it broke away";
    EXPECT_LT(worst, 0.02 * fmax) << M::kId;
  });
}

TEST(Gms, FractionsSplitStiffnessAndLevelByStickBreaking) {
  const std::vector<double> p{2e5, 0, 0, 1, 1.5, 1e-3, 2, 0.01, 0.5, 0.25, 0.6, 0.2, 0.4, 0.75};
  const auto c = Gms4::prepare(p.data());
  const double kappa[4] = {0.5, 0.125, 0.225, 0.15};  // 0.5, 0.5*0.25, 0.375*0.6, rest
  const double alpha[4] = {0.2, 0.32, 0.36, 0.12};    // 0.2, 0.8*0.4, 0.48*0.75, rest
  double ks = 0, as = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(c.k[i], 2e5 * kappa[i], 1e-9) << i;
    EXPECT_NEAR(c.w[i] * c.k[i], alpha[i], 1e-15) << i;
    ks += c.k[i], as += c.w[i] * c.k[i];
  }
  EXPECT_NEAR(ks, 2e5, 1e-9);
  EXPECT_NEAR(as, 1.0, 1e-15);
}

}  // namespace
}  // namespace stribeck
