#pragma once
// Private to identification/: the coarse stage of the global search by
// variable projection. Most static laws are linear in their levels (Coulomb,
// breakaway, preload, pressure coefficient, viscous: the model table's roles)
// once the few shape parameters (breakaway ratio, Stribeck velocity or rate)
// are fixed. A Sobol' design over the shape parameters alone, each point with
// its levels solved by bounded linear least squares, ranks shapes by the best
// fit they allow. A design over every parameter instead needs the levels and
// the shape right at once: on issue 23's plateaus log (truth K_brk 1.6,
// c_v 40, f_vfr 150) no point of 2,560 came near, and 32 local solves from the
// best of them found the truth once at 2 x 1e6 samples and never on the
// search subsample of 2 x 1e7.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "problem.hpp"
#include "sweep_starts.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "stribeck/kernels/sweep/space.hpp"

namespace stribeck::ident::detail {

// The samples the projection ranks shapes on: at most ~4000, as the sweep's
// coarse stage.
struct SearchSample {
  std::vector<Sample<double>> s;
  std::vector<double> y;  // the force the law must explain
};
inline SearchSample search_sample(const std::vector<Prepared>& data, const std::vector<int>& train) {
  long n_all = 0;
  for (int e : train) n_all += static_cast<long>(data[e].size());
  const size_t stride = std::max<size_t>(1, static_cast<size_t>(n_all / 4000));
  SearchSample sub;
  for (int e : train)
    for (size_t i = 0; i < data[e].size(); i += stride) {
      sub.s.push_back(Sample<double>{data[e].v[i], data[e].pa[i], data[e].pb[i], data[e].fn[i]});
      sub.y.push_back(data[e].y[i]);
    }
  return sub;
}

// The SSR on `sub` of the full external vector `values` of a layout that
// projected_search takes.
template <class M>
double sample_ssr(const SearchSample& sub, const Layout& L, const std::vector<double>& values) {
  std::vector<double> p;
  for (int g : L.model_map[0][0]) p.push_back(values[g]);
  const auto c = M::prepare(p.data());
  double ssr = 0;
  for (size_t i = 0; i < sub.s.size(); ++i) {
    const double r = sub.y[i] - M::force(c, sub.s[i]);
    ssr += r * r;
  }
  return ssr;
}

// The levels of one shape at a time (projected_search): the force's column
// per free level at a design point's shape parameters, and the levels solved
// by bounded linear least squares on the search sample.
template <class M>
class LevelProjection {
 public:
  using Vec = Eigen::VectorXd;
  // One point's workspace (one per thread).
  struct Work {
    std::vector<double> p;  // model parameters
    Vec f0, fi, x, rhs;
    Eigen::MatrixXd C;
    std::vector<int> state;  // per level: -1 free, -2 at lo, -3 at hi, >= 0 tied to that level
  };

  // `lin`, `shape`: model indices of the free levels / free shape
  // parameters; `shape_axis`: box axis of each shape parameter.
  LevelProjection(const ModelInfo& model, const Layout& L, const std::vector<BoxAxis>& box, std::uint64_t seed,
                  std::vector<int> lin, std::vector<int> shape, std::vector<int> shape_axis, const SearchSample& sub)
      : model_(model),
        L_(L),
        box_(box),
        seed_(seed),
        map_(L.model_map[0][0]),
        nm_(static_cast<int>(map_.size())),
        lin_(std::move(lin)),
        shape_(std::move(shape)),
        shape_axis_(std::move(shape_axis)),
        s_(sub.s),
        n_(static_cast<long>(s_.size())),
        y_(sub.y.data(), n_),
        k_(static_cast<int>(lin_.size())) {
    level_bounds();
  }

  Work workspace() const {
    Work w;
    for (int j = 0; j < nm_; ++j) w.p.push_back(L_.params[map_[j]].value);
    w.C.resize(n_, k_);
    w.x.resize(k_);
    w.state.resize(k_);
    return w;
  }

  // Linear after all? The force at the guess's levels must be the sum of
  // the columns (to rounding), at the first design point.
  bool linear() const {
    Work w = workspace();
    set_shape(w, 0);
    columns(w);
    Vec g(k_);
    for (int a = 0; a < k_; ++a) g(a) = L_.params[map_[lin_[a]]].value;
    for (int a = 0; a < k_; ++a) w.p[lin_[a]] = g(a);
    force(w, w.fi);
    const Vec predicted = w.f0 + w.C * g;
    return (w.fi - predicted).norm() <= 1e-9 * std::max(w.fi.norm(), 1e-300);
  }

