// Ensembles drawn from a fit's intervals ([ensemble] from_fit_draw =
// "profile-intervals", workloads/fit_prior.hpp): each free parameter a split
// normal in its internal coordinate with the scales of its 95 % interval,
// coupled by a Gaussian copula with the covariance's correlation; interval
// ends on a bound hold the draws there. The expected distributions are
// written here from their formulas (normal CDF by erfc, the covariance
// mapped to internal coordinates by the transforms' derivatives), not taken
// from the code under test. (The CLI on a real profile-interval fit:
// tests/unit/cli/test_fit_interval_draws.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fit_json.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/workloads/fit_prior.hpp"
#include "stribeck/workloads/params.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::fit_json;
using test::write_temp_file;
using workloads::FitDraw;

constexpr double kZ = 1.959963984540054;  // z(0.975)

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

struct Interval {
  double lo, hi;
  const char* kind;
};

// The fit of fit_json with each free parameter's ci95 and interval kind.
std::string with_intervals(const std::string& fit, const std::vector<std::string>& names,
                           const std::vector<Interval>& ci) {
  nlohmann::json j = nlohmann::json::parse(fit);
  for (size_t a = 0; a < names.size(); ++a) {
    j["parameters"][names[a]]["ci95"] = {ci[a].lo, ci[a].hi};
    j["parameters"][names[a]]["interval"] = ci[a].kind;
  }
  return j.dump(2);
}

// The external values of n random draws of the prior's parameters (the
// space simulate's add_prior_axes builds, workloads/src/ensemble.cpp).
std::vector<std::vector<double>> draw(const workloads::FitPrior& p, std::uint64_t n, std::uint64_t seed = 11) {
  const int k = static_cast<int>(p.names.size());
  const std::vector<double> list = p.joint_list();
  sweep::SpaceView s;
  s.design = sweep::Design::kRandom;
  s.dims = k;
  s.seed = seed;
  s.points = n;
  s.joint = k;
  s.joint_split = p.draw == FitDraw::kProfileIntervals;
  s.list_values = list.data();
  for (int j = 0; j < k; ++j) {
    s.axis[j].kind = sweep::AxisKind::kJointNormal;
    s.axis[j].count = static_cast<std::uint64_t>(j);
    s.axis[j].a = p.transform[j];
    s.axis[j].b = p.base[j] >= 0 ? p.base[j] : 0;
  }
  std::vector<std::vector<double>> x(k, std::vector<double>(n));
  double out[sweep::kMaxParams];
  for (std::uint64_t i = 0; i < n; ++i) {
    sweep::space_point(s, i, out);
    for (int a = 0; a < k; ++a) x[a][i] = out[a];
  }
  return x;
}

// simscape-translational with every kind of internal coordinate: F_brk an
// excess over F_C, v_brk and F_C in log, f_v identity.
struct TranslationalFit {
  const ModelInfo& m = workloads::require_model("simscape-translational");
  std::vector<std::string> names{"F_brk", "v_brk", "F_C", "f_v"};
  std::vector<std::string> transforms{"excess:F_C", "log", "log", "identity"};
  std::vector<double> x{25.0, 0.1, 20.0, 100.0}, se{0.5, 0.02, 0.4, 10.0};
  std::vector<std::vector<double>> corr{
      {1.0, -0.3, 0.6, 0.1}, {-0.3, 1.0, -0.2, 0.0}, {0.6, -0.2, 1.0, -0.4}, {0.1, 0.0, -0.4, 1.0}};
  long double cu[4][4] = {};  // covariance of u = (F_brk - F_C, ln v_brk, ln F_C, f_v)
  double mean_u[4];

  TranslationalFit() {
    // du = A dx: the derivatives of the internal coordinates at the estimate.
    const long double a[4][4] = {{1, 0, -1, 0}, {0, 1 / 0.1L, 0, 0}, {0, 0, 1 / 20.0L, 0}, {0, 0, 0, 1}};
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        for (int p = 0; p < 4; ++p)
          for (int q = 0; q < 4; ++q) cu[i][j] += a[i][p] * corr[p][q] * se[p] * se[q] * a[j][q];
    mean_u[0] = x[0] - x[2];
    mean_u[1] = std::log(x[1]);
    mean_u[2] = std::log(x[2]);
    mean_u[3] = x[3];
  }
  double sd_u(int a) const { return static_cast<double>(std::sqrt(cu[a][a])); }
  double u(int a, double v) const { return a == 0 ? v - x[2] : a == 1 || a == 2 ? std::log(v) : v; }
  double x_of(int a, double uu) const { return a == 0 ? uu + x[2] : a == 1 || a == 2 ? std::exp(uu) : uu; }
  std::string file(const std::string& tag, const std::vector<Interval>& ci) const {
    return write_temp_file(tag + ".json",
                           with_intervals(fit_json(m.id, names, transforms, x, se, corr, {}), names, ci));
  }
};

