// fit_curve: a static law's parameters fitted to a force curve (Ceres, with
// the law's derivatives from the kernels' model on Jets).
#include "stribeck/identification/curve_fit.hpp"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include "stribeck/data/error.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/sweep/space.hpp"

namespace stribeck::ident {
namespace {

// How each parameter is built from the unknowns x: held (start value), free
// and unbounded (p = x), bounded below (p = lo + exp(x)), or an excess over
// another parameter (p = p[over] + exp(x)).
struct Slot {
  int unknown = -1;  // index into x, -1 when held
  int over = -1;     // relation: p = p[over] + exp(x)
  double lo = -std::numeric_limits<double>::infinity();
};

struct Layout {
  std::vector<Slot> slots;
  int unknowns = 0;
};

Layout make_layout(const ModelInfo& m, const std::vector<bool>& free, const std::vector<double>& lower) {
  Layout l;
  l.slots.resize(m.params.size());
  for (size_t i = 0; i < m.params.size(); ++i) {
    if (!free[i]) continue;
    Slot& s = l.slots[i];
    s.unknown = l.unknowns++;
    s.lo = i < lower.size() && !std::isnan(lower[i]) ? lower[i] : m.params[i].lo;
    for (const auto& r : m.relations)
      if (r.a == static_cast<int>(i)) s.over = r.b;
  }
  return l;
}

// Parameters from the unknowns; the `over` side of a relation is computed
// first (relations never chain in the model tables).
template <class T>
void build(const Layout& l, const std::vector<double>& start, const T* x, T* p) {
  const size_t n = l.slots.size();
  for (size_t i = 0; i < n; ++i) {
    const Slot& s = l.slots[i];
    if (s.unknown < 0) p[i] = T(start[i]);
    else if (s.over >= 0) continue;
    else if (std::isfinite(s.lo)) p[i] = T(s.lo) + ceres::exp(x[s.unknown]);
    else p[i] = x[s.unknown];
  }
  for (size_t i = 0; i < n; ++i) {
    const Slot& s = l.slots[i];
    if (s.unknown >= 0 && s.over >= 0) p[i] = p[s.over] + ceres::exp(x[s.unknown]);
  }
}

// Unknowns for a parameter vector (inverse of build), with every bounded
// quantity kept a little off its bound so its log has a usable gradient.
std::vector<double> unknowns_of(const Layout& l, const std::vector<double>& p) {
  std::vector<double> x(l.unknowns);
  for (size_t i = 0; i < l.slots.size(); ++i) {
    const Slot& s = l.slots[i];
    if (s.unknown < 0) continue;
    double base = s.over >= 0 ? p[s.over] : s.lo;
    if (!std::isfinite(base)) {
      x[s.unknown] = p[i];
      continue;
    }
    const double floor = 1e-3 * std::max({std::abs(p[i]), std::abs(base), 1e-12});
    x[s.unknown] = std::log(std::max(p[i] - base, floor));
  }
  return x;
}

template <class M>
struct CurveCost {
  const CurveFitProblem* pr;
  const Layout* layout;
  double inv_scale;
  template <class T>
  bool operator()(T const* const* x, T* r) const {
    T p[M::kNumParams];
    build(*layout, pr->start, x[0], p);
    const auto c = M::prepare(p);
    for (size_t k = 0; k < pr->v.size(); ++k) {
      const Sample<T> s{T(pr->v[k]), T(pr->p_a[k]), T(pr->p_b[k]), T(pr->f_n[k])};
      r[k] = (M::force(c, s) - T(pr->target[k])) * T(inv_scale);
      // A trial step that overflows (exp of a large unknown) is refused
      // here, quietly, rather than reported by Ceres as a broken residual.
      using std::isfinite;
      if (!isfinite(r[k])) return false;
    }
    return true;
  }
};

template <class M>
void errors_of(const CurveFitProblem& pr, const std::vector<double>& p, double& max_abs, double& rms) {
  const auto c = M::prepare(p.data());
  double sum = 0.0;
  max_abs = 0.0;
  for (size_t k = 0; k < pr.v.size(); ++k) {
    const Sample<double> s{pr.v[k], pr.p_a[k], pr.p_b[k], pr.f_n[k]};
    const double e = M::force(c, s) - pr.target[k];
    max_abs = std::max(max_abs, std::abs(e));
    sum += e * e;
  }
  rms = pr.v.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(pr.v.size()));
}

// The starts: `start`, then scrambled Sobol' points over the free
// parameters' ranges (log-spaced where the range is positive).
std::vector<std::vector<double>> start_points(const CurveFitProblem& pr, int count) {
  std::vector<std::vector<double>> out{pr.start};
  for (int i = 0; static_cast<int>(out.size()) < count; ++i) {
    std::vector<double> p = pr.start;
    int coord = 0;
    for (size_t k = 0; k < p.size(); ++k) {
      if (!pr.free[k]) continue;
      double lo = pr.range_lo.empty() ? 0.1 * pr.start[k] : pr.range_lo[k];
      double hi = pr.range_hi.empty() ? 10.0 * pr.start[k] : pr.range_hi[k];
      if (hi < lo) std::swap(lo, hi);
      const double u = sweep::sobol_unit(static_cast<std::uint64_t>(i), coord++, 0x5eedull);
      p[k] = lo > 0.0 ? lo * std::pow(hi / lo, u) : lo + (hi - lo) * u;
    }
    out.push_back(std::move(p));
  }
  return out;
}

template <class M>
CurveFitResult solve(const CurveFitProblem& pr, const ModelInfo& info) {
  const Layout layout = make_layout(info, pr.free, pr.lower);
  double scale = 0.0;
  for (double f : pr.target) scale = std::max(scale, std::abs(f));
  const double inv_scale = scale > 0.0 ? 1.0 / scale : 1.0;
  CurveFitResult best;
  best.params = pr.start;
  errors_of<M>(pr, pr.start, best.max_abs_error, best.rms_error);
  if (layout.unknowns == 0) return best;
  const int max_starts = std::max(2, pr.max_starts);
  const int per_round = std::max(1, pr.starts_per_round);
  const std::vector<std::vector<double>> starts = start_points(pr, max_starts);
  // Two costs are one optimum to agree_tolerance, or both at the exact
  // representation's rounding (1e-12 of the force scale, per sample).
  const double floor = 0.5 * static_cast<double>(pr.v.size()) * 1e-24;
  std::vector<double> costs;
  bool have = false;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int round = 1; best.starts < max_starts; ++round) {
    for (int end = std::min(max_starts, best.starts + per_round); best.starts < end; ++best.starts) {
      const std::vector<double>& p0 = starts[static_cast<size_t>(best.starts)];
      std::vector<double> x = unknowns_of(layout, p0);
      auto* cost = new ceres::DynamicAutoDiffCostFunction<CurveCost<M>, 4>(new CurveCost<M>{&pr, &layout, inv_scale});
      cost->AddParameterBlock(layout.unknowns);
      cost->SetNumResiduals(static_cast<int>(pr.v.size()));
      ceres::Problem problem;
      problem.AddResidualBlock(cost, nullptr, x.data());
      ceres::Solver::Options o;
      o.max_num_iterations = 500;
      o.function_tolerance = 1e-15;
      o.gradient_tolerance = 1e-16;
      o.parameter_tolerance = 1e-14;
      o.num_threads = 1;
      o.logging_type = ceres::SILENT;
      ceres::Solver::Summary summary;
      ceres::Solve(o, &problem, &summary);
      const bool usable = summary.IsSolutionUsable() && std::isfinite(summary.final_cost);
      costs.push_back(usable ? summary.final_cost : std::numeric_limits<double>::infinity());
      if (!usable || !(summary.final_cost < best_cost)) continue;
      CurveFitResult r;
      r.params.assign(p0.size(), 0.0);
      build(layout, pr.start, x.data(), r.params.data());
      errors_of<M>(pr, r.params, r.max_abs_error, r.rms_error);
      if (!std::isfinite(r.rms_error)) continue;
      r.converged = summary.termination_type == ceres::CONVERGENCE;
      r.message = summary.message;
      r.starts = best.starts;
      best_cost = summary.final_cost;
      best = r, have = true;
    }
    best.at_best = static_cast<int>(std::count_if(costs.begin(), costs.end(), [&](double c) {
      return std::isfinite(c) && std::abs(c - best_cost) <= pr.agree_tolerance * std::max(c, best_cost) + floor;
    }));
    best.settled = have && best.at_best >= 2;
    if (best.settled && round >= 2) break;
  }
  return best;
}

}  // namespace

CurveFitResult fit_curve(const CurveFitProblem& pr) {
  const ModelInfo* info = find_model(pr.model);
  if (!info || info->dynamic) throw data::InputError("fit_curve: '" + pr.model + "' is not a static model");
  const size_t n = pr.v.size();
  if (pr.start.size() != info->params.size() || pr.free.size() != info->params.size() || pr.p_a.size() != n ||
      pr.p_b.size() != n || pr.f_n.size() != n || pr.target.size() != n || n == 0)
    throw data::InputError("fit_curve: sizes of the parameters or samples do not match");
  CurveFitResult out;
  visit_model(StaticModels{}, pr.model.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    out = solve<M>(pr, *info);
  });
  return out;
}

}  // namespace stribeck::ident
