// Properties the written equations imply, checked on the model code: odd
// symmetry in v, continuity of the hydraulic law at v_th, K_brk = 1 / R_brk = 1
// leaving the plain Coulomb + viscous law, the Simscape breakaway peak where
// the equation puts it, float versus double, and ceres::Jet derivatives versus
// finite differences.
#include <ceres/jet.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "model_specs.hpp"
#include "stribeck/kernels/stepping.hpp"

namespace stribeck::test {
namespace {

// Every odd static law (stribeck-asymmetric is odd only with equal sets:
// test_new_laws.cpp).
using AllStatic = ::testing::Types<SimscapeTranslational, SimscapeRotational, SimscapeCylinder, SimscapeCylinderIL,
                                   TwentySimC, TwentySimV, TwentySimCV, TwentySimSCVS, CoulombViscous, StribeckDelta>;
struct ModelName {
  template <class M>
  static std::string GetName(int) {
    return M::kId;
  }
};
template <class M>
class ModelProperties : public ::testing::Test {};
TYPED_TEST_SUITE(ModelProperties, AllStatic, ModelName);

template <class T>
Sample<T> with_v(const Sample<double>& s, double v) {
  return Sample<T>{T(v), T(s.p_a), T(s.p_b), T(s.f_n)};
}

// ---------------------------------------------------------------- symmetry
// Every law is odd in v with the other inputs fixed. In IEEE arithmetic each
// operation the laws use is exactly odd (negation is exact, v*v and |v| are
// even, glibc's tanh is odd), so F(-v) must equal -F(v) bit for bit.
TYPED_TEST(ModelProperties, OddInVelocity) {
  using M = TypeParam;
  Rng rng(201);
  long n = 0;
  for (int set = 0; set < 100; ++set) {
    const std::vector<double> p = Spec<M>::params(rng);
    std::vector<float> pf(p.begin(), p.end());
    for (double v : velocities(rng, Spec<M>::thresholds(p), 8)) {
      const Sample<double> s = Spec<M>::inputs(rng, v);
      const double fp = static_force<M>(p.data(), with_v<double>(s, v));
      const double fm = static_force<M>(p.data(), with_v<double>(s, -v));
      ASSERT_EQ(fm, -fp) << M::kId << " v=" << v;
      const float gp = static_force<M>(pf.data(), with_v<float>(s, v));
      const float gm = static_force<M>(pf.data(), with_v<float>(s, -v));
      ASSERT_EQ(gm, -gp) << M::kId << " (float) v=" << v;
      ++n;
    }
  }
  EXPECT_GT(n, 1000);
}

// ------------------------------------------------ hydraulic law at v = v_th
// F is continuous at |v| = v_th: the linear zone ends (v = v_th, K v) where
// the outer law starts (one ulp above v_th). A jump of the breakaway size
// would be (K_brk-1) F_C; we require agreement to 1e-13 of the force scale,
// the outer law's own slope over one ulp being ~1e-16 relative.
TEST(ModelProperties, CylinderContinuousAtThreshold) {
  using M = SimscapeCylinder;
  Rng rng(202);
  for (int set = 0; set < 300; ++set) {
    const std::vector<double> p = Spec<M>::params(rng);
    const double v_th = p[M::v_th];
    const Sample<double> s = Spec<M>::inputs(rng, v_th);
    for (double sign : {1.0, -1.0}) {
      const double left = static_force<M>(p.data(), with_v<double>(s, sign * v_th));
      const double right = static_force<M>(p.data(), with_v<double>(s, sign * std::nextafter(v_th, 1.0)));
      const double scale = Spec<M>::gold(p, with_v<double>(s, sign * v_th)).scale;
      ASSERT_LE(std::abs(right - left), 1e-13 * scale)
          << "jump at v_th=" << v_th << " K_brk=" << p[M::K_brk] << ": " << left << " vs " << right;
      // Inside the zone the law is linear through 0: F(v_th/2) = F(v_th)/2.
      const double half = static_force<M>(p.data(), with_v<double>(s, sign * v_th / 2));
      ASSERT_NEAR(half, left / 2, 1e-14 * scale);
    }
  }
}

// ------------------------------------------------ no Stribeck term at 1
// K_brk = 1 makes the hydraulic law exactly F_C sign(v) + f_vfr v outside the
// linear zone: the (K_brk-1) term is an exact zero, so the results must be
// identical to coulomb-viscous with F_C = F_pr + f_cfr (p_A + p_B).
TEST(ModelProperties, CylinderKbrkOneIsCoulombViscous) {
  using M = SimscapeCylinder;
  Rng rng(203);
  for (int set = 0; set < 200; ++set) {
    std::vector<double> p = Spec<M>::params(rng);
    p[M::K_brk] = 1.0;
    for (double v : velocities(rng, Spec<M>::thresholds(p), 8)) {
      if (std::abs(v) <= p[M::v_th]) continue;
      const Sample<double> s = Spec<M>::inputs(rng, v);
      const double f_c = p[M::F_pr] + p[M::f_cfr] * (s.p_a + s.p_b);
      const double cv[] = {f_c, p[M::f_vfr], 0.0};
      ASSERT_EQ(static_force<M>(p.data(), s), static_force<CoulombViscous>(cv, s)) << "v=" << v;
    }
  }
}

// R_brk = 1 (IL) and F_brk = F_C (translational) leave F_C tanh(v/v_coul) +
// f_v v: the same value as coulomb-viscous with v_eps = v_brk/10, up to the
// rounding of v/v_eps versus v*(10/v_brk) (tanh's condition number is <= 1).
TEST(ModelProperties, RbrkOneAndFbrkEqualFcAreCoulombViscous) {
  Rng rng(204);
  for (int set = 0; set < 200; ++set) {
    std::vector<double> il = Spec<SimscapeCylinderIL>::params(rng);
    il[SimscapeCylinderIL::R_brk] = 1.0;
    const double v_brk = il[SimscapeCylinderIL::v_brk];
    for (double v : velocities(rng, Spec<SimscapeCylinderIL>::thresholds(il), 8)) {
      const Sample<double> s = Spec<SimscapeCylinderIL>::inputs(rng, v);
      const double f_c = il[SimscapeCylinderIL::F_pr] + il[SimscapeCylinderIL::f_cfr] * (s.p_a + s.p_b);
      const double cv[] = {f_c, il[SimscapeCylinderIL::f_v], v_brk / 10};
      const double expect = static_force<CoulombViscous>(cv, s);
      const double scale = std::abs(f_c) + std::abs(il[SimscapeCylinderIL::f_v] * v);
      ASSERT_NEAR(static_force<SimscapeCylinderIL>(il.data(), s), expect, 4e-16 * 4 * scale) << v;
      // The same F_C through simscape-translational with F_brk = F_C.
      if (f_c < 0) continue;
      const double tr[] = {f_c, v_brk, f_c, il[SimscapeCylinderIL::f_v]};
      ASSERT_EQ(static_force<SimscapeTranslational>(tr, s), static_force<SimscapeCylinderIL>(il.data(), s)) << v;
    }
  }
}

// ------------------------------------------------ Simscape breakaway peak
// What the written equation implies. With x = v/v_st, v_st = sqrt(2) v_brk:
//   F - f_v v = sqrt(2e) dF x exp(-x^2) + F_C tanh(10 v/v_brk),  dF = F_brk - F_C.
// The Stribeck term alone peaks where d/dx (x e^{-x^2}) = 0, x = 1/sqrt2, i.e.
// at v = v_st/sqrt2 = v_brk, with value sqrt(2e) dF e^{-1/2}/sqrt2 = dF. So
// F(v_brk) - f_v v_brk = F_brk - F_C (1 - tanh 10) = F_brk - 4.1e-9 F_C.
// The Coulomb term still rises there (slope 10 F_C sech^2(10)/v_brk) while
// the Stribeck term's curvature is -2 dF/v_brk^2, so the maximum of F - f_v v
// sits at v* = v_brk (1 + 5 sech^2(10) F_C/dF) = v_brk (1 + 4.1e-8 F_C/dF),
// to first order. We find v* as the zero of the Jet derivative (f_v = 0, so F
// itself is F - f_v v) by bisection, and check both statements.
template <class M>
void check_simscape_peak(const std::vector<double>& p, const Sample<double>& s, double f_c, double f_brk,
                         double v_brk) {
  using J = ceres::Jet<double, 1>;
  std::vector<J> pj(p.begin(), p.end());
  auto slope = [&](double v) {
    const Sample<J> sj{J(v, 0), J(s.p_a), J(s.p_b), J(s.f_n)};
    return static_force<M>(pj.data(), sj).v[0];
  };
  double lo = 0.5 * v_brk, hi = 2 * v_brk;
  ASSERT_GT(slope(lo), 0);
  ASSERT_LT(slope(hi), 0);
  for (int i = 0; i < 200 && std::nextafter(lo, hi) < hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (slope(mid) > 0 ? lo : hi) = mid;
  }
  const double sech2 = 1.0 / (std::cosh(10.0) * std::cosh(10.0));
  const double predicted_shift = 5 * sech2 * f_c / (f_brk - f_c);
  // Second-order terms are (shift)^2-small; bisection resolves v* to ~1e-15
  // relative (the derivative's rounding over its -2 dF/v_brk^2 slope).
  EXPECT_NEAR(lo / v_brk - 1, predicted_shift, 1e-3 * predicted_shift + 1e-12)
      << M::kId << " F_brk=" << f_brk << " F_C=" << f_c << " v_brk=" << v_brk;
  const double at_v_brk = static_force<M>(p.data(), with_v<double>(s, v_brk));
  EXPECT_NEAR(at_v_brk, f_brk - f_c * (1 - std::tanh(10.0)), 1e-13 * f_brk) << M::kId;
  const double peak = static_force<M>(p.data(), with_v<double>(s, lo));
  EXPECT_GE(peak, at_v_brk - 1e-13 * f_brk);
  EXPECT_NEAR(peak, f_brk, 5e-9 * f_c + 1e-13 * f_brk);
}

TEST(ModelProperties, SimscapeBreakawayPeakAtVbrk) {
  Rng rng(205);
  for (int set = 0; set < 100; ++set) {
    const double f_c = loguniform(rng, 1e-2, 1e4);
    const double f_brk = f_c * (1 + loguniform(rng, 1e-2, 10));
    const double v_brk = loguniform(rng, 1e-5, 10);
    check_simscape_peak<SimscapeTranslational>({f_brk, v_brk, f_c, 0.0}, {0, 0, 0, 0}, f_c, f_brk, v_brk);
    check_simscape_peak<SimscapeRotational>({f_brk, v_brk, f_c, 0.0}, {0, 0, 0, 0}, f_c, f_brk, v_brk);
    // IL: F_C from preload and pressures, F_brk = R_brk F_C.
    const double r_brk = 1 + loguniform(rng, 1e-2, 10);
    const std::vector<double> il{loguniform(rng, 1, 1e4), loguniform(rng, 1e-9, 1e-5), r_brk, v_brk, 0.0};
    const Sample<double> s{0, uniform(rng, 0, 4e7), uniform(rng, 0, 4e7), 0};
    const double il_fc = il[0] + il[1] * (s.p_a + s.p_b);
    check_simscape_peak<SimscapeCylinderIL>(il, s, il_fc, r_brk * il_fc, v_brk);
  }
}

// The hydraulic law's breakaway sits at the edge of the linear zone instead:
// F - f_vfr v reaches F_C (1 + (K_brk-1) exp(-c_v v_th)) at v = v_th and
// decreases monotonically towards F_C beyond it.
TEST(ModelProperties, CylinderBreakawayAtThreshold) {
  using M = SimscapeCylinder;
  Rng rng(206);
  for (int set = 0; set < 100; ++set) {
    std::vector<double> p = Spec<M>::params(rng);
    p[M::f_vfr] = 0;
    p[M::c_v] = loguniform(rng, 1e-2, 1e4);
    const Sample<double> s{0, uniform(rng, 0, 4e7), uniform(rng, 0, 4e7), 0};
    const double f_c = p[M::F_pr] + p[M::f_cfr] * (s.p_a + s.p_b);
    const double v_th = p[M::v_th];
    const double brk = f_c * (1 + (p[M::K_brk] - 1) * std::exp(-p[M::c_v] * v_th));
    EXPECT_NEAR(static_force<M>(p.data(), with_v<double>(s, v_th)), brk, 1e-14 * brk);
    double prev = brk;
    for (double v = v_th * 1.01; v < 50 / p[M::c_v] + 2 * v_th; v *= 1.05) {
      const double f = static_force<M>(p.data(), with_v<double>(s, v));
      ASSERT_LE(f, prev * (1 + 1e-15)) << "not decreasing at v=" << v;
      ASSERT_GE(f, f_c * (1 - 1e-15));
      prev = f;
    }
  }
}

// 20-sim SCVS: mu = mu_c (1-e) + mu_s |tanh(slope v)| e with e = exp(-(v/v_st)^2)
// is a convex combination of mu_c and mu_s |tanh| <= mu_s, so the friction
// coefficient stays within [0, mu_s] (the static coefficient is the ceiling).
TEST(ModelProperties, TwentySimScvsBoundedByStaticCoefficient) {
  using M = TwentySimSCVS;
  Rng rng(207);
  for (int set = 0; set < 100; ++set) {
    std::vector<double> p = Spec<M>::params(rng);
    p[M::mu_v] = 0;
    for (double v : velocities(rng, Spec<M>::thresholds(p), 16)) {
      const double f = static_force<M>(p.data(), Sample<double>{std::abs(v), 0, 0, 1.0});
      ASSERT_GE(f, 0.0);
      ASSERT_LE(f, p[M::mu_s] * (1 + 1e-15));
    }
  }
}

// ------------------------------------------------------ float vs double
// The float instantiation has no double arithmetic (constants are T(...)), so
// its error is float rounding of inputs and operations. Measured worst error,
// relative to the condition-weighted scale of model_specs.hpp, over these
// samples: 4.0e-7 (about 7 float ulps, u = 6e-8); the bound below is 4e-6 (see
// docs/models.md, "FP32 accuracy"). Inputs whose magnitude is below 1e-30
// are left out: they underflow to zero in float, where sign(v) laws jump.
constexpr double kFloatTol = 4e-6;

TYPED_TEST(ModelProperties, FloatAgreesWithDouble) {
  using M = TypeParam;
  Rng rng(208);
  double worst = 0;
  for (int set = 0; set < 200; ++set) {
    const std::vector<double> p = Spec<M>::params(rng);
    const std::vector<float> pf(p.begin(), p.end());
    for (double v : velocities(rng, Spec<M>::thresholds(p), 16)) {
      if (v != 0 && std::abs(v) < 1e-30) continue;
      const Sample<double> s = Spec<M>::inputs(rng, v);
      const double fd = static_force<M>(p.data(), s);
      const float ff = static_force<M>(pf.data(), with_v<float>(s, v));
      const double scale = static_cast<double>(Spec<M>::gold(p, s).scale);
      const double err = std::abs(static_cast<double>(ff) - fd);
      if (scale > 1e-30) worst = std::max(worst, err / scale);
      ASSERT_LE(err, kFloatTol * scale + 1e-30) << M::kId << " v=" << v << ": " << ff << " vs " << fd;
    }
  }
  std::printf("[ float    ] %-24s worst |F_float - F_double|/scale = %.2e\n", M::kId, worst);
}

// ------------------------------------------------------ Jet derivatives
// d/dv and d/dparam of every model through ceres::Jet, against Richardson-
// extrapolated central differences of the same model instantiated in long
// double (steps 1e-4 and 5e-5 relative: truncation ~1e-16, rounding ~1e-15).
// Points within 0.2 % of a threshold are skipped (the laws have kinks at
// v_th and at v = 0), as are derivatives at a parameter that sits on its
// range boundary 0 (v_eps = 0 switches coulomb-viscous to exact sign).
// Tolerance 1e-10 of |dF/dx| + scale/|x|, the natural unit of a sensitivity
// (worst seen: 3e-15 of it).
TYPED_TEST(ModelProperties, JetDerivativesMatchFiniteDifferences) {
  using M = TypeParam;
  constexpr int P = M::kNumParams;
  using J = ceres::Jet<double, P + 1>;
  Rng rng(209);
  long checked = 0;
  double worst = 0;
  for (int set = 0; set < 60; ++set) {
    const std::vector<double> p = Spec<M>::params(rng);
    const std::vector<double> thr = Spec<M>::thresholds(p);
    for (double v : velocities(rng, thr, 8)) {
      if (std::abs(v) < 1e-280) continue;
      bool near_kink = false;
      for (double t : thr) near_kink |= std::abs(std::abs(v) - t) < 2e-3 * t;
      if (near_kink) continue;
      const Sample<double> s = Spec<M>::inputs(rng, v);
      J pj[P];
      for (int i = 0; i < P; ++i) pj[i] = J(p[i], i);
      const J f = static_force<M>(pj, Sample<J>{J(s.v, P), J(s.p_a), J(s.p_b), J(s.f_n)});
      const double scale = static_cast<double>(Spec<M>::gold(p, s).scale);
      // The Jet's value part is the double law up to rounding order (ceres
      // divides as a * (1/b)).
      ASSERT_NEAR(f.a, static_force<M>(p.data(), s), 1e-15 * scale) << "Jet value differs";
      for (int k = 0; k <= P; ++k) {
        const double x = k < P ? p[k] : v;
        if (x == 0) continue;
        auto eval = [&](LD d) {
          LD pl[P];
          for (int i = 0; i < P; ++i) pl[i] = p[i];
          Sample<LD> sl{s.v, s.p_a, s.p_b, s.f_n};
          (k < P ? pl[k] : sl.v) += d;
          return static_force<M>(pl, sl);
        };
        const LD h = 1e-4L * fabsl(x);
        auto central = [&](LD hh) { return (eval(hh) - eval(-hh)) / (2 * hh); };
        const double fd = static_cast<double>((4 * central(h / 2) - central(h)) / 3);
        const double unit = std::abs(fd) + scale / std::abs(x);
        const double err = std::abs(f.v[k] - fd);
        worst = std::max(worst, err / unit);
        ASSERT_LE(err, 1e-10 * unit) << M::kId << " d/d" << (k < P ? M::kParams[k].name : "v") << " at v=" << v
                                     << ": jet " << f.v[k] << ", fd " << fd;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 500);
  std::printf("[ jet      ] %-24s %ld derivatives, worst error = %.2e of the unit\n", M::kId, checked, worst);
}

}  // namespace
}  // namespace stribeck::test
