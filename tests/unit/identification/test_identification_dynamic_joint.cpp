// The joint stage of the dynamic fits (docs/identification.md, "Dynamic
// models"): LuGre, 20-sim LuGre and Dahl fitted by simulation error over
// every sample, on logs in the regimes that defeat the settled-sample rule
// of the two-stage start: high-amplitude short-period sines with non-uniform
// time stamps, reversal-dominated small strokes, presliding-dominated logs,
// and a quickly varying normal force (20-sim LuGre).
//
// Logs are generated here, independently of the fit's discretisation: the
// kernels' M::step in long double at 16 sub-steps per sample along the
// analytic velocity (and normal force) of each profile, from rest, plus
// seeded Gaussian noise. Goal (issue 23, item 6): the RMSE within 5 % of the
// noise standard deviation and the truth inside the reported 95 % intervals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/models/dahl.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/models/twentysim_lugre.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Profile {
  std::vector<double> t;              // time stamps (strictly increasing, t[0] = 0)
  std::function<double(double)> v;    // velocity, v(0) = 0 (the log starts at rest)
  std::function<double(double)> f_n;  // normal force (20-sim LuGre), or empty
};

template <class M>
data::Experiment make_log(const std::vector<double>& p, const Profile& prof, double noise, unsigned seed,
                          const std::string& name, double* noise_rms = nullptr) {
  std::vector<long double> q(p.begin(), p.end());
  const auto c = M::prepare(q.data());
  typename M::template State<long double> st{0.0L, 0.0L};
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> N(0, noise);
  data::Experiment e;
  e.name = name;
  e.source = "test";
  constexpr int kSub = 16;
  double ss = 0;
  for (size_t k = 0; k < prof.t.size(); ++k) {
    long double f = 0;
    if (k > 0) {
      const double t0 = prof.t[k - 1], dt = prof.t[k] - t0;
      for (int s = 1; s <= kSub; ++s) {
        const double ts = t0 + dt * s / kSub;
        const double fn = prof.f_n ? prof.f_n(ts) : 0.0;
        f = M::step(c, Sample<long double>{prof.v(ts), 0, 0, fn}, st, static_cast<long double>(dt) / kSub);
      }
    }
    e.channels["time"].push_back(prof.t[k]);
    e.channels["velocity"].push_back(prof.v(prof.t[k]));
    if (prof.f_n) e.channels["normal_force"].push_back(prof.f_n(prof.t[k]));
    const double r = N(rng);
    ss += r * r;
    e.channels["force"].push_back(static_cast<double>(f) + r);
  }
  if (noise_rms) *noise_rms = std::sqrt(ss / static_cast<double>(prof.t.size()));
  return e;
}

// n time stamps with mean step h, each step uniform in [(1-j) h, (1+j) h].
std::vector<double> jittered_times(int n, double h, double j, unsigned seed) {
  std::mt19937_64 rng(seed ^ 0x5eedu);
  std::uniform_real_distribution<double> U(1 - j, 1 + j);
  std::vector<double> t(n, 0.0);
  for (int k = 1; k < n; ++k) t[k] = t[k - 1] + h * U(rng);
  return t;
}

// Strokes: segment i moves the position by X_i (1 - cos(w_i tau)) over
// `cycles` periods (velocity X_i w_i sin(w_i tau), zero at both ends), so
// every half period is a reversal.
struct Strokes {
  std::vector<double> amp, freq;
  double cycles = 2;
  double duration() const {
    double d = 0;
    for (double f : freq) d += cycles / f;
    return d;
  }
  double operator()(double t) const {
    double start = 0;
    for (size_t i = 0; i < amp.size(); ++i) {
      const double len = cycles / freq[i];
      if (t < start + len || i + 1 == amp.size()) {
        const double w = 2 * kPi * freq[i], tau = std::min(t - start, len);
        return amp[i] * w * std::sin(w * tau);
      }
      start += len;
    }
    return 0.0;
  }
};

struct Case {
  std::string what, model;
  std::vector<double> truth;
  data::Experiment log;
  double noise;                         // standard deviation
  std::vector<std::string> determined;  // parameters that must get a finite interval
  double noise_rms = 0;                 // RMS of this log's noise
};

