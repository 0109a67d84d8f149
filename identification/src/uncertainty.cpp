// The estimates phases of a static fit (uncertainty.hpp): covariance,
// intervals, restarts and the hidden breakaway.
#include "uncertainty.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>

#include "compressed_cost.hpp"
#include "fit_helpers.hpp"
#include "fit_problem.hpp"
#include "fit_solve.hpp"
#include "fit_warnings.hpp"
#include "profile.hpp"

namespace stribeck::ident::detail {
namespace {

// J^T J of the free parameters from the solver's last Jacobian, when that was
// taken at this very point over exactly the free parameters (the solution's,
// usually: CompressedCost::last_jacobian): the sums below, row by row in the
// same order as over a new evaluation's matrix, so the same bits, without a
// Jacobian pass over the samples. False when it was not.
bool solver_jtj(const ceres::Problem& P, const Layout& L, const std::vector<int>& free, Eigen::MatrixXd& JtJ) {
  std::vector<double*> blocks;
  const CompressedCost* cost = compressed_cost(P, &blocks);
  if (!cost) return false;
  std::vector<bool> active(blocks.size(), false);
  std::vector<int> col;  // position in `free` of each active block, in the cost's order
  for (size_t g = 0; g < blocks.size(); ++g)
    for (size_t f = 0; f < free.size(); ++f)
      if (blocks[g] == &L.params[free[f]].u) active[g] = true, col.push_back(static_cast<int>(f));
  std::vector<std::vector<double>> J;
  if (col.size() != free.size() || !cost->last_jacobian(blocks.data(), active, &J)) return false;
  const int k = static_cast<int>(col.size());
  for (size_t r = 0; r < J[0].size(); ++r)
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b) JtJ(col[a], col[b]) += J[a][r] * J[b][r];
  return true;
}

Uncertainty uncertainty(ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D,
                        const ceres::Solver::Options& so, double cost) {
  const int k = static_cast<int>(free.size());
  Uncertainty U;
  U.cov_x = Eigen::MatrixXd::Constant(k, k, kNaN);
  if (k == 0) return U;
  Eigen::MatrixXd JtJ = Eigen::MatrixXd::Zero(k, k);
  if (!solver_jtj(P, L, free, JtJ)) add_evaluated_jtj(P, L, free, so.num_threads, JtJ);
  // A parameter whose change by its own size (a factor e for log ones) moves
  // the force by less than kNegligibleEffect of its RMS has no effect: its
  // column is rounding (c_v when K_brk is 1 to rounding), and scaling it to
  // unit length would make it look determined.
  for (int f = 0; f < k; ++f) {
    const FitParam& p = L.params[free[f]];
    double size = 1.0;
    if (p.transform == Transform::kIdentity)
      size = std::max(std::abs(p.value), p.model_index >= 0 ? std::abs(L.model_defaults[p.model_index]) : 0.0);
    else if (p.transform == Transform::kExcess) size = std::max(std::abs(p.u), std::abs(L.params[p.excess_base].value));
    const double effect = std::sqrt(std::max(0.0, JtJ(f, f)) / static_cast<double>(D.n)) * size;
    if (!(effect > kNegligibleEffect * D.scale.force_rms)) {
      JtJ.row(f).setZero();
      JtJ.col(f).setZero();
    }
  }
  U.id = analyse_identifiability(JtJ);
  U.s2 = 2.0 * cost / static_cast<double>(std::max<long>(1, D.n - k));
  const Eigen::MatrixXd G = external_jacobian(L, free);
  // Entries that involve an undetermined parameter are not a variance: NaN.
  U.cov_x = U.s2 * G * U.id.inverse * G.transpose();
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      bool ok = true;
      for (int c2 = 0; c2 < k; ++c2)
        if ((G(i, c2) != 0 && !U.id.determined[c2]) || (G(j, c2) != 0 && !U.id.determined[c2])) ok = false;
      if (!ok) U.cov_x(i, j) = kNaN;
    }
  return U;
}

// ---------------------------------------------------------------------------
// Phase: intervals. Wald intervals from the covariance; profile-likelihood
// intervals where the Wald interval cannot be trusted: at a bound, or where
// the cost along the interval's direction is far from quadratic (the SSR at
// the Wald end points differs from z^2 s^2 by more than these factors).
constexpr double kQuadraticLow = 0.7, kQuadraticHigh = 1.4;

