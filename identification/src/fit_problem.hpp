#pragma once
// Private to identification/: the Ceres problems of a static fit. Each
// experiment's residuals come in blocks of samples (BlockCost), compressed
// into one residual block (CompressedCost): over samples held in memory
// (build_problem) or read chunk by chunk (build_streamed_problem); and the
// raw residuals (measured - fitted, no robust loss) the quality phases read.
#include <ceres/ceres.h>

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "block_cost.hpp"
#include "compressed_cost.hpp"
#include "fit_data.hpp"
#include "fit_helpers.hpp"
#include "problem.hpp"
#include "stream_source.hpp"

namespace stribeck::ident::detail {

// The parameter blocks one experiment's residuals depend on.
struct BlockSpec {
  std::vector<int> global;  // FitParam indices, in block order
  std::vector<LocalParam> locals;
  std::vector<std::array<int, 2>> map;  // [j] -> local index for sign 0 / 1
  int mass = -1, offset = -1;
};

// The blocks of experiment e under layout L (a model of `nparams`
// parameters); throws InputError for more free parameters than a block takes.
BlockSpec spec_for(const Layout& L, int e, size_t nparams);

// How the compressed cost may predict (compressed_cost.hpp): the cost
// parameters `used`, each a level where its role says so and the loss is
// plain least squares (a robust loss makes no residual affine).
std::vector<AffineParam> affine_params(const Layout& L, const std::vector<int>& used, const SampleLoss& loss);

template <class M>
BlockCost<M>* make_cost(const Layout& L, const BlockSpec& b, const Prepared* d, size_t begin, size_t end,
                        const SampleLoss& loss) {
  std::array<std::array<int, M::kNumParams>, 2> map;
  for (int j = 0; j < M::kNumParams; ++j)
    for (int s = 0; s < 2; ++s) map[s][j] = b.map[j][s];
  return new BlockCost<M>(d, begin, end, b.locals, map, b.mass, b.offset, L.asymmetric, loss);
}

// The fit as one Ceres problem: the per-sample residual blocks of every
// experiment, compressed into one residual block of k+1 residuals (see
// compressed_cost.hpp), so Ceres never holds the N x k Jacobian.
template <class M>
std::unique_ptr<ceres::Problem> build_problem(Layout& L, const std::vector<Prepared>& data,
                                              const std::vector<int>& exps, size_t block, const SampleLoss& loss,
                                              int threads, bool fuse = true) {
  HeldBlocks held;
  std::vector<int> pos(L.params.size(), -1), used;
  for (int e : exps) {
    const BlockSpec b = spec_for(L, e, M::kNumParams);
    for (int g : b.global)
      if (pos[g] < 0) pos[g] = static_cast<int>(used.size()), used.push_back(g);
    std::vector<int> local;
    for (int g : b.global) local.push_back(pos[g]);
    for (size_t k = 0; k < data[e].size(); k += block)
      held.add(std::unique_ptr<ceres::CostFunction>(
                   make_cost<M>(L, b, &data[e], k, std::min(data[e].size(), k + block), loss)),
               local);
  }
  auto P = std::make_unique<ceres::Problem>();
  std::vector<double*> blocks;
  for (int g : used) blocks.push_back(&L.params[g].u);
  auto* cost = new CompressedCost(held.source(), static_cast<int>(used.size()), threads, fuse);
  cost->set_affine(affine_params(L, used, loss));
  P->AddResidualBlock(cost, nullptr, blocks);
  constrain(*P, L);
  return P;
}

// Residuals without robust loss (measured - fitted) of one experiment.
template <class M>
std::vector<double> raw_residuals(const Layout& L, const Prepared& d, int e) {
  const BlockSpec b = spec_for(L, e, M::kNumParams);
  std::unique_ptr<BlockCost<M>> cost(make_cost<M>(L, b, &d, 0, d.size(), SampleLoss{}));
  std::vector<const double*> ptrs;
  for (int g : b.global) ptrs.push_back(&L.params[g].u);
  std::vector<double> r(d.size(), kNaN);
  cost->Evaluate(ptrs.data(), r.data(), nullptr);
  return r;
}

// The problem over every sample, streamed: per chunk, the blocks of `block`
// samples (chunks are whole numbers of blocks, so the blocks are those of
// build_problem), evaluated with threads over blocks and dropped.
template <class M>
std::unique_ptr<ceres::Problem> build_streamed_problem(Layout& L, const PreparedStream& st,
                                                       const std::vector<int>& exps, size_t block,
                                                       const SampleLoss& loss, int threads) {
  std::vector<int> pos(L.params.size(), -1), used;
  auto specs = std::make_shared<std::vector<BlockSpec>>(st.experiments());
  auto locals = std::make_shared<std::vector<std::vector<int>>>(st.experiments());
  for (int e : exps) {
    (*specs)[e] = spec_for(L, e, M::kNumParams);
    for (int g : (*specs)[e].global)
      if (pos[g] < 0) pos[g] = static_cast<int>(used.size()), used.push_back(g);
    for (int g : (*specs)[e].global) (*locals)[e].push_back(pos[g]);
  }
  const Layout* layout = &L;
  const PreparedStream* stream = &st;
  BlockSource source = [layout, stream, exps, block, loss, specs,
                        locals](const std::function<void(const BlockChunk&)>& use) {
    std::vector<std::unique_ptr<ceres::CostFunction>> costs;
    BlockChunk c;
    stream->for_each(exps, [&](int e, size_t, const Prepared& chunk) {
      costs.clear();
      c.blocks.clear();
      c.params.clear();
      for (size_t k = 0; k < chunk.size(); k += block) {
        costs.emplace_back(make_cost<M>(*layout, (*specs)[e], &chunk, k, std::min(chunk.size(), k + block), loss));
        c.blocks.push_back(costs.back().get());
        c.params.push_back(&(*locals)[e]);
      }
      use(c);
    });
  };
  auto P = std::make_unique<ceres::Problem>();
  std::vector<double*> blocks;
  for (int g : used) blocks.push_back(&L.params[g].u);
  auto* cost = new CompressedCost(std::move(source), static_cast<int>(used.size()), threads, true);
  cost->set_affine(affine_params(L, used, loss));
  P->AddResidualBlock(cost, nullptr, blocks);
  constrain(*P, L);
  return P;
}

// The residuals (measured - fitted, no robust loss) of the streamed
// experiments chunk by chunk: use(e, first row, chunk, residuals).
template <class M, class Use>
void for_streamed_residuals(const Layout& L, const PreparedStream& st, const std::vector<int>& exps, bool prefetch,
                            Use&& use) {
  std::vector<double> r;
  std::vector<BlockSpec> specs(st.experiments());
  std::vector<std::vector<const double*>> ptrs(st.experiments());
  for (int e : exps) {
    specs[e] = spec_for(L, e, M::kNumParams);
    for (int g : specs[e].global) ptrs[e].push_back(&L.params[g].u);
  }
  st.for_each(
      exps,
      [&](int e, size_t begin, const Prepared& c) {
        std::unique_ptr<BlockCost<M>> cost(make_cost<M>(L, specs[e], &c, 0, c.size(), SampleLoss{}));
        r.assign(c.size(), kNaN);
        cost->Evaluate(ptrs[e].data(), r.data(), nullptr);
        use(e, begin, c, r);
      },
      prefetch);
}

}  // namespace stribeck::ident::detail