ident::FitSummary check_case(const Case& c, int& inside, int& checked, int starts = 1) {
  ident::FitOptions o;
  o.starts = starts;
  const ident::FitSummary s = ident::fit({c.log}, c.model, o);
  EXPECT_TRUE(s.converged) << c.what << "\n" << s.report();
  // RMSE at the noise floor: within 5 % of the noise (its RMS in this log;
  // with a few hundred samples the RMS itself scatters by a few % around
  // the standard deviation), and below the noise plus 5 % of it.
  EXPECT_NEAR(s.rmse, c.noise_rms, 0.05 * c.noise_rms) << c.what << "\n" << s.report();
  EXPECT_LT(s.rmse, 1.05 * c.noise_rms) << c.what;
  EXPECT_EQ(s.samples, static_cast<long>(c.log.size()));
  const ModelInfo& m = *find_model(c.model);
  for (const auto& info : m.params) {
    const std::string name = info.name;
    const auto& pe = s.param(name);
    const double t = c.truth[m.param_index(name)];
    const bool must = std::find(c.determined.begin(), c.determined.end(), name) != c.determined.end();
    if (must)
      EXPECT_TRUE(std::isfinite(pe.std_error) && pe.std_error > 0) << c.what << ": " << name << "\n" << s.report();
    if (!std::isfinite(pe.std_error)) continue;
    // Every parameter with an interval within 3.5 standard errors (a
    // 1-in-2000 event for a correct interval); the 95 % coverage is counted
    // over all cases by the caller.
    EXPECT_LT(std::abs(pe.value - t), 3.5 * pe.std_error)
        << c.what << ": " << name << " = " << pe.value << " +/- " << pe.std_error << ", true " << t << "\n"
        << s.report();
    ++checked;
    inside += pe.ci95_lo <= t && t <= pe.ci95_hi;
  }
  // The first note describes the samples actually fitted.
  EXPECT_NE(s.warnings.front().find("over all " + std::to_string(c.log.size()) + " samples"), std::string::npos)
      << s.warnings.front();
  return s;
}

// LuGre in the style of the public example log: a 100 N normal load,
// F_C = 20 N, F_s = 30 N, v_s = 0.2 m/s, sigma0 = 1e5 N/m, sigma1 = 300
// N s/m, sigma2 = 5 N s/m.
std::vector<double> lugre_truth() {
  std::vector<double> p(LuGre::kNumParams);
  p[LuGre::sigma0] = 1e5;
  p[LuGre::sigma1] = 300;
  p[LuGre::sigma2] = 5;
  p[LuGre::F_C] = 20;
  p[LuGre::F_s] = 30;
  p[LuGre::v_s] = 0.2;
  return p;
}

// The public-example regime: 433 samples, a +-1.5 m/s sine of
// period 1.25 s (4 periods... of which the Stribeck region is a few samples
// per reversal), time steps jittered +-40 %, noise 0.1 N.
Case lugre_fast_sine(unsigned seed) {
  Profile pr;
  pr.t = jittered_times(433, 0.0116, 0.4, seed);
  pr.v = [](double t) { return 1.5 * std::sin(2 * kPi * t / 1.25); };
  Case c{"lugre, +-1.5 m/s sine, 433 jittered samples", "lugre", lugre_truth(), {}, 0.1,
         {"sigma0", "sigma2", "F_C", "F_s", "v_s"}};
  c.log = make_log<LuGre>(c.truth, pr, c.noise, seed, "sine", &c.noise_rms);
  return c;
}

// The same bristle with a Stribeck velocity of 5 mm/s and sigma2 = 50 N s/m,
// for logs of slow strokes (up to ~50 mm/s) that span the Stribeck curve.
std::vector<double> lugre_slow_truth() {
  auto p = lugre_truth();
  p[LuGre::v_s] = 5e-3;
  p[LuGre::sigma2] = 50;
  return p;
}

