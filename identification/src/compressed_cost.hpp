#pragma once
// Private to identification/: the whole least-squares problem of a static fit
// as ONE Ceres residual block of k+1 residuals, so memory does not grow with
// the log. The per-sample residual blocks (BlockCost) come from a BlockSource
// chunk by chunk (all of them at once for a log in memory; a chunk of rows at
// a time for a log streamed from HDF5), are evaluated with threads over
// blocks, and only their normal equations are kept:
//   J^T J, J^T r and SSR = r^T r,   summed in block order (the same bits for
//   any number of threads).
// With D = diag(J^T J)^(-1/2) and D J^T J D = W L W^T, the compressed
// residuals are
//   z = L^(-1/2) W^T D J^T r  (k values; 0 in directions with no curvature),
//   c = sqrt(SSR - |z|^2),
// with Jacobian [L^(1/2) W^T D^-1; 0]. Then |(z, c)|^2 = SSR, the gradient R^T z =
// J^T r and the Gauss-Newton model |z + R d|^2 + c^2 = |r + J d|^2 are exactly
// those of the full problem, so Ceres takes the same steps as on the N
// residuals (DENSE_NORMAL_CHOLESKY forms the same J^T J), without storing the
// N x k Jacobian. A cost-only evaluation returns (0, ..., 0, sqrt(SSR)).
//
// Two shortcuts for the phases after the solve, each giving exactly the bits
// a new evaluation would (every sum runs in block order whatever the threads):
// the compressed Jacobian of the last evaluation with Jacobians (the solver's
// last, at its solution) is kept with its point, for the covariance; and
// ssr_at evaluates the SSR at several points in one pass over the samples
// (each block, while in cache, at every point), for the Wald end points.
//
// Laws linear in their free parameters (set_affine: 20sim-c, -v and -cv and
// the Coulomb-viscous law with their smoothing fixed, any law whose free
// parameters are all levels) need no pass after the first. With theta the
// model's values of the active parameters (u the solver's coordinates,
// T = d theta / d u) and r affine in theta, the normal equations of one pass
// at theta_A, G = J^T J and h = J^T r in theta, give those at any theta in
// exact arithmetic: with D = theta - theta_A,
//   SSR = SSR_A + 2 D^T h + D^T G D,  J^T r = T^T (h + G D),  J^T J = T^T G T.
// A prediction whose SSR cancels below kPredictedShare of its terms' size (a
// step that removes nearly all of the misfit; the rounding of SSR_A would
// show) is replaced by a pass, which becomes the new anchor. Predictions agree with a
// pass to rounding, not bit for bit; the fit confirms the last one against
// its quality phase's SSR and solves again without them where a law was not
// linear after all (a role is a hint, not a promise).
#include <ceres/ceres.h>

#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "problem.hpp"

namespace stribeck::ident::detail {

// The normal equations of residual blocks over the parameters asked for.
struct NormalEquations {
  Eigen::MatrixXd JtJ;  // over the active parameters, in their order
  Eigen::VectorXd Jtr;
  double ssr = 0.0;
  bool ok = true;  // every block evaluated to finite numbers
  void add(const NormalEquations& o);
};

// A chunk of residual blocks: blocks[b] depends on the parameters params[b]
// (indices into the cost's one-dimensional parameter blocks, in the order the
// block takes them).
struct BlockChunk {
  std::vector<const ceres::CostFunction*> blocks;
  std::vector<const std::vector<int>*> params;
};

// Where the residual blocks come from: calls `use` once per chunk, in the
// same order on every call.
using BlockSource = std::function<void(const std::function<void(const BlockChunk&)>& use)>;

// Normal equations of one chunk over the `active` parameters (none: SSR only).
NormalEquations chunk_normal_equations(const BlockChunk& chunk, double const* const* parameters,
                                       const std::vector<bool>& active, int threads);

// Threads worth starting for a chunk of this many residuals: below
// kSamplesPerThread residuals per thread the start and the join of the team
// cost more than they save (measured in bench/RESULTS.md), so small logs run
// on one thread. The results do not depend on it.
constexpr long kSamplesPerThread = 65536;
int threads_for(long residuals, int threads);

// How a cost parameter's solver coordinate u gives the model's value theta
// (as BlockCost applies it), and whether the residuals are affine in theta.
struct AffineParam {
  bool level = false;
  Transform transform = Transform::kIdentity;
  int base = -1;  // kExcess: the cost index of the parameter it exceeds
};

class CompressedCost : public ceres::CostFunction {
 public:
  // fuse: every cost-only evaluation also forms the normal equations over
  // the parameters of the last Jacobian (see Evaluate); for the solver's
  // problems, not for a search that only ranks costs.
  CompressedCost(BlockSource source, int nparams, int threads, bool fuse = false);

  // With Jacobians: the normal equations at this point (kept from a fused
  // cost evaluation at the same point and parameters, else a pass),
  // compressed. Cost only: (0, ..., 0, sqrt(SSR)); fused, the SSR comes from
  // the normal equations over the last Jacobian's parameters (a trust-region
  // step's candidate, whose Jacobian the solver asks for next if it accepts
  // it: one pass over the samples for both instead of two). A fused SSR is
  // the one a Jacobian evaluation gives (M::force_grad's value), which may
  // differ from M::force's in the last bit.
  bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override;