// Intervals symmetric in the internal coordinates, as wide as the covariance
// says, give the covariance draw: the same draws to rounding (so the same
// distribution and moments), whether they are called profile or Wald.
TEST(FitPriorIntervals, SymmetricIntervalsGiveTheCovarianceDraw) {
  const TranslationalFit f;
  std::vector<Interval> profile, wald;
  for (int a = 0; a < 4; ++a) {
    profile.push_back({f.x_of(a, f.mean_u[a] - kZ * f.sd_u(a)), f.x_of(a, f.mean_u[a] + kZ * f.sd_u(a)), "profile"});
    // identify's Wald interval: x -/+ z se_x (log: x exp(-/+ z se_u)); an
    // excess's is of its external value, narrower than its coordinate's.
    wald.push_back(a == 1 || a == 2 ? Interval{profile[a].lo, profile[a].hi, "wald"}
                                    : Interval{f.x[a] - kZ * f.se[a], f.x[a] + kZ * f.se[a], "wald"});
  }
  const auto cov = workloads::read_fit_prior(f.file("sym_cov", profile), f.m, "test");
  const std::uint64_t n = 20000;
  const auto want = draw(cov, n);
  for (const auto* ci : {&profile, &wald}) {
    const auto p = workloads::read_fit_prior(f.file("sym", *ci), f.m, "test", FitDraw::kProfileIntervals);
    ASSERT_EQ(p.draw, FitDraw::kProfileIntervals);
    const auto got = draw(p, n);
    for (int a = 0; a < 4; ++a)
      for (std::uint64_t i = 0; i < n; ++i)
        ASSERT_NEAR(got[a][i], want[a][i], 1e-12 * std::abs(want[a][i]) + 1e-12 * f.se[a])
            << f.names[a] << " draw " << i << " (" << (*ci)[0].kind << ")";
  }
  // And the covariance draw's moments in internal coordinates are C_u's.
  const auto p = workloads::read_fit_prior(f.file("sym2", profile), f.m, "test", FitDraw::kProfileIntervals);
  const auto x = draw(p, 200000, 3);
  std::vector<std::vector<double>> u(4, std::vector<double>(x[0].size()));
  for (size_t i = 0; i < x[0].size(); ++i) {
    u[0][i] = x[0][i] - x[2][i];
    u[1][i] = std::log(x[1][i]);
    u[2][i] = std::log(x[2][i]);
    u[3][i] = x[3][i];
  }
  const double nn = static_cast<double>(u[0].size());
  double m[4];
  for (int a = 0; a < 4; ++a) {
    long double s = 0;
    for (double v : u[a]) s += v;
    m[a] = static_cast<double>(s / nn);
    EXPECT_NEAR(m[a], f.mean_u[a], 5 * f.sd_u(a) / std::sqrt(nn)) << f.names[a];
  }
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b <= a; ++b) {
      long double s = 0;
      for (size_t i = 0; i < u[a].size(); ++i) s += (u[a][i] - m[a]) * (u[b][i] - m[b]);
      const double c = static_cast<double>(s / (nn - 1)), want_c = static_cast<double>(f.cu[a][b]);
      EXPECT_NEAR(c, want_c,
                  5 * std::sqrt(static_cast<double>(f.cu[a][a] * f.cu[b][b]) + want_c * want_c) / std::sqrt(nn))
          << f.names[a] << ", " << f.names[b];
    }
}