// Reversal-dominated: strokes of 0.2 ... 5 mm (1 ... 25 bristle
// deflections z_ss = F_s/sigma0 = 0.3 mm) at 1 ... 4 Hz (peak speeds 5 ...
// 31 mm/s), so most samples are within a few relaxation lengths of a
// reversal.
Case lugre_small_strokes(unsigned seed) {
  Strokes st;
  st.amp = {0.2e-3, 0.5e-3, 1e-3, 2e-3, 5e-3, 0.3e-3, 3e-3};
  st.freq = {4, 3, 2, 1.5, 1, 3.5, 1.2};
  Profile pr;
  pr.t = jittered_times(static_cast<int>(st.duration() * 1000), 1e-3, 0.3, seed);
  pr.v = st;
  Case c{"lugre, small strokes",
         "lugre",
         lugre_slow_truth(),
         {},
         0.1,
         {"sigma0", "sigma1", "sigma2", "F_C", "F_s", "v_s"}};
  c.log = make_log<LuGre>(c.truth, pr, c.noise, seed, "strokes", &c.noise_rms);
  return c;
}

// Presliding-dominated: 80 % of the log oscillates inside the bristle
// deflection (amplitudes 0.05 ... 0.2 mm < z_ss), the rest a few slides.
Case lugre_presliding(unsigned seed) {
  Strokes st;
  st.amp = {0.05e-3, 0.1e-3, 0.2e-3, 4e-3, 0.08e-3, 0.15e-3, 0.12e-3, 10e-3, 0.06e-3, 0.2e-3};
  st.freq = {5, 4, 3, 1, 6, 2, 5, 0.8, 4, 3};
  st.cycles = 3;
  Profile pr;
  pr.t = jittered_times(static_cast<int>(st.duration() * 1000), 1e-3, 0.3, seed);
  pr.v = st;
  Case c{"lugre, presliding-dominated",
         "lugre",
         lugre_slow_truth(),
         {},
         0.1,
         {"sigma0", "sigma1", "sigma2", "F_C", "F_s", "v_s"}};
  c.log = make_log<LuGre>(c.truth, pr, c.noise, seed, "presliding", &c.noise_rms);
  return c;
}

// 20-sim LuGre: coefficients mu_c 0.2, mu_s 0.3, v_st 0.02 m/s, mu_v 0.05
// s/m, sigma0 1e3 1/m (z_ss = 0.3 mm), sigma1 3 s/m; the normal force swings
// 20 ... 180 N at 2.3 Hz, faster than the strokes, which cover presliding
// and sliding.
std::vector<double> twentysim_truth() {
  std::vector<double> p(TwentySimLuGre::kNumParams);
  p[TwentySimLuGre::mu_c] = 0.2;
  p[TwentySimLuGre::mu_s] = 0.3;
  p[TwentySimLuGre::mu_v] = 0.05;
  p[TwentySimLuGre::v_st] = 0.02;
  p[TwentySimLuGre::sigma0] = 1e3;
  p[TwentySimLuGre::sigma1] = 3;
  return p;
}
Case twentysim_varying_normal_force(unsigned seed) {
  Strokes st;
  st.amp = {0.1e-3, 0.5e-3, 2e-3, 8e-3, 0.2e-3, 20e-3, 1e-3};
  st.freq = {4, 3, 2, 1, 5, 0.7, 2.5};
  Profile pr;
  pr.t = jittered_times(static_cast<int>(st.duration() * 800), 1.25e-3, 0.3, seed);
  pr.v = st;
  pr.f_n = [](double t) { return 100.0 + 80.0 * std::sin(2 * kPi * 2.3 * t); };
  Case c{"20sim-lugre, normal force 20 ... 180 N at 2.3 Hz",  "20sim-lugre", twentysim_truth(), {}, 0.2,
         {"mu_c", "mu_s", "mu_v", "v_st", "sigma0", "sigma1"}};
  c.log = make_log<TwentySimLuGre>(c.truth, pr, c.noise, seed, "fn", &c.noise_rms);
  return c;
}

