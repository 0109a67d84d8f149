// export_params: the options' check, the operating points a fit is converted
// at, one conversion per point and the target's file; the summary lines.
#include "stribeck/identification/export_params.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "export_internal.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/workloads/params.hpp"

namespace stribeck::ident {

const char* export_target_name(ExportTarget t) {
  switch (t) {
    case ExportTarget::kSimscape: return "simscape";
    case ExportTarget::kModelica: return "modelica";
    case ExportTarget::kTwentySim: return "20sim";
    case ExportTarget::kJson: break;
  }
  return "json";
}

bool parse_export_target(const std::string& name, ExportTarget* out) {
  for (ExportTarget t :
       {ExportTarget::kSimscape, ExportTarget::kModelica, ExportTarget::kTwentySim, ExportTarget::kJson})
    if (name == export_target_name(t)) {
      *out = t;
      return true;
    }
  return false;
}

bool ExportOptions::IsValid(std::string* error) const {
  std::string why;
  if (fit.empty()) why = "no fit report given";
  else if (fit_index < 1) why = "--fit must be a positive integer (1 = the first fit)";
  else if (pressure && !std::isfinite(*pressure)) why = "--pressure must be finite";
  else if (normal_force && !std::isfinite(*normal_force)) why = "--normal-force must be finite";
  if (error) *error = why;
  return why.empty();
}

ExportResult export_params(const ExportOptions& o) {
  std::string invalid;
  if (!o.IsValid(&invalid)) throw data::InputError(invalid);
  using namespace exporter;
  ExportResult r;
  r.source = read_param_file(o.fit, o.fit_index - 1);
  const ParamFile& src = r.source;
  const ExportTarget t = o.to;
  const ModelInfo& m = workloads::require_model(src.model);
  const Law law = law_of(src.model);
  const std::vector<data::Experiment> data =
      o.data.empty() ? std::vector<data::Experiment>{} : data::read_any_log(o.data);
  // What the conversion depends on besides v (dynamic laws and rotational
  // to 20-sim have no conversion: convert refuses them).
  const bool twentysim_src = is_twentysim(law);
  const bool static_law = !m.dynamic && law != Law::kSimscapeRotational && !src.rotational;
  const bool needs_fn = static_law && t != ExportTarget::kJson && (twentysim_src != (t == ExportTarget::kTwentySim));
  const bool needs_p = is_pressure_law(law) && (t == ExportTarget::kModelica || t == ExportTarget::kTwentySim) &&
                       src.values[static_cast<size_t>(m.param_index("f_cfr"))] != 0.0;
  std::vector<ExportConversion>& cs = r.conversions;
  if (needs_fn || needs_p) {
    const std::string why = "the conversion of " + src.model + " to " + export_target_name(t);
    for (const OperatingPoint& at : operating_points(o, data, needs_p, needs_fn, why))
      cs.push_back(convert(src, t, o, data, at));
  } else {
    OperatingPoint at;
    if (o.normal_force) at.normal_force = at.fn_lo = at.fn_hi = *o.normal_force;
    cs.push_back(convert(src, t, o, data, at));
  }
  switch (t) {
    case ExportTarget::kSimscape: r.text = write_simscape(src, o.fit, cs); break;
    case ExportTarget::kModelica: r.text = write_modelica(src, o.fit, cs); break;
    case ExportTarget::kTwentySim: r.text = write_twentysim(src, o.fit, cs); break;
    case ExportTarget::kJson: r.text = write_json(src, o.fit, cs.front()); break;
  }
  return r;
}

namespace {
bool rotational_source(const ParamFile& src) {
  return exporter::law_of(src.model) == exporter::Law::kSimscapeRotational || src.rotational;
}
}  // namespace

std::string export_summary(const ExportResult& r, const ExportOptions& o, size_t i, const std::string& output) {
  using exporter::short_num;
  const ExportConversion& c = r.conversions.at(i);
  const bool rotational = rotational_source(r.source);
  const std::string unit = rotational ? "N*m" : "N";
  const std::string vunit = rotational ? "rad/s" : "m/s";
  // No velocity range: a law with memory carried over unchanged, which no
  // force curve was compared for.
  const bool checked = c.v_hi > c.v_lo;
  std::string line = "stribeck export-params: " + r.source.model + " -> " + export_target_name(o.to) +
                     (c.at.label.empty() ? "" : " at " + c.at.label) + ", " + (c.exact ? "exact" : "approximate") +
                     (checked ? ": largest force difference " + short_num(c.max_error) + " " + unit + " over |v| in [" +
                                    short_num(c.v_lo) + ", " + short_num(c.v_hi) + "]"
                              : ": carried over unchanged") +
                     (output.empty() ? "" : " -> " + output);
  if (c.max_force > 0.0)
    line += "; breakaway " + short_num(c.breakaway_export) + " " + unit + " (fit " + short_num(c.breakaway_fit) + " " +
            unit + ")";
  if (!c.stick.not_run.empty() || c.stick.t_end > 0.0) line += "\n  " + exporter::stick_slip_text(c.stick, vunit, unit);
  return line;
}

std::string export_warning(const ExportResult& r, size_t i) {
  const ExportConversion& c = r.conversions.at(i);
  return exporter::breakaway_differs(c) ? exporter::breakaway_warning(c, rotational_source(r.source) ? "N*m" : "N")
                                        : std::string();
}

}  // namespace stribeck::ident
