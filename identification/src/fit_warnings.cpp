// What a static fit says in plain language (fit_warnings.hpp).
#include "fit_warnings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "fit_helpers.hpp"
#include "fit_solve.hpp"
#include "profile.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::ident::detail {

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

void lower_cost_warning(FitSummary& S, const FitData& D, const FitOptions& o, const std::string& names, double least,
                        double ssr_min, bool significant) {
  if (names.empty()) return;
  const std::string found = fmt(std::sqrt(least / static_cast<double>(D.n)));
  const std::string at = fmt(std::sqrt(ssr_min / static_cast<double>(D.n)));
  if (found == at) return;
  std::string w =
      "holding " + names + " elsewhere, the fit found a lower cost (rmse " + found + " N against " + at + " N)";
  if (significant) w += ": the solution is not the global optimum";
  else w += ", within the noise of this optimum: the estimates are kept";
  if (o.starts > 0) w += "; the automatic search (--starts 0) may reach a lower cost";
  S.warnings.push_back(w);
}

void fit_warnings(FitSummary& S, const Layout& L, const std::vector<int>& free, const FitData& D, const Uncertainty& U,
                  const SearchResult& R, const FitOptions& o) {
  const std::string slow = fmt(D.vslow);
  auto low_speed_hint = [&](bool low) {
    return low && D.lacks_slow ? "; the log has no samples below |v| = " + slow +
                                     " m/s, and breakaway/Stribeck parameters only act at lower speeds"
                               : std::string();
  };
  auto is_low_speed = [&](int f) { return L.params[free[f]].low_speed; };
  // A parameter is named as not determined once: the off-bound check of the
  // intervals phase ("the data cannot determine K_brk, c_v: moving K_brk
  // off its bound ...") names some before the checks below would again.
  std::set<std::string> named;
  const std::string cannot = "the data cannot determine ";
  for (const auto& w : S.warnings) {
    const size_t end = w.find(':');
    if (w.compare(0, cannot.size(), cannot) != 0 || end == std::string::npos) continue;
    std::stringstream list(w.substr(cannot.size(), end - cannot.size()));
    for (std::string n; std::getline(list, n, ',');) named.insert(n.substr(n.find_first_not_of(' ')));
  }
  for (const auto& group : U.id.flat_groups) {
    std::string names;
    bool low = false, new_name = false;
    for (int f : group) {
      names += (names.empty() ? "" : ", ") + L.params[free[f]].name;
      low = low || is_low_speed(f);
      new_name = new_name || !named.count(L.params[free[f]].name);
    }
    if (!new_name) continue;
    S.warnings.push_back("the data cannot determine " + names +
                         (group.size() == 1 ? " (it has no effect on the fit at the solution)"
                                            : " (changing them together does not change the fit)") +
                         low_speed_hint(low) + "; it is reported as not determined; fix it with --fix or add data");
  }
  const bool undetermined = std::any_of(S.parameters.begin(), S.parameters.end(),
                                        [](const ParameterEstimate& p) { return !p.fixed && !p.determined; });
  if (undetermined && S.status == FitStatus::kConverged) S.status = FitStatus::kSingular;
  if (S.status == FitStatus::kMaxIterations)
    S.warnings.push_back("not converged: the solver stopped after " + std::to_string(o.max_iterations) +
                         " iterations; the estimates are not final");
  if (S.status == FitStatus::kFailed) S.warnings.push_back("the solver failed: " + S.solver_message);
  if (o.starts == 0 && free.size() > 0 && !R.settled)
    S.warnings.push_back("the global search did not settle: " + std::to_string(R.runs) + " starts, " +
                         std::to_string(R.at_best) +
                         " reached the best cost; the optimum may not be global (try --starts N with a larger N, "
                         "or --bounds)");
  for (int a = 0; a < static_cast<int>(free.size()); ++a) {
    const ParameterEstimate& pe = S.param(S.free_names[a]);
    if (!pe.determined) {
      if (U.id.determined[a] && !named.count(pe.name))  // determined locally, but the profile is flat everywhere
        S.warnings.push_back(pe.name + " is not determined: the cost stays within the 95 % level over its whole range" +
                             low_speed_hint(is_low_speed(a)));
      continue;
    }
    if (pe.at_bound)
      S.warnings.push_back(pe.name + " = " + fmt(pe.value) + " is at its bound" +
                           (pe.interval == "profile" ? "; its interval is the one-sided profile-likelihood interval"
                                                     : "; its interval is one-sided, from the bound"));
    else if (std::isfinite(pe.std_error) && pe.std_error > o.max_relative_std_error * std::abs(pe.value))
      S.warnings.push_back(pe.name + " is poorly determined: " + fmt(pe.value) + " +/- " + fmt(pe.std_error) + " (" +
                           fmt(100.0 * pe.std_error / std::abs(pe.value)) + " %)" + low_speed_hint(is_low_speed(a)));
    for (int b = a + 1; b < static_cast<int>(free.size()); ++b)
      if (std::abs(S.correlation[a][b]) > o.max_abs_correlation)
        S.warnings.push_back(S.free_names[a] + " and " + S.free_names[b] + " cannot be separated (correlation " +
                             fmt(S.correlation[a][b]) + ")" + low_speed_hint(is_low_speed(a) || is_low_speed(b)));
  }
  // (Not for a fit exact to rounding: the "residuals" are then rounding errors.)
  const bool exact = S.rmse <= kRelativeFloor * D.scale.force_rms;
  if (std::abs(S.autocorrelation_lag1) > 0.9 && S.status == FitStatus::kConverged && !exact)
    S.warnings.push_back("the residuals are strongly autocorrelated (lag-1 " + fmt(S.autocorrelation_lag1) +
                         "): the model misses a systematic effect and the standard errors are optimistic");
  else if (!R.noise_floor && !exact && S.autocorrelation_lag1 > 0.5)
    S.warnings.push_back("the residual (rmse " + fmt(S.rmse) + " N) is " +
                         fmt(S.rmse / std::max(D.scale.noise, 1e-300)) + " times the noise estimated from the data (" +
                         fmt(D.scale.noise) +
                         " N) and autocorrelated: the model misses an effect, or the optimum is not global");
}