// Dahl, sigma0 2e4 N/m, F_C 10 N (relaxation length 0.5 mm), alpha as
// given: small strokes (0.1 ... 3 mm) and a fast +-0.2 m/s sine.
std::vector<double> dahl_truth(double alpha) { return {2e4, 10.0, alpha}; }
Case dahl_small_strokes(unsigned seed, double alpha) {
  Strokes st;
  st.amp = {0.1e-3, 0.3e-3, 1e-3, 3e-3, 0.2e-3, 0.6e-3};
  st.freq = {4, 3, 2, 1, 5, 2.5};
  Profile pr;
  pr.t = jittered_times(static_cast<int>(st.duration() * 1000), 1e-3, 0.3, seed);
  pr.v = st;
  Case c{"dahl alpha " + std::to_string(alpha) + ", small strokes",
         "dahl",
         dahl_truth(alpha),
         {},
         0.05,
         {"sigma0", "F_C", "alpha"}};
  c.log = make_log<Dahl>(c.truth, pr, c.noise, seed, "strokes", &c.noise_rms);
  return c;
}

TEST(DynamicJointFit, LuGreFastSineWithJitteredTimeReachesTheNoiseFloor) {
  int inside = 0, checked = 0;
  const Case c = lugre_fast_sine(101);
  const ident::FitSummary s = check_case(c, inside, checked);
  // Cross-stage correlations are known now (the joint problem's).
  for (const auto& row : s.correlation)
    for (double r : row) EXPECT_TRUE(std::isfinite(r)) << s.report();
  EXPECT_GE(inside, checked - 1) << s.report();
}

TEST(DynamicJointFit, LuGreReversalsAndPreslidingReachTheNoiseFloor) {
  int inside = 0, checked = 0;
  check_case(lugre_small_strokes(102), inside, checked);
  check_case(lugre_presliding(103), inside, checked);
  EXPECT_GE(inside, checked - 2);
}

TEST(DynamicJointFit, TwentySimLuGreUnderAQuicklyVaryingNormalForce) {
  int inside = 0, checked = 0;
  check_case(twentysim_varying_normal_force(104), inside, checked);
  EXPECT_GE(inside, checked - 1);
}

TEST(DynamicJointFit, DahlSmallStrokesForSeveralExponents) {
  int inside = 0, checked = 0;
  for (double alpha : {0.7, 1.5, 2.5}) check_case(dahl_small_strokes(105, alpha), inside, checked);
  EXPECT_GE(inside, checked - 1);
}

// --starts works for dynamic models: N starts run, the summary counts those
// that reached the best cost, and the best is no worse than one start's.
TEST(DynamicJointFit, StartsRunAndAreCounted) {
  const Case c = lugre_fast_sine(107);
  ident::FitOptions o1, o6, oauto;
  o1.starts = 1;
  o6.starts = 6;
  const ident::FitSummary s1 = ident::fit({c.log}, "lugre", o1);
  const ident::FitSummary s6 = ident::fit({c.log}, "lugre", o6);
  EXPECT_EQ(s1.starts, 1);
  EXPECT_EQ(s6.starts, 6) << s6.report();
  EXPECT_LE(s6.cost, s1.cost * (1 + 1e-9));
  EXPECT_NE(s6.warnings.front().find("6 start(s), "), std::string::npos) << s6.warnings.front();
  EXPECT_NE(s6.report().find("6 start(s)"), std::string::npos);
  EXPECT_NE(s6.warnings.front().find("reaching the best cost"), std::string::npos) << s6.warnings.front();
  // The default (--starts 0, automatic) runs rounds of four starts of the
  // joint stage until the best two agree.
  const ident::FitSummary sa = ident::fit({c.log}, "lugre", oauto);
  EXPECT_EQ(sa.starts % 4, 0) << sa.report();
  EXPECT_GE(sa.starts_at_best, 2) << sa.report();
  EXPECT_LE(sa.cost, s1.cost * (1 + 1e-9));
  // Fewer than zero starts is bad input, as for static models.
  ident::FitOptions oneg;
  oneg.starts = -1;
  try {
    ident::fit({c.log}, "lugre", oneg);
    FAIL() << "expected InputError";
  } catch (const data::InputError& err) {
    EXPECT_EQ(std::string(err.what()), "--starts must be >= 0 (0 = automatic)");
  }
}

