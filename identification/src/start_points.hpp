#pragma once
// Private to identification/: the phase "start points" of a static fit. The
// data-driven guess first, then distinct points of a coarse evaluation over
// the box of the free parameters, best first: levels projected for each
// shape (projected_search.hpp), the sweep engine's ranking of a Sobol'
// design (sweep_starts.hpp) or, for layouts it cannot take, the same design
// on the fit's own residual blocks.
#include <cmath>
#include <cstdint>
#include <exception>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "fit_data.hpp"
#include "fit_problem.hpp"
#include "projected_search.hpp"
#include "sweep_starts.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/workloads/threads.hpp"

namespace stribeck::ident::detail {

// The box: finite bounds where given, else around the guess.
std::vector<BoxAxis> search_box(const ModelInfo& model, const Layout& L, const std::vector<int>& free,
                                const FitData& D);

// Keeps `want` of the ranked points, skipping those within kMinSeparation
// (per axis of the box) of one already kept, so the refinements explore
// different basins rather than one basin many times; fills up with the
// skipped ones, in rank order, when too few are distinct (`distinct`: how
// many were).
std::vector<std::vector<double>> distinct_points(const std::vector<std::vector<double>>& ranked,
                                                 const std::vector<double>& guess, const std::vector<int>& free,
                                                 const std::vector<BoxAxis>& box, size_t want, size_t* distinct);

// The coarse evaluation on the fit's own residual blocks (CPU), for layouts
// the sweep engine cannot take (asymmetric, per-experiment): the project's
// scrambled Sobol' points over the box, on a subsample of ~4000 samples.
template <class M>
std::vector<std::vector<double>> residual_search(Layout& L, const FitData& D, const std::vector<int>& free,
                                                 const std::vector<BoxAxis>& box, int points, size_t block,
                                                 const SampleLoss& loss, std::uint64_t seed, size_t keep) {
  const std::vector<Prepared> sub = subsample(D.data, static_cast<size_t>(D.n) / 4000);
  auto coarse = build_problem<M>(L, sub, D.train, block, loss, 1, false);  // costs only
  std::vector<double> saved;
  for (const auto& p : L.params) saved.push_back(p.value);
  std::vector<std::pair<double, std::vector<double>>> scored;
  for (int i = 0; i < points; ++i) {
    for (size_t f = 0; f < free.size(); ++f) {
      const double t = sweep::sobol_unit(static_cast<std::uint64_t>(i), static_cast<int>(f), seed);
      L.params[free[f]].value =
          box[f].log ? box[f].lo * std::pow(box[f].hi / box[f].lo, t) : box[f].lo + (box[f].hi - box[f].lo) * t;
    }
    set_internal_from_values(L);
    double cost = kNaN;
    if (coarse->Evaluate(ceres::Problem::EvaluateOptions(), &cost, nullptr, nullptr, nullptr) && std::isfinite(cost)) {
      std::vector<double> v;
      for (const auto& p : L.params) v.push_back(p.value);
      scored.emplace_back(cost, std::move(v));
    }
  }
  for (size_t i = 0; i < L.params.size(); ++i) L.params[i].value = saved[i];
  set_internal_from_values(L);
  return best_points(std::move(scored), keep);
}

// `guess_after` (multistart.hpp): how many candidates are refined before the
// guess in automatic mode.
template <class M>
std::vector<std::vector<double>> start_points(const ModelInfo& model, Layout& L, const FitData& D,
                                              const std::vector<int>& free, const FitOptions& o, size_t block,
                                              const SampleLoss& loss, FitSummary& S, int* guess_after) {
  *guess_after = 0;
  std::vector<double> guess;
  for (const auto& p : L.params) guess.push_back(p.value);
  std::vector<std::vector<double>> starts = {guess};
  const int k = static_cast<int>(free.size());
  const int wanted = (o.starts > 0 ? o.starts : o.max_starts) - 1;
  if (k == 0 || wanted <= 0) return starts;
  const std::vector<BoxAxis> box = search_box(model, L, free, D);
  const int points = o.coarse_points > 0 ? o.coarse_points : std::max(1024, 512 * k);
  // A pool larger than needed, so distinct basins can be picked from it.
  const size_t pool = static_cast<size_t>(std::min(points, 4 * wanted));
  // Shapes ranked with their levels solved come first: each is the best fit
  // its shape allows (projected_search.hpp); the design over every parameter
  // fills the rest.
  std::vector<std::vector<double>> ranked =
      projected_search<M>(model, L, D.data, D.train, free, box, std::min(points, 1024), o.seed, pool,
                          o.num_threads > 0 ? o.num_threads : workloads::job_threads());
  size_t distinct = 0;
  std::vector<std::vector<double>> picked =
      distinct_points(ranked, guess, free, box, static_cast<size_t>(wanted), &distinct);
  const bool projected = !ranked.empty();
  if (projected) S.search_device = "levels projected";
  // The design is ranked only where the projected points hold too few
  // distinct ones (distinct_points takes them first, so the picks with it
  // would be these): on the CPU it costs more than the projection.
  if (distinct < static_cast<size_t>(wanted)) {
    std::vector<std::vector<double>> design;
    std::string device;
    bool seeded = false;
    if (sweep_can_seed(L)) {
      // The sweep engine (GPU when usable) ranks a Sobol' design by RMSE.
      try {
        design = sweep_starts(model, L, D.data, D.train, box, static_cast<int>(pool), points, o.seed, &device);
        seeded = true;
      } catch (const std::exception& err) {  // the search is an aid: fall back, say so
        S.warnings.push_back(std::string("the sweep engine could not run the coarse search (") + err.what() +
                             "); it ran on the fit's residuals instead");
      }
    }
    if (!seeded) {
      design = residual_search<M>(L, D, free, box, points, block, loss, o.seed, pool);
      device = "cpu (fit residuals, Sobol')";
    }
    S.search_device = projected ? device + " + levels projected" : device;
    ranked.insert(ranked.end(), std::make_move_iterator(design.begin()), std::make_move_iterator(design.end()));
    picked = distinct_points(ranked, guess, free, box, static_cast<size_t>(wanted), &distinct);
  }
  if (projected) {
    // The guess is refined after those of the two best projected points
    // that fit the search's samples better than it does: where they agree,
    // the search ends without the guess's walk from a worse basin.
    const SearchSample sub = search_sample(D.data, D.train);
    const double at_guess = sample_ssr<M>(sub, L, guess);
    while (*guess_after < std::min(2, static_cast<int>(picked.size())) &&
           sample_ssr<M>(sub, L, picked[*guess_after]) < at_guess)
      ++*guess_after;
  }
  for (auto& x : picked) starts.push_back(std::move(x));
  return starts;
}

}  // namespace stribeck::ident::detail