// The SSR at the two end points of free parameters' Wald intervals along
// their least-squares paths. On the first request, the end points of every
// determined free parameter are evaluated together, in one pass over the
// samples (CompressedCost::ssr_at: the same bits as evaluate_ssr at each
// point), from the point the layout holds then (the optimum; the profiles
// restore it exactly); point by point through evaluate_ssr otherwise.
class WaldEnds {
 public:
  WaldEnds(ceres::Problem& P, Layout& L, const std::vector<int>& free, const Uncertainty& U)
      : P_(P), L_(L), free_(free), U_(U) {}

  std::array<double, 2> ssr(int f) {
    if (ssr_.empty()) {
      std::vector<int> fs;
      for (int j = 0; j < static_cast<int>(free_.size()); ++j)
        if (U_.id.determined[j] || j == f) fs.push_back(j);
      evaluate(fs);
    }
    if (ssr_.count(f) == 0) evaluate({f});
    return ssr_[f];
  }

 private:
  void evaluate(const std::vector<int>& fs) {
    std::vector<double*> blocks;
    const CompressedCost* cost = compressed_cost(P_, &blocks);
    const int k = static_cast<int>(free_.size());
    const Eigen::MatrixXd& S = U_.id.inverse;
    std::vector<double> u0;
    for (const auto& p : L_.params) u0.push_back(p.u);
    std::vector<std::vector<double>> points;
    for (int f : fs) {
      const double t = kZ975 * std::sqrt(U_.s2 * S(f, f));
      for (int side : {-1, 1}) {
        // Along the least-squares path of f: undetermined parameters move with
        // it (their share of the pseudo-inverse), as a profile would move them.
        for (int j = 0; j < k; ++j) L_.params[free_[j]].u = u0[free_[j]] + side * t * S(j, f) / S(f, f);
        if (cost) {
          points.emplace_back();
          for (const double* b : blocks) points.back().push_back(*b);
        } else {
          ssr_[f][side > 0] = evaluate_ssr(P_);
        }
      }
    }
    for (size_t i = 0; i < L_.params.size(); ++i) L_.params[i].u = u0[i];
    if (!cost) return;
    const std::vector<double> ssr = cost->ssr_at(points);
    for (size_t i = 0; i < fs.size(); ++i) ssr_[fs[i]] = {ssr[2 * i], ssr[2 * i + 1]};
  }

  ceres::Problem& P_;
  Layout& L_;
  const std::vector<int>& free_;
  const Uncertainty& U_;
  std::map<int, std::array<double, 2>> ssr_;
};

// Whether the cost rises as a quadratic would over the Wald interval of free
// parameter f: the SSR at the two end points of its least-squares path.
bool cost_is_quadratic(WaldEnds& ends, const Uncertainty& U, int f, double ssr_min) {
  bool quadratic = true;
  for (const double ssr : ends.ssr(f)) {
    const double rise = (ssr - ssr_min) / (kZ975 * kZ975 * U.s2);
    quadratic = quadratic && rise >= kQuadraticLow && rise <= kQuadraticHigh;
  }
  return quadratic;
}

