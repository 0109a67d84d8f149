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
// Look-ahead (for sources whose pass is expensive in itself, a log streamed
// from HDF5): a trust-region step evaluates the cost at the trial point, and
// when the step is accepted, the Jacobian at the same point. With
// `look_ahead`, a cost-only evaluation that follows a Jacobian evaluation
// also sums the normal equations of that Jacobian's parameters, and the next
// Jacobian evaluation at the same point reuses them: one pass over the log
// per accepted step instead of two. The normal equations are the same sums
// in the same order either way; a trial point's SSR then comes from residuals
// evaluated alongside their Jacobian (equal but for rounding).
#include <ceres/ceres.h>

#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <mutex>
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

class CompressedCost : public ceres::CostFunction {
 public:
  CompressedCost(BlockSource source, int nparams, int threads, bool look_ahead = false);

  bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override;

  // Normal equations at `parameters` over the parameters whose `active` flag
  // is set, summed over all chunks in order.
  NormalEquations normal_equations(double const* const* parameters, const std::vector<bool>& active) const;

 private:
  BlockSource source_;
  int nparams_, threads_;
  bool look_ahead_;
  // Look-ahead state: the active set of the last Jacobian evaluation (empty
  // after a cost-only one), and the normal equations summed ahead at
  // `ahead_at_`.
  mutable std::mutex mutex_;
  mutable std::vector<bool> last_active_;
  mutable std::vector<double> ahead_at_;
  mutable std::vector<bool> ahead_active_;
  mutable NormalEquations ahead_;
};

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
