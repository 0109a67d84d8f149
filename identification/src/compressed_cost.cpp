#include "compressed_cost.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace stribeck::ident::detail {

namespace {
// Eigenvalues of the column-scaled J^T J below this share of the largest carry
// no curvature: their directions get no compressed residual (and no step).
constexpr double kNoCurvature = 1e-14;

// Sum of a[i] * b[i] over n rows in four interleaved partial sums (rows i mod
// 4), added pairwise at the end: a fixed order (the same bits on any thread),
// without the latency chain of one running sum, so the compiler can keep four
// independent adds in flight (or one vector).
double dot(const double* a, const double* b, int n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}
}  // namespace

void NormalEquations::add(const NormalEquations& o) {
  if (JtJ.size() == 0) {
    JtJ = o.JtJ;
    Jtr = o.Jtr;
  } else {
    JtJ += o.JtJ;
    Jtr += o.Jtr;
  }
  ssr += o.ssr;
  ok = ok && o.ok;
}

NormalEquations chunk_normal_equations(const BlockChunk& chunk, double const* const* parameters,
                                       const std::vector<bool>& active, int threads) {
  // Position of each parameter among the active ones (-1: none).
  std::vector<int> pos(active.size(), -1);
  int m = 0;
  for (size_t i = 0; i < active.size(); ++i)
    if (active[i]) pos[i] = m++;
  const int nb = static_cast<int>(chunk.blocks.size());
  const size_t stride = static_cast<size_t>(m) * m + m + 1;
  // Per-block partial sums, added in block order afterwards: the result does
  // not depend on how blocks were spread over threads.
  std::vector<double> part(static_cast<size_t>(nb) * stride, 0.0);
  std::vector<char> ok(nb, 1);
#pragma omp parallel num_threads(std::max(1, threads))
  {
    std::vector<double> r, jac;
    std::vector<const double*> ptrs;
    std::vector<double*> jptrs;
    std::vector<int> lanes;  // active position of each local parameter
#pragma omp for schedule(dynamic, 4)
    for (int b = 0; b < nb; ++b) {
      const std::vector<int>& gp = *chunk.params[b];
      const int nl = static_cast<int>(gp.size());
      const int nres = chunk.blocks[b]->num_residuals();
      r.assign(nres, 0.0);
      ptrs.resize(nl);
      jptrs.assign(nl, nullptr);
      lanes.resize(nl);
      int na = 0;
      for (int l = 0; l < nl; ++l) lanes[l] = pos[gp[l]], na += lanes[l] >= 0;
      jac.resize(static_cast<size_t>(nres) * std::max(1, na));
      for (int l = 0, a = 0; l < nl; ++l) {
        ptrs[l] = parameters[gp[l]];
        if (lanes[l] >= 0) jptrs[l] = jac.data() + static_cast<size_t>(a++) * nres;
      }
      double* out = part.data() + static_cast<size_t>(b) * stride;
      if (!chunk.blocks[b]->Evaluate(ptrs.data(), r.data(), na ? jptrs.data() : nullptr)) {
        ok[b] = 0;
        continue;
      }
      out[stride - 1] = dot(r.data(), r.data(), nres);
      for (int l = 0; l < nl; ++l) {
        if (lanes[l] < 0) continue;
        const double* ja = jptrs[l];
        out[static_cast<size_t>(m) * m + lanes[l]] += dot(ja, r.data(), nres);
        // J^T J is symmetric: each pair once, mirrored.
        for (int l2 = l; l2 < nl; ++l2) {
          if (lanes[l2] < 0) continue;
          const double s = dot(ja, jptrs[l2], nres);
          out[lanes[l] * m + lanes[l2]] += s;
          if (l2 != l) out[lanes[l2] * m + lanes[l]] += s;
        }
      }
    }
  }
  NormalEquations ne;
  ne.JtJ = Eigen::MatrixXd::Zero(m, m);
  ne.Jtr = Eigen::VectorXd::Zero(m);
  for (int b = 0; b < nb; ++b) {
    if (!ok[b]) {
      ne.ok = false;
      continue;
    }
    const double* p = part.data() + static_cast<size_t>(b) * stride;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < m; ++j) ne.JtJ(i, j) += p[i * m + j];
      ne.Jtr(i) += p[static_cast<size_t>(m) * m + i];
    }
    ne.ssr += p[stride - 1];
  }
  return ne;
}

CompressedCost::CompressedCost(BlockSource source, int nparams, int threads, bool look_ahead)
    : source_(std::move(source)), nparams_(nparams), threads_(std::max(1, threads)), look_ahead_(look_ahead) {
  set_num_residuals(nparams + 1);
  for (int i = 0; i < nparams; ++i) mutable_parameter_block_sizes()->push_back(1);
}