  // Normal equations at `parameters` over the parameters whose `active` flag
  // is set, summed over all chunks in order.
  NormalEquations normal_equations(double const* const* parameters, const std::vector<bool>& active) const;

  // The compressed Jacobian of the last evaluation with Jacobians, if it was
  // at exactly these parameter values (bit for bit) over exactly the `active`
  // parameters: columns[a][i] = d residual i / d (a-th active parameter), as
  // Evaluate wrote it. False (columns untouched) otherwise.
  bool last_jacobian(double const* const* parameters, const std::vector<bool>& active,
                     std::vector<std::vector<double>>* columns) const;

  // Keeps the last evaluation with Jacobians aside (a multistart's best
  // solve, before later starts evaluate elsewhere); last_jacobian answers
  // from it too.
  void keep_last_jacobian() const { kept_ = jacobian_; }

  // 2 * cost of a cost-only evaluation without fusing (what Problem::Evaluate
  // reports) at each point (points[p][i]: the value of parameter i), bit for
  // bit, in one pass over the blocks; infinity where the evaluation fails.
  std::vector<double> ssr_at(const std::vector<std::vector<double>>& points) const;

  // Predicts the normal equations where every active parameter is a level
  // (one AffineParam per cost parameter; see the top of this file).
  void set_affine(std::vector<AffineParam> params) { affine_ = std::move(params); }
  // Whether an evaluation was predicted since set_affine; stop_predicting()
  // makes every later evaluation a pass.
  bool predicted() const { return predicted_; }
  void stop_predicting() const { affine_.clear(), anchor_ = Anchor{}; }
  // Whether the solver's SSR agrees with `evaluated`, the SSR of the law
  // evaluated at the same point by other means (the quality phase), to 1e-6
  // relative plus `floor`; true where nothing was predicted. Where it does
  // not, the law was not linear in a level after all: every later
  // evaluation is a pass.
  bool confirm(double solver_ssr, double evaluated, double floor) const;

  // Below this share of the size of its terms a predicted SSR is replaced by
  // a pass. Above it, the anchor's rounding (a few ulp of the terms) is at
  // most ~4e-11 of the SSR: under the solver's default function tolerance
  // (1e-10), so a trust-region decision does not turn on it.
  static constexpr double kPredictedShare = 1e-5;

 private:
  // The last pass over levels only, in the levels' values theta.
  struct Anchor {
    bool valid = false;
    std::vector<double> x;  // every cost parameter's u
    std::vector<bool> active;
    std::vector<int> idx;  // the active cost parameters
    Eigen::VectorXd theta, h;
    Eigen::MatrixXd G;
    double ssr = 0.0;
  };
  Eigen::VectorXd levels(double const* const* parameters, const std::vector<int>& idx) const;
  Eigen::MatrixXd chain(double const* const* parameters, const std::vector<int>& idx) const;
  std::optional<NormalEquations> predict(double const* const* parameters, const std::vector<bool>& active) const;
  std::optional<std::vector<double>> predicted_ssr(const std::vector<std::vector<double>>& points) const;
  void set_anchor(double const* const* parameters, const std::vector<bool>& active, const NormalEquations& ne) const;
  NormalEquations equations(double const* const* parameters, const std::vector<bool>& active) const;

  struct Cached {
    std::vector<double> x;  // the point
    std::vector<bool> active;
    NormalEquations ne;
  };
  bool at_point(const Cached& c, double const* const* parameters, const std::vector<bool>& active) const;
  const NormalEquations& fused_equations(double const* const* parameters, const std::vector<bool>& active) const;
  NormalEquations jacobian_equations(double const* const* parameters, const std::vector<bool>& active) const;
  void compress(const NormalEquations& ne, double* residuals, double** jacobians) const;

  BlockSource source_;
  int nparams_, threads_;
  bool fuse_;
  // The last evaluation with Jacobians, the last fused cost evaluation, and
  // the one kept aside. (Ceres evaluates one residual block from one thread
  // at a time.)
  mutable Cached jacobian_, fused_, kept_;
  mutable std::vector<AffineParam> affine_;  // empty: no predictions
  mutable Anchor anchor_;
  mutable bool predicted_ = false;
};

// The problem's CompressedCost (a static fit's only residual block) and its
// parameter blocks in the cost's order; null when P holds anything else.
const CompressedCost* compressed_cost(const ceres::Problem& P, std::vector<double*>* blocks);

// A BlockSource over blocks held in memory (one chunk).
class HeldBlocks {
 public:
  void add(std::unique_ptr<ceres::CostFunction> block, std::vector<int> params);
  BlockSource source() const;

 private:
  std::shared_ptr<std::vector<std::unique_ptr<ceres::CostFunction>>> blocks_ =
      std::make_shared<std::vector<std::unique_ptr<ceres::CostFunction>>>();
  std::shared_ptr<std::vector<std::vector<int>>> params_ = std::make_shared<std::vector<std::vector<int>>>();
};

}  // namespace stribeck::ident::detail
