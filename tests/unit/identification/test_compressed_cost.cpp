// The compressed cost's shortcuts for the phases after the solve
// (identification/src/compressed_cost.hpp) give the bits a new evaluation
// gives, with fewer passes over the samples: the solver's last Jacobian kept
// for the covariance, the SSR at several points in one pass (the Wald end
// points), a cost evaluation fused with the normal equations that the next
// Jacobian at the same point is taken from; and the number of threads changes
// no sum.
#include <ceres/ceres.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "block_cost.hpp"
#include "compressed_cost.hpp"
#include "profile.hpp"
#include "stribeck/kernels/model_list.hpp"

namespace stribeck {
namespace {

using namespace ident::detail;
using M = CoulombViscous;  // F = F_C*tanh(v/v_eps) + f_v*v

// n samples: |v| log-uniform in 1e-3..1 m/s, both directions; F_C 20 N,
// f_v 100 N s/m, v_eps 0.01 m/s, noise 1 N.
Prepared make_log(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> noise(0, 1);
  Prepared d;
  d.name = "log";
  for (size_t i = 0; i < n; ++i) {
    const double v = (u(rng) < 0.5 ? -1 : 1) * 1e-3 * std::pow(1e3, u(rng));
    d.v.push_back(v);
    d.pa.push_back(0);
    d.pb.push_back(0);
    d.fn.push_back(0);
    d.y.push_back(20 * std::tanh(v / 0.01) + 100 * v + noise(rng));
    d.force.push_back(d.y.back());
  }
  return d;
}

// `inner`, counting its passes in *n.
BlockSource counted(BlockSource inner, std::shared_ptr<int> n) {
  return [inner = std::move(inner), n = std::move(n)](const std::function<void(const BlockChunk&)>& use) {
    ++*n;
    inner(use);
  };
}

// The blocks of `block` samples of d over the parameters (F_C, f_v, v_eps),
// and a BlockSource over them that counts its passes.
struct Source {
  HeldBlocks held;
  std::shared_ptr<int> passes = std::make_shared<int>(0);
  Source(const Prepared& d, size_t block) {
    const std::array<std::array<int, M::kNumParams>, 2> map{{{0, 1, 2}, {0, 1, 2}}};
    for (size_t k = 0; k < d.size(); k += block)
      held.add(std::make_unique<BlockCost<M>>(&d, k, std::min(d.size(), k + block), std::vector<LocalParam>(3), map, -1,
                                              -1, false, SampleLoss{}),
               {0, 1, 2});
  }
  BlockSource source() const { return counted(held.source(), passes); }
};

// A problem holding `cost` (not owned) over u, v_eps held.
std::unique_ptr<ceres::Problem> problem(CompressedCost* cost, double* u) {
  ceres::Problem::Options po;
  po.cost_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
  auto P = std::make_unique<ceres::Problem>(po);
  P->AddResidualBlock(cost, nullptr, std::vector<double*>{&u[0], &u[1], &u[2]});
  P->SetParameterBlockConstant(&u[2]);
  return P;
}

// The SSR of the law written out, in long double: the reference.
long double reference_ssr(const Prepared& d, const double* u) {
  long double s = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    const long double f =
        u[0] * std::tanh(static_cast<long double>(d.v[i]) / u[2]) + u[1] * static_cast<long double>(d.v[i]);
    const long double r = d.y[i] - f;
    s += r * r;
  }
  return s;
}

TEST(CompressedCost, SsrAtSeveralPointsIsEachCostEvaluationBitForBitInOnePass) {
  const Prepared d = make_log(50000, 3);
  for (int threads : {1, 2}) {
    Source src(d, 2048);
    CompressedCost cost(src.source(), 3, threads);
    double u[3] = {20, 100, 0.01};
    auto P = problem(&cost, u);
    const std::vector<std::vector<double>> points = {
        {20, 100, 0.01}, {19.5, 101, 0.01}, {0, 0, 0.01},
        {25, 80, 0.02},  {1e3, -5, 0.005},  {std::numeric_limits<double>::quiet_NaN(), 100, 0.01}};  // fails: infinity
    const int before = *src.passes;
    const std::vector<double> ssr = cost.ssr_at(points);
    EXPECT_EQ(*src.passes - before, 1) << "one pass for every point";
    ASSERT_EQ(ssr.size(), points.size());
    for (size_t p = 0; p < points.size(); ++p) {
      for (int i = 0; i < 3; ++i) u[i] = points[p][i];
      EXPECT_EQ(ssr[p], evaluate_ssr(*P)) << "point " << p << ", threads " << threads;  // bit for bit
      if (p + 1 < points.size()) {
        const long double ref = reference_ssr(d, u);
        EXPECT_NEAR(ssr[p], static_cast<double>(ref), 1e-12 * static_cast<double>(ref)) << "point " << p;
      } else {
        EXPECT_EQ(ssr[p], std::numeric_limits<double>::infinity());
      }
    }
  }
}

TEST(CompressedCost, KeptJacobianIsANewEvaluationsBitForBit) {
  const Prepared d = make_log(20000, 4);
  Source src(d, 1024), fresh_src(d, 1024);
  CompressedCost cost(src.source(), 3, 1, true), fresh(fresh_src.source(), 3, 1);
  double u[3] = {18, 120, 0.01};
  auto P = problem(&cost, u);
  auto Q = problem(&fresh, u);
  ceres::Problem::EvaluateOptions eo;
  eo.parameter_blocks = {&u[0], &u[1]};
  ceres::CRSMatrix J, K;
  double c = 0;
  ASSERT_TRUE(P->Evaluate(eo, &c, nullptr, nullptr, &J));
  // Moved and back: the kept Jacobian is the one at the current point.
  u[0] = 19;
  ASSERT_TRUE(P->Evaluate(eo, &c, nullptr, nullptr, &J));
  ASSERT_TRUE(Q->Evaluate(eo, &c, nullptr, nullptr, &K));
  const double* ptrs[3] = {&u[0], &u[1], &u[2]};
  std::vector<std::vector<double>> cols;
  const int passes = *src.passes;
  ASSERT_TRUE(cost.last_jacobian(ptrs, {true, true, false}, &cols));
  EXPECT_EQ(*src.passes, passes) << "no pass over the samples";
  ASSERT_EQ(cols.size(), 2u);
  ASSERT_EQ(K.num_rows, 4);
  for (int r = 0; r < K.num_rows; ++r)
    for (int a = K.rows[r]; a < K.rows[r + 1]; ++a) EXPECT_EQ(cols[K.cols[a]][r], K.values[a]) << r << " " << a;
  // Another point or another set of parameters: not kept.
  EXPECT_FALSE(cost.last_jacobian(ptrs, {true, false, false}, &cols));
  u[0] = 19.000000000000004;
  EXPECT_FALSE(cost.last_jacobian(ptrs, {true, true, false}, &cols));
}

TEST(CompressedCost, FusedCostEvaluationServesTheSolversNextJacobian) {
  const Prepared d = make_log(30000, 5);
  Source src(d, 2048), plain_src(d, 2048);
  CompressedCost fused(src.source(), 3, 1, true), plain(plain_src.source(), 3, 1);
  double u[3] = {15, 90, 0.01};
  const double* ptrs[3] = {&u[0], &u[1], &u[2]};
  double r[4], rp[4], j0[4], j1[4], jp0[4], jp1[4];
  double* jac[3] = {j0, j1, nullptr};
  double* jacp[3] = {jp0, jp1, nullptr};
  ASSERT_TRUE(fused.Evaluate(ptrs, r, jac));  // the solver's first Jacobian: its parameters
  u[0] = 19.5, u[1] = 101;
  int passes = *src.passes;
  ASSERT_TRUE(fused.Evaluate(ptrs, r, nullptr));  // a candidate's cost, fused
  EXPECT_EQ(*src.passes - passes, 1);
  const double fused_ssr = r[3] * r[3];
  ASSERT_TRUE(plain.Evaluate(ptrs, rp, nullptr));
  EXPECT_NEAR(fused_ssr, rp[3] * rp[3], 1e-13 * rp[3] * rp[3]);  // M::force_grad's value against M::force's
  EXPECT_NEAR(fused_ssr, static_cast<double>(reference_ssr(d, u)), 1e-12 * fused_ssr);
  passes = *src.passes;
  ASSERT_TRUE(fused.Evaluate(ptrs, r, jac));  // accepted: its Jacobian without a pass
  EXPECT_EQ(*src.passes, passes);
  ASSERT_TRUE(plain.Evaluate(ptrs, rp, jacp));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r[i], rp[i]) << i;
    EXPECT_EQ(j0[i], jp0[i]) << i;
    EXPECT_EQ(j1[i], jp1[i]) << i;
  }
}

