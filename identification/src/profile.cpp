#include "profile.hpp"

#include <algorithm>
#include <cmath>

namespace stribeck::ident::detail {

namespace {
// Refits per side: growing steps until r >= z, then bracketing refinements.
constexpr int kMaxGrow = 14;
constexpr int kMaxRefine = 6;
// The widest span searched, in internal units: a log-parameterised value over
// e^30, an identity one over 1e6 times its scale.
constexpr double kLogSpan = 30.0;
constexpr double kLinearSpan = 1e6;
}  // namespace

bool breakaway_level(const FitParam& q, double* none) {
  if (q.role == ParamRole::kBreakawayRatio && q.transform == Transform::kIdentity && std::isfinite(q.lo)) {
    *none = q.lo;
    return true;
  }
  if (q.role == ParamRole::kBreakaway && q.transform == Transform::kExcess) {
    *none = 0.0;
    return true;
  }
  return false;
}

double evaluate_ssr(ceres::Problem& P) {
  double cost = kInf;
  if (!P.Evaluate(ceres::Problem::EvaluateOptions(), &cost, nullptr, nullptr, nullptr) || !std::isfinite(cost))
    return kInf;
  return 2.0 * cost;
}

namespace {

// The size against which a change of parameter i counts as a move: its value,
// or its default (a zero truth), or its base (an excess over another one).
double natural_scale(const Layout& L, int i, const std::vector<double>& value) {
  const FitParam& p = L.params[i];
  double scale = std::abs(value[i]);
  if (p.model_index >= 0) scale = std::max(scale, std::abs(L.model_defaults[p.model_index]));
  if (p.transform == Transform::kExcess) scale = std::max(scale, std::abs(value[p.excess_base]));
  return std::max(scale, 1e-300);
}

// Internal coordinate of value x of a parameter whose transform is not an
// excess (identity or log).
double internal_value(const FitParam& q, double x) { return q.transform == Transform::kLog ? std::log(x) : x; }

// The internal value that puts a Stribeck velocity (or rate) parameter at
// `v` m/s; false for any other parameter.
bool stribeck_at(const FitParam& q, double v, double* u) {
  switch (q.role) {
    case ParamRole::kStribeckVelocity: *u = internal_value(q, v); return true;
    case ParamRole::kStribeckRate: *u = internal_value(q, 1.0 / v); return true;
    default: return false;
  }
}

// Holds each block of `held` at its value (clamped into its bounds), refits
// the rest, and releases them again.
ceres::Solver::Summary solve_holding(ceres::Problem& P, const std::vector<std::pair<double*, double>>& held,
                                     const ceres::Solver::Options& options) {
  ceres::Solver::Options so = options;
  so.callbacks.clear();
  for (const auto& [b, u] : held) {
    *b = std::min(std::max(u, P.GetParameterLowerBound(b, 0)), P.GetParameterUpperBound(b, 0));
    P.SetParameterBlockConstant(b);
  }
  ceres::Solver::Summary sum;
  ceres::Solve(so, &P, &sum);
  for (const auto& h : held) P.SetParameterBlockVariable(h.first);
  return sum;
}

}  // namespace

std::optional<ceres::Solver::Summary> hide_breakaway(ceres::Problem& P, Layout& L, const std::vector<int>& free,
                                                     double hide_at, double ssr_allow,
                                                     const ceres::Solver::Options& options) {
  if (!(hide_at > 0) || !std::isfinite(hide_at)) return std::nullopt;
  // The canonical value of each free breakaway or Stribeck parameter.
  std::vector<std::pair<double*, double>> held;
  bool level = false;
  for (int i : free) {
    FitParam& q = L.params[i];
    double u;
    if (breakaway_level(q, &u)) level = true;
    else if (!stribeck_at(q, hide_at, &u)) continue;
    held.push_back({&q.u, u});
  }
  if (!level) return std::nullopt;
  std::vector<double> before;
  for (const auto& p : L.params) before.push_back(p.u);
  const ceres::Solver::Summary sum = solve_holding(P, held, options);
  if (sum.IsSolutionUsable() && 2.0 * sum.final_cost <= ssr_allow) return sum;
  for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = before[i];
  return std::nullopt;
}

std::vector<int> flat_off_bound(ceres::Problem& P, Layout& L, int g, const std::vector<int>& free, double ssr_exact,
                                double vslow, double vfast, bool may_hide, const ceres::Solver::Options& options) {
  std::vector<double> best(L.params.size()), value(L.params.size());
  for (size_t i = 0; i < L.params.size(); ++i) best[i] = L.params[i].u, value[i] = L.params[i].value;
  double* block = &L.params[g].u;
  const FitParam& p = L.params[g];
  const double lower = P.GetParameterLowerBound(block, 0), upper = P.GetParameterUpperBound(block, 0);
  double step = 0.1;
  if (p.transform == Transform::kIdentity)
    step = 0.1 *
           std::max({std::abs(p.value), p.model_index >= 0 ? std::abs(L.model_defaults[p.model_index]) : 0.0, 1e-12});
  else if (p.transform == Transform::kExcess) step = 0.1 * std::max(std::abs(L.params[p.excess_base].value), 1e-12);
  const bool has_vslow = vslow > 0 && std::isfinite(vslow);
  // A Stribeck term whose velocity scale drops below the slowest moving
  // sample vanishes from every sample, and one whose scale rises above the
  // fastest is a constant over the data: any breakaway level then fits. In a
  // log with a slow range both are the term leaving the data, not a
  // direction the data leave open (docs/identification.md, "A breakaway no
  // sample sees"); in one without, only the second. So while g is held off
  // its bound the Stribeck velocity stays within [vslow, vfast] (its rate
  // within the inverses), or at most vfast. One that the fit left outside
  // already is moved to the limit when that leaves the fit exact (its value
  // did not matter: K_brk = 1 makes c_v arbitrary); otherwise the data put it
  // there and it stays free.
  std::vector<std::pair<double*, std::pair<double, double>>> restore;  // block, (old lower, old upper)
  for (int i : free) {
    FitParam& q = L.params[i];
    if (i == g || q.transform == Transform::kExcess) continue;
    const bool velocity = q.role == ParamRole::kStribeckVelocity;
    if (!velocity && q.role != ParamRole::kStribeckRate) continue;
    // Limits of the velocity scale, then of the parameter itself.
    const double slow = may_hide || !has_vslow ? 0.0 : vslow;
    const double fast = vfast > 0 && std::isfinite(vfast) ? vfast : kInf;
    const double lo = velocity ? slow : (std::isfinite(fast) ? 1.0 / fast : 0.0);
    const double hi = velocity ? fast : (slow > 0 ? 1.0 / slow : kInf);
    if (!(lo > 0) && !std::isfinite(hi)) continue;
    double* b = &q.u;
    if (value[i] < lo || value[i] > hi) {
      *b = internal_value(q, value[i] < lo ? lo : hi);
      if (!(evaluate_ssr(P) <= ssr_exact)) {
        *b = best[i];
        continue;
      }
    }
    restore.push_back({b, {P.GetParameterLowerBound(b, 0), P.GetParameterUpperBound(b, 0)}});
    if (lo > 0) P.SetParameterLowerBound(b, 0, std::max(internal_value(q, lo), P.GetParameterLowerBound(b, 0)));
    if (std::isfinite(hi))
      P.SetParameterUpperBound(b, 0, std::min(internal_value(q, hi), P.GetParameterUpperBound(b, 0)));
  }
  ceres::Solver::Options so = options;
  so.max_num_iterations = std::min(options.max_num_iterations, 100);
  // Into the range: away from the bound it sits on.
  const bool at_upper = std::isfinite(upper) && upper - *block < std::abs(*block - lower);
  const double off = at_upper ? std::max(lower, *block - step) : std::min(upper, *block + step);
  std::vector<std::pair<double*, double>> held = {{block, off}};
  ceres::Solver::Summary sum = solve_holding(P, held, so);
  for (const auto& [b, bounds] : restore) {
    P.SetParameterLowerBound(b, 0, bounds.first);
    P.SetParameterUpperBound(b, 0, bounds.second);
  }
  bool exact = sum.IsSolutionUsable() && 2.0 * sum.final_cost <= ssr_exact;
  // Where a breakaway may hide (a log without a slow range), the refit above
  // only approaches the hidden law: the Stribeck term fades as the velocity
  // falls and the solver stops on its tolerances first. So the hidden law is
  // tried as such: g off its bound, the Stribeck velocities three decades
  // below the slowest sample.
  double none;
  if (!exact && may_hide && has_vslow && breakaway_level(p, &none)) {
    for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = best[i];
    held.resize(1);
    for (int i : free) {
      double u;
      if (i != g && stribeck_at(L.params[i], 1e-3 * vslow, &u)) held.push_back({&L.params[i].u, u});
    }
    if (held.size() > 1) {
      sum = solve_holding(P, held, so);
      exact = sum.IsSolutionUsable() && 2.0 * sum.final_cost <= ssr_exact;
    }
  }
  std::vector<int> moved;
  if (exact) {
    set_values_from_internal(L);
    moved.push_back(g);
    for (int i : free)
      if (i != g && std::abs(L.params[i].value - value[i]) > 1e-6 * natural_scale(L, i, value)) moved.push_back(i);
  }
  for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = best[i], L.params[i].value = value[i];
  return moved;
}

ProfileInterval profile_interval(ceres::Problem& P, Layout& L, int g, double ssr_min, double s2, double step,
                                 const ceres::Solver::Options& options) {
  ProfileInterval out;
  std::vector<double> best(L.params.size());
  for (size_t i = 0; i < L.params.size(); ++i) best[i] = L.params[i].u;
  double* block = &L.params[g].u;
  const double u0 = best[g];
  const double lower = P.GetParameterLowerBound(block, 0), upper = P.GetParameterUpperBound(block, 0);
  const double span = L.params[g].transform == Transform::kLog ? kLogSpan : kLinearSpan * std::max(1.0, std::abs(u0));
  if (!(step > 0) || !std::isfinite(step)) step = 0.1 * std::max(1.0, std::abs(u0));
  ceres::Solver::Options so = options;
  so.max_num_iterations = std::min(options.max_num_iterations, 100);
  so.callbacks.clear();
  so.update_state_every_iteration = false;
  P.SetParameterBlockConstant(block);

  // Signed root of the profile at u0 + h (h on one side), others refitted
  // from the optimum.
  auto root = [&](double h) {
    for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = best[i];
    *block = u0 + h;
    ceres::Solver::Summary sum;
    ceres::Solve(so, &P, &sum);
    ++out.solves;
    const double ssr = sum.IsSolutionUsable() ? 2.0 * sum.final_cost : evaluate_ssr(P);
    if (!std::isfinite(ssr)) return kInf;  // the model breaks down there: outside any interval
    if (ssr < out.least_ssr) {
      out.least_ssr = ssr;
      out.least_u.clear();
      for (const auto& q : L.params) out.least_u.push_back(q.u);
    }
    return std::sqrt(std::max(0.0, ssr - ssr_min) / s2);
  };

  for (int side : {-1, 1}) {
    const double limit = side < 0 ? std::max(lower - u0, -span) : std::min(upper - u0, span);
    double h_in = 0.0, r_in = 0.0;  // inside the interval (r < z)
    double h = side * step, r = 0.0;
    bool bracketed = false, at_limit = false;
    for (int it = 0; it < kMaxGrow; ++it) {
      if (std::abs(h) >= std::abs(limit)) {
        h = limit;
        at_limit = true;
      }
      r = root(h);
      if (r >= kZ975) {
        bracketed = true;
        break;
      }
      h_in = h, r_in = r;
      if (at_limit) break;
      // Secant on the near-linear signed root, overshooting a little so the
      // next point likely brackets; at least doubling when r is still tiny.
      const double scale = r > 0.05 * kZ975 ? 1.15 * kZ975 / r : 4.0;
      h *= std::min(std::max(scale, 1.2), 16.0);
    }
    double edge;
    if (!bracketed) edge = at_limit && std::abs(limit) < span * (1 - 1e-12) ? limit : side * kInf;
    else {
      double h_out = h, r_out = r;
      for (int it = 0; it < kMaxRefine; ++it) {
        // Regula falsi; bisection while the outer point is where the model breaks down.
        const double hm =
            std::isfinite(r_out) ? h_in + (kZ975 - r_in) * (h_out - h_in) / (r_out - r_in) : 0.5 * (h_in + h_out);
        const double rm = root(hm);
        if (std::abs(rm - kZ975) < 1e-3 * kZ975) {
          h_out = hm;
          break;
        }
        if (rm < kZ975) h_in = hm, r_in = rm;
        else h_out = hm, r_out = rm;
      }
      edge = std::isfinite(r_out) ? h_out : h_in;
    }
    (side < 0 ? out.lo : out.hi) = std::isfinite(edge) ? u0 + edge : edge;
  }
  P.SetParameterBlockVariable(block);
  for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = best[i];
  return out;
}

}  // namespace stribeck::ident::detail