// Held parameters stay held in the joint stage; an offset is fitted with the
// rest; a parameter the log cannot determine is reported as such.
TEST(DynamicJointFit, FixedParametersOffsetAndUndeterminedParameter) {
  Case c = lugre_small_strokes(108);
  for (double& f : c.log.channels["force"]) f += 1.5;  // a load-cell offset
  ident::FitOptions o;
  o.offset = true;
  o.fix = {"sigma1=300"};
  const ident::FitSummary s = ident::fit({c.log}, "lugre", o);
  ASSERT_TRUE(s.converged) << s.report();
  EXPECT_EQ(s.param("sigma1").value, 300.0);
  EXPECT_TRUE(s.param("sigma1").fixed);
  const auto& off = s.param("offset");
  EXPECT_LT(std::abs(off.value - 1.5), 3.5 * off.std_error) << s.report();
  EXPECT_NEAR(s.rmse, c.noise_rms, 0.05 * c.noise_rms) << s.report();
  EXPECT_EQ(s.free_parameters, 6);

  // Dahl along a log that never reverses after the start: the force reaches
  // F_C and stays, so sigma0 and alpha act only on the first millimetres;
  // with the strokes cut to presliding amplitudes far below the
  // relaxation length F_C/sigma0, F_C and alpha cannot be told apart from
  // sigma0 alone... the fit must say which it cannot determine.
  Strokes tiny;
  tiny.amp = {2e-6, 3e-6};
  tiny.freq = {4, 3};
  Profile pr;
  pr.t = jittered_times(static_cast<int>(tiny.duration() * 1000), 1e-3, 0.2, 109);
  pr.v = tiny;
  const data::Experiment d = make_log<Dahl>(dahl_truth(1.5), pr, 0.002, 109, "tiny");
  const ident::FitSummary sd = ident::fit({d}, "dahl", ident::FitOptions{});
  EXPECT_FALSE(sd.converged && std::isfinite(sd.param("alpha").std_error) &&
               sd.param("alpha").std_error < 0.5 * sd.param("alpha").value)
      << "alpha cannot be determined from strokes of 0.4 % of the relaxation length\n"
      << sd.report();
  bool said = false;
  for (const auto& w : sd.warnings) said |= w.find("alpha") != std::string::npos;
  EXPECT_TRUE(said) << sd.report();
}

}  // namespace
}  // namespace stribeck

namespace stribeck {
namespace {

// Not run by ctest (a measurement, ~1 minute): the coverage of the 95 %
// intervals and the RMSE over SEEDS seeds per regime (docs/identification.md).
//   build/tests/stribeck_tests --gtest_also_run_disabled_tests \
//     --gtest_filter='DynamicJointFit.DISABLED_CoverageOverSeeds'
TEST(DynamicJointFit, DISABLED_CoverageOverSeeds) {
  const int seeds = std::getenv("SEEDS") ? std::atoi(std::getenv("SEEDS")) : 10;
  int inside = 0, checked = 0, fits = 0, at_floor = 0;
  for (int k = 0; k < seeds; ++k) {
    const unsigned s = 1000 + k;
    for (const Case& c : {lugre_fast_sine(s), lugre_small_strokes(s), lugre_presliding(s),
                          twentysim_varying_normal_force(s), dahl_small_strokes(s, 0.7), dahl_small_strokes(s, 2.5)}) {
      const ident::FitSummary r = check_case(c, inside, checked);
      ++fits;
      at_floor += std::abs(r.rmse - c.noise_rms) <= 0.05 * c.noise_rms;
    }
  }
  std::printf("%d fits: %d with RMSE within 5 %% of the noise; truth inside the 95 %% interval %d of %d (%.1f %%)\n",
              fits, at_floor, inside, checked, 100.0 * inside / checked);
}

}  // namespace
}  // namespace stribeck

