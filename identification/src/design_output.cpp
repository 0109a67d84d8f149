// The printed table and the JSON of `stribeck design` (design.hpp,
// docs/identification.md).
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "stribeck/identification/design.hpp"

namespace stribeck::ident {
namespace {

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

nlohmann::json evaluation_json(const DesignEvaluation& e) {
  nlohmann::json j;
  j["criterion_value"] = number(e.prediction.criterion);
  j["worst_relative_std_error"] = number(e.prediction.worst_rse);
  j["experiments"] = nlohmann::json::array();
  for (const auto& x : e.experiments) {
    nlohmann::json o = {{"name", x.name},    {"profile", x.profile}, {"duration", x.duration},
                        {"rate", x.rate_hz}, {"v_max", x.v_max},     {"stroke_used", x.stroke_used},
                        {"a_peak", x.a_peak}};
    if (x.has_pressure) o["pressure_a"] = x.pressure_a, o["pressure_b"] = x.pressure_b;
    if (x.profile == "multisine")
      o["band_lo_hz"] = x.band_lo_hz, o["band_hi_hz"] = x.band_hi_hz, o["tones"] = x.tones,
      o["phase_seed"] = x.phase_seed;
    j["experiments"].push_back(o);
  }
  j["parameters"] = nlohmann::json::array();
  for (const auto& p : e.prediction.parameters)
    j["parameters"].push_back({{"name", p.name},
                               {"unit", p.unit},
                               {"value", p.value},
                               {"std_error", number(p.std_error)},
                               {"relative_std_error", number(p.relative)},
                               {"linear_regime", linear_regime(p)}});
  return j;
}

}  // namespace

bool linear_regime(const PredictedParameter& p) {
  if (!std::isfinite(p.std_error)) return false;
  return !(p.relative > kLinearRegimeMaxRse);
}

std::string design_table(const DesignResult& d) {
  std::string s = "parameter        value       std err      rel.    | reference std err   rel.    | ratio\n";
  char line[256];
  const auto& a = d.design.prediction.parameters;
  const auto& b = d.reference.prediction.parameters;
  bool nonlinear = false;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const char* ma = linear_regime(a[i]) ? " " : "*";
    const char* mb = linear_regime(b[i]) ? " " : "*";
    nonlinear = nonlinear || *ma == '*' || *mb == '*';
    std::snprintf(line, sizeof line, "  %-10s %11.5g %12.4g %8.2f%%%s | %12.4g %8.2f%%%s | %6.3g\n", a[i].name.c_str(),
                  a[i].value, a[i].std_error, 100 * a[i].relative, ma, b[i].std_error, 100 * b[i].relative, mb,
                  b[i].std_error / a[i].std_error);
    s += line;
  }
  std::snprintf(line, sizeof line, "worst relative std error: design %.4g, reference %.4g (%.3g x narrower)\n",
                d.design.prediction.worst_rse, d.reference.prediction.worst_rse,
                d.reference.prediction.worst_rse / d.design.prediction.worst_rse);
  s += line;
  if (nonlinear) {
    std::snprintf(line, sizeof line,
                  "warning: * relative std error above %g %%: first-order prediction; the fit is nonlinear at this "
                  "noise: check by Monte Carlo (bench/design_mc.sh)\n",
                  100 * kLinearRegimeMaxRse);
    s += line;
  }
  return s;
}

std::string design_bound_line(const DesignBound& b, double design_worst_rse) {
  if (!b.computed) return "no bound on the best test: " + b.why_not + "\n";
  char line[256];
  std::snprintf(line, sizeof line,
                "best any test of the rig's duration can do: worst relative std error >= %.5g (certified); the design "
                "is within %.3g %% of it\n",
                b.worst_rse, 100 * (design_worst_rse / b.worst_rse - 1));
  return line;
}

std::string design_json(const DesignRequest& r, const DesignResult& d) {
  nlohmann::json j;
  j["model"] = r.model;
  j["criterion"] = criterion_name(r.criterion);
  j["force_noise"] = r.rig.force_noise;
  j["candidates_evaluated"] = d.evaluated;
  j["candidates_feasible"] = d.feasible;
  j["design"] = evaluation_json(d.design);
  j["reference"] = evaluation_json(d.reference);
  j["reference"]["description"] =
      "plateaus profile (12 log-spaced levels v/1000..v, both directions), same experiment count, total duration "
      "and pressures spread over the rig's, v the fastest within the limits";
  j["ratio"] = nlohmann::json::array();
  const auto& a = d.design.prediction.parameters;
  const auto& b = d.reference.prediction.parameters;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    j["ratio"].push_back({{"name", a[i].name}, {"value", number(b[i].std_error / a[i].std_error)}});
  j["worst_rse_ratio"] = number(d.reference.prediction.worst_rse / d.design.prediction.worst_rse);
  const DesignBound& bound = d.bound;
  j["bound"] = {{"computed", bound.computed}};
  if (bound.computed)
    j["bound"].update({{"worst_relative_std_error", bound.worst_rse},
                       {"optimal_measure_worst_relative_std_error", bound.measure_rse},
                       {"design_above_bound", number(d.design.prediction.worst_rse / bound.worst_rse - 1)},
                       {"grid_speeds", bound.grid_speeds},
                       {"seconds", bound.seconds}});
  else j["bound"]["reason"] = bound.why_not;
  return j.dump(2) + "\n";
}

}  // namespace stribeck::ident
