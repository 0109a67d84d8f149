// Human and JSON views of a FitSummary.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "stribeck/identification/fit.hpp"

namespace stribeck::ident {
namespace {

std::string num(double x, const char* f = "%.6g") {
  if (!std::isfinite(x)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

nlohmann::json jnum(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

}  // namespace

const ParameterEstimate& FitSummary::param(const std::string& name) const {
  for (const auto& p : parameters)
    if (p.name == name) return p;
  throw std::out_of_range("no fitted parameter '" + name + "'");
}

std::string FitSummary::report() const {
  std::string s = "model " + model + ": " + status_name(status) + ", " + std::to_string(samples) + " samples, " +
                  std::to_string(free_parameters) + " free parameters, " + num(seconds, "%.3g") + " s\n";
  s += "  search: " + std::to_string(starts) + " start(s), " + std::to_string(starts_at_best) +
       " reached the best cost" + (search_device.empty() ? "" : " (coarse search: " + search_device + ")") +
       (profile_restarts > 0 ? "; continued " + std::to_string(profile_restarts) +
                                   " time(s) from a lower cost an interval's profile found"
                             : std::string()) +
       "; noise estimated from the data " + num(noise_estimate, "%.3g") + " " + force_unit + "\n";
  // What parallel filtering kept of each log, and why the rest was left out.
  for (const auto& e : experiments) {
    const FilterReport& f = e.filter;
    if (!f.filtered) continue;
    s += "  parallel filtering" + (experiments.size() > 1 ? " of '" + e.name + "'" : std::string()) + ": cut-off " +
         num(f.cutoff_hz, "%.4g") + " Hz (support +/-" + num(f.half_width_s, "%.3g") + " s), decimation " +
         std::to_string(f.decimation) + ": " + std::to_string(f.kept) + " of " + std::to_string(f.samples_in) +
         " samples kept; left out " + std::to_string(f.decimated()) + " between decimated samples, " +
         std::to_string(f.near_reversal) + " near velocity reversals, " + std::to_string(f.near_end) +
         " near the ends" + (f.resampled ? " (time stamps resampled to a uniform step first)" : "") + "\n";
  }
  char line[256];
  std::snprintf(line, sizeof line, "  %-22s %14s %12s %27s\n", "parameter", "value", "std error", "95 % interval");
  s += line;
  for (const auto& p : parameters) {
    std::string ci = "[" + num(p.ci95_lo) + ", " + num(p.ci95_hi) + "]";
    if (p.fixed) ci = "(fixed)";
    else if (!p.determined) ci = "not determined";
    else if (p.interval == "profile" || p.interval == "one-sided") ci += " (" + p.interval + ")";
    std::snprintf(line, sizeof line, "  %-22s %14s %12s %27s %s\n", p.name.c_str(), num(p.value).c_str(),
                  p.fixed ? "" : num(p.std_error, "%.3g").c_str(), ci.c_str(), p.unit.c_str());
    s += line;
  }
  s += "  rmse " + num(rmse, "%.4g") + " " + force_unit + ", R^2 " + num(r_squared, "%.5f") + ", max |error| " +
       num(max_abs_error, "%.4g") + " " + force_unit + ", lag-1 autocorrelation " + num(autocorrelation_lag1, "%.3f") +
       ", AIC " + num(aic, "%.1f") + ", BIC " + num(bic, "%.1f") + "\n";
  if (std::isfinite(validation_rmse))
    s += "  validation rmse (held-out experiments) " + num(validation_rmse, "%.4g") + "\n";
  if (has_asymmetry_test)
    s += "  asymmetry: likelihood ratio " + num(asymmetry.statistic, "%.3g") + " on " + std::to_string(asymmetry.dof) +
         " dof, p = " + num(asymmetry.p_value, "%.3g") + " (" +
         (asymmetry.significant ? "significant" : "not significant") + " at 5 %)\n";
  if (!phase_seconds.empty()) {
    s += "  time by phase:";
    for (const auto& [name, secs] : phase_seconds) s += " " + name + " " + num(secs, "%.2g") + " s;";
    s.back() = '\n';
  }
  for (const auto& w : warnings) s += "  warning: " + w + "\n";
  return s;
}

std::string to_json(const FitSummary& s, int indent) {
  nlohmann::json j;
  j["model"] = s.model;
  j["status"] = status_name(s.status);
  j["converged"] = s.converged;
  nlohmann::json params = nlohmann::json::object();
  for (const auto& p : s.parameters)
    params[p.name] = {{"value", jnum(p.value)},
                      {"std_error", jnum(p.std_error)},
                      {"ci95", {jnum(p.ci95_lo), jnum(p.ci95_hi)}},
                      {"fixed", p.fixed},
                      {"at_bound", p.at_bound},
                      {"determined", p.determined},
                      {"interval", p.interval},
                      {"unit", p.unit}};
  j["parameters"] = params;
  j["correlation"] = {
      {"parameters", s.free_names}, {"transforms", s.free_transforms}, {"matrix", nlohmann::json::array()}};
  for (const auto& row : s.correlation) {
    nlohmann::json r = nlohmann::json::array();
    for (double x : row) r.push_back(jnum(x));
    j["correlation"]["matrix"].push_back(r);
  }
  j["samples"] = s.samples;
  j["free_parameters"] = s.free_parameters;
  j["rmse"] = jnum(s.rmse);
  j["r_squared"] = jnum(s.r_squared);
  j["max_abs_error"] = jnum(s.max_abs_error);
  j["autocorrelation_lag1"] = jnum(s.autocorrelation_lag1);
  j["aic"] = jnum(s.aic);
  j["bic"] = jnum(s.bic);
  j["validation_rmse"] = jnum(s.validation_rmse);
  j["iterations"] = s.iterations;
  j["starts"] = s.starts;
  j["starts_at_best"] = s.starts_at_best;
  j["profile_restarts"] = s.profile_restarts;
  j["noise_estimate"] = jnum(s.noise_estimate);
  // The unit of rmse, max_abs_error, noise_estimate and the residuals.
  j["force_unit"] = s.force_unit;
  j["velocity_unit"] = s.velocity_unit;
  nlohmann::json phases = nlohmann::json::object();
  for (const auto& [name, secs] : s.phase_seconds)
    phases[name] = phases.value(name, 0.0) + secs;  // phases run again after a restart add up
  j["phase_seconds"] = phases;
  j["best_start"] = s.best_start;
  j["search_device"] = s.search_device;
  j["seconds"] = s.seconds;
  j["solver_seconds"] = s.solver_seconds;
  j["solver_message"] = s.solver_message;
  nlohmann::json ex = nlohmann::json::array();
  for (const auto& e : s.experiments) {
    nlohmann::json x = {{"name", e.name}, {"samples", e.samples}, {"rmse", jnum(e.rmse)}, {"held_out", e.held_out}};
    const FilterReport& f = e.filter;
    x["parallel_filter"] = nlohmann::json(nullptr);
    if (f.filtered)
      x["parallel_filter"] = {
          {"cutoff_hz", jnum(f.cutoff_hz)},
          {"half_width_s", jnum(f.half_width_s)},
          {"decimation", f.decimation},
          {"samples_in", f.samples_in},
          {"kept", f.kept},
          {"left_out", {{"decimation", f.decimated()}, {"near_reversal", f.near_reversal}, {"near_end", f.near_end}}},
          {"resampled", f.resampled}};
    ex.push_back(std::move(x));
  }
  j["experiments"] = ex;
  if (s.has_asymmetry_test)
    j["asymmetry"] = {{"statistic", jnum(s.asymmetry.statistic)},
                      {"dof", s.asymmetry.dof},
                      {"p_value", jnum(s.asymmetry.p_value)},
                      {"significant", s.asymmetry.significant},
                      {"rmse_symmetric", jnum(s.asymmetry.rmse_symmetric)}};
  j["warnings"] = s.warnings;
  // Names read from files may hold bytes that are not UTF-8: replaced
  // (U+FFFD), not an exception from dump().
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace stribeck::ident