namespace stribeck {
namespace {

// A robot joint in the style of issue 31's real log: a torque sensor with
// an offset of -0.22, a wide Stribeck curve (v_s 0.4, F_s 0.3 against F_C
// 0.14) over speeds up to 0.4, a soft bristle (z_ss = F_s/sigma0 = 3 cm:
// long presliding hysteresis at each reversal) and slow sines of varying
// amplitude, jittered time stamps. Few samples settle, and the
// steady-state stage on every moving sample takes the hysteresis for the
// Stribeck drop: the two-stage start lands in the basin of a local optimum
// of the simulation error (v_s far below the log's speeds, F_C about twice
// the truth), about 18 % above the noise.
Case lugre_joint(unsigned seed, int samples) {
  std::vector<double> p(LuGre::kNumParams);
  p[LuGre::sigma0] = 10;
  p[LuGre::sigma1] = 1.0;
  p[LuGre::sigma2] = 0.05;
  p[LuGre::F_C] = 0.14;
  p[LuGre::F_s] = 0.3;
  p[LuGre::v_s] = 0.4;
  Profile pr;
  pr.t = jittered_times(samples, 24.0 / samples, 0.3, seed);
  // Sines of period 3 s whose amplitude swings 0.045 ... 0.4 over 7.3 s.
  pr.v = [](double t) { return 0.3 * (0.75 + 0.6 * std::sin(2 * kPi * t / 7.3)) * std::sin(2 * kPi * t / 3.0); };
  Case c{"lugre, robot joint with offset and presliding hysteresis", "lugre", p, {}, 0.03, {}};
  c.log = make_log<LuGre>(c.truth, pr, c.noise, seed, "joint", &c.noise_rms);
  for (double& f : c.log.channels["force"]) f -= 0.22;
  return c;
}

// Issue 31: the default fit reaches the true optimum (the noise floor of the
// generated log: no fit of the true model can do better than its noise, to
// the few parameters' share) from a two-stage start in another basin; the
// search ran until its best two refinements agreed; the fit's phases are
// timed as the static fits' are.
TEST(DynamicJointFit, JointLogOptimumFarFromTheTwoStageStart) {
  const Case c = lugre_joint(111, 6000);
  ident::FitOptions o1;
  o1.offset = true;
  o1.starts = 1;  // the two-stage start alone
  const ident::FitSummary s1 = ident::fit({c.log}, "lugre", o1);
  ASSERT_GT(s1.rmse, 1.1 * c.noise_rms) << "the case must start in another basin\n" << s1.report();

  ident::FitOptions o;
  o.offset = true;
  const ident::FitSummary s = ident::fit({c.log}, "lugre", o);
  EXPECT_LE(s.rmse, 1.02 * c.noise_rms) << s.report();
  for (const char* name : {"F_C", "F_s", "v_s", "sigma0"}) {
    const auto& pe = s.param(name);
    const double t = c.truth[find_model("lugre")->param_index(name)];
    EXPECT_LT(std::abs(pe.value - t), 4 * pe.std_error) << name << "\n" << s.report();
  }
  EXPECT_NEAR(s.param("offset").value, -0.22, 0.01) << s.report();
  EXPECT_GE(s.starts_at_best, 2) << s.report();
  EXPECT_NE(s.warnings.front().find(", the best two agreeing"), std::string::npos) << s.warnings.front();
  for (const auto& w : s.warnings) EXPECT_EQ(w.find("did not settle"), std::string::npos) << w;
  std::vector<std::string> phases;
  for (const auto& [name, secs] : s.phase_seconds) phases.push_back(name);
  for (const char* name :
       {"start", "steady-state stage", "dynamic stage", "joint stage", "quality", "covariance", "intervals"})
    EXPECT_NE(std::find(phases.begin(), phases.end(), name), phases.end()) << name;
  EXPECT_TRUE(std::isfinite(s.noise_estimate) && s.noise_estimate > 0) << s.report();
}

// A budget too small for two refinements to agree: the fit says the search
// did not settle, in the text and the JSON.
TEST(DynamicJointFit, JointSearchOnTooSmallABudgetDidNotSettle) {
  const Case c = lugre_joint(112, 3000);
  ident::FitOptions o;
  o.offset = true;
  o.max_starts = 1;
  const ident::FitSummary s = ident::fit({c.log}, "lugre", o);
  EXPECT_EQ(s.starts, 1);
  bool said = false;
  for (const auto& w : s.warnings)
    said |= w.rfind("the search did not settle: 1 joint-stage start(s) in 1 round(s)", 0) == 0 &&
            w.find("one refinement cannot agree with another") != std::string::npos;
  EXPECT_TRUE(said) << s.report();
  EXPECT_NE(ident::to_json(s).find("the search did not settle"), std::string::npos);
  EXPECT_NE(s.report().find("the search did not settle"), std::string::npos);
}

}  // namespace
}  // namespace stribeck