bool canonical_values(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D) {
  auto estimate = [&](int i) -> ParameterEstimate* {
    for (auto& pe : S.parameters)
      if (pe.name == L.params[i].name) return &pe;
    return nullptr;
  };
  const double ssr0 = evaluate_ssr(P);
  if (!std::isfinite(ssr0)) return false;
  const double allow =
      ssr0 * (1 + 1e-9) + static_cast<double>(D.n) * std::pow(kNegligibleEffect * D.scale.force_rms, 2);
  bool moved = false;
  auto try_at = [&](int i, double u) {
    FitParam& p = L.params[i];
    const double before = p.u;
    if (u == before) return;
    p.u = u;
    if (evaluate_ssr(P) <= allow) moved = true;
    else p.u = before;
  };
  for (int pass = 0; pass < 2; ++pass)
    for (int i : free) {
      const ParameterEstimate* pe = estimate(i);
      if (!pe || pe->determined) continue;
      const FitParam& p = L.params[i];
      double none;
      if (pass == 0 && breakaway_level(p, &none)) try_at(i, none);
      const bool velocity = p.role == ParamRole::kStribeckVelocity, rate = p.role == ParamRole::kStribeckRate;
      if (pass == 1 && (velocity || rate) && p.transform != Transform::kExcess && D.vslow > 0 &&
          std::isfinite(D.vslow)) {
        const double x = std::min(std::max(velocity ? D.vslow : 1.0 / D.vslow, p.lo), p.hi);
        if (x > 0 || p.transform != Transform::kLog) try_at(i, p.transform == Transform::kLog ? std::log(x) : x);
      }
    }
  if (!moved) return false;
  set_values_from_internal(L);
  for (int i : free)
    if (ParameterEstimate* pe = estimate(i); pe && !pe->determined) {
      const FitParam& p = L.params[i];
      const double tol = 1e-9 * std::max(1.0, std::abs(p.value));
      pe->value = p.value;
      pe->at_bound = (std::isfinite(p.lo) && p.value - p.lo <= tol) || (std::isfinite(p.hi) && p.hi - p.value <= tol) ||
                     (p.transform == Transform::kExcess && p.u <= tol);
    }
  return true;
}

void canonical_form(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D,
                    const QualityPhase& quality) {
  if (!canonical_values(S, P, L, free, D)) return;
  S.experiments.clear();
  quality();
}

// Each warning once: the phases that run again after a restart, and the
// quality phase per experiment, may add the same sentence twice.
void unique_warnings(FitSummary& S) {
  std::vector<std::string> kept;
  for (auto& w : S.warnings)
    if (std::find(kept.begin(), kept.end(), w) == kept.end()) kept.push_back(std::move(w));
  S.warnings = std::move(kept);
}

constexpr long kKeptPerParameter = 10;

