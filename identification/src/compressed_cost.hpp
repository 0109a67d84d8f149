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
#include <ceres/ceres.h>

#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <vector>

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

 private:
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
