// fit_curve: a static law's parameters fitted to a force curve (Ceres, with
// the law's derivatives from the kernels' model on Jets).
#include "stribeck/identification/curve_fit.hpp"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "stribeck/data/error.hpp"
#include "stribeck/kernels/registry.hpp"

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

Layout make_layout(const ModelInfo& m, const std::vector<bool>& free) {
  Layout l;
  l.slots.resize(m.params.size());
  for (size_t i = 0; i < m.params.size(); ++i) {
    if (!free[i]) continue;
    Slot& s = l.slots[i];
    s.unknown = l.unknowns++;
    s.lo = m.params[i].lo;
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

template <class M>
CurveFitResult solve(const CurveFitProblem& pr, const ModelInfo& info) {
  const Layout layout = make_layout(info, pr.free);
  double scale = 0.0;
  for (double f : pr.target) scale = std::max(scale, std::abs(f));
  const double inv_scale = scale > 0.0 ? 1.0 / scale : 1.0;
  CurveFitResult best;
  best.params = pr.start;
  errors_of<M>(pr, pr.start, best.max_abs_error, best.rms_error);
  if (layout.unknowns == 0) return best;
  bool have = false;
  for (double f : pr.start_scales) {
    std::vector<double> p0 = pr.start;
    for (size_t i = 0; i < p0.size(); ++i)
      if (pr.free[i]) p0[i] *= f;
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
    CurveFitResult r;
    r.params.assign(p0.size(), 0.0);
    build(layout, pr.start, x.data(), r.params.data());
    errors_of<M>(pr, r.params, r.max_abs_error, r.rms_error);
    r.converged = summary.termination_type == ceres::CONVERGENCE;
    r.message = summary.message;
    if (!std::isfinite(r.rms_error)) continue;
    if (!have || r.rms_error < best.rms_error) best = r, have = true;
  }
  return best;
}

}  // namespace

CurveFitResult fit_curve(const CurveFitProblem& pr) {
  const ModelInfo* info = find_model(pr.model);
  if (!info || info->dynamic) throw InputError("fit_curve: '" + pr.model + "' is not a static model");
  const size_t n = pr.v.size();
  if (pr.start.size() != info->params.size() || pr.free.size() != info->params.size() || pr.p_a.size() != n ||
      pr.p_b.size() != n || pr.f_n.size() != n || pr.target.size() != n || n == 0)
    throw InputError("fit_curve: sizes of the parameters or samples do not match");
  CurveFitResult out;
  visit_model(StaticModels{}, pr.model.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    out = solve<M>(pr, *info);
  });
  return out;
}

}  // namespace stribeck::ident