// Simscape translational friction with v_brk held: affine in F_brk, F_C and
// f_v, solved for as an excess over F_C, a logarithm and itself (as the fit's
// layout does), so predictions go through every transform.
struct LevelSource {
  HeldBlocks held;
  std::shared_ptr<int> passes = std::make_shared<int>(0);
  LevelSource(const Prepared& d, size_t block) {
    using T = SimscapeTranslational;  // F_brk, v_brk, F_C, f_v
    const std::array<std::array<int, T::kNumParams>, 2> map{{{0, 1, 2, 3}, {0, 1, 2, 3}}};
    std::vector<LocalParam> locals(4);
    locals[0] = {Transform::kExcess, 2};
    locals[1].transform = Transform::kLog;
    locals[2].transform = Transform::kLog;
    for (size_t k = 0; k < d.size(); k += block)
      held.add(std::make_unique<BlockCost<T>>(&d, k, std::min(d.size(), k + block), locals, map, -1, -1, false,
                                              SampleLoss{}),
               {0, 1, 2, 3});
  }
  BlockSource source() const { return counted(held.source(), passes); }
};

const std::vector<AffineParam> kLevels = {
    {true, Transform::kExcess, 2}, {false, Transform::kLog, -1}, {true, Transform::kLog, -1}, {true}};

