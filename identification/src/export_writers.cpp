// The file per target tool: a Simscape set_param script, Modelica MSL
// records, a 20-sim parameters section, a JSON parameter set.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "export_internal.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/workloads/params.hpp"

namespace stribeck::ident::exporter {
namespace {

struct NamedValue {
  std::string name, unit;  // unit empty: dimensionless (no _unit parameter)
  double value;
};

}  // namespace

// Simscape blocks and their parameter names (the names `set_param` takes).
// Sources: MathWorks' own Hydraulics-to-Isothermal-Liquid converter, which
// maps Cylinder Friction {frc_preload, fr_coef, frc_brkwy_coef, visc_coef,
// vel_thr} to Cylinder Friction (IL) {preload_force, Coulomb_coeff,
// breakaway_Coulomb_ratio, viscous_coeff, breakaway_velocity}; the
// Translational / Rotational Friction blocks' brkwy_frc / brkwy_trq,
// brkwy_vel, Col_frc / Col_trq, visc_coef (docs/cli.md lists the pages).
std::string write_simscape(const ParamFile& src, const std::string& fit_path, const std::vector<ExportConversion>& cs) {
  const Law law = law_of(cs.front().law);
  std::string block, lib;
  std::string vunit = "m/s", funit = "N";
  auto values = [&](const std::vector<double>& p) -> std::vector<NamedValue> {
    if (law == Law::kSimscapeTranslational)
      return {
          {"brkwy_frc", "N", p[0]}, {"brkwy_vel", "m/s", p[1]}, {"Col_frc", "N", p[2]}, {"visc_coef", "N/(m/s)", p[3]}};
    if (law == Law::kSimscapeRotational)
      return {{"brkwy_trq", "N*m", p[0]},
              {"brkwy_vel", "rad/s", p[1]},
              {"Col_trq", "N*m", p[2]},
              {"visc_coef", "N*m/(rad/s)", p[3]}};
    if (law == Law::kSimscapeCylinder)
      return {{"frc_preload", "N", p[0]},     {"fr_coef", "N/Pa", p[1]},   {"frc_brkwy_coef", "", p[2]},
              {"visc_coef", "N/(m/s)", p[3]}, {"trans_coef", "s/m", p[4]}, {"vel_thr", "m/s", p[5]}};
    return {{"preload_force", "N", p[0]},  // simscape-cylinder-il
            {"Coulomb_coeff", "N/Pa", p[1]},
            {"breakaway_Coulomb_ratio", "", p[2]},
            {"viscous_coeff", "N/(m/s)", p[4]},
            {"breakaway_velocity", "m/s", p[3]}};
  };
  if (law == Law::kSimscapeTranslational) {
    block = "Translational Friction";
    lib = "fl_lib/Mechanical/Translational Elements/Translational Friction";
  } else if (law == Law::kSimscapeRotational) {
    block = "Rotational Friction";
    lib = "fl_lib/Mechanical/Rotational Elements/Rotational Friction";
    vunit = "rad/s", funit = "N*m";
  } else if (law == Law::kSimscapeCylinder) {
    block = "Cylinder Friction";
    lib = "sh_lib/Hydraulic Cylinders/Cylinder Friction";
  } else {
    block = "Cylinder Friction (IL)";
    lib = "SimscapeFluids_lib/Isothermal Liquid/Actuators/Auxiliary Components/Cylinder Friction (IL)";
  }
  std::string s = file_header("%", src, fit_path);
  for (const ExportConversion& c : cs) s += conversion_lines("%", c, vunit, funit);
  s += "% Block: " + block + " (library block '" + lib + "').\n";
  s += "% Set blk to the block's path before running this script, e.g. blk = 'mymodel/" + block + "';\n";
  s += "if ~exist('blk', 'var')\n  error('stribeck:export', 'set blk to the path of the " + block +
       " block first');\nend\n";
  auto set_lines = [&](const std::vector<double>& p, const std::string& indent) {
    std::string t;
    for (const auto& v : values(p)) {
      t += indent + "set_param(blk, '" + v.name + "', '" + num(v.value) + "'";
      if (!v.unit.empty()) t += ", '" + v.name + "_unit', '" + v.unit + "'";
      t += ");\n";
    }
    return t;
  };
  if (cs.size() == 1) return s + set_lines(cs.front().params, "");
  // One parameter set per operating point: the script sets the one `op` names.
  std::string names;
  // Quoted as MATLAB writes a quote inside a character vector: doubled.
  for (const ExportConversion& c : cs) names += (names.empty() ? "''" : ", ''") + identifier(c.at.label) + "''";
  std::string listed;
  for (const ExportConversion& c : cs) listed += (listed.empty() ? "'" : ", '") + identifier(c.at.label) + "'";
  s += "% One parameter set per operating point of the data: set op to one of " + listed + ".\n";
  s += "if ~exist('op', 'var')\n  error('stribeck:export', 'set op to the operating point: one of " + names +
       "');\nend\nswitch op\n";
  for (const ExportConversion& c : cs) s += "  case '" + identifier(c.at.label) + "'\n" + set_lines(c.params, "    ");
  s += "  otherwise\n    error('stribeck:export', 'op must be one of " + names + "');\nend\n";
  return s;
}

std::string write_modelica(const ParamFile& src, const std::string& fit_path, const std::vector<ExportConversion>& cs) {
  const bool table = cs.front().law.empty();
  std::string s = file_header("//", src, fit_path);
  for (const ExportConversion& c : cs) s += conversion_lines("//", c, table ? "rad/s" : "m/s", table ? "N.m" : "N");
  if (table) {
    s += "// Modifier for Modelica.Mechanics.Rotational.Components.BearingFriction (MSL 4.x):\n";
    s += "//   tau_pos: positive sliding friction torque [N.m] as function of w [rad/s] (w >= 0); the element\n";
    s += "//   breaks away at peak * tau_pos(w = 0).\n";
  } else {
    s += "// Modifier for Modelica.Mechanics.Translational.Components.MassWithStopAndFriction (MSL 4.x):\n";
    s += "//   sliding friction f = F_Coulomb + F_prop*v + F_Stribeck*exp(-fexp*v) for v > 0, stuck below\n";
    s += "//   F_Coulomb + F_Stribeck. m, L, smax, smin are the user's.\n";
  }
  for (const ExportConversion& c : cs) {
    const std::string record =
        "StribeckFrictionParameters" + (cs.size() == 1 ? std::string() : "_" + identifier(c.at.label));
    const std::string title = "Friction identified by Stribeck (" + src.model +
                              (c.at.label.empty() ? std::string() : ", " + c.at.label) + ")";
    if (table) {
      s += "record " + record + " \"" + title + "\"\n";
      s += "  parameter Real tau_pos[:, 2] = [";
      for (size_t i = 0; i < c.table_v.size(); ++i) s += (i ? "; " : "") + num(c.table_v[i]) + ", " + num(c.table_f[i]);
      s += "] \"Positive sliding friction characteristic [N.m] as function of w [rad/s]\";\n";
      s += "  parameter Real peak(final min = 1) = " + num(c.peak) +
           " \"Peak for maximum friction torque at w == 0\";\n";
      s += "end " + record + ";\n";
      continue;
    }
    const std::vector<double>& p = c.params;  // simscape-cylinder layout, f_cfr = 0
    const double f_coulomb = p[0], f_stribeck = p[0] * (p[2] - 1.0), fexp = p[4], f_prop = p[3];
    s += "record " + record + " \"" + title + "\"\n";
    s += "  parameter Real F_prop(final unit = \"N.s/m\", final min = 0) = " + num(f_prop) +
         " \"Velocity dependent friction\";\n";
    s += "  parameter Modelica.Units.SI.Force F_Coulomb = " + num(f_coulomb) +
         " \"Constant friction: Coulomb force\";\n";
    s += "  parameter Modelica.Units.SI.Force F_Stribeck = " + num(f_stribeck) + " \"Stribeck effect\";\n";
    s += "  parameter Real fexp(final unit = \"s/m\", final min = 0) = " + num(fexp) + " \"Exponential decay\";\n";
    s += "end " + record + ";\n";
  }
  if (table)
    s += "// Use: Modelica.Mechanics.Rotational.Components.BearingFriction friction(tau_pos = p.tau_pos, peak = "
         "p.peak);\n";
  else
    s += "// Use: Modelica.Mechanics.Translational.Components.MassWithStopAndFriction mass(F_prop = p.F_prop, "
         "F_Coulomb = p.F_Coulomb, F_Stribeck = p.F_Stribeck, fexp = p.fexp, m = ..., L = ..., smax = ..., smin = "
         "...);\n";
  return s;
}

std::string write_twentysim(const ParamFile& src, const std::string& fit_path,
                            const std::vector<ExportConversion>& cs) {
  const ModelInfo& tm = workloads::require_model(cs.front().law);
  const std::string sub = twentysim_submodel(law_of(cs.front().law));
  std::string s = file_header("//", src, fit_path);
  s += "// 20-sim parameters for the " + sub + " friction submodel (library Mechanical/Translation/Friction):\n";
  s += "// forces are the normal force F_n times these coefficients.\n";
  if (cs.size() > 1) s += "// One parameters section per operating point of the data: use the one of yours.\n";
  for (const ExportConversion& c : cs) {
    s += conversion_lines("//", c, "m/s", "N");
    if (!is_twentysim(law_of(src.model))) s += "// Converted at F_n = " + short_num(c.at.normal_force) + " N.\n";
    s += "parameters\n";
    for (size_t i = 0; i < tm.params.size(); ++i)
      s += "  real " + std::string(tm.params[i].name) + " = " + num(c.params[i]) + ";  // {" + tm.params[i].unit +
           "} " + tm.params[i].description + "\n";
  }
  return s;
}

std::string write_json(const ParamFile& src, const std::string& fit_path, const ExportConversion& c) {
  const ModelInfo& m = workloads::require_model(c.law);
  nlohmann::ordered_json j;
  j["model"] = c.law;
  nlohmann::ordered_json params = nlohmann::ordered_json::object(), units = nlohmann::ordered_json::object();
  for (size_t i = 0; i < m.params.size(); ++i) {
    params[m.params[i].name] = c.params[i];
    // A generic law fitted to a rotational log: its units by dimension (N*m, rad/s).
    units[m.params[i].name] = src.rotational && m.output_unit != "N*m" ? data::rotational_unit(m.params[i].unit)
                                                                       : std::string(m.params[i].unit);
  }
  j["parameters"] = params;
  j["units"] = units;
  j["exact"] = true;
  j["source"] = fit_path;
  if (!src.ignored.empty()) j["not_exported"] = src.ignored;
  return j.dump(2) + "\n";
}

}  // namespace stribeck::ident::exporter
