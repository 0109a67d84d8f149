// The box and the distinct points of the start-point phase (start_points.hpp).
#include "start_points.hpp"

#include <algorithm>

namespace stribeck::ident::detail {

std::vector<BoxAxis> search_box(const ModelInfo& model, const Layout& L, const std::vector<int>& free,
                                const FitData& D) {
  double fmean = 0, fstd = 0;
  for (int e : D.train)
    for (double f : D.data[e].force) fmean += f;
  fmean /= static_cast<double>(D.n);
  for (int e : D.train)
    for (double f : D.data[e].force) fstd += (f - fmean) * (f - fmean);
  fstd = std::sqrt(fstd / static_cast<double>(D.n));
  std::vector<BoxAxis> box(free.size());
  for (size_t f = 0; f < free.size(); ++f) {
    const FitParam& p = L.params[free[f]];
    const double g = p.value;
    box[f].log = p.transform == Transform::kLog;
    if (box[f].log) {
      box[f].lo = p.lo > 0 ? p.lo : g / 100;
      box[f].hi = std::isfinite(p.hi) ? p.hi : g * 100;
    } else {
      double span = std::max(std::abs(g), 1e-12);
      if (p.model_index < 0) span = std::max(span, fstd);
      else span = std::max(span, std::abs(model.params[p.model_index].default_value));
      box[f].lo = std::max(p.lo, g - 2 * span);
      box[f].hi = std::min(p.hi, g + 2 * span);
    }
  }
  return box;
}

namespace {

// Position of a value in its axis of the box, in [0, 1].
double box_coordinate(const BoxAxis& a, double x) {
  const double t = a.log ? std::log(x / a.lo) / std::log(a.hi / a.lo) : (x - a.lo) / (a.hi - a.lo);
  return std::isfinite(t) ? std::min(1.0, std::max(0.0, t)) : 0.0;
}

// Two points closer than this share of every axis of the box are one basin.
constexpr double kMinSeparation = 0.02;

}  // namespace

std::vector<std::vector<double>> distinct_points(const std::vector<std::vector<double>>& ranked,
                                                 const std::vector<double>& guess, const std::vector<int>& free,
                                                 const std::vector<BoxAxis>& box, size_t want, size_t* distinct) {
  auto coords = [&](const std::vector<double>& x) {
    std::vector<double> c(free.size());
    for (size_t f = 0; f < free.size(); ++f) c[f] = box_coordinate(box[f], x[free[f]]);
    return c;
  };
  std::vector<std::vector<double>> kept_coords = {coords(guess)}, kept, skipped;
  for (const auto& x : ranked) {
    if (kept.size() == want) break;
    const auto c = coords(x);
    bool near = false;
    for (const auto& k : kept_coords) {
      double d = 0;
      for (size_t f = 0; f < c.size(); ++f) d = std::max(d, std::abs(c[f] - k[f]));
      near = near || d < kMinSeparation;
    }
    if (near) skipped.push_back(x);
    else kept.push_back(x), kept_coords.push_back(c);
  }
  *distinct = kept.size();
  for (size_t i = 0; kept.size() < want && i < skipped.size(); ++i) kept.push_back(skipped[i]);
  return kept;
}

}  // namespace stribeck::ident::detail