// J^T J and J^T r of a compressed evaluation (R^T R, R^T z: the same whatever
// signs the eigenvectors took) and its SSR.
struct Normal {
  Eigen::MatrixXd JtJ;
  Eigen::VectorXd Jtr;
  double ssr = 0;
};
Normal evaluate(const CompressedCost& c, const double* u, const std::vector<bool>& active) {
  const double* ptrs[4] = {&u[0], &u[1], &u[2], &u[3]};
  double r[5], cols[4][5];
  double* jac[4] = {};
  for (int g = 0; g < 4; ++g)
    if (active[g]) jac[g] = cols[g];
  EXPECT_TRUE(c.Evaluate(ptrs, r, jac));
  Eigen::MatrixXd R(5, 0);
  for (int g = 0; g < 4; ++g)
    if (active[g]) {
      R.conservativeResize(5, R.cols() + 1);
      for (int i = 0; i < 5; ++i) R(i, R.cols() - 1) = cols[g][i];
    }
  const Eigen::Map<const Eigen::VectorXd> z(r, 5);
  Normal n;
  n.JtJ = R.transpose() * R;
  n.Jtr = R.transpose() * z;
  n.ssr = z.squaredNorm();
  return n;
}

double rel_diff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / b.norm(); }

// A log and two costs over it: one predicting the levels, one making passes.
struct PredictingPair {
  const Prepared d;
  LevelSource src, fresh_src;
  CompressedCost predicting, passes;
  const std::vector<bool> levels = {true, false, true, true};
  explicit PredictingPair(unsigned seed)
      : d(make_log(40000, seed)),
        src(d, 2048),
        fresh_src(d, 2048),
        predicting(src.source(), 4, 1, true),
        passes(fresh_src.source(), 4, 1, true) {
    predicting.set_affine(kLevels);
  }
};