// Asymmetric profile intervals: each internal coordinate's marginal is the
// split normal P(u <= t) = Phi((t - m) / s), s = (m - u(lo)) / z below the
// estimate and (u(hi) - m) / z above (Kolmogorov-Smirnov, 1e5 draws: the
// 0.1 % critical distance 1.95 / sqrt(n)); its 2.5 % and 97.5 % quantiles are
// the interval's ends; and the normal scores (u - m) / s have the
// correlation of the covariance in internal coordinates.
TEST(FitPriorIntervals, MarginalsAreTheIntervalsSplitNormalsCoupledByTheCorrelation) {
  const TranslationalFit f;
  const std::vector<Interval> ci{
      {24.0, 27.5, "profile"}, {0.08, 0.15, "profile"}, {19.5, 21.5, "profile"}, {90.0, 130.0, "profile"}};
  const auto p = workloads::read_fit_prior(f.file("asym", ci), f.m, "test", FitDraw::kProfileIntervals);
  const std::uint64_t n = 100000;
  const auto x = draw(p, n);
  std::vector<std::vector<double>> w(4, std::vector<double>(n));
  for (int a = 0; a < 4; ++a) {
    const double m = f.mean_u[a], s_lo = (m - f.u(a, ci[a].lo)) / kZ, s_hi = (f.u(a, ci[a].hi) - m) / kZ;
    std::vector<double> u(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      // F_brk's coordinate is its excess over the drawn F_C.
      u[i] = a == 0 ? x[0][i] - x[2][i] : f.u(a, x[a][i]);
      w[a][i] = (u[i] - m) / (u[i] < m ? s_lo : s_hi);
    }
    std::sort(u.begin(), u.end());
    double d = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const double cdf = normal_cdf((u[i] - m) / (u[i] < m ? s_lo : s_hi));
      d = std::max({d, std::abs(cdf - double(i) / n), std::abs(cdf - double(i + 1) / n)});
    }
    EXPECT_LT(d, 1.95 / std::sqrt(double(n))) << f.names[a];
    for (const double pr : {0.025, 0.975}) {
      // The order statistics around rank n p, three binomial standard deviations either side.
      const double h = 3 * std::sqrt(n * pr * (1 - pr));
      const double end = f.u(a, pr < 0.5 ? ci[a].lo : ci[a].hi);
      EXPECT_LE(u[static_cast<size_t>(n * pr - h)], end) << f.names[a] << " " << pr;
      EXPECT_GE(u[static_cast<size_t>(n * pr + h)], end) << f.names[a] << " " << pr;
    }
  }
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < a; ++b) {
      long double s = 0, saa = 0, sbb = 0;
      for (std::uint64_t i = 0; i < n; ++i) s += w[a][i] * w[b][i], saa += w[a][i] * w[a][i], sbb += w[b][i] * w[b][i];
      const double r = static_cast<double>(s / std::sqrt(saa * sbb));
      const double want = static_cast<double>(f.cu[a][b] / std::sqrt(f.cu[a][a] * f.cu[b][b]));
      EXPECT_NEAR(r, want, 5 * (1 - want * want) / std::sqrt(double(n)) + 1e-3) << f.names[a] << ", " << f.names[b];
    }
}

// An interval end on the parameter's bound holds the draws there: f_v at its
// bound 0 (profile [0, hi]) puts half of them on it and the rest on the upper
// half normal; F_brk whose profile reaches F_brk = F_C puts 2.5 % on the
// base and none below it (the covariance draw's would be invalid); a
// one-sided Wald interval (near the bound, clipped there) keeps the Wald
// scale and puts Phi(-value / se) on the bound.
TEST(FitPriorIntervals, AnIntervalEndOnABoundHoldsTheDrawsThere) {
  const ModelInfo& m = workloads::require_model("simscape-translational");
  const std::vector<std::string> names{"F_brk", "F_C", "f_v"};
  const std::vector<std::vector<double>> corr{{1.0, 0.5, 0.0}, {0.5, 1.0, -0.3}, {0.0, -0.3, 1.0}};
  const std::uint64_t n = 40000;
  auto fraction = [&](const std::vector<double>& v, double at) {
    return double(std::count(v.begin(), v.end(), at)) / double(v.size());
  };
  auto binomial_tol = [&](double pr) { return 5 * std::sqrt(pr * (1 - pr) / double(n)); };
  {
    const std::vector<double> x{20.5, 20.0, 0.0}, se{0.3, 0.2, 8.0};
    const std::string fit =
        with_intervals(fit_json(m.id, names, {"excess:F_C", "identity", "identity"}, x, se, corr, {}), names,
                       {{20.0, 21.7, "profile"}, {19.6, 20.4, "wald"}, {0.0, 20.0, "profile"}});
    const auto p = workloads::read_fit_prior(write_temp_file("bound.json", fit), m, "test", FitDraw::kProfileIntervals);
    const auto d = draw(p, n);
    std::vector<double> excess(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      excess[i] = d[0][i] - d[1][i];
      ASSERT_GE(d[0][i], d[1][i]) << i;  // F_brk >= F_C: every draw in the model's range
      ASSERT_GE(d[2][i], 0.0) << i;
    }
    EXPECT_NEAR(fraction(excess, 0.0), normal_cdf(-kZ), binomial_tol(0.025));
    EXPECT_NEAR(fraction(d[2], 0.0), 0.5, binomial_tol(0.5));
    std::vector<double> fv = d[2];
    std::sort(fv.begin(), fv.end());
    const double h = 3 * std::sqrt(n * 0.975 * 0.025);
    EXPECT_LE(fv[static_cast<size_t>(n * 0.975 - h)], 20.0);
    EXPECT_GE(fv[static_cast<size_t>(n * 0.975 + h)], 20.0);
  }
  {
    // f_v = 3 +/- 4: its Wald interval [-4.84, 10.84] clipped to [0, 10.84].
    const std::vector<double> x{20.5, 20.0, 3.0}, se{0.3, 0.2, 4.0};
    const std::string fit = with_intervals(
        fit_json(m.id, names, {"excess:F_C", "identity", "identity"}, x, se, corr, {}), names,
        {{20.5 - kZ * 0.3, 20.5 + kZ * 0.3, "wald"}, {19.6, 20.4, "wald"}, {0.0, 3.0 + kZ * 4.0, "one-sided"}});
    const auto p =
        workloads::read_fit_prior(write_temp_file("one_sided.json", fit), m, "test", FitDraw::kProfileIntervals);
    const auto d = draw(p, n);
    EXPECT_GE(*std::min_element(d[2].begin(), d[2].end()), 0.0);
    EXPECT_NEAR(fraction(d[2], 0.0), normal_cdf(-3.0 / 4.0), binomial_tol(0.23));
  }
}

