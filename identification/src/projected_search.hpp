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
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "block_cost.hpp"
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
    std::vector<double> p;   // model parameters
    Vec f0, fi, r, x, b;     // force at zero levels; scratch; y - f0; levels; C^T r
    Eigen::MatrixXd C, G;    // the columns; C^T C
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
  // the columns (to rounding), at the first design point. The columns then
  // come from one pass of the law's analytic gradient (M::force_grad) where
  // it gives those of the force there, instead of 1 + levels passes of
  // M::force.
  bool linear() {
    Work w = workspace();
    set_shape(w, 0);
    columns_of_force(w);
    Vec g(k_);
    for (int a = 0; a < k_; ++a) g(a) = L_.params[map_[lin_[a]]].value;
    for (int a = 0; a < k_; ++a) w.p[lin_[a]] = g(a);
    force(w, w.fi);
    const Vec predicted = w.f0 + w.C * g;
    if (!close(w.fi, predicted)) return false;
    if constexpr (HasForceGrad<M>::value) {
      Work d = workspace();
      set_shape(d, 0);
      columns_of_gradient(d);
      by_gradient_ = close(d.f0, w.f0);
      for (int a = 0; a < k_; ++a) by_gradient_ = by_gradient_ && close(d.C.col(a), w.C.col(a));
    }
    return true;
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
    if constexpr (HasForceGrad<M>::value) {
      if (by_gradient_) columns_of_gradient(w);
      else columns_of_force(w);
    } else {
      columns_of_force(w);
    }
    // Every round solves the normal equations of the columns (G, b), reduced
    // to the unknown levels: one pass over the samples per point, not per round.
    normal_equations(w);
    std::fill(state.begin(), state.end(), -1);
    bool solved = false;
    for (int round = 0; round <= 2 * k_ && !solved; ++round) {
      // Unknowns: the free levels, each carrying the columns tied to it;
      // levels at a bound (or tied to one) are known.
      std::vector<int> unknown;
      for (int a = 0; a < k_; ++a)
        if (state[a] == -1) unknown.push_back(a);
      const long u = static_cast<long>(unknown.size());
      Eigen::MatrixXd T = Eigen::MatrixXd::Zero(k_, u);  // level <- unknown
      Vec known = Vec::Zero(k_);
      for (int a = 0; a < k_; ++a) {
        const int r = root(a);
        if (state[r] == -2 || state[r] == -3) {
          x(a) = known(a) = state[r] == -2 ? lo_[r] : hi_[r];
        } else {
          T(a, std::find(unknown.begin(), unknown.end(), r) - unknown.begin()) = 1.0;
        }
      }
      if (u > 0) {
        const Eigen::MatrixXd H = T.transpose() * w.G * T;
        const Vec g = T.transpose() * (w.b - w.G * known);
        // Scaled to a unit diagonal: the levels' units differ by orders
        // (N, N/Pa, N s/m).
        Vec sc(u);
        for (long j = 0; j < u; ++j) sc(j) = H(j, j) > 0 ? 1.0 / std::sqrt(H(j, j)) : 1.0;
        const Eigen::MatrixXd Hs = sc.asDiagonal() * H * sc.asDiagonal();
        const Vec z = sc.asDiagonal() * Vec(Hs.colPivHouseholderQr().solve(Vec(sc.asDiagonal() * g)));
        for (long j = 0; j < u; ++j) x(unknown[j]) = z(j);
      }
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
    // The law is linear in the levels (linear()): its force is f0 + C x.
    w.fi.noalias() = w.C * x;
    return (w.r - w.fi).squaredNorm();
  }

 private:
  // Equal to rounding (1e-9 of the norm).
  template <class A, class B>
  static bool close(const A& a, const B& b) {
    return (a - b).norm() <= 1e-9 * std::max(b.norm(), 1e-300);
  }
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
  void columns_of_force(Work& w) const {
    for (int j : lin_) w.p[j] = 0.0;
    force(w, w.f0);
    for (int a = 0; a < k_; ++a) {
      w.p[lin_[a]] = 1.0;
      force(w, w.fi);
      w.C.col(a) = w.fi - w.f0;
      w.p[lin_[a]] = 0.0;
    }
  }
  // The residual at zero levels r = y - f0 and the normal equations of the
  // columns: G = C^T C, b = C^T r.
  void normal_equations(Work& w) const {
    w.r = y_ - w.f0;
    w.G.resize(k_, k_);
    w.b.resize(k_);
    for (int a = 0; a < k_; ++a) {
      w.b(a) = w.C.col(a).dot(w.r);
      for (int c = 0; c <= a; ++c) w.G(a, c) = w.G(c, a) = w.C.col(a).dot(w.C.col(c));
    }
  }
  // The columns in one pass: with the levels at
  // 0, the force and its derivatives by the coefficients per sample
  // (M::force_grad), chained with the coefficients' derivatives by the levels
  // (M::prepare on Jets, once). A law linear in its levels has these
  // derivatives for columns.
  void columns_of_gradient(Work& w) const {
    using J = ceres::Jet<double, M::kNumParams>;
    using CoeffsD = typename M::template Coeffs<double>;
    using CoeffsJ = typename M::template Coeffs<J>;
    constexpr int kCoeffs = static_cast<int>(sizeof(CoeffsD) / sizeof(double));
    static_assert(sizeof(CoeffsJ) == kCoeffs * sizeof(J), "Coeffs must be an aggregate of T fields");
    for (int j : lin_) w.p[j] = 0.0;
    J p[M::kNumParams];
    for (int j = 0; j < nm_; ++j) p[j] = J(w.p[j]);
    for (int a = 0; a < k_; ++a) p[lin_[a]] = J(0.0, a);
    const CoeffsJ cj = M::prepare(p);
    const J* flat = reinterpret_cast<const J*>(&cj);
    double values[kCoeffs];
    // The coefficients some level moves, and their derivatives by the levels.
    int moved[kCoeffs];
    double dc[kCoeffs][M::kNumParams];
    int nc = 0;
    for (int f = 0; f < kCoeffs; ++f) {
      values[f] = flat[f].a;
      bool any = false;
      for (int a = 0; a < k_; ++a) any = any || flat[f].v[a] != 0.0;
      if (!any) continue;
      moved[nc] = f;
      for (int a = 0; a < k_; ++a) dc[nc][a] = flat[f].v[a];
      ++nc;
    }
    CoeffsD c;
    std::memcpy(static_cast<void*>(&c), values, sizeof(values));
    w.f0.resize(n_);
    for (long i = 0; i < n_; ++i) {
      CoeffsD dfc;
      w.f0(i) = M::force_grad(c, s_[i], dfc);
      double df[kCoeffs];
      std::memcpy(df, &dfc, sizeof(df));
      for (int a = 0; a < k_; ++a) {
        double col = 0.0;  // (a register: an array here stalls on store forwarding)
        for (int m = 0; m < nc; ++m) col += df[moved[m]] * dc[m][a];
        w.C(i, a) = col;
      }
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
  std::vector<int> base_;     // position in lin of the level it must not fall below
  bool by_gradient_ = false;  // columns_of_gradient gives the columns (linear())
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
  LevelProjection<M> projection(model, L, box, seed, std::move(lin), std::move(shape), std::move(shape_axis), sub);
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
