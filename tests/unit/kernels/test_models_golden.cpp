// Every static model in double against its written equation evaluated in long
// double (model_specs.hpp), at hundreds of random parameter sets spanning each
// parameter's range and, per set, at v = 0, at every threshold and one ulp /
// 1e-9 relative either side of it, and at random velocities over nine decades.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "model_specs.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"

namespace stribeck::test {
namespace {

// Tolerance: |F_double - F_golden| <= kRel * scale + kAbsFloor.
// - kRel: a double evaluation of these laws takes about ten roundings
//   (u = 1.1e-16 each) plus libm's exp/tanh (< 1 ulp), and `scale` already
//   carries the condition numbers; 1e-13 leaves a margin of ~100 over that
//   bound while still catching any wrong constant, sign, branch or factor
//   (those err by far more than 1e-13 relative). The worst ratio actually
//   seen is printed by each test.
// - kAbsFloor: Stribeck terms like x exp(-x^2) for x^2 in [708, 745] are
//   subnormal or flushed to zero in double while long double still resolves
//   them; 1e-250 N is far below any physical force and far above those.
constexpr long double kRel = 1e-13L;
constexpr long double kAbsFloor = 1e-250L;
constexpr int kParamSets = 300;
constexpr int kRandomVelocities = 24;

template <class M>
void check_against_golden(uint64_t seed) {
  Rng rng(seed);
  const ModelInfo& info = *find_model(M::kId);
  long points = 0, failures = 0;
  long double worst = 0;
  for (int set = 0; set < kParamSets; ++set) {
    const std::vector<double> p = Spec<M>::params(rng);
    ASSERT_EQ(p.size(), static_cast<size_t>(M::kNumParams));
    // The sampler must only produce parameter sets the model accepts.
    const auto errors = validate_params(info, p.data());
    ASSERT_TRUE(errors.empty()) << errors.front();
    for (double v : velocities(rng, Spec<M>::thresholds(p), kRandomVelocities)) {
      const Sample<double> s = Spec<M>::inputs(rng, v);
      const double got = static_force<M>(p.data(), s);
      const Gold g = Spec<M>::gold(p, s);
      const long double err = fabsl(static_cast<long double>(got) - g.f);
      ++points;
      // (the ratio means nothing where the floor applies: subnormal results)
      if (g.scale > 1e-200L) worst = std::max(worst, err / g.scale);
      if (!(err <= kRel * g.scale + kAbsFloor) && ++failures <= 10) {
        std::ostringstream where;
        where.precision(17);
        where << M::kId << " params {";
        for (double x : p) where << x << " ";
        where << "} v=" << s.v << " p_a=" << s.p_a << " p_b=" << s.p_b << " f_n=" << s.f_n;
        ADD_FAILURE() << where.str() << ": got " << got << ", golden " << static_cast<double>(g.f) << " (error "
                      << static_cast<double>(err) << ", scale " << static_cast<double>(g.scale) << ")";
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(points, kParamSets * 2 * kRandomVelocities);
  std::printf("[ golden   ] %-24s %ld points, worst |error|/scale = %.2Le\n", M::kId, points, worst);
}

TEST(ModelsGolden, SimscapeTranslational) { check_against_golden<SimscapeTranslational>(101); }
TEST(ModelsGolden, SimscapeRotational) { check_against_golden<SimscapeRotational>(102); }
TEST(ModelsGolden, SimscapeCylinder) { check_against_golden<SimscapeCylinder>(103); }
TEST(ModelsGolden, SimscapeCylinderIL) { check_against_golden<SimscapeCylinderIL>(104); }
TEST(ModelsGolden, TwentySimC) { check_against_golden<TwentySimC>(105); }
TEST(ModelsGolden, TwentySimV) { check_against_golden<TwentySimV>(106); }
TEST(ModelsGolden, TwentySimCV) { check_against_golden<TwentySimCV>(107); }
TEST(ModelsGolden, TwentySimSCVS) { check_against_golden<TwentySimSCVS>(108); }
TEST(ModelsGolden, CoulombViscous) { check_against_golden<CoulombViscous>(109); }
TEST(ModelsGolden, StribeckDelta) { check_against_golden<StribeckDelta>(110); }
TEST(ModelsGolden, StribeckAsymmetric) { check_against_golden<StribeckAsymmetric>(111); }

// Every model of the library has a Spec<> (a missing one does not compile) and
// a golden test above (the count changes when a model is added).
TEST(ModelsGolden, CoversEveryModel) {
  size_t n = 0;
  for_each_model(StaticModels{}, [&](auto tag) {
    using M = typename decltype(tag)::type;
    (void)&Spec<M>::gold;
    ++n;
  });
  EXPECT_EQ(n, 11u) << "a model was added or removed: give it a Spec<> and a golden test";
}

// A few hand-computed values at the default parameters, as a check on
// the golden formulas themselves (numbers from the written equations, worked
// by hand with a calculator-grade reference).
TEST(ModelsGolden, DefaultsAtHandPickedPoints) {
  // simscape-translational at v = v_brk = 0.1: x = 1/sqrt2, Stribeck term =
  // (F_brk-F_C) exactly, tanh(10) = 0.99999999587769276, viscous = 10.
  const double p[] = {25, 0.1, 20, 100};
  const double f = static_force<SimscapeTranslational>(p, velocity_sample(0.1));
  EXPECT_NEAR(f, 5.0 + 20.0 * 0.99999999587769276 + 10.0, 1e-12);
  // simscape-cylinder defaults, p_A + p_B = 1e6 Pa: F_C = 10 + 1 = 11 N; at
  // v = 0.2 m/s: 11 * 1 + 100 * 0.2 = 31 N (K_brk = 1).
  const double c[] = {10, 1e-6, 1, 100, 10, 1e-4};
  EXPECT_NEAR(static_force<SimscapeCylinder>(c, Sample<double>{0.2, 6e5, 4e5, 0}), 31.0, 1e-12);
  // ... and at v = v_th/2 in the linear zone: K = (11 + 100e-4)/1e-4, F = K * 5e-5 = 5.505 N.
  EXPECT_NEAR(static_force<SimscapeCylinder>(c, Sample<double>{5e-5, 6e5, 4e5, 0}), 5.505, 1e-12);
}

}  // namespace
}  // namespace stribeck::test
