// The lines every export file and summary shares: how a conversion was
// obtained, how close it is, its breakaway and stick-slip check.
#include <cctype>
#include <cmath>
#include <string>

#include "export_internal.hpp"
#include "stribeck/kernels/integrators/status.hpp"

namespace stribeck::ident::exporter {
namespace {

std::string range_text(const ExportConversion& c, const std::string& vunit) {
  return "|v| in [" + short_num(c.v_lo) + ", " + short_num(c.v_hi) + "] " + vunit;
}

std::string percent_change(double exported, double fitted) {
  if (fitted == 0.0) return exported == 0.0 ? "0 %" : "from 0";
  const double d = 100.0 * (exported - fitted) / std::abs(fitted);
  return (d > 0 ? "+" : "") + short_num(d) + " %";
}

}  // namespace

// The stick-slip check in one line.
std::string stick_slip_text(const StickSlipCheck& s, const std::string& vunit, const std::string& funit) {
  if (!s.not_run.empty()) return "Stick-slip check not run: " + s.not_run;
  auto one = [&](const StickSlipMetrics<double>& m) {
    std::string t = m.stick_slip ? "stick-slip, period " + short_num(m.period) + " s, stick fraction " +
                                       short_num(m.stick_fraction) + ", "
                                 : std::string("no stick-slip, ");
    t += "spring force amplitude " + short_num(m.amp_spring_force) + " " + funit + ", first breakaway " +
         short_num(m.breakaway_force) + " " + funit;
    if (m.status != 0) t += ", status " + std::string(sim_status_name(m.status));
    return t;
  };
  const StickSlipMetrics<double>&a = s.fitted, &b = s.exported;
  std::string t = "Stick-slip check (" + short_num(s.mass) + (vunit == "rad/s" ? " kg*m^2" : " kg") +
                  " on a spring of " + short_num(s.stiffness) + " " + funit + "/" + (vunit == "rad/s" ? "rad" : "m") +
                  " pulled at " + short_num(s.drive_velocity) + " " + vunit + " for " + short_num(s.t_end) +
                  " s, both laws in the stiction form): fitted law: " + one(a) + "; exported: " + one(b) +
                  "; differences: first breakaway " + percent_change(b.breakaway_force, a.breakaway_force) +
                  ", amplitude " + percent_change(b.amp_spring_force, a.amp_spring_force);
  if (a.stick_slip && b.stick_slip)
    t += ", period " + percent_change(b.period, a.period) + ", stick fraction " +
         short_num(b.stick_fraction - a.stick_fraction);
  else if (a.stick_slip != b.stick_slip)
    t += std::string(", stick-slip only with the ") + (a.stick_slip ? "fitted" : "exported") + " law";
  return t;
}

std::string file_header(const char* cm, const ParamFile& src, const std::string& fit_path) {
  std::string s =
      std::string(cm) + " Written by stribeck export-params from " + fit_path + " (model " + src.model + ").\n";
  for (const auto& n : src.ignored)
    s += std::string(cm) + " Not exported: '" + n + "' (force balance of the rig, not friction).\n";
  return s;
}

// Whether the exported law holds another force at rest than the fitted one
// (by more than 5 %): MSL's MassWithStopAndFriction breaks away at its
// sliding law's value at v = 0+, so a fit to a smoothed rise through zero
// leaves it (almost) no stiction.
bool breakaway_differs(const ExportConversion& c) {
  return c.max_force > 0.0 && std::abs(c.breakaway_export - c.breakaway_fit) > 0.05 * std::abs(c.breakaway_fit);
}
std::string breakaway_warning(const ExportConversion& c, const std::string& funit) {
  return "the exported values break away at " + short_num(c.breakaway_export) + " " + funit + ", the fit at " +
         short_num(c.breakaway_fit) + " " + funit + " (the target's force at v = 0+ is its breakaway; see the " +
         "stick-slip check)";
}

// What one conversion is, how good, and where it was taken.
std::string conversion_lines(const char* cm, const ExportConversion& c, const std::string& vunit,
                             const std::string& funit) {
  const std::string p(cm);
  std::string s;
  if (!c.at.label.empty()) s += p + " Operating point: " + c.at.label + ".\n";
  if (c.exact && !(c.v_hi > c.v_lo))  // a law with memory carried over: no force curve was compared
    s += p + " exact: " + c.how + ".\n";
  else if (c.exact)
    s += p + " exact: " + c.how + ".\n" + p + " Checked: largest force difference " + short_num(c.max_error) + " " +
         funit + " over " + range_text(c, vunit) + ".\n";
  else
    s += p + " approximate: " + c.how + ".\n" + p + " Largest force difference " + short_num(c.max_error) + " " +
         funit + " (" + short_num(c.max_force > 0 ? 100.0 * c.max_error / c.max_force : 0.0) +
         " % of the largest |F| " + short_num(c.max_force) + " " + funit + ") over " + range_text(c, vunit) + ".\n";
  if (c.max_force > 0.0)
    s += p + " Breakaway (held at rest before sliding): fitted law " + short_num(c.breakaway_fit) + " " + funit +
         ", exported " + short_num(c.breakaway_export) + " " + funit + ".\n";
  if (breakaway_differs(c)) s += p + " Warning: " + breakaway_warning(c, funit) + ".\n";
  if (!c.stick.not_run.empty() || c.stick.t_end > 0.0) s += p + " " + stick_slip_text(c.stick, vunit, funit) + ".\n";
  return s;
}

// A name part from an operating point's label (Modelica and MATLAB identifiers).
std::string identifier(const std::string& label) {
  std::string s;
  for (char ch : label) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s;
}

}  // namespace stribeck::ident::exporter