void few_filtered_samples(FitSummary& S, const std::vector<data::Experiment>& experiments, const ModelInfo& model,
                          const FitOptions& o, const FitData& D, int k) {
  const long want = kKeptPerParameter * k;
  double used = 0, rate = kInf;
  long reversal = 0, ends = 0;
  for (int e : D.train) {
    const FilterReport& f = D.data[e].filter;
    if (!f.filtered) continue;
    used = std::max(used, f.cutoff_hz);
    rate = std::min(rate, f.rate_hz);
    reversal += f.near_reversal;
    ends += f.near_end;
  }
  if (!(used > 0) || D.n >= want) return;
  // The kept samples at a trial cut-off, as the fit would prepare them.
  auto kept_at = [&](double cutoff) {
    FitOptions t = o;
    t.cutoff_hz = cutoff;
    long n = 0;
    for (int e : D.train) try {
        n += static_cast<long>(prepare_data({experiments[e]}, model, t)[0].size());
      } catch (const data::InputError&) {  // nothing left at this cut-off
      }
    return n;
  };
  double best_cutoff = 0;
  long best = D.n;
  for (double c = used * std::sqrt(2.0); c < 0.45 * rate; c *= std::sqrt(2.0)) {
    const long n = kept_at(std::round(c * 100) / 100);
    if (n > best) best = n, best_cutoff = std::round(c * 100) / 100;
    if (n >= want) break;
  }
  std::string w = "parallel filtering kept only " + std::to_string(D.n) + " samples for " + std::to_string(k) +
                  " free parameters (fewer than " + std::to_string(kKeptPerParameter) + " each; at cut-off " +
                  fmt(used) + " Hz, " + std::to_string(reversal) + " left out near velocity reversals, " +
                  std::to_string(ends) + " near the ends): ";
  if (best_cutoff > 0)
    w += "--cutoff " + fmt(best_cutoff) + " keeps " + std::to_string(best) +
         " (if the motion's band lies below it; compare the estimates at both)";
  else
    w += "no cut-off below the Nyquist frequency keeps more; fit unfiltered with --no-parallel-filter, or record "
         "longer strokes";
  S.warnings.push_back(w);
}

bool misfit(const FitSummary& S, const FitData& D, const SearchResult& R) {
  const bool exact = S.rmse <= kRelativeFloor * D.scale.force_rms;
  return !exact && !R.noise_floor && S.rmse > 1.5 * D.scale.noise &&
         (S.status == FitStatus::kConverged || S.status == FitStatus::kSingular);
}

void check_fixed_parameters(FitSummary& S, ceres::Problem& P, Layout& L, const FitData& D,
                            const ceres::Solver::Options& so, const FitOptions& o) {
  std::vector<double> at_optimum;
  for (const auto& q : L.params) at_optimum.push_back(q.u);
  auto user_fixed = [&](const std::string& base) {
    return std::any_of(o.fix.begin(), o.fix.end(),
                       [&](const std::string& f) { return f.compare(0, f.find('='), base) == 0; });
  };
  const double z2s2 = kZ975 * kZ975 * D.scale.noise * D.scale.noise;
  std::string free_list = ",";  // the model parameters estimated now, for the hint
  for (const auto& q : L.params)
    if (!q.fixed && q.model_index >= 0 && free_list.find("," + q.base + ",") == std::string::npos)
      free_list += q.base + ",";
  for (auto& p : L.params) {
    if (!p.fixed || p.model_index < 0 || !P.HasParameterBlock(&p.u) || user_fixed(p.base)) continue;
    P.SetParameterBlockVariable(&p.u);
    bound(P, p);
    ceres::Solver::Options quiet = so;
    quiet.callbacks.clear();
    ceres::Solver::Summary sum;
    ceres::Solve(quiet, &P, &sum);
    count_solve(S, sum);
    set_values_from_internal(L);
    const double freed = p.value, cost = sum.final_cost;
    const double rmse = S.rmse * std::sqrt(std::max(cost, 0.0) / S.cost);
    if (sum.IsSolutionUsable() && 2 * (S.cost - cost) > z2s2 && rmse < 0.8 * S.rmse) {
      std::string with = free_list;
      if (with.find("," + p.base + ",") == std::string::npos) with += p.base + ",";
      S.warnings.push_back(p.name + " is held at " + fmt(S.param(p.name).value) + " " + p.unit +
                           "; freed, it goes to " + fmt(freed) + " " + p.unit + " and the rmse falls from " +
                           fmt(S.rmse) + " to " + fmt(rmse) + " N: estimate it too (--free " +
                           with.substr(1, with.size() - 2) + ")");
    }
    for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = at_optimum[i];
    P.SetParameterBlockConstant(&p.u);
    set_values_from_internal(L);
  }
}

}  // namespace stribeck::ident::detail