TEST(CompressedCost, LevelsArePredictedFromOnePassToRoundingThroughEveryTransform) {
  PredictingPair pair(8);
  const Prepared& d = pair.d;
  const LevelSource& src = pair.src;
  CompressedCost &predicting = pair.predicting, &passes = pair.passes;
  const std::vector<bool>& levels = pair.levels;
  double u[4] = {4.0, std::log(0.02), std::log(18.0), 95.0};
  evaluate(predicting, u, levels);  // the anchor
  EXPECT_EQ(*src.passes, 1);
  EXPECT_FALSE(predicting.predicted());
  // Levels moved (the logarithm's too, by a factor of 1.5): no pass, and
  // what a pass gives to rounding.
  const double moves[][3] = {{0.5, 0.01, -2.0}, {-3.0, std::log(1.5), 20.0}, {10.0, -0.3, -40.0}};
  for (const auto& m : moves) {
    double x[4] = {u[0] + m[0], u[1], u[2] + m[1], u[3] + m[2]};
    const Normal p = evaluate(predicting, x, levels), q = evaluate(passes, x, levels);
    EXPECT_NEAR(p.ssr, q.ssr, 1e-11 * q.ssr) << m[0] << " " << m[1] << " " << m[2];
    EXPECT_LE(rel_diff(p.JtJ, q.JtJ), 1e-12);
    EXPECT_LE(rel_diff(p.Jtr, q.Jtr), 1e-9);
    EXPECT_NEAR(p.ssr, static_cast<double>(q.ssr), 1e-11 * q.ssr);
    // The cost alone, as a trust-region step asks for it.
    const double* ptrs[4] = {&x[0], &x[1], &x[2], &x[3]};
    double r[5];
    ASSERT_TRUE(predicting.Evaluate(ptrs, r, nullptr));
    EXPECT_NEAR(r[4] * r[4], q.ssr, 1e-11 * q.ssr);
  }
  EXPECT_EQ(*src.passes, 1) << "every evaluation above predicted";
  EXPECT_TRUE(predicting.predicted());
  // The Wald end points: predicted too.
  const std::vector<std::vector<double>> ends = {{4.2, u[1], u[2], u[3]}, {u[0], u[1], u[2] - 0.01, u[3] + 1}};
  const std::vector<double> a = predicting.ssr_at(ends), b = passes.ssr_at(ends);
  EXPECT_EQ(*src.passes, 1);
  for (size_t i = 0; i < ends.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-11 * b[i]) << i;

  // A shape parameter moved: a pass (and the next anchor).
  double shape[4] = {u[0], u[1] + 0.1, u[2], u[3]};
  const Normal p = evaluate(predicting, shape, levels), q = evaluate(passes, shape, levels);
  EXPECT_EQ(*src.passes, 2);
  EXPECT_EQ(p.ssr, q.ssr);  // a pass: bit for bit
  // Another set of active parameters: a pass.
  evaluate(predicting, shape, {true, true, true, true});
  EXPECT_EQ(*src.passes, 3);
  // After stop_predicting, every evaluation is a pass.
  predicting.stop_predicting();
  evaluate(predicting, u, levels);
  u[3] += 1.0;
  evaluate(predicting, u, levels);
  EXPECT_EQ(*src.passes, 5);
}

// A step that removes most of the misfit would lose the SSR to cancellation:
// a pass instead, which the later predictions start from.
TEST(CompressedCost, APredictionLostToCancellationIsAPass) {
  PredictingPair pair(9);
  const LevelSource& src = pair.src;
  CompressedCost &predicting = pair.predicting, &passes = pair.passes;
  const std::vector<bool>& levels = pair.levels;
  double far[4] = {0.0, std::log(0.001), std::log(2e4), 5e4};
  const Normal a = evaluate(predicting, far, levels);
  double near[4] = {0.0, far[1], std::log(20.0), 100.0};
  const Normal q = evaluate(passes, near, levels);
  ASSERT_LT(q.ssr, CompressedCost::kPredictedShare * 1e-2 * a.ssr) << "the case this test is for";
  const Normal p = evaluate(predicting, near, levels);
  EXPECT_EQ(*src.passes, 2);
  EXPECT_EQ(p.ssr, q.ssr);
  double next[4] = {0.1, far[1], std::log(20.1), 99.0};
  const Normal p2 = evaluate(predicting, next, levels), q2 = evaluate(passes, next, levels);
  EXPECT_EQ(*src.passes, 2) << "predicted from the new anchor";
  EXPECT_NEAR(p2.ssr, q2.ssr, 1e-12 * q2.ssr);
}