// `lower`: set to the internal coordinates of the lowest cost a profile found
// significantly below the optimum's (left empty when none did).
void parameter_estimates(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D,
                         const Uncertainty& U, const ceres::Solver::Options& so, const FitOptions& o,
                         std::vector<double>& lower) {
  lower.clear();
  double lowest = kInf;
  // The profiles that found a lower cost than the optimum's by more than one
  // noise variance (a unit of the likelihood ratio; less is rounding and
  // tolerances, e.g. rmse 0.08425 against 0.08425), and the lowest they found.
  std::string lower_names;
  double least_seen = kInf;
  const double ssr_min = 2.0 * S.cost;
  const bool noisy = is_noisy(U, D);
  WaldEnds wald_ends(P, L, free, U);
  // Noiseless fits get no profile; a parameter at a bound is checked instead
  // for a manifold of exact fits running off the bound (K_brk = 1 with
  // c_v = 0, F_brk = F_C where no sample is slow enough to see the peak):
  // every parameter that moves along it is not determined.
  std::vector<bool> flat(L.params.size(), false);
  if (!noisy) {
    // As exact as the fit itself (or rounding): a compensation that only
    // approaches the fit (c_v growing without bound to hide K_brk - 1) is not
    // a flat direction.
    const double ssr_exact = exact_ssr(ssr_min, D);
    // A breakaway level a hair above none (mu_s - mu_c = 6e-8 with its
    // Stribeck term acting at 5e-9 of the force) is none: it goes to its
    // bound when the fit stays exact there, and is probed as one at a bound.
    for (int g : free) {
      FitParam& p = L.params[g];
      double none;
      if (!breakaway_level(p, &none) || p.u == none) continue;
      const double u = p.u;
      p.u = none;
      if (evaluate_ssr(P) <= ssr_exact) set_values_from_internal(L);
      else p.u = u;
    }
    for (int g : free) {
      const FitParam& p = L.params[g];
      const double tol = 1e-9 * std::max(1.0, std::abs(p.value));
      const bool at_bound = (std::isfinite(p.lo) && p.value - p.lo <= tol) ||
                            (std::isfinite(p.hi) && p.hi - p.value <= tol) ||
                            (p.transform == Transform::kExcess && p.u <= tol);
      if (!at_bound || flat[g]) continue;
      // The Stribeck term may not hide below the slowest sample when the log
      // has a slow range; a log without one cannot tell a breakaway below
      // its slowest sample from none, and the probe may hide it there.
      const std::vector<int> moved = flat_off_bound(P, L, g, free, ssr_exact, D.vslow, D.vfast, D.lacks_slow, so);
      std::string names;
      for (int m : moved) flat[m] = true, names += (names.empty() ? "" : ", ") + L.params[m].name;
      if (!moved.empty())
        S.warnings.push_back("the data cannot determine " + names + ": moving " + p.name +
                             " off its bound, they change together and the fit stays exact; they are reported as "
                             "not determined");
    }
  }
  for (size_t i = 0; i < L.params.size(); ++i) {
    const FitParam& p = L.params[i];
    ParameterEstimate pe = estimate_of(p);
    const auto it = std::find(free.begin(), free.end(), static_cast<int>(i));
    if (p.fixed || it == free.end()) {
      S.parameters.push_back(pe);
      continue;
    }
    const int f = static_cast<int>(it - free.begin());
    const double tol = 1e-9 * std::max(1.0, std::abs(p.value));
    pe.at_bound = (std::isfinite(p.lo) && p.value - p.lo <= tol) || (std::isfinite(p.hi) && p.hi - p.value <= tol) ||
                  (p.transform == Transform::kExcess && p.value - L.params[p.excess_base].value <= tol);
    pe.determined = U.id.determined[f] && !flat[i];
    const double var = U.cov_x(f, f);
    if (!pe.determined || !std::isfinite(var) || var < 0) {
      S.parameters.push_back(pe);
      continue;
    }
    pe.std_error = std::sqrt(var);
    const double su = std::sqrt(U.s2 * U.id.inverse(f, f));  // standard error of u
    pe.interval = "wald";
    if (p.transform == Transform::kLog) {  // interval of exp(u): stays positive
      pe.ci95_lo = p.value * std::exp(-kZ975 * su);
      pe.ci95_hi = p.value * std::exp(kZ975 * su);
    } else {
      pe.ci95_lo = p.value - kZ975 * pe.std_error;
      pe.ci95_hi = p.value + kZ975 * pe.std_error;
    }
    interval_in_range(pe, p, L);  // the profile below, where one runs, replaces it
    if (noisy && (pe.at_bound || !cost_is_quadratic(wald_ends, U, f, ssr_min))) {
      const ProfileInterval pr = profile_interval(P, L, static_cast<int>(i), ssr_min, U.s2, su, so);
      auto to_external = [&](double u) {
        if (!std::isfinite(u)) return u;
        switch (p.transform) {
          case Transform::kLog: return std::exp(u);
          case Transform::kExcess: return L.params[p.excess_base].value + u;
          default: return u;
        }
      };
      pe.interval = "profile";
      // Worth continuing from when significantly lower: the optimum lies
      // outside the 95 % region of that point (a lower cost within noise,
      // e.g. along c_v -> 0 with K_brk mimicking a viscous slope, is not).
      if (ssr_min - pr.least_ssr > kZ975 * kZ975 * U.s2 && pr.least_ssr < lowest) {
        lowest = pr.least_ssr;
        lower = pr.least_u;
      }
      if (ssr_min - pr.least_ssr > U.s2) {
        lower_names += (lower_names.empty() ? "" : ", ") + p.name;
        least_seen = std::min(least_seen, pr.least_ssr);
      }
      pe.ci95_lo = p.transform == Transform::kLog && !std::isfinite(pr.lo) ? 0.0 : to_external(pr.lo);
      pe.ci95_hi = to_external(pr.hi);
      // A profile that never rises enough on either side: the data bound it nowhere.
      if (!std::isfinite(pr.lo) && !std::isfinite(pr.hi)) {
        pe.determined = false;
        pe.interval = "none";
        pe.std_error = pe.ci95_lo = pe.ci95_hi = kNaN;
      }
    }
    S.parameters.push_back(pe);
  }
  lower_cost_warning(S, D, o, lower_names, least_seen, ssr_min, !lower.empty());
  for (int i : free) {
    S.free_names.push_back(L.params[i].name);
    S.free_transforms.push_back(transform_text(L, i));
  }
  const int k = static_cast<int>(free.size());
  S.correlation.assign(k, std::vector<double>(k, kNaN));
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) S.correlation[a][b] = U.cov_x(a, b) / std::sqrt(U.cov_x(a, a) * U.cov_x(b, b));
}

