#pragma once
// The coarse stage of the global search on the sweep engine (GPU when one is
// usable, else the CPU): a scrambled Sobol' design over the box of the free
// model parameters, ranked by RMSE against the measured force, top-K kept.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "problem.hpp"

namespace stribeck::ident::detail {

struct BoxAxis {
  double lo = 0, hi = 0;
  bool log = false;  // log-uniform
};

// The `keep` points of lowest cost, best first (each: cost, full external
// parameter vector of the layout).
inline std::vector<std::vector<double>> best_points(std::vector<std::pair<double, std::vector<double>>> scored,
                                                    size_t keep) {
  const size_t n = std::min(keep, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<long>(n), scored.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::vector<double>> out;
  for (size_t i = 0; i < n; ++i) out.push_back(std::move(scored[i].second));
  return out;
}

// Up to `k` starts (full external parameter vectors of the layout) from
// `points` design points; `box[i]` is the range of free parameter i of the
// layout (others stay at their current values). Only for layouts with one
// set of model parameters (not asymmetric, nothing per experiment); offsets
// and mass stay at their initial values during the coarse stage. `device`
// receives the backend's name.
std::vector<std::vector<double>> sweep_starts(const ModelInfo& model, const Layout& L,
                                              const std::vector<Prepared>& data, const std::vector<int>& train,
                                              const std::vector<BoxAxis>& box, int k, int points, std::uint64_t seed,
                                              std::string* device);

// Whether sweep_starts can serve this layout.
bool sweep_can_seed(const Layout& L);

}  // namespace stribeck::ident::detail
