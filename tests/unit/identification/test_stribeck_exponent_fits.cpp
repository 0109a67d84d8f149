// The laws with a free Stribeck exponent (stribeck-delta,
// stribeck-asymmetric, gms1, gms2; gms3 and gms4 only get through, below)
// fitted with the default options to their
// own generated slow sine sweep and slow triangle: identify recovers each
// free parameter within 4 of its reported standard errors, at the noise.
// Slow means speeds up to about the Stribeck velocity, where most samples are
// near a reversal: GMS's steady-state stage then fits presliding samples, and
// its start walked to v_s -> 0 and delta -> 1e6, where the Jet derivative of
// exp(-(|v|/v_s)^delta) was NaN (inf x 0) and the fit failed.
#include <gtest/gtest.h>

#include <ceres/jet.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/models/gms.hpp"
#include "stribeck/kernels/models/stribeck_delta.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/workloads/generator.hpp"

namespace stribeck {
namespace {

using ident::FitOptions;
using ident::FitSummary;
using ident::ParameterEstimate;

struct Case {
  std::string model;
  std::map<std::string, double> truth;  // over the model's defaults
  double v_max;                         // sine sweep: about the Stribeck velocity, a slow log
  double v_max_triangle;                // the triangle's: up to 2 v_s (at v_s its v_s and C trade off)
  double noise;                         // force noise std [N], ~1 % of the friction level
};

// A short log at a low rate keeps the dynamic fits' simulation cheap; the
// GMS presliding loops still span tens of samples at this speed.
std::vector<data::Experiment> slow_log(const Case& c, const std::string& profile) {
  workloads::GeneratorOptions g;
  g.model = c.model;
  const ModelInfo* info = find_model(c.model);
  for (const auto& p : info->params) g.params.push_back(c.truth.count(p.name) ? c.truth.at(p.name) : p.default_value);
  g.profile = profile;
  g.rate_hz = 250;
  g.duration = 8;
  g.v_max = profile == "triangle" ? c.v_max_triangle : c.v_max;
  g.noise["force"] = c.noise;
  g.seed = 3;
  return workloads::generate_log(g);
}

void expect_recovered(const Case& c, const std::string& profile) {
  SCOPED_TRACE(c.model + " on a slow " + profile);
  const FitSummary S = ident::fit(slow_log(c, profile), c.model, FitOptions{});
  ASSERT_TRUE(S.converged) << S.solver_message;
  const ModelInfo* info = find_model(c.model);
  std::map<std::string, double> truth;
  for (const auto& p : info->params) truth[p.name] = c.truth.count(p.name) ? c.truth.at(p.name) : p.default_value;
  // GMS's elements may come in either order: gms2's (kf_1, af_1) and
  // (1 - kf_1, 1 - af_1) are one model. The truth in the fit's order.
  if (c.model == "gms2" &&
      std::abs(S.param("kf_1").value - (1 - truth["kf_1"])) < std::abs(S.param("kf_1").value - truth["kf_1"])) {
    truth["kf_1"] = 1 - truth["kf_1"];
    truth["af_1"] = 1 - truth["af_1"];
  }
  for (const auto& p : info->params) {
    const ParameterEstimate& e = S.param(p.name);
    if (e.fixed) continue;  // the sign smoothing v_eps
    const double t = truth[p.name];
    ASSERT_TRUE(std::isfinite(e.std_error)) << p.name;
    EXPECT_LT(std::abs(e.value - t), 4 * e.std_error)
        << p.name << " = " << e.value << " +/- " << e.std_error << ", true " << t;
  }
  EXPECT_NEAR(S.rmse, c.noise, 0.15 * c.noise);
}

const Case kStribeckDelta{"stribeck-delta", {{"delta", 1.5}}, 0.03, 0.03, 0.2};
const Case kStribeckAsymmetric{
    "stribeck-asymmetric", {{"F_s_neg", 28}, {"v_s_neg", 0.015}, {"delta", 1.5}}, 0.03, 0.03, 0.2};
const Case kGms1{"gms1", {}, 1e-3, 1e-3, 0.01};
const Case kGms2{"gms2", {{"kf_1", 0.7}, {"af_1", 0.4}}, 1e-3, 2e-3, 0.01};

TEST(StribeckExponentFits, StribeckDeltaFromSlowSineSweepAndTriangle) {
  expect_recovered(kStribeckDelta, "sine-sweep");
  expect_recovered(kStribeckDelta, "triangle");
}

TEST(StribeckExponentFits, StribeckAsymmetricFromSlowSineSweepAndTriangle) {
  expect_recovered(kStribeckAsymmetric, "sine-sweep");
  expect_recovered(kStribeckAsymmetric, "triangle");
}

TEST(StribeckExponentFits, Gms1FromSlowSineSweepAndTriangle) {
  expect_recovered(kGms1, "sine-sweep");
  expect_recovered(kGms1, "triangle");
}

TEST(StribeckExponentFits, Gms2FromSlowSineSweepAndTriangle) {
  expect_recovered(kGms2, "sine-sweep");
  expect_recovered(kGms2, "triangle");
}

// gms3 and gms4 share gms2's stages, and the stages they share get through
// this log: gms3's steady-state stage failed on it as gms2's did. It does
// not determine F_C, v_s and sigma2 (no speed beyond v_s); their recovery
// is GmsElementFits.* (test_gms_element_fits.cpp). One round of joint
// starts (the two-stage start and those split from the fit of one element
// fewer), so only a finite fit is asked for. (With two starts, below a
// round, the one drawn point decides: 0.026 or 0.108 for gms3 as the GMS
// fractions' draw range changed.)
TEST(StribeckExponentFits, Gms3AndGms4GetThroughTheirStagesOnASlowSineSweep) {
  for (const char* id : {"gms3", "gms4"}) {
    SCOPED_TRACE(id);
    FitOptions o;
    o.max_starts = 4;
    const FitSummary S = ident::fit(slow_log(Case{id, {}, 1e-3, 1e-3, 0.01}, "sine-sweep"), id, o);
    EXPECT_NE(S.status, ident::FitStatus::kFailed) << S.solver_message;
    EXPECT_TRUE(std::isfinite(S.rmse));
    EXPECT_LT(S.rmse, 0.1);  // of a friction level of 1 ... 1.5 N
  }
}

// The decay's Jet derivatives are finite everywhere, and those of the
// written equation where it is not flat: at v = 0 (decay 1), where the power
// overflows (decay 0; the derivative exp(-p) dp/dx is below 1e-300 there),
// and in between equal to d/dq exp(-(|v| q)^delta) and d/ddelta written out.
TEST(StribeckExponentFits, DecayDerivativesAreFiniteAtZeroAndWhereThePowerOverflows) {
  using J = ceres::Jet<double, 2>;
  for (const double v : {0.0, 1e-17, 1e-4, 1e-3, 3e-3, 1.0, 1e3})
    for (const double q : {1e-3, 1.0, 1e3, 1.6e8})  // 1 / v_s
      for (const double d : {0.3, 1.0, 2.0, 7.0, 2.7e6}) {
        const J e = stribeck_delta_decay(J(q, 0), J(d, 1), J(v));
        ASSERT_TRUE(std::isfinite(e.a) && std::isfinite(e.v[0]) && std::isfinite(e.v[1])) << v << " " << q << " " << d;
        const double x = std::abs(v) * q;
        const double p = x > 0 ? std::pow(x, d) : 0.0;
        const double expect = x > 0 ? std::exp(-p) : 1.0;
        EXPECT_EQ(e.a, expect) << v << " " << q << " " << d;
        // d/dq = -exp(-p) d x^(d-1) |v|, d/ddelta = -exp(-p) p ln x (0 at x = 0).
        const double dq = x > 0 ? -expect * d * p / x * std::abs(v) : 0.0;
        const double dd = x > 0 ? -expect * p * std::log(x) : 0.0;
        if (std::isfinite(dq) && std::isfinite(dd)) {
          EXPECT_NEAR(e.v[0], dq, 1e-12 * std::abs(dq) + 1e-300) << v << " " << q << " " << d;
          EXPECT_NEAR(e.v[1], dd, 1e-12 * std::abs(dd) + 1e-300) << v << " " << q << " " << d;
        }
      }
}

}  // namespace
}  // namespace stribeck