// Whether a free Stribeck term acts as a constant over the data: its
// velocity scale above a thousand times the fastest |v| (its rate below a
// thousandth of the inverse), with a free breakaway level.
bool breakaway_is_constant(const Layout& L, const std::vector<int>& free, double vfast) {
  if (!(vfast > 0) || !std::isfinite(vfast)) return false;
  bool level = false, constant = false;
  for (int i : free) {
    const FitParam& p = L.params[i];
    double none;
    level = level || breakaway_level(p, &none);
    if (p.role == ParamRole::kStribeckVelocity) constant = constant || p.value > 1e3 * vfast;
    if (p.role == ParamRole::kStribeckRate) constant = constant || p.value * vfast < 1e-3;
  }
  return level && constant;
}

// Whether the data leave the breakaway open: a flat direction of the fit
// runs through breakaway or Stribeck parameters and parameters of other
// roles, or through a breakaway level above none, or a breakaway or Stribeck parameter's standard error exceeds its
// value (a narrow band of speeds, where a Stribeck term drifts towards a huge
// level hidden far below: R_brk 1.9e10 +/- 1.4e12 at v_brk 0.012 m/s in a log
// at 0.099-0.105 m/s).
bool breakaway_confounds(const Uncertainty& U, const Layout& L, const std::vector<int>& free) {
  for (const auto& group : U.id.flat_groups) {
    bool low = false, other = false, level = false;
    for (int j : group) {
      const FitParam& p = L.params[free[j]];
      (p.low_speed ? low : other) = true;
      // A breakaway level above none that the data leave open (K_brk = 415
      // traded against c_v = 801 where no sample is slow enough to see the
      // peak: a 6.5 kN breakaway that nothing measured).
      double none;
      level = level || (breakaway_level(p, &none) && p.u != none);
    }
    if ((low && other) || level) return true;
  }
  for (size_t f = 0; f < free.size(); ++f) {
    const FitParam& p = L.params[free[f]];
    if (!p.low_speed || !U.id.determined[f]) continue;
    const double var = U.cov_x(static_cast<long>(f), static_cast<long>(f));
    if (std::isfinite(var) && var >= 0 && std::sqrt(var) > std::abs(p.value)) return true;
  }
  return false;
}

// Whether the fit's cost, where the compressed cost predicted evaluations
// (a law linear in its free parameters), is the SSR the quality phase found
// by evaluating the law (to rounding: predictions follow the anchor's bits,
// quality M::force's). Where it is not, every later evaluation is a pass.
bool predictions_hold(const ceres::Problem& P, double quality_ssr, double cost, const FitData& D) {
  std::vector<double*> blocks;
  const CompressedCost* c = compressed_cost(P, &blocks);
  return !c || c->confirm(2.0 * cost, quality_ssr,
                          static_cast<double>(D.n) * std::pow(kNegligibleEffect * D.scale.force_rms, 2));
}

