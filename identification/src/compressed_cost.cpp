#include "compressed_cost.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace stribeck::ident::detail {

namespace {
// Eigenvalues of the column-scaled J^T J below this share of the largest carry
// no curvature: their directions get no compressed residual (and no step).
constexpr double kNoCurvature = 1e-14;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

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

int threads_for(long residuals, int threads) {
  return static_cast<int>(std::max(1L, std::min<long>(threads, residuals / kSamplesPerThread)));
}

namespace {
long chunk_residuals(const BlockChunk& chunk) {
  long n = 0;
  for (const auto* b : chunk.blocks) n += b->num_residuals();
  return n;
}
}  // namespace

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
#pragma omp parallel num_threads(threads_for(chunk_residuals(chunk), threads))
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

CompressedCost::CompressedCost(BlockSource source, int nparams, int threads, bool fuse)
    : source_(std::move(source)), nparams_(nparams), threads_(std::max(1, threads)), fuse_(fuse) {
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

bool CompressedCost::at_point(const Cached& c, double const* const* parameters, const std::vector<bool>& active) const {
  if (c.x.size() != static_cast<size_t>(nparams_) || c.active != active) return false;
  for (int g = 0; g < nparams_; ++g)  // bit for bit: -0.0 is not 0.0 here
    if (std::memcmp(&parameters[g][0], &c.x[g], sizeof(double)) != 0) return false;
  return true;
}

// The levels' values theta at `parameters` (transforms applied as BlockCost
// applies them), for the cost parameters idx.
Eigen::VectorXd CompressedCost::levels(double const* const* parameters, const std::vector<int>& idx) const {
  auto value = [&](int g) {
    return affine_[g].transform == Transform::kLog ? std::exp(parameters[g][0]) : parameters[g][0];
  };
  Eigen::VectorXd theta(idx.size());
  for (size_t a = 0; a < idx.size(); ++a) {
    const AffineParam& p = affine_[idx[a]];
    theta(a) = p.transform == Transform::kExcess ? value(p.base) + parameters[idx[a]][0] : value(idx[a]);
  }
  return theta;
}

// T = d theta / d u over the cost parameters idx (an excess moves with its
// base).
Eigen::MatrixXd CompressedCost::chain(double const* const* parameters, const std::vector<int>& idx) const {
  auto slope = [&](int g) { return affine_[g].transform == Transform::kLog ? std::exp(parameters[g][0]) : 1.0; };
  const int k = static_cast<int>(idx.size());
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(k, k);
  for (int a = 0; a < k; ++a) {
    T(a, a) = slope(idx[a]);
    const int base = affine_[idx[a]].base;
    if (affine_[idx[a]].transform != Transform::kExcess || base < 0) continue;
    const auto b = std::find(idx.begin(), idx.end(), base) - idx.begin();
    if (b < k) T(a, b) = slope(base);
  }
  return T;
}

// The normal equations at `parameters` over `active` (or the SSR alone, none
// active) from the anchor; nothing where it cannot give them: no anchor,
// another set of active parameters, a parameter off the anchor that is not
// active there, or an SSR lost to cancellation.
std::optional<NormalEquations> CompressedCost::predict(double const* const* parameters,
                                                       const std::vector<bool>& active) const {
  if (affine_.empty() || !anchor_.valid) return std::nullopt;
  const bool cost_only = std::find(active.begin(), active.end(), true) == active.end();
  if (!cost_only && active != anchor_.active) return std::nullopt;
  for (int g = 0; g < nparams_; ++g)
    if (!anchor_.active[g] && std::memcmp(&parameters[g][0], &anchor_.x[g], sizeof(double)) != 0) return std::nullopt;
  const Eigen::VectorXd d = levels(parameters, anchor_.idx) - anchor_.theta;
  const Eigen::VectorXd Gd = anchor_.G * d;
  const double cross = 2.0 * d.dot(anchor_.h), quad = d.dot(Gd);
  NormalEquations ne;
  ne.ssr = anchor_.ssr + cross + quad;
  if (!(ne.ssr >= kPredictedShare * (anchor_.ssr + std::abs(cross) + quad))) return std::nullopt;
  if (cost_only) {
    ne.JtJ = Eigen::MatrixXd::Zero(0, 0);
    ne.Jtr = Eigen::VectorXd::Zero(0);
  } else {
    const Eigen::MatrixXd T = chain(parameters, anchor_.idx);
    ne.JtJ = T.transpose() * anchor_.G * T;
    ne.Jtr = T.transpose() * (anchor_.h + Gd);
  }
  ne.ok = std::isfinite(ne.ssr) && ne.JtJ.allFinite() && ne.Jtr.allFinite();
  if (!ne.ok) return std::nullopt;
  return ne;
}

// A pass over levels only becomes the anchor: its normal equations taken
// from u to theta (G = T^-T J^T J T^-1, h = T^-T J^T r).
void CompressedCost::set_anchor(double const* const* parameters, const std::vector<bool>& active,
                                const NormalEquations& ne) const {
  if (affine_.empty() || !ne.ok) return;
  std::vector<int> idx;
  for (int g = 0; g < nparams_; ++g)
    if (active[g]) {
      if (!affine_[g].level) return;
      idx.push_back(g);
    }
  if (idx.empty()) return;
  // An excess held while its base moves changes its value: not predicted.
  for (int g = 0; g < nparams_; ++g)
    if (!active[g] && affine_[g].transform == Transform::kExcess && affine_[g].base >= 0 && active[affine_[g].base])
      return;
  const Eigen::MatrixXd Ti = chain(parameters, idx).inverse();
  anchor_.valid = true;
  anchor_.x.assign(nparams_, 0.0);
  for (int g = 0; g < nparams_; ++g) anchor_.x[g] = parameters[g][0];
  anchor_.active = active;
  anchor_.idx = idx;
  anchor_.theta = levels(parameters, idx);
  anchor_.G = Ti.transpose() * ne.JtJ * Ti;
  anchor_.h = Ti.transpose() * ne.Jtr;
  anchor_.ssr = ne.ssr;
}

// The normal equations at `parameters` over `active`: predicted from the
// anchor where it can, else a pass (the next anchor).
NormalEquations CompressedCost::equations(double const* const* parameters, const std::vector<bool>& active) const {
  if (auto ne = predict(parameters, active)) {
    predicted_ = true;
    return *ne;
  }
  NormalEquations ne = normal_equations(parameters, active);
  set_anchor(parameters, active, ne);
  return ne;
}

bool CompressedCost::confirm(double solver_ssr, double evaluated, double floor) const {
  if (!predicted_ || std::abs(solver_ssr - evaluated) <= 1e-6 * std::max(solver_ssr, evaluated) + floor) return true;
  stop_predicting();
  return false;
}

// The normal equations at `parameters` over `active`, in fused_: kept from
// the last call when it was at this point, else a pass over the blocks.
const NormalEquations& CompressedCost::fused_equations(double const* const* parameters,
                                                       const std::vector<bool>& active) const {
  if (!at_point(fused_, parameters, active)) {
    fused_.x.assign(nparams_, 0.0);
    for (int g = 0; g < nparams_; ++g) fused_.x[g] = parameters[g][0];
    fused_.active = active;
    fused_.ne = equations(parameters, active);
  }
  return fused_.ne;
}

// The normal equations at `parameters` over `active`: from the last fused
// cost evaluation when it was at this point, else a pass over the blocks.
// Either is what the solver's Jacobian is made of next; it is kept as such.
NormalEquations CompressedCost::jacobian_equations(double const* const* parameters,
                                                   const std::vector<bool>& active) const {
  fused_equations(parameters, active);
  jacobian_ = fused_;
  return jacobian_.ne;
}

bool CompressedCost::Evaluate(double const* const* parameters, double* residuals, double** jacobians) const {
  std::vector<bool> active(nparams_, false);
  if (jacobians)
    for (int i = 0; i < nparams_; ++i) active[i] = jacobians[i] != nullptr;
  const bool with_jacobian = std::find(active.begin(), active.end(), true) != active.end();
  if (!with_jacobian) {
    std::fill(residuals, residuals + nparams_ + 1, 0.0);
    // Fused: the normal equations over the solver's active parameters come
    // with the SSR (each sample's law once for both); an accepted step's
    // Jacobian at this point is then taken from them (jacobian_equations).
    if (fuse_ && !jacobian_.active.empty()) {
      const NormalEquations& ne = fused_equations(parameters, jacobian_.active);
      if (ne.ok) {
        residuals[nparams_] = std::sqrt(ne.ssr);
        return true;
      }
    }
    const NormalEquations ne = equations(parameters, active);
    if (!ne.ok) return false;
    residuals[nparams_] = std::sqrt(ne.ssr);
    return true;
  }
  const NormalEquations ne = jacobian_equations(parameters, active);
  if (!ne.ok) return false;
  compress(ne, residuals, jacobians);
  return true;
}

// The compressed residuals and Jacobian of the normal equations ne (over the
// parameters whose jacobians[g] is set, in order).
void CompressedCost::compress(const NormalEquations& ne, double* residuals, double** jacobians) const {
  std::fill(residuals, residuals + nparams_ + 1, 0.0);
  const int m = static_cast<int>(ne.Jtr.size());
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
}

bool CompressedCost::last_jacobian(double const* const* parameters, const std::vector<bool>& active,
                                   std::vector<std::vector<double>>* columns) const {
  const Cached* c = at_point(jacobian_, parameters, active) ? &jacobian_
                    : at_point(kept_, parameters, active)   ? &kept_
                                                            : nullptr;
  if (!c || !c->ne.ok) return false;
  std::vector<double> r(nparams_ + 1);
  std::vector<std::vector<double>> cols;
  std::vector<double*> jac(nparams_, nullptr);
  for (int g = 0; g < nparams_; ++g)
    if (active[g]) cols.emplace_back(nparams_ + 1, 0.0);
  for (int g = 0, a = 0; g < nparams_; ++g)
    if (active[g]) jac[g] = cols[a++].data();
  compress(c->ne, r.data(), jac.data());
  *columns = std::move(cols);
  return true;
}

namespace {
// 2 * Ceres' cost of a cost-only evaluation with this SSR: Evaluate's
// residual is sqrt(SSR), Ceres' cost 0.5 * its square.
double twice_cost(double ssr) {
  const double c = std::sqrt(ssr);
  const double t = 2.0 * (0.5 * (c * c));
  return std::isfinite(ssr) && std::isfinite(t) ? t : kInfinity;
}
}  // namespace

// ssr_at from the anchor, where it can predict every point.
std::optional<std::vector<double>> CompressedCost::predicted_ssr(const std::vector<std::vector<double>>& points) const {
  if (affine_.empty() || points.empty()) return std::nullopt;
  const std::vector<bool> none(nparams_, false);
  std::vector<double> ssr;
  std::vector<const double*> ptrs(nparams_);
  for (const auto& x : points) {
    for (int g = 0; g < nparams_; ++g) ptrs[g] = &x[g];
    const auto ne = predict(ptrs.data(), none);
    if (!ne) return std::nullopt;
    ssr.push_back(twice_cost(ne->ssr));
  }
  predicted_ = true;
  return ssr;
}

std::vector<double> CompressedCost::ssr_at(const std::vector<std::vector<double>>& points) const {
  const int np = static_cast<int>(points.size());
  if (auto predicted = predicted_ssr(points)) return *predicted;
  std::vector<double> ssr(np, 0.0);
  std::vector<char> ok(np, 1);
  source_([&](const BlockChunk& chunk) {
    const int nb = static_cast<int>(chunk.blocks.size());
    std::vector<double> part(static_cast<size_t>(nb) * np, 0.0);
    std::vector<char> part_ok(static_cast<size_t>(nb) * np, 1);
#pragma omp parallel num_threads(threads_for(chunk_residuals(chunk), threads_))
    {
      std::vector<double> r;
      std::vector<const double*> ptrs;
#pragma omp for schedule(dynamic, 4)
      for (int b = 0; b < nb; ++b) {
        const std::vector<int>& gp = *chunk.params[b];
        r.assign(chunk.blocks[b]->num_residuals(), 0.0);
        ptrs.resize(gp.size());
        for (int p = 0; p < np; ++p) {  // every point while the block's samples are in cache
          for (size_t l = 0; l < gp.size(); ++l) ptrs[l] = &points[p][gp[l]];
          const size_t at = static_cast<size_t>(b) * np + p;
          if (chunk.blocks[b]->Evaluate(ptrs.data(), r.data(), nullptr))
            part[at] = dot(r.data(), r.data(), static_cast<int>(r.size()));
          else part_ok[at] = 0;
        }
      }
    }
    // Summed as normal_equations sums them: per chunk in block order, then
    // the chunks in order.
    for (int p = 0; p < np; ++p) {
      double s = 0.0;
      for (int b = 0; b < nb; ++b) {
        const size_t at = static_cast<size_t>(b) * np + p;
        if (part_ok[at]) s += part[at];
        else ok[p] = 0;
      }
      ssr[p] += s;
    }
  });
  for (int p = 0; p < np; ++p) ssr[p] = ok[p] ? twice_cost(ssr[p]) : kInfinity;
  return ssr;
}

const CompressedCost* compressed_cost(const ceres::Problem& P, std::vector<double*>* blocks) {
  std::vector<ceres::ResidualBlockId> ids;
  P.GetResidualBlocks(&ids);
  if (ids.size() != 1) return nullptr;
  const auto* cost = dynamic_cast<const CompressedCost*>(P.GetCostFunctionForResidualBlock(ids[0]));
  if (cost) P.GetParameterBlocksForResidualBlock(ids[0], blocks);
  return cost;
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
