// System simulations: integrator order, agreement with an independent
// reference, energy balance, exact sticking, metrics, status flags.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "stribeck/workloads/params.hpp"
#include "stribeck/kernels/systems/metrics.hpp"
#include "stribeck/kernels/systems/smooth_friction.hpp"
#include "stribeck/kernels/systems/stiction.hpp"

namespace stribeck {
namespace {

// The classic stick-slip rig of Canudas de Wit et al. (1995), section IV-D
// (m = 1 kg, drive at 0.1 m/s, friction against ground), with a spring of
// 20 N/m instead of 2 so a cycle takes ~1.2 s and tests stay short.
template <class T>
BodySystem<T> rig(T k = T(20), T v_d = T(0.1)) {
  BodySystem<T> b;
  b.mass = T(1);
  b.stiffness = k;
  b.drive_velocity = constant_profile(v_d);
  return b;
}

template <class T>
std::vector<T> lugre_params() {
  const auto d = workloads::require_model("lugre").defaults();
  return std::vector<T>(d.begin(), d.end());
}

struct Recorder {
  std::vector<BodySnapshot<double>> s;
  void operator()(const BodySnapshot<double>& x) { s.push_back(x); }
};

// Independent reference: the same rig written out by hand (mass, spring,
// LuGre) and integrated with fixed-step RK4 in long double at a step 100x
// below the bristle time constant.
struct LuGreRigRef {
  long double sigma0, sigma1, sigma2, fc, fs, vs, k, m, vd;
  void rhs(const long double* y, long double* dy) const {
    const long double s = y[0], v = y[1], z = y[2];
    const long double x = v / vs;
    const long double g = fc + (fs - fc) * std::exp(-x * x);
    const long double zd = v - sigma0 * std::fabs(v) * z / g;
    const long double f = sigma0 * z + sigma1 * zd + sigma2 * v;
    dy[0] = vd - v;
    dy[1] = (k * s - f) / m;
    dy[2] = zd;
  }
  void run(long double* y, long double t_end, long double h) const {
    const long n = std::lround(t_end / h);
    for (long i = 0; i < n; ++i) {
      long double k1[3], k2[3], k3[3], k4[3], w[3];
      rhs(y, k1);
      for (int j = 0; j < 3; ++j) w[j] = y[j] + h / 2 * k1[j];
      rhs(w, k2);
      for (int j = 0; j < 3; ++j) w[j] = y[j] + h / 2 * k2[j];
      rhs(w, k3);
      for (int j = 0; j < 3; ++j) w[j] = y[j] + h * k3[j];
      rhs(w, k4);
      for (int j = 0; j < 3; ++j) y[j] += h / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
    }
  }
};

TEST(Systems, LuGreRigAgreesWithIndependentReference) {
  const auto p = lugre_params<double>();
  const auto fc = LuGre::prepare(p.data());
  const BodySystem<double> b = rig<double>();
  SimOptions<double> o;
  o.t_end = 4.0;
  o.dt = 1e-3;
  Recorder rec;
  ASSERT_EQ(simulate_smooth<LuGre>(fc, b, o, rec), kSimOk);
  const LuGreRigRef ref{p[0], p[1], p[2], p[3], p[4], p[5], 20, 1, 0.1};
  long double y[3] = {0, 0, 0};
  long double t = 0;
  for (double t_check : {0.5, 1.0, 2.0, 3.0, 4.0}) {
    ref.run(y, t_check - t, 2e-6L);
    t = t_check;
    const auto& s = rec.s[std::lround(t_check / o.dt)];
    EXPECT_NEAR(s.x[kBodyS], double(y[0]), 1e-7) << t_check;
    EXPECT_NEAR(s.x[kBodyV], double(y[1]), 1e-6) << t_check;
    EXPECT_NEAR(s.x[kBodyZ] * p[0], double(y[2]) * p[0], 1e-6) << t_check;
  }
  // The rig does stick-slip: the velocity reaches ~0 and ~2 v_d.
  double vmax = 0;
  for (const auto& s : rec.s) vmax = std::max(vmax, s.x[kBodyV]);
  EXPECT_GT(vmax, 0.15);
}

TEST(Systems, Rk4IsFourthOrder) {
  const auto p = lugre_params<double>();
  const auto fc = LuGre::prepare(p.data());
  BodySystem<double> b = rig<double>();
  b.s0 = 0.6;  // sliding, smooth part of the trajectory
  b.v0 = 0.05;
  const SmoothBody<LuGre, double> sys{b, fc};
  auto f = [&](double t, const double* y, double* dy) { sys(t, y, dy); };
  auto run = [&](double h) {
    double x[kBodyN];
    body_initial_state(b, x);
    const long n = std::lround(0.02 / h);
    for (long i = 0; i < n; ++i) rk4_step<kBodyN>(f, i * h, x, h);
    return x[kBodyV];
  };
  const double ref = run(0.02 / 25600), e1 = std::fabs(run(4e-5) - ref), e2 = std::fabs(run(2e-5) - ref),
               e3 = std::fabs(run(1e-5) - ref);
  EXPECT_NEAR(std::log2(e1 / e2), 4.0, 0.3) << e1 << " " << e2;
  EXPECT_NEAR(std::log2(e2 / e3), 4.0, 0.3) << e2 << " " << e3;
}

TEST(Systems, AllFiniteFlagsInfinitiesAndNanOnly) {
  // Values whose sum overflows are still finite: the test multiplies each by
  // zero before summing.
  const double big[3] = {1.7e308, 1.7e308, -0.0};
  EXPECT_TRUE(all_finite(big));
  const float bigf[2] = {3.4e38f, 3.4e38f};
  EXPECT_TRUE(all_finite(bigf));
  for (double bad : {double(INFINITY), -double(INFINITY), double(NAN)}) {
    const double x[4] = {1.0, 2.0, bad, 3.0};
    EXPECT_FALSE(all_finite(x)) << bad;
    const float xf[2] = {static_cast<float>(bad), 0.0f};
    EXPECT_FALSE(all_finite(xf)) << bad;
  }
}

TEST(Systems, BristleStepperIsSecondOrder) {
  // One trace interval with linear velocity, sub-steps forced by v_res.
  const auto p = lugre_params<double>();
  const auto fc = LuGre::prepare(p.data());
  auto zss = [&](double v) { return LuGre::z_ss(fc, v); };
  auto run = [&](int n) {
    // n sub-steps: the interval crosses zero, so bristle_advance splits it
    // into steps of at most v_s/16 in velocity; pick v_s to get exactly n.
    return bristle_advance(2e-6, -2e-4, 4e-4, 4e-3, 16 * 6e-4 / n * 1.0000001, zss);
  };
  const double ref = run(256), e1 = std::fabs(run(4) - ref), e2 = std::fabs(run(8) - ref),
               e3 = std::fabs(run(16) - ref);
  EXPECT_NEAR(std::log2(e1 / e2), 2.0, 0.35) << e1 << " " << e2;
  EXPECT_NEAR(std::log2(e2 / e3), 2.0, 0.35) << e2 << " " << e3;
}

// Stiction form with Coulomb friction: the rig's stick-slip cycle is known in
// closed form. Stuck until k s = F_brk; then y = s - F_C/k oscillates at
// w = sqrt(k/m) from y0 = (F_brk-F_C)/k with dy/dt = v_d, until v = 0 again
// at y = -y0 after (pi + 2 phi)/w, phi = acos(y0/A), A = hypot(y0, v_d/w);
// then stuck for 2 y0 / v_d.
TEST(Systems, StictionRigMatchesClosedForm) {
  const double fc_ = 1.0, fbrk = 1.5, k = 2.0, vd = 0.1;
  const double par[] = {fc_, 0.0, 0.0};  // coulomb-viscous: F_C, f_v, v_eps = 0 (exact sign)
  const auto fc = CoulombViscous::prepare(par);
  const BodySystem<double> b = rig<double>(k, vd);
  SimOptions<double> o;
  o.t_end = 40.0;
  o.dt = 1e-3;
  Recorder rec;
  MetricsOptions<double> mo;
  MetricsAccumulator<double> acc(mo, o.t_end);
  auto both = [&](const BodySnapshot<double>& s) {
    rec(s);
    acc(s);
  };
  BodySnapshot<double> end;
  ASSERT_EQ(simulate_stiction<CoulombViscous>(fc, fbrk, b, o, both, nullptr, &end), kSimOk);
  const auto m = acc.finish(kSimOk, end);
  const double w = std::sqrt(k), y0 = (fbrk - fc_) / k, A = std::hypot(y0, vd / w);
  const double t_slip = (M_PI + 2 * std::acos(y0 / A)) / w, t_stick = 2 * y0 / vd;
  EXPECT_EQ(m.stick_slip, 1);
  // During the slip the spring force overshoots F_brk: y swings to +-A.
  EXPECT_NEAR(m.period, t_slip + t_stick, 1e-6);
  EXPECT_NEAR(m.amp_spring_force, k * A, 1e-6);
  EXPECT_NEAR(m.stick_fraction, t_stick / (t_slip + t_stick), 2 * o.dt / (t_slip + t_stick));
  EXPECT_NEAR(m.peak_velocity, vd + A * w, 1e-6);
  EXPECT_NEAR(m.breakaway_force, fbrk, 1e-9);
  // Exact sticking: every stuck snapshot has v == 0.0 exactly, and the first
  // breakaway happens at t = F_brk / (k v_d).
  long stuck = 0;
  for (const auto& s : rec.s)
    if (s.mode == kStuck) {
      ++stuck;
      ASSERT_EQ(s.x[kBodyV], 0.0) << s.t;
    }
  EXPECT_GT(stuck, 1000);
  for (const auto& s : rec.s)
    if (s.mode != kStuck) {
      EXPECT_NEAR(s.t, fbrk / (k * vd), 1e-3 + 1e-9);
      break;
    }
}

TEST(Systems, StictionIsFourthOrderThroughEvents) {
  const double par[] = {1.0, 0.3, 0.0};
  const auto fc = CoulombViscous::prepare(par);
  const BodySystem<double> b = rig<double>(2.0, 0.1);
  auto final_s = [&](double dt) {
    SimOptions<double> o;
    o.t_end = 12.0;  // two stick-slip cycles
    o.dt = dt;
    double s = 0;
    auto last = [&](const BodySnapshot<double>& x) { s = x.x[kBodyS]; };
    EXPECT_EQ(simulate_stiction<CoulombViscous>(fc, 1.5, b, o, last), kSimOk);
    return s;
  };
  const double ref = final_s(12.0 / 96000), e1 = std::fabs(final_s(0.1) - ref), e2 = std::fabs(final_s(0.05) - ref),
               e3 = std::fabs(final_s(0.025) - ref);
  EXPECT_NEAR(std::log2(e1 / e2), 4.0, 0.5) << e1 << " " << e2;
  EXPECT_NEAR(std::log2(e2 / e3), 4.0, 0.5) << e2 << " " << e3;
}

TEST(Systems, StictionHoldsBelowBreakawayUnderForceRamp) {
  // Force-driven body: F_ext ramps at 2 N/s; F_brk = 3 N. Stuck with v == 0
  // exactly until t = 1.5 s, then sliding.
  const double par[] = {20.0, 0.0, 0.3};  // simscape-translational: F_brk, v_brk, F_C, f_v
  const double ss[] = {2.5, 0.1, 2.0, 10.0};
  (void)par;
  const auto fc = SimscapeTranslational::prepare(ss);
  BodySystem<double> b;
  b.mass = 0.5;
  b.external_force.slope = 2.0;
  SimOptions<double> o;
  o.t_end = 2.0;
  o.dt = 1e-3;
  Recorder rec;
  ASSERT_EQ(simulate_stiction<SimscapeTranslational>(fc, 3.0, b, o, rec), kSimOk);
  for (const auto& s : rec.s) {
    if (s.t < 1.5 - 1e-9) {
      ASSERT_EQ(s.mode, kStuck) << s.t;
      ASSERT_EQ(s.x[kBodyV], 0.0) << s.t;
      ASSERT_NEAR(s.f_fric, 2.0 * s.t, 1e-12);
    } else if (s.t > 1.5 + 1e-9) {
      ASSERT_EQ(s.mode, kForward) << s.t;
      ASSERT_GT(s.x[kBodyV], 0.0) << s.t;
    }
  }
}

TEST(Systems, EnergyBalance) {
  // Work in = stored + dissipated, for LuGre (ground) and stiction (drive-relative).
  const auto p = lugre_params<double>();
  SimOptions<double> o;
  o.t_end = 6.0;
  o.dt = 1e-3;
  {
    BodySystem<double> b = rig<double>();
    b.damping = 0.3;
    b.external_force.amplitude = 0.2;
    b.external_force.frequency = 0.7;
    BodySnapshot<double> last{};
    auto keep = [&](const BodySnapshot<double>& s) { last = s; };
    ASSERT_EQ(simulate_smooth<LuGre>(LuGre::prepare(p.data()), b, o, keep), kSimOk);
    const double in = last.x[kBodyWDrive] + last.x[kBodyWExt];
    const double out = body_stored_energy(b, last.x) + last.x[kBodyWFric] + last.x[kBodyWDamp];
    EXPECT_GT(in, 0.5);
    EXPECT_NEAR(in, out, 1e-7 * in);  // RK4 error of the quadratures; a wrong term is O(1)
    EXPECT_GT(last.x[kBodyWFric], 0.0);
  }
  {
    BodySystem<double> b = rig<double>();
    b.friction_on_drive = true;
    b.drive_velocity.amplitude = 0.05;
    b.drive_velocity.frequency = 0.5;
    const double par[] = {1.0, 0.2, 0.0};
    BodySnapshot<double> last{};
    auto keep = [&](const BodySnapshot<double>& s) { last = s; };
    b.v0 = 0.3;  // start sliding relative to the drive
    ASSERT_EQ(simulate_stiction<CoulombViscous>(CoulombViscous::prepare(par), 1.4, b, o, keep), kSimOk);
    const double e0 = 0.5 * b.mass * b.v0 * b.v0;
    const double in = last.x[kBodyWDrive] + last.x[kBodyWExt] + e0;
    const double out = body_stored_energy(b, last.x) + last.x[kBodyWFric] + last.x[kBodyWDamp];
    EXPECT_NEAR(in, out, 1e-9 * std::fabs(in));
  }
}

TEST(Systems, FloatAgreesWithDouble) {
  auto metrics = [](auto zero) {
    using T = decltype(zero);
    const auto p = lugre_params<T>();
    SimOptions<T> o;
    o.t_end = T(20);
    o.dt = T(1e-3);
    MetricsAccumulator<T> acc(MetricsOptions<T>{}, o.t_end);
    BodySnapshot<T> end;
    const int st = simulate_smooth<LuGre>(LuGre::prepare(p.data()), rig<T>(), o, acc, nullptr, &end);
    return acc.finish(st, end);
  };
  const auto d = metrics(0.0);
  const auto f = metrics(0.0f);
  EXPECT_EQ(d.status, kSimOk);
  EXPECT_EQ(f.status, kSimOk);
  EXPECT_EQ(d.stick_slip, 1);
  EXPECT_EQ(f.stick_slip, 1);
  EXPECT_NEAR(f.period, d.period, 1e-3 * d.period);
  EXPECT_NEAR(f.amp_spring_force, d.amp_spring_force, 1e-3 * d.amp_spring_force);
  EXPECT_NEAR(f.peak_velocity, d.peak_velocity, 1e-3 * d.peak_velocity);
  EXPECT_NEAR(f.dissipated, d.dissipated, 1e-3 * d.dissipated);
}

TEST(Systems, HydraulicCylinderReachesForceBalance) {
  // Piston under constant chamber pressures against a load: it settles where
  // A_a p_a - A_b p_b - F_load equals the seal friction of the Simscape
  // Fluids cylinder law, F_C (1 + (K_brk-1) exp(-c_v v)) + f_vfr v with
  // F_C = F_pr + f_cfr (p_a + p_b); that velocity is found here by bisection.
  const double par[] = {50.0, 1e-4, 1.3, 2000.0, 10.0, 1e-4};  // F_pr f_cfr K_brk f_vfr c_v v_th
  BodySystem<double> b;
  b.mass = 10;
  b.area_a = 2e-3;
  b.area_b = 1e-3;
  b.pressure_a = constant_profile(1e6);
  b.pressure_b = constant_profile(1e6);
  b.external_force = constant_profile(-600.0);
  SimOptions<double> o;
  o.t_end = 0.5;
  o.dt = 1e-4;
  BodySnapshot<double> last{};
  auto keep = [&](const BodySnapshot<double>& s) { last = s; };
  ASSERT_EQ(simulate_smooth<SimscapeCylinder>(SimscapeCylinder::prepare(par), b, o, keep), kSimOk);
  const double drive = 2e-3 * 1e6 - 1e-3 * 1e6 - 600.0, fc = 50 + 1e-4 * 2e6;
  double lo = 1e-4, hi = 1.0;
  for (int i = 0; i < 200; ++i) {
    const double v = 0.5 * (lo + hi);
    (fc * (1 + 0.3 * std::exp(-10 * v)) + 2000 * v < drive ? lo : hi) = v;
  }
  EXPECT_NEAR(last.x[kBodyV], lo, 1e-9);
  EXPECT_NEAR(last.f_fric, drive, 1e-6);
}

TEST(Systems, EveryDynamicModelRunsTheRig) {
  SimOptions<double> o;
  o.t_end = 3.0;
  o.dt = 1e-3;
  for_each_model(DynamicModels{}, [&](auto tag) {
    using M = typename decltype(tag)::type;
    const auto p = workloads::require_model(M::kId).defaults();
    BodySystem<double> b = rig<double>();
    b.normal_force = constant_profile(10.0);  // 20sim-lugre: F_C = 1 N
    MetricsAccumulator<double> acc(MetricsOptions<double>{}, o.t_end);
    BodySnapshot<double> end;
    const int st = simulate_smooth<M>(M::prepare(p.data()), b, o, acc, nullptr, &end);
    const auto m = acc.finish(st, end);
    EXPECT_EQ(st, kSimOk) << M::kId;
    EXPECT_GT(m.dissipated, 0.0) << M::kId;
    EXPECT_GT(m.peak_velocity, 0.05) << M::kId;  // it moved: broke away
  });
}

TEST(Systems, DahlInTheRigSaturatesAtCoulomb) {
  // Steady sliding at the drive speed: the Dahl force settles at F_C for
  // alpha >= 1; alpha < 1 (non-Lipschitz at saturation) is refused.
  SimOptions<double> o;
  o.t_end = 5.0;
  o.dt = 1e-3;
  for (double alpha : {1.0, 2.0, 0.5}) {
    const double p[] = {1e5, 1.0, alpha};
    BodySnapshot<double> last{};
    auto keep = [&](const BodySnapshot<double>& s) { last = s; };
    BodySystem<double> b = rig<double>();
    b.damping = 5.0;  // damp the start-up oscillation
    const int st = simulate_smooth<Dahl>(Dahl::prepare(p), b, o, keep);
    if (alpha < 1) {
      EXPECT_EQ(st, kSimInvalid);
      continue;
    }
    ASSERT_EQ(st, kSimOk) << alpha;
    EXPECT_NEAR(last.x[kBodyZ], 1.0, alpha == 1.0 ? 1e-9 : 1e-3) << alpha;
    EXPECT_NEAR(last.x[kBodyV], 0.1, 1e-6) << alpha;
  }
}

// The drivers' `last` snapshot is where the run stopped: the snapshot the
// observer saw last when the run completes or hits the step limit (both
// drivers), and the non-finite state itself for kSimNonFinite.
TEST(Systems, LastSnapshotIsWhereTheRunStopped) {
  SimOptions<double> o;
  o.t_end = 2.0;
  o.dt = 1e-3;
  BodySnapshot<double> seen{}, end{};
  auto keep = [&](const BodySnapshot<double>& s) { seen = s; };
  auto same = [&](const char* what) {
    EXPECT_EQ(end.t, seen.t) << what;
    for (int i = 0; i < kBodyN; ++i) EXPECT_EQ(end.x[i], seen.x[i]) << what << " state " << i;
    EXPECT_EQ(end.f_fric, seen.f_fric) << what;
    EXPECT_EQ(end.mode, seen.mode) << what;
  };
  const auto p = lugre_params<double>();
  ASSERT_EQ(simulate_smooth<LuGre>(LuGre::prepare(p.data()), rig<double>(), o, keep, nullptr, &end), kSimOk);
  EXPECT_DOUBLE_EQ(end.t, 2.0);
  same("lugre, complete");
  const double cv[] = {1.0, 0.0, 0.0};
  ASSERT_EQ(simulate_stiction<CoulombViscous>(CoulombViscous::prepare(cv), 1.5, rig<double>(), o, keep, nullptr, &end),
            kSimOk);
  same("stiction, complete");
  ASSERT_EQ(simulate_smooth<CoulombViscous>(CoulombViscous::prepare(cv), rig<double>(), o, keep, nullptr, &end),
            kSimStepLimit);
  same("exact sign, step limit");
  BodySystem<double> b = rig<double>();
  b.external_force.offset = NAN;
  ASSERT_EQ(simulate_smooth<LuGre>(LuGre::prepare(p.data()), b, o, keep, nullptr, &end), kSimNonFinite);
  EXPECT_TRUE(std::isnan(end.x[kBodyV]));
  EXPECT_DOUBLE_EQ(end.t, o.dt);  // the first step failed
  EXPECT_DOUBLE_EQ(seen.t, 0.0);
}

TEST(Systems, StatusFlags) {
  SimOptions<double> o;
  o.t_end = 0.1;
  o.dt = 1e-3;
  auto ignore = [](const BodySnapshot<double>&) {};
  // An exact-sign law in the smooth integrator has an infinite slope at v = 0.
  const double cv[] = {1.0, 0.0, 0.0};
  EXPECT_EQ(simulate_smooth<CoulombViscous>(CoulombViscous::prepare(cv), rig<double>(), o, ignore), kSimStepLimit);
  // A non-finite input propagates and is flagged, not returned as numbers.
  BodySystem<double> b = rig<double>();
  b.external_force.offset = NAN;
  const double sm[] = {1.5, 0.01, 1.0, 0.4};
  EXPECT_EQ(simulate_smooth<SimscapeTranslational>(SimscapeTranslational::prepare(sm), b, o, ignore), kSimNonFinite);
  // Breakaway below the sliding force: the contact chatters.
  const double cv2[] = {2.0, 0.0, 0.0};
  BodySystem<double> push;
  push.external_force.offset = 1.5;
  EXPECT_EQ(simulate_stiction<CoulombViscous>(CoulombViscous::prepare(cv2), 1.0, push, o, ignore), kSimEventLimit);
}

}  // namespace
}  // namespace stribeck