  // The SSR of design point i (NaN where its levels cannot be solved or its
  // parameters are invalid), its model parameters left in w.p.
  double solve_point(Work& w, long i) const {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    Vec& x = w.x;
    std::vector<int>& state = w.state;
    // The level whose value a tied one takes (ties may chain).
    auto root = [&](int a) {
      while (state[a] >= 0) a = state[a];
      return a;
    };
    set_shape(w, i);
    columns(w);
    std::fill(state.begin(), state.end(), -1);
    bool solved = false;
    for (int round = 0; round <= 2 * k_ && !solved; ++round) {
      // Unknowns: the free levels, each carrying the columns tied to it;
      // levels at a bound (or tied to one) are known.
      std::vector<int> unknown;
      for (int a = 0; a < k_; ++a)
        if (state[a] == -1) unknown.push_back(a);
      w.rhs = y_ - w.f0;
      for (int a = 0; a < k_; ++a) {
        const int r = root(a);
        if (state[r] == -2 || state[r] == -3) {
          x(a) = state[r] == -2 ? lo_[r] : hi_[r];
          w.rhs -= x(a) * w.C.col(a);
        }
      }
      Eigen::MatrixXd A(n_, static_cast<long>(unknown.size()));
      for (size_t u = 0; u < unknown.size(); ++u) {
        A.col(static_cast<long>(u)) = w.C.col(unknown[u]);
        for (int a = 0; a < k_; ++a)
          if (state[a] >= 0 && root(a) == unknown[u]) A.col(static_cast<long>(u)) += w.C.col(a);
      }
      const Vec z = unknown.empty() ? Vec() : Vec(A.colPivHouseholderQr().solve(w.rhs));
      for (size_t u = 0; u < unknown.size(); ++u) x(unknown[u]) = z(static_cast<long>(u));
      for (int a = 0; a < k_; ++a)
        if (state[a] >= 0) x(a) = x(root(a));
      solved = true;
      for (int a = 0; a < k_; ++a) {
        if (state[a] != -1) continue;
        if (base_[a] >= 0 && x(a) < x(base_[a])) state[a] = base_[a], solved = false;
        else if (x(a) < lo_[a]) state[a] = -2, solved = false;
        else if (x(a) > hi_[a]) state[a] = -3, solved = false;
      }
    }
    if (!solved || !x.allFinite()) return kNaN;
    for (int a = 0; a < k_; ++a) w.p[lin_[a]] = x(a);
    if (!validate_params(model_, w.p.data()).empty()) return kNaN;
    force(w, w.fi);
    return (y_ - w.fi).squaredNorm();
  }

 private:
  // Bounds of each level; a level that exceeds another (F_brk >= F_C) is
  // tied to it where the solution breaks that rule.
  void level_bounds() {
    lo_.resize(k_), hi_.resize(k_), base_.assign(k_, -1);
    for (int a = 0; a < k_; ++a) {
      const FitParam& q = L_.params[map_[lin_[a]]];
      lo_[a] = q.lo, hi_[a] = q.hi;
      if (q.transform == Transform::kExcess) {
        const auto b = std::find(lin_.begin(), lin_.end(), L_.params[q.excess_base].model_index) - lin_.begin();
        if (b < k_) base_[a] = static_cast<int>(b);
        else lo_[a] = std::max(lo_[a], L_.params[q.excess_base].value);
      }
    }
  }
  // The coefficients once per parameter set, not per sample (prepare may
  // hold an exp: the cylinder laws' linear-zone slope); the same bits as
  // static_force.
  void force(Work& w, Vec& out) const {
    out.resize(n_);
    const auto c = M::prepare(w.p.data());
    for (long i = 0; i < n_; ++i) out(i) = M::force(c, s_[i]);
  }
  // The force with the levels at 0 and each level's column (its force per
  // unit) at the shape parameters in w.p.
  void columns(Work& w) const {
    for (int j : lin_) w.p[j] = 0.0;
    force(w, w.f0);
    for (int a = 0; a < k_; ++a) {
      w.p[lin_[a]] = 1.0;
      force(w, w.fi);
      w.C.col(a) = w.fi - w.f0;
      w.p[lin_[a]] = 0.0;
    }
  }
  // Design point i >= 0; i = -1 is the law without a breakaway (each
  // breakaway ratio at its lower bound, 1), which no random point hits
  // exactly and from which a local solve need not slide along c_v -> 0 (a
  // breakaway that never decays, the same law with the levels scaled).
  void set_shape(Work& w, long i) const {
    for (size_t d = 0; d < shape_.size(); ++d) {
      const BoxAxis& b = box_[shape_axis_[d]];
      const double t = sweep::sobol_unit(static_cast<std::uint64_t>(std::max(0L, i)), static_cast<int>(d), seed_);
      w.p[shape_[d]] = b.log ? b.lo * std::pow(b.hi / b.lo, t) : b.lo + (b.hi - b.lo) * t;
      const FitParam& q = L_.params[map_[shape_[d]]];
      if (i < 0 && model_.params[shape_[d]].role == ParamRole::kBreakawayRatio && std::isfinite(q.lo))
        w.p[shape_[d]] = q.lo;
    }
  }