NormalEquations CompressedCost::normal_equations(double const* const* parameters,
                                                 const std::vector<bool>& active) const {
  NormalEquations sum;
  source_([&](const BlockChunk& chunk) { sum.add(chunk_normal_equations(chunk, parameters, active, threads_)); });
  if (sum.JtJ.size() == 0) {  // no chunk at all
    int m = 0;
    for (bool a : active) m += a;
    sum.JtJ = Eigen::MatrixXd::Zero(m, m);
    sum.Jtr = Eigen::VectorXd::Zero(m);
  }
  sum.ok = sum.ok && std::isfinite(sum.ssr) && sum.JtJ.allFinite() && sum.Jtr.allFinite();
  return sum;
}

bool CompressedCost::Evaluate(double const* const* parameters, double* residuals, double** jacobians) const {
  std::vector<bool> active(nparams_, false);
  if (jacobians)
    for (int i = 0; i < nparams_; ++i) active[i] = jacobians[i] != nullptr;
  NormalEquations ne;
  if (!look_ahead_) {
    ne = normal_equations(parameters, active);
  } else {
    std::vector<double> x(nparams_);
    for (int i = 0; i < nparams_; ++i) x[i] = parameters[i][0];
    const std::lock_guard<std::mutex> lock(mutex_);
    if (jacobians && x == ahead_at_ && active == ahead_active_) {
      ne = std::move(ahead_);
    } else if (!jacobians && !last_active_.empty()) {
      // A trial point after a Jacobian: sum that Jacobian's normal equations
      // too, in case the step is accepted. The cost is the same SSR.
      ahead_ = normal_equations(parameters, last_active_);
      ahead_at_ = x;
      ahead_active_ = last_active_;
      ne.ssr = ahead_.ssr;
      ne.ok = ahead_.ok;
    } else {
      ne = normal_equations(parameters, active);
    }
    if (jacobians) {
      ahead_at_.clear();
      last_active_ = active;
    } else {
      last_active_.clear();
    }
  }
  if (!ne.ok) return false;
  if (!jacobians) {  // cost only
    std::fill(residuals, residuals + nparams_ + 1, 0.0);
    residuals[nparams_] = std::sqrt(ne.ssr);
    return true;
  }
  std::fill(residuals, residuals + nparams_ + 1, 0.0);
  const int m = static_cast<int>(ne.Jtr.size());
  if (m == 0) {
    residuals[nparams_] = std::sqrt(ne.ssr);
    return true;
  }
  // Decompose the column-scaled J^T J (unit diagonal), so "no curvature"
  // means a flat direction, not a parameter in small units: with
  // D = diag(J^T J)^(-1/2) and D J^T J D = W L W^T, R = L^(1/2) W^T D^-1 and
  // z = L^(-1/2) W^T D J^T r (R^T z = J^T r, R^T R = J^T J).
  Eigen::VectorXd d = Eigen::VectorXd::Zero(m);
  for (int i = 0; i < m; ++i)
    if (ne.JtJ(i, i) > 0) d(i) = 1.0 / std::sqrt(ne.JtJ(i, i));
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(d.asDiagonal() * ne.JtJ * d.asDiagonal());
  const Eigen::VectorXd lambda = es.eigenvalues();
  const double floor = kNoCurvature * std::max(lambda(m - 1), 0.0);
  const Eigen::VectorXd wtg = es.eigenvectors().transpose() * (d.asDiagonal() * ne.Jtr);
  double zz = 0;
  for (int i = 0; i < m; ++i) {
    const double z = lambda(i) > floor && lambda(i) > 0 ? wtg(i) / std::sqrt(lambda(i)) : 0.0;
    residuals[i] = z;
    zz += z * z;
  }
  residuals[nparams_] = std::sqrt(std::max(0.0, ne.ssr - zz));
  for (int g = 0, a = 0; g < nparams_; ++g) {
    if (!jacobians[g]) continue;
    for (int i = 0; i <= nparams_; ++i) jacobians[g][i] = 0.0;
    if (d(a) > 0)
      for (int i = 0; i < m; ++i)
        if (lambda(i) > floor && lambda(i) > 0) jacobians[g][i] = std::sqrt(lambda(i)) * es.eigenvectors()(a, i) / d(a);
    ++a;
  }
  return true;
}

void HeldBlocks::add(std::unique_ptr<ceres::CostFunction> block, std::vector<int> params) {
  blocks_->push_back(std::move(block));
  params_->push_back(std::move(params));
}

BlockSource HeldBlocks::source() const {
  auto blocks = blocks_;
  auto params = params_;
  return [blocks, params](const std::function<void(const BlockChunk&)>& use) {
    BlockChunk c;
    for (size_t b = 0; b < blocks->size(); ++b) {
      c.blocks.push_back((*blocks)[b].get());
      c.params.push_back(&(*params)[b]);
    }
    use(c);
  };
}

}  // namespace stribeck::ident::detail
