// The analytic gradients of the static laws (M::force_grad, next to M::force in
// each kernels/ header) against ceres::Jet derivatives of M::force itself, and
// the identification's residual blocks with analytic Jacobians against the same
// blocks on Jets (transforms, excess, offset, mass, asymmetric sides).
#include <ceres/jet.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "block_cost.hpp"
#include "model_specs.hpp"
#include "stribeck/kernels/model_list.hpp"

namespace stribeck {
namespace {

using test::Rng;
using test::Spec;

template <class M>
class ModelGradients : public ::testing::Test {};
using AllStatic = ::testing::Types<SimscapeTranslational, SimscapeRotational, SimscapeCylinder, SimscapeCylinderIL,
                                   TwentySimC, TwentySimV, TwentySimCV, TwentySimSCVS, CoulombViscous>;
struct ModelName {
  template <class M>
  static std::string GetName(int) {
    return M::kId;
  }
};
TYPED_TEST_SUITE(ModelGradients, AllStatic, ModelName);

template <class M>
constexpr int coeff_count() {
  return static_cast<int>(sizeof(typename M::template Coeffs<double>) / sizeof(double));
}

// d force / d coefficient by Jets: each field of Coeffs seeded with its own lane.
TYPED_TEST(ModelGradients, ForceGradMatchesJetsOverTheRanges) {
  using M = TypeParam;
  constexpr int K = coeff_count<M>();
  using J = ceres::Jet<double, K>;
  Rng rng(17);
  long checked = 0;
  for (int set = 0; set < 60; ++set) {
    const std::vector<double> p = Spec<M>::params(rng);
    const auto c = M::prepare(p.data());
    double cf[K];
    std::memcpy(cf, &c, sizeof(cf));
    typename M::template Coeffs<J> cj;
    static_assert(sizeof(cj) == K * sizeof(J));
    J* cj_flat = reinterpret_cast<J*>(&cj);  // an aggregate of K Jets
    for (int f = 0; f < K; ++f) cj_flat[f] = J(cf[f], f);
    for (double v : test::velocities(rng, Spec<M>::thresholds(p), 40)) {
      const Sample<double> s = Spec<M>::inputs(rng, v);
      typename M::template Coeffs<double> d;
      const double f = M::force_grad(c, s, d);
      const double f_ref = M::force(c, s);
      ASSERT_LE(std::abs(f - f_ref), 1e-15 * std::abs(f_ref)) << M::kId << " v=" << v;
      const J fj = M::force(cj, Sample<J>{J(s.v), J(s.p_a), J(s.p_b), J(s.f_n)});
      double df[K];
      std::memcpy(df, &d, sizeof(df));
      for (int k = 0; k < K; ++k) {
        const double ref = fj.v[k];
        ASSERT_TRUE(std::isfinite(df[k])) << M::kId << " coefficient " << k << " v=" << v;
        // Relative to the derivative, or to the force's own scale per unit of
        // the coefficient where terms cancel (the (1 - 2 x^2) of the Stribeck
        // peak); products of subnormals (v = 5e-324) carry no relative
        // precision, hence the absolute 1e-300.
        const double scale = std::abs(ref) + std::abs(f) / std::max(std::abs(cf[k]), 1e-300);
        EXPECT_LE(std::abs(df[k] - ref), 1e-12 * scale + 1e-300)
            << M::kId << " coefficient " << k << " v=" << v << " analytic " << df[k] << " jet " << ref;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

// The law with M's prepare and force but no force_grad: BlockCost falls back to Jets.
template <class M>
struct JetsOnly {
  static constexpr int kNumParams = M::kNumParams;
  template <class T>
  using Coeffs = typename M::template Coeffs<T>;
  template <class T>
  static Coeffs<T> prepare(const T* p) {
    return M::prepare(p);
  }
  template <class T>
  static T force(const Coeffs<T>& c, const Sample<T>& s) {
    return M::force(c, s);
  }
};
static_assert(!ident::detail::HasForceGrad<JetsOnly<SimscapeCylinder>>::value);
static_assert(ident::detail::HasForceGrad<SimscapeCylinder>::value);

// Residual blocks with analytic Jacobians equal those on Jets: every model
// parameter free (log transform for the positive ones, identity otherwise),
// plus an offset and a mass, symmetric and asymmetric, with one parameter held
// (no Jacobian asked for it).
TYPED_TEST(ModelGradients, BlockJacobianMatchesTheJetBlock) {
  using M = TypeParam;
  using namespace ident::detail;
  Rng rng(5);
  for (int set = 0; set < 20; ++set) {
    const std::vector<double> p = Spec<M>::params(rng);
    Prepared d;
    for (double v : test::velocities(rng, Spec<M>::thresholds(p), 100)) {
      const Sample<double> s = Spec<M>::inputs(rng, v);
      d.v.push_back(s.v);
      d.pa.push_back(s.p_a);
      d.pb.push_back(s.p_b);
      d.fn.push_back(s.f_n);
      d.acc.push_back(test::uniform(rng, -5, 5));
      d.y.push_back(test::uniform(rng, -100, 100));
      d.force.push_back(d.y.back());
    }
    for (bool asym : {false, true}) {
      std::vector<LocalParam> locals;
      std::vector<double> u;
      std::array<std::array<int, M::kNumParams>, 2> map;
      for (int side = 0; side < (asym ? 2 : 1); ++side)
        for (int j = 0; j < M::kNumParams; ++j) {
          LocalParam lp;
          double x = p[j] * (side ? 1.1 : 1.0);
          if (x > 0 && set % 2 == 0) {
            lp.transform = Transform::kLog;
            x = std::log(x);
          }
          map[side][j] = static_cast<int>(locals.size());
          locals.push_back(lp);
          u.push_back(x);
        }
      if (!asym) map[1] = map[0];
      const int mass = static_cast<int>(locals.size());
      locals.push_back(LocalParam{});
      u.push_back(2.5);
      const int offset = static_cast<int>(locals.size());
      locals.push_back(LocalParam{});
      u.push_back(-3.0);
      const int np = static_cast<int>(locals.size());
      if (np > kMaxBlockParams) continue;
      BlockCost<M> analytic(&d, 0, d.size(), locals, map, mass, offset, asym, SampleLoss{});
      BlockCost<JetsOnly<M>> jets(&d, 0, d.size(), locals, map, mass, offset, asym, SampleLoss{});
      std::vector<const double*> ptrs;
      for (const double& x : u) ptrs.push_back(&x);
      const size_t n = d.size();
      std::vector<double> ra(n), rj(n), ja(n * np), jj(n * np);
      std::vector<double*> pa(np), pj(np);
      for (int i = 0; i < np; ++i) {
        const bool asked = i != 1;  // parameter 1 held: no column
        pa[i] = asked ? ja.data() + i * n : nullptr;
        pj[i] = asked ? jj.data() + i * n : nullptr;
      }
      const bool ok_a = analytic.Evaluate(ptrs.data(), ra.data(), pa.data());
      const bool ok_j = jets.Evaluate(ptrs.data(), rj.data(), pj.data());
      ASSERT_EQ(ok_a, ok_j) << M::kId << " set " << set;
      if (!ok_a) continue;
      for (size_t k = 0; k < n; ++k) {
        ASSERT_LE(std::abs(ra[k] - rj[k]), 1e-13 * (1 + std::abs(rj[k]))) << M::kId << " sample " << k;
        for (int i = 0; i < np; ++i) {
          if (!pa[i]) continue;
          const double a = ja[i * n + k], b = jj[i * n + k];
          const double scale = std::abs(b) + std::abs(rj[k] - d.y[k]) / std::max(std::abs(std::exp(u[i])), 1e-300) +
                               std::abs(rj[k] - d.y[k]) / std::max(std::abs(u[i]), 1e-300);
          EXPECT_LE(std::abs(a - b), 1e-12 * scale) << M::kId << " sample " << k << " param " << i << " asym " << asym;
        }
      }
    }
  }
}

}  // namespace
}  // namespace stribeck