// Quality, covariance and intervals (quality() fills the fit-quality fields),
// with the restarts from a lower cost a profile finds; returns the
// uncertainty at the final optimum.
Uncertainty estimates_with_restarts(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free,
                                    const FitData& D, const ceres::Solver::Options& so, SearchResult& R, Phases& phases,
                                    const FitOptions& o, const QualityPhase& quality) {
  // A profile that finds a lower cost (holding one parameter elsewhere let
  // the others leave the basin) is a better start than any the search had:
  // the fit continues from it and these phases run again, at most
  // FitOptions::max_profile_restarts times.
  const size_t warnings_before = S.warnings.size();
  Uncertainty U;
  for (int restart = 0;; ++restart) {
    phases.begin("quality");
    const double ssr = quality();
    if (!predictions_hold(P, ssr, S.cost, D)) {
      // A law not linear in a level after all: solved again from here with
      // a pass per evaluation.
      phases.begin("solve without predictions");
      ceres::Solver::Summary again;
      ceres::Solve(so, &P, &again);
      count_solve(S, again);
      if (again.IsSolutionUsable()) continue_from(S, L, R, again, warnings_before);
      else set_values_from_internal(L);
      phases.begin("quality");
      quality();
    }

    phases.begin("covariance");
    U = uncertainty(P, L, free, D, so, S.cost);

    phases.begin("intervals");
    std::vector<double> lower;
    parameter_estimates(S, P, L, free, D, U, so, o, lower);
    if (lower.empty() || restart >= o.max_profile_restarts) break;

    phases.begin("restart from a profile");
    std::vector<double> at_optimum;
    for (const auto& q : L.params) at_optimum.push_back(q.u);
    for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = lower[i];
    ceres::Solver::Summary again;
    ceres::Solve(so, &P, &again);
    count_solve(S, again);
    if (!again.IsSolutionUsable() || !(again.final_cost < S.cost * (1 - 1e-9))) {
      for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = at_optimum[i];
      set_values_from_internal(L);
      break;  // keeps the intervals and warnings of the optimum above
    }
    continue_from(S, L, R, again, warnings_before);
    ++S.profile_restarts;
  }

  return U;
}

}  // namespace

double exact_ssr(double ssr_min, const FitData& D) {
  return std::max(100.0 * ssr_min, static_cast<double>(D.n) * std::pow(kNegligibleEffect * D.scale.force_rms, 2));
}

bool is_noisy(const Uncertainty& U, const FitData& D) { return U.s2 > std::pow(kRelativeFloor * D.scale.force_rms, 2); }

Uncertainty estimates(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D,
                      const ceres::Solver::Options& so, SearchResult& R, Phases& phases, const FitOptions& o,
                      const QualityPhase& quality) {
  const size_t warnings_before = S.warnings.size();
  Uncertainty U = estimates_with_restarts(S, P, L, free, D, so, R, phases, o, quality);
  const bool noisy = is_noisy(U, D);
  // A noiseless fit whose Stribeck term is a constant over the data (its
  // velocity scale far above the fastest sample: c_v -> 0) is the law without
  // a breakaway with the levels scaled; it is reported in that form when the
  // form fits exactly (docs/identification.md, "Noiseless fits at a bound").
  if (noisy ? !breakaway_confounds(U, L, free) : !breakaway_is_constant(L, free, D.vfast)) return U;
  phases.begin("hidden breakaway");
  // A log without a slow range cannot tell a breakaway hidden below its
  // slowest sample from none: the Stribeck velocity goes three decades below
  // it, and the breakaway level is then not determined. In a log with a slow
  // range the convention is that a breakaway does not hide below the data:
  // the velocity goes to the slowest sample, where the level's interval
  // says how large a breakaway the slow samples still allow.
  const double hide_at = D.lacks_slow ? 1e-3 * D.vslow : D.vslow;
  const double allow = noisy ? 2.0 * S.cost + kZ975 * kZ975 * U.s2 : exact_ssr(2.0 * S.cost, D);
  const auto hidden = hide_breakaway(P, L, free, hide_at, allow, so);
  if (!hidden) return U;
  count_solve(S, *hidden);
  continue_from(S, L, R, *hidden, warnings_before);
  U = estimates_with_restarts(S, P, L, free, D, so, R, phases, o, quality);
  if (!noisy)
    S.warnings.push_back(
        "the breakaway term was a constant over the data (its Stribeck velocity far above the "
        "fastest sample, |v| = " +
        fmt(D.vfast) + "): the fit reports the same law without a breakaway, the levels scaled");
  else
    S.warnings.push_back(
        "no breakaway is seen in the data: the fit reports the law without one (breakaway at the Coulomb level" +
        std::string(D.lacks_slow ? "), which fits as well as one hidden below the slowest sample, |v| = "
                                 : ", Stribeck velocity at the slowest sample, |v| = ") +
        fmt(D.vslow) + (D.lacks_slow ? "" : ")"));
  return U;
}

}  // namespace stribeck::ident::detail