// A parameter called a level that is not one (v_eps of F_C*tanh(v/v_eps)):
// the solver, fed predictions, ends at a cost the law does not have there,
// confirm() says so against the law evaluated, and from then on every
// evaluation is a pass, so solving again reaches the true optimum.
TEST(CompressedCost, AFalseLevelIsCaughtByConfirmAndSolvedAgainWithPasses) {
  const Prepared d = make_log(20000, 10);  // F_C 20, f_v 100, v_eps 0.01
  Source src(d, 2048), truth_src(d, 2048);
  CompressedCost lying(src.source(), 3, 1, true), honest(truth_src.source(), 3, 1, true);
  lying.set_affine({{true}, {true}, {true}});  // v_eps is no level
  auto solve = [](CompressedCost* c, double* u) {
    ceres::Problem::Options po;
    po.cost_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
    ceres::Problem P(po);
    P.AddResidualBlock(c, nullptr, std::vector<double*>{&u[0], &u[1], &u[2]});
    P.SetParameterLowerBound(&u[2], 0, 1e-4);
    ceres::Solver::Options so;
    so.linear_solver_type = ceres::DENSE_QR;
    ceres::Solver::Summary sum;
    ceres::Solve(so, &P, &sum);
    return 2.0 * sum.final_cost;
  };
  double u[3] = {10, 50, 0.05}, v[3] = {10, 50, 0.05};
  const double lied = solve(&lying, u);
  const double best = solve(&honest, v);
  ASSERT_TRUE(lying.predicted());
  const double evaluated = static_cast<double>(reference_ssr(d, u));
  EXPECT_GT(std::abs(lied - evaluated), 1e-3 * evaluated) << "the case this test is for: a wrong cost";
  EXPECT_FALSE(lying.confirm(lied, evaluated, 0.0));
  const int passes = *src.passes;
  const double again = solve(&lying, u);
  EXPECT_GT(*src.passes - passes, 2) << "a pass per evaluation";
  EXPECT_NEAR(again, best, 1e-8 * best);
  EXPECT_NEAR(u[2], v[2], 1e-4 * v[2]);  // to the solver's default tolerances
  EXPECT_NEAR(again, static_cast<double>(reference_ssr(d, u)), 1e-10 * again);
  // The honest cost predicted nothing: confirmed whatever it is given.
  EXPECT_TRUE(honest.confirm(1.0, 2.0, 0.0));
}

TEST(CompressedCost, ThreadsChangeNoSumAndSmallChunksRunOnOne) {
  EXPECT_EQ(threads_for(1000, 2), 1);
  EXPECT_EQ(threads_for(2 * kSamplesPerThread - 1, 2), 1);
  EXPECT_EQ(threads_for(2 * kSamplesPerThread, 2), 2);
  EXPECT_EQ(threads_for(100 * kSamplesPerThread, 2), 2);
  EXPECT_EQ(threads_for(100 * kSamplesPerThread, 0), 1);
  const Prepared d = make_log(2 * kSamplesPerThread + 5000, 6);
  Source s1(d, 2048), s2(d, 2048);
  CompressedCost one(s1.source(), 3, 1), two(s2.source(), 3, 2);
  const double u[3] = {21, 99, 0.011};
  const double* ptrs[3] = {&u[0], &u[1], &u[2]};
  const NormalEquations a = one.normal_equations(ptrs, {true, true, false});
  const NormalEquations b = two.normal_equations(ptrs, {true, true, false});
  EXPECT_EQ(a.ssr, b.ssr);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(a.Jtr(i), b.Jtr(i));
    for (int j = 0; j < 2; ++j) EXPECT_EQ(a.JtJ(i, j), b.JtJ(i, j));
  }
  const std::vector<std::vector<double>> points = {{21, 99, 0.011}, {20, 100, 0.01}};
  EXPECT_EQ(one.ssr_at(points), two.ssr_at(points));
}

}  // namespace
}  // namespace stribeck