  const ModelInfo& model_;
  const Layout& L_;
  const std::vector<BoxAxis>& box_;
  std::uint64_t seed_;
  const std::vector<int>& map_;
  int nm_;
  std::vector<int> lin_, shape_, shape_axis_;
  const std::vector<Sample<double>>& s_;
  long n_;
  Eigen::Map<const Vec> y_;
  int k_;
  std::vector<double> lo_, hi_;
  std::vector<int> base_;  // position in lin of the level it must not fall below
};

// Ranked starts (full external vectors of the layout, best first, at most
// `keep`) from `points` Sobol' points over the free shape parameters' box
// axes; empty where the projection does not apply: a layout the sweep cannot
// seed either (asymmetric, per-experiment parameters), offsets or a mass to
// fit, no free level or no free shape parameter, or a law that is not linear
// in its levels after all. The points run on `threads` threads; the ranking
// does not depend on how many.
template <class M>
std::vector<std::vector<double>> projected_search(const ModelInfo& model, const Layout& L,
                                                  const std::vector<Prepared>& data, const std::vector<int>& train,
                                                  const std::vector<int>& free, const std::vector<BoxAxis>& box,
                                                  int points, std::uint64_t seed, size_t keep, int threads) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> none;
  if (!sweep_can_seed(L) || L.mass >= 0) return none;
  for (int e : train)
    if (L.offset[e] >= 0) return none;
  const std::vector<int>& map = L.model_map[0][0];
  const int nm = static_cast<int>(map.size());
  std::vector<int> lin, shape;  // model indices of the free levels / free shape parameters
  std::vector<int> shape_axis;  // box axis of each shape parameter
  for (size_t f = 0; f < free.size(); ++f) {
    const auto j = std::find(map.begin(), map.end(), free[f]) - map.begin();
    if (j == nm) return none;
    if (linear_role(model.params[j].role)) lin.push_back(static_cast<int>(j));
    else shape.push_back(static_cast<int>(j)), shape_axis.push_back(static_cast<int>(f));
  }
  if (lin.empty() || shape.empty()) return none;

  const SearchSample sub = search_sample(data, train);
  if (static_cast<long>(sub.s.size()) < 2 * static_cast<long>(free.size())) return none;
  const LevelProjection<M> projection(model, L, box, seed, std::move(lin), std::move(shape), std::move(shape_axis),
                                      sub);
  if (!projection.linear()) return none;

  // The points are independent: threads take them in turns, each result
  // kept at its point's index, so the ranking is the same for any count.
  const long total = static_cast<long>(points) + 1;  // with i = -1
  std::vector<double> ssr(static_cast<size_t>(total), kNaN);
  std::vector<std::vector<double>> values(static_cast<size_t>(total));
#pragma omp parallel num_threads(std::max(1, threads))
  {
    typename LevelProjection<M>::Work w = projection.workspace();
#pragma omp for schedule(dynamic, 16)
    for (long t = 0; t < total; ++t) {
      ssr[t] = projection.solve_point(w, t - 1);
      if (std::isfinite(ssr[t])) values[t] = w.p;
    }
  }
  std::vector<std::pair<double, std::vector<double>>> scored;
  for (long t = 0; t < total; ++t) {
    if (!std::isfinite(ssr[t])) continue;
    std::vector<double> v;
    for (const auto& q : L.params) v.push_back(q.value);
    for (int j = 0; j < nm; ++j) v[map[j]] = values[t][j];
    scored.emplace_back(ssr[t], std::move(v));
  }
  return best_points(std::move(scored), keep);
}

}  // namespace stribeck::ident::detail