TEST(FitPriorIntervals, RefusesWhatItCannotDraw) {
  const ModelInfo& m = workloads::require_model("simscape-translational");
  const std::vector<std::string> names{"v_brk", "f_v"};
  const std::string base =
      fit_json(m.id, names, {"log", "identity"}, {0.1, 50.0}, {0.01, 5.0}, {{1.0, 0.2}, {0.2, 1.0}}, {});
  auto message = [&](const std::string& text) {
    try {
      workloads::read_fit_prior(write_temp_file("bad_ci.json", text), m, "cfg.toml:3:1: from_fit",
                                FitDraw::kProfileIntervals);
    } catch (const data::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // A fit whose JSON has no intervals can still be drawn from its covariance.
  EXPECT_NO_THROW(workloads::read_fit_prior(write_temp_file("no_ci.json", base), m, "test"));
  EXPECT_EQ(message(base),
            "cfg.toml:3:1: from_fit \"" + test::temp_dir() +
                "bad_ci.json\": parameter v_brk has no 95 % interval (ci95 and interval, written by identify --json): "
                "fit again, or draw from the covariance (from_fit_draw = \"covariance\")");
  const Interval good{40.0, 62.0, "profile"};
  EXPECT_EQ(message(with_intervals(base, names, {{0.08, 0.13, "profile"}, good})), "no error");
  auto j = nlohmann::json::parse(with_intervals(base, names, {{0.08, 0.13, "profile"}, good}));
  j["parameters"]["v_brk"]["ci95"][1] = nullptr;  // a profile that never rose enough above
  EXPECT_NE(message(j.dump()).find("the profile interval of v_brk is unbounded above (the data do not bound it): fix "
                                   "it in the fit, or draw from the covariance"),
            std::string::npos)
      << message(j.dump());
  // identify writes 0 for a log parameter's lower end that never rose enough.
  EXPECT_NE(message(with_intervals(base, names, {{0.0, 0.13, "profile"}, good})).find("v_brk is unbounded below"),
            std::string::npos);
  EXPECT_NE(message(with_intervals(base, names, {{0.11, 0.13, "profile"}, good}))
                .find("the 95 % interval of v_brk does not contain its value"),
            std::string::npos);
  EXPECT_NE(message(with_intervals(base, names, {{0.08, 0.13, "likelihood"}, good}))
                .find("v_brk has an interval of unknown kind \"likelihood\""),
            std::string::npos);
  for (const auto& text : {base, j.dump()}) {
    const std::string msg = message(text);
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(FitPriorIntervals, DrawNames) {
  FitDraw d = FitDraw::kCovariance;
  EXPECT_TRUE(workloads::parse_fit_draw("profile-intervals", d));
  EXPECT_EQ(d, FitDraw::kProfileIntervals);
  EXPECT_STREQ(workloads::fit_draw_name(d), "profile-intervals");
  EXPECT_TRUE(workloads::parse_fit_draw("covariance", d));
  EXPECT_EQ(d, FitDraw::kCovariance);
  EXPECT_FALSE(workloads::parse_fit_draw("profile", d));
}

}  // namespace
}  // namespace stribeck
