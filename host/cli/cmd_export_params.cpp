// `stribeck export-params FIT.json --to simscape|modelica|20sim|json`: a fit
// report's parameters as the reference tools take them, and the reader of
// parameter files that `eval --params` shares.
//
// Where the target's law is the fitted one, the values carry over; where it
// differs, the target's parameters are fitted (identification's fit_curve,
// the law on Jets from kernels/) to the fitted curve over the data's
// velocity range. Either way both laws are then evaluated through the
// kernels (evaluate_samples) on the same velocities and the largest force
// difference is printed and written into the file.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/host/eval.hpp"
#include "stribeck/host/params.hpp"
#include "stribeck/identification/curve_fit.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::cli {
namespace {

// %.17g: reads back to the same double in MATLAB, Modelica tools and 20-sim.
std::string num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
std::string short_num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

bool is_force_balance_name(const std::string& n) { return n == "mass" || n == "offset" || n.rfind("offset@", 0) == 0; }

}  // namespace

ParamFile read_param_file(const std::string& path, int fit_index) {
  const std::string text = read_config_file(path, "parameter file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ": malformed JSON at byte " + std::to_string(e.byte) +
                     " (expected a fit report from `identify --json` or `export-params --to json`)");
  }
  if (j.is_object() && (j.contains("ranking") || j.contains("fits"))) {
    const auto& list = j.contains("ranking") ? j["ranking"] : j["fits"];
    if (!list.is_array() || list.empty()) throw InputError(path + ": the list of fits is empty");
    if (fit_index < 0 || static_cast<size_t>(fit_index) >= list.size())
      throw InputError(path + ": holds " + std::to_string(list.size()) + " fits; --fit " +
                       std::to_string(fit_index + 1) + " is not among them");
    j = list[static_cast<size_t>(fit_index)];
  }
  if (!j.is_object()) throw InputError(path + ": expected a JSON object with \"model\" and \"parameters\"");
  if (!j.contains("model") || !j["model"].is_string()) throw InputError(path + ": no \"model\" (a model id string)");
  ParamFile out;
  out.model = j["model"].get<std::string>();
  const ModelInfo* m = find_model(out.model);
  if (!m) throw InputError(path + ": unknown model '" + out.model + "' (known: " + model_ids() + ")");
  if (!j.contains("parameters") || !j["parameters"].is_object()) throw InputError(path + ": no \"parameters\" object");
  std::map<std::string, double> given;
  for (const auto& [name, val] : j["parameters"].items()) {
    if (is_force_balance_name(name)) {
      out.ignored.push_back(name);
      continue;
    }
    if (name.find('@') != std::string::npos)
      throw InputError(path + ": parameter '" + name +
                       "' is fitted per experiment (--per-experiment); one parameter set is needed: refit without it");
    if (!name.empty() && (name.back() == '+' || name.back() == '-'))
      throw InputError(path + ": parameter '" + name +
                       "' belongs to an asymmetric fit (--asymmetric); one parameter set is needed: refit without it");
    if (m->param_index(name) < 0) throw InputError(path + ": model " + out.model + " has no parameter '" + name + "'");
    const nlohmann::json& v = val.is_object() ? (val.contains("value") ? val["value"] : nlohmann::json()) : val;
    if (!v.is_number())
      throw InputError(path + ": parameter '" + name + "' has no numeric value" + (v.is_null() ? " (null)" : ""));
    given[name] = v.get<double>();
  }
  std::vector<std::string> assignments;
  for (const auto& p : m->params) {
    auto it = given.find(p.name);
    if (it == given.end())
      throw InputError(path + ": parameter '" + std::string(p.name) + "' of model " + out.model + " is missing");
    assignments.push_back(std::string(p.name) + "=" + format_number(it->second));
  }
  try {
    out.values = resolve_params(*m, assignments);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  return out;
}

namespace {

enum class Target { kSimscape, kModelica, kTwentySim, kJson };

// What the file sets: a kernel model's parameter vector (the target's law
// written as a model the toolkit runs), or for MSL rotational elements a
// table of the sliding characteristic.
struct Conversion {
  std::string law;                       // kernel model id of the target's law (empty for a table)
  std::vector<double> params;            // its parameters
  std::vector<double> table_v, table_f;  // table nodes (MSL BearingFriction)
  bool exact = false;
  std::string how;         // one line: how the values were obtained
  double max_error = 0.0;  // largest |F_target - F_fit| on the check grid
  double max_force = 0.0;  // largest |F_fit| there
  double v_lo = 0.0, v_hi = 0.0;
  double f_n = 0.0;  // normal force the 20-sim coefficients are per
};

struct Inputs {
  double pressure = 0.0;  // p_A + p_B [Pa]
  double normal_force = std::nan("");
};

std::vector<double> eval_law(const std::string& model, const std::vector<double>& params, const std::vector<double>& v,
                             double pressure, double f_n) {
  std::vector<double> pa(v.size(), pressure), pb(v.size(), 0.0), fn(v.size(), f_n), f(v.size());
  EvalInputs in;
  in.n = v.size();
  in.velocity = v.data();
  in.pressure_a = pa.data();
  in.pressure_b = pb.data();
  in.normal_force = fn.data();
  evaluate_samples(model, params, in, f.data());
  return f;
}

// The velocities both laws are compared on: 1000 geometric and 1000 linear
// points over [lo, hi] (the laws are odd in v, so v > 0 covers both signs);
// a lower end of 0 starts the geometric part at hi * 1e-4.
std::vector<double> check_grid(double lo, double hi) {
  std::vector<double> v;
  const double g0 = lo > 0.0 ? lo : hi * 1e-4;
  for (int i = 0; i < 1000; ++i) v.push_back(g0 * std::pow(hi / g0, i / 999.0));
  for (int i = 0; i < 1000; ++i) v.push_back(std::max(g0, lo + (hi - lo) * i / 999.0));
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Features of a force curve on the grid, for the start of a fit: viscous
// slope and Coulomb level from the top of the range, the peak of F - f_v v
// and where it is.
struct Features {
  double f_v, f_c, peak, v_peak;
};
Features features(const std::vector<double>& v, const std::vector<double>& f) {
  const size_t n = v.size();
  const size_t k = n * 9 / 10;
  Features r{};
  r.f_v = n > 1 && v[n - 1] > v[k] ? std::max(0.0, (f[n - 1] - f[k]) / (v[n - 1] - v[k])) : 0.0;
  r.f_c = std::max(f[n - 1] - r.f_v * v[n - 1], 1e-9 * std::max(1.0, std::abs(f[n - 1])));
  r.peak = r.f_c;
  r.v_peak = v[n / 4];
  for (size_t i = 0; i < n; ++i)
    if (f[i] - r.f_v * v[i] > r.peak) r.peak = f[i] - r.f_v * v[i], r.v_peak = v[i];
  return r;
}

std::string range_text(const Conversion& c, const std::string& vunit) {
  return "|v| in [" + short_num(c.v_lo) + ", " + short_num(c.v_hi) + "] " + vunit;
}

struct ExportOptions {
  std::string fit, to, output, data, velocity_range;
  double pressure = 0.0;
  double normal_force = std::nan("");
  int fit_index = 1;
};

void need_normal_force(const ExportOptions& o, const std::string& why) {
  if (!std::isfinite(o.normal_force) || o.normal_force <= 0.0)
    throw InputError(why + " needs the normal force the conversion holds: give --normal-force N (> 0)");
}

// The source law's velocity range: --velocity-range, else the data's
// velocity channel (--data), else (exact conversions only) a default.
void velocity_range(const ExportOptions& o, bool needed, const std::string& vunit, double& lo, double& hi) {
  if (!o.velocity_range.empty()) {
    const size_t colon = o.velocity_range.find(':');
    bool ok = colon != std::string::npos;
    if (ok) {
      try {
        size_t used = 0;
        lo = std::stod(o.velocity_range.substr(0, colon), &used);
        ok = used == colon;
        const std::string h = o.velocity_range.substr(colon + 1);
        hi = std::stod(h, &used);
        ok = ok && used == h.size();
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok || !std::isfinite(lo) || !std::isfinite(hi) || lo < 0.0 || !(hi > lo))
      throw InputError("--velocity-range '" + o.velocity_range + "' must be LO:HI with 0 <= LO < HI (|v| in " + vunit +
                       ")");
    return;
  }
  if (!o.data.empty()) {
    lo = std::numeric_limits<double>::infinity();
    hi = 0.0;
    for (const Experiment& e : read_any_log(o.data))
      for (double v : e.channel("velocity"))
        if (std::isfinite(v)) lo = std::min(lo, std::abs(v)), hi = std::max(hi, std::abs(v));
    if (!(hi > 0.0)) throw InputError(o.data + ": the velocity channel holds no motion (max |v| = 0)");
    lo = std::min(lo, hi * 0.5);
    return;
  }
  if (needed)
    throw InputError(
        "the target's law differs from the fitted one, so its parameters are fitted over the data's "
        "velocity range: give --velocity-range LO:HI (" +
        vunit + ") or --data LOG");
  lo = 0.0;
  hi = 0.0;  // set by the caller from the law's own scale
}

// The law's own velocity scale (for the check of exact conversions when no
// range is given): 100 x the largest parameter in a velocity unit.
double law_velocity_scale(const ModelInfo& m, const std::vector<double>& p) {
  double s = 0.0;
  for (size_t i = 0; i < m.params.size(); ++i) {
    const std::string u = m.params[i].unit;
    if (u == "m/s" || u == "rad/s") s = std::max(s, p[i]);
    if (u == "s/m" && p[i] > 0.0) s = std::max(s, 1.0 / p[i]);
  }
  return s > 0.0 ? 100.0 * s : 1.0;
}

Conversion convert(const ParamFile& src, Target target, const ExportOptions& o) {
  const ModelInfo& m = require_model(src.model);
  const std::string& id = src.model;
  const bool rotational = id == "simscape-rotational";
  const std::string vunit = rotational ? "rad/s" : "m/s";
  const bool twentysim_src = id.rfind("20sim-", 0) == 0;
  const bool pressure_src = id == "simscape-cylinder" || id == "simscape-cylinder-il";
  Conversion c;
  auto unsupported = [&](const std::string& why) {
    const char* names[] = {"simscape", "modelica", "20sim", "json"};
    return InputError("model " + id + " has no " + names[static_cast<int>(target)] + " export: " + why);
  };
  // Which law the target holds, and whether it is the fitted one.
  std::vector<double> exact_params;
  bool exact = false;
  if (target == Target::kSimscape) {
    if (m.dynamic)
      throw unsupported("Simscape's friction blocks are static laws; use --to 20sim (20sim-lugre) or json");
    if (id == "simscape-translational" || rotational || pressure_src) {
      c.law = id, exact_params = src.values, exact = true;
      c.how = "the block's law is the fitted law: values carried over";
    } else {
      if (twentysim_src) need_normal_force(o, "a 20-sim law to Simscape");
      c.law = "simscape-translational";
      const double fn = twentysim_src ? o.normal_force : 1.0;
      auto p = [&](const char* n) { return src.values[m.param_index(n)]; };
      if (id == "coulomb-viscous" && p("v_eps") > 0.0) {
        exact_params = {p("F_C"), 10.0 * p("v_eps"), p("F_C"), p("f_v")}, exact = true;
        c.how = "F_C tanh(v/v_eps) + f_v v is the block's law with F_brk = F_C, v_brk = 10 v_eps";
      } else if (id == "20sim-cv" || id == "20sim-c") {
        const double mu_v = id == "20sim-cv" ? p("mu_v") : 0.0;
        exact_params = {fn * p("mu_c"), 10.0 / p("slope"), fn * p("mu_c"), fn * mu_v}, exact = true;
        c.how = "at F_n = " + short_num(fn) + " N: F_brk = F_C = F_n mu_c, v_brk = 10/slope, f_v = F_n mu_v";
      } else if (id == "20sim-v") {
        exact_params = {0.0, 0.1, 0.0, fn * p("mu_v")}, exact = true;
        c.how = "at F_n = " + short_num(fn) + " N: f_v = F_n mu_v, no Coulomb or Stribeck term";
      }
    }
  } else if (target == Target::kModelica) {
    if (m.dynamic) throw unsupported("the MSL friction elements are static laws; use --to json");
    if (twentysim_src) need_normal_force(o, "a 20-sim law to Modelica");
    if (rotational) {
      c.law.clear();  // Rotational.Components.BearingFriction: a table
    } else {
      c.law = "simscape-cylinder";  // MSL MassWithStopAndFriction's sliding law, f_cfr = 0
      if (id == "simscape-cylinder") {
        auto p = [&](const char* n) { return src.values[m.param_index(n)]; };
        exact_params = {p("F_pr") + p("f_cfr") * o.pressure, 0.0, p("K_brk"), p("f_vfr"), p("c_v"), p("v_th")};
        exact = true;
        c.how =
            "the sliding law of MassWithStopAndFriction is the block's law outside |v| <= v_th (F_Coulomb = F_pr + "
            "f_cfr (p_A + p_B) at p_A + p_B = " +
            short_num(o.pressure) +
            " Pa); MSL sticks where the block has "
            "its linear zone";
      }
    }
  } else if (target == Target::kTwentySim) {
    if (rotational) throw unsupported("the 20-sim friction submodels are translational; use --to simscape");
    if (id == "lugre" || id == "dahl")
      throw unsupported("its bristle parameters have no 20-sim counterpart in this export; use --to json");
    if (twentysim_src) {
      c.law = id, exact_params = src.values, exact = true;
      c.how = "the submodel's law is the fitted law: values carried over";
    } else {
      need_normal_force(o, "a conversion to the 20-sim laws (coefficients per newton of normal force)");
      c.law = "20sim-scvs";
    }
  } else {
    c.law = id, exact_params = src.values, exact = true;
    c.how = "the fitted parameters as they are";
  }
  c.exact = exact;
  c.f_n = std::isfinite(o.normal_force) ? o.normal_force : 1.0;
  if (pressure_src && (target == Target::kModelica || target == Target::kTwentySim) && o.pressure == 0.0 &&
      src.values[m.param_index("f_cfr")] != 0.0)
    std::fprintf(stderr, "stribeck: warning: converting %s at p_A + p_B = 0 Pa (give --pressure for another level)\n",
                 id.c_str());
  if (m.dynamic) {
    // Carried over unchanged (json, 20sim-lugre): nothing to compare, and a
    // law with memory has no force curve without a motion.
    c.law = id, c.params = src.values;
    return c;
  }
  double lo = 0.0, hi = 0.0;
  velocity_range(o, !exact, vunit, lo, hi);
  if (!(hi > 0.0)) hi = law_velocity_scale(m, src.values);
  c.v_lo = lo, c.v_hi = hi;
  const std::vector<double> v = check_grid(lo, hi);
  const double src_fn = twentysim_src ? c.f_n : 0.0;
  const std::vector<double> f = eval_law(id, src.values, v, o.pressure, src_fn);
  for (double x : f) c.max_force = std::max(c.max_force, std::abs(x));

  if (c.law.empty()) {
    // MSL BearingFriction's tau_pos table: 33 nodes, w = 0 holding the
    // value at the range's lower end (MSL sticks at w = 0), then geometric
    // and linear nodes; linear interpolation in between.
    std::vector<double> nodes;
    const double g0 = v.front();
    for (int i = 0; i < 16; ++i) nodes.push_back(g0 * std::pow(hi / g0, i / 15.0));
    for (int i = 1; i < 16; ++i) nodes.push_back(lo + (hi - lo) * i / 16.0);
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(), [&](double x) { return x < g0; }), nodes.end());
    const std::vector<double> fn_nodes = eval_law(id, src.values, nodes, 0.0, 0.0);
    c.table_v = {0.0};
    c.table_f = {fn_nodes.front()};
    c.table_v.insert(c.table_v.end(), nodes.begin(), nodes.end());
    c.table_f.insert(c.table_f.end(), fn_nodes.begin(), fn_nodes.end());
    for (size_t i = 0; i < v.size(); ++i) {
      const size_t k = std::upper_bound(c.table_v.begin(), c.table_v.end(), v[i]) - c.table_v.begin();
      const size_t a = std::min(std::max<size_t>(k, 1), c.table_v.size() - 1) - 1;
      const double t = (v[i] - c.table_v[a]) / (c.table_v[a + 1] - c.table_v[a]);
      const double interp = c.table_f[a] + t * (c.table_f[a + 1] - c.table_f[a]);
      c.max_error = std::max(c.max_error, std::abs(interp - f[i]));
    }
    c.exact = false;
    c.how = "tau_pos sampled from the fitted law at " + std::to_string(c.table_v.size() - 1) +
            " velocities (MSL interpolates linearly between them)";
    return c;
  }

  const ModelInfo& tm = require_model(c.law);
  const double tgt_fn = c.law.rfind("20sim-", 0) == 0 ? c.f_n : 0.0;
  const double tgt_pressure = pressure_src && c.law == id ? o.pressure : 0.0;
  if (exact) {
    c.params = exact_params;
  } else {
    // Fit the target's law to the fitted curve on the grid.
    const Features ft = features(v, f);
    ident::CurveFitProblem pr;
    pr.model = c.law;
    pr.v = v;
    pr.p_a.assign(v.size(), tgt_pressure);
    pr.p_b.assign(v.size(), 0.0);
    pr.f_n.assign(v.size(), tgt_fn);
    pr.target = f;
    const double peak = std::max(ft.peak, ft.f_c);
    if (c.law == "simscape-translational") {
      pr.start = {peak, std::max(ft.v_peak, v.front()), ft.f_c, ft.f_v};
      pr.free = {true, true, true, true};
    } else if (c.law == "simscape-cylinder") {
      pr.start = {ft.f_c,         0.0, std::max(1.0, peak / ft.f_c), ft.f_v, 1.0 / std::max(ft.v_peak, v.front()),
                  0.5 * v.front()};
      pr.free = {true, false, true, true, true, false};
      c.how =
          "MassWithStopAndFriction's sliding law F_Coulomb + F_Stribeck exp(-fexp v) + F_prop v fitted to the "
          "fitted law (least squares, Ceres)";
    } else {  // 20sim-scvs
      const double fn = tgt_fn;
      pr.start = {peak / fn, ft.f_c / fn, ft.f_v / fn, 3.0 / std::max(v.front(), 1e-3 * ft.v_peak),
                  2.0 * std::max(ft.v_peak, v.front())};
      pr.free = {true, true, true, true, true};
      c.how = "the SCVS law fitted to the fitted law at F_n = " + short_num(fn) + " N (least squares, Ceres)";
    }
    if (c.law == "simscape-translational")
      c.how = "the Translational Friction law fitted to the fitted law (least squares, Ceres)";
    const ident::CurveFitResult r = ident::fit_curve(pr);
    c.params = r.params;
    const auto errs = validate_params(tm, c.params.data());
    if (!errs.empty()) throw InputError("the conversion's fit gave invalid parameters: " + errs.front());
  }
  // The stated error: both laws through the kernels on the same velocities.
  const std::vector<double> g = eval_law(c.law, c.params, v, tgt_pressure, tgt_fn);
  for (size_t i = 0; i < v.size(); ++i) c.max_error = std::max(c.max_error, std::abs(g[i] - f[i]));
  if (!std::isfinite(c.max_error)) throw InputError("the conversion gave a non-finite force; check the fit report");
  return c;
}

// ---- writers --------------------------------------------------------------

std::string header_lines(const char* cm, const ParamFile& src, const std::string& fit_path, const Conversion& c,
                         const std::string& vunit, const std::string& funit) {
  std::string s;
  s += std::string(cm) + " Written by stribeck export-params from " + fit_path + " (model " + src.model + ").\n";
  if (c.exact)
    s += std::string(cm) + " exact: " + c.how + ".\n" + cm + " Checked: largest force difference " +
         short_num(c.max_error) + " " + funit + " over " + range_text(c, vunit) + ".\n";
  else
    s += std::string(cm) + " approximate: the target's law differs from the fitted one; " + c.how + ".\n" + cm +
         " Largest force difference " + short_num(c.max_error) + " " + funit + " (" +
         short_num(c.max_force > 0 ? 100.0 * c.max_error / c.max_force : 0.0) + " % of the largest |F| " +
         short_num(c.max_force) + " " + funit + ") over " + range_text(c, vunit) + ".\n";
  for (const auto& n : src.ignored)
    s += std::string(cm) + " Not exported: '" + n + "' (force balance of the rig, not friction).\n";
  return s;
}

struct NamedValue {
  std::string name, unit;  // unit empty: dimensionless (no _unit parameter)
  double value;
};

// Simscape blocks and their parameter names (the names `set_param` takes).
// Sources: MathWorks' own Hydraulics-to-Isothermal-Liquid converter, which
// maps Cylinder Friction {frc_preload, fr_coef, frc_brkwy_coef, visc_coef,
// vel_thr} to Cylinder Friction (IL) {preload_force, Coulomb_coeff,
// breakaway_Coulomb_ratio, viscous_coeff, breakaway_velocity}; the
// Translational / Rotational Friction blocks' brkwy_frc / brkwy_trq,
// brkwy_vel, Col_frc / Col_trq, visc_coef (docs/cli.md lists the pages).
std::string write_simscape(const ParamFile& src, const std::string& fit_path, const Conversion& c) {
  const std::vector<double>& p = c.params;
  std::string block, lib;
  std::vector<NamedValue> vals;
  std::string vunit = "m/s", funit = "N";
  if (c.law == "simscape-translational") {
    block = "Translational Friction";
    lib = "fl_lib/Mechanical/Translational Elements/Translational Friction";
    vals = {
        {"brkwy_frc", "N", p[0]}, {"brkwy_vel", "m/s", p[1]}, {"Col_frc", "N", p[2]}, {"visc_coef", "N/(m/s)", p[3]}};
  } else if (c.law == "simscape-rotational") {
    block = "Rotational Friction";
    lib = "fl_lib/Mechanical/Rotational Elements/Rotational Friction";
    vunit = "rad/s", funit = "N*m";
    vals = {{"brkwy_trq", "N*m", p[0]},
            {"brkwy_vel", "rad/s", p[1]},
            {"Col_trq", "N*m", p[2]},
            {"visc_coef", "N*m/(rad/s)", p[3]}};
  } else if (c.law == "simscape-cylinder") {
    block = "Cylinder Friction";
    lib = "sh_lib/Hydraulic Cylinders/Cylinder Friction";
    vals = {{"frc_preload", "N", p[0]},     {"fr_coef", "N/Pa", p[1]},   {"frc_brkwy_coef", "", p[2]},
            {"visc_coef", "N/(m/s)", p[3]}, {"trans_coef", "s/m", p[4]}, {"vel_thr", "m/s", p[5]}};
  } else {  // simscape-cylinder-il
    block = "Cylinder Friction (IL)";
    lib = "SimscapeFluids_lib/Isothermal Liquid/Actuators/Auxiliary Components/Cylinder Friction (IL)";
    vals = {{"preload_force", "N", p[0]},
            {"Coulomb_coeff", "N/Pa", p[1]},
            {"breakaway_Coulomb_ratio", "", p[2]},
            {"viscous_coeff", "N/(m/s)", p[4]},
            {"breakaway_velocity", "m/s", p[3]}};
  }
  std::string s = header_lines("%", src, fit_path, c, vunit, funit);
  s += "% Block: " + block + " (library block '" + lib + "').\n";
  s += "% Set blk to the block's path before running this script, e.g. blk = 'mymodel/" + block + "';\n";
  s += "if ~exist('blk', 'var')\n  error('stribeck:export', 'set blk to the path of the " + block +
       " block first');\nend\n";
  for (const auto& v : vals) {
    s += "set_param(blk, '" + v.name + "', '" + num(v.value) + "'";
    if (!v.unit.empty()) s += ", '" + v.name + "_unit', '" + v.unit + "'";
    s += ");\n";
  }
  return s;
}

std::string write_modelica(const ParamFile& src, const std::string& fit_path, const Conversion& c) {
  std::string s;
  if (c.law.empty()) {
    s = header_lines("//", src, fit_path, c, "rad/s", "N.m");
    s += "// Modifier for Modelica.Mechanics.Rotational.Components.BearingFriction (MSL 4.x):\n";
    s += "//   tau_pos: positive sliding friction torque [N.m] as function of w [rad/s] (w >= 0); peak = 1.\n";
    s += "record StribeckFrictionParameters \"Friction identified by Stribeck (" + src.model + ")\"\n";
    s += "  parameter Real tau_pos[:, 2] = [";
    for (size_t i = 0; i < c.table_v.size(); ++i) s += (i ? "; " : "") + num(c.table_v[i]) + ", " + num(c.table_f[i]);
    s += "] \"Positive sliding friction characteristic [N.m] as function of w [rad/s]\";\n";
    s += "  parameter Real peak(final min = 1) = 1 \"Peak for maximum friction torque at w == 0\";\n";
    s += "end StribeckFrictionParameters;\n";
    s += "// Use: Modelica.Mechanics.Rotational.Components.BearingFriction friction(tau_pos = p.tau_pos, peak = "
         "p.peak);\n";
    return s;
  }
  const std::vector<double>& p = c.params;  // simscape-cylinder layout, f_cfr = 0
  const double f_coulomb = p[0], f_stribeck = p[0] * (p[2] - 1.0), fexp = p[4], f_prop = p[3];
  s = header_lines("//", src, fit_path, c, "m/s", "N");
  s += "// Modifier for Modelica.Mechanics.Translational.Components.MassWithStopAndFriction (MSL 4.x):\n";
  s += "//   sliding friction f = F_Coulomb + F_prop*v + F_Stribeck*exp(-fexp*v) for v > 0, stuck below\n";
  s += "//   F_Coulomb + F_Stribeck. m, L, smax, smin are the user's.\n";
  s += "record StribeckFrictionParameters \"Friction identified by Stribeck (" + src.model + ")\"\n";
  s += "  parameter Real F_prop(final unit = \"N.s/m\", final min = 0) = " + num(f_prop) +
       " \"Velocity dependent friction\";\n";
  s += "  parameter Modelica.Units.SI.Force F_Coulomb = " + num(f_coulomb) + " \"Constant friction: Coulomb force\";\n";
  s += "  parameter Modelica.Units.SI.Force F_Stribeck = " + num(f_stribeck) + " \"Stribeck effect\";\n";
  s += "  parameter Real fexp(final unit = \"s/m\", final min = 0) = " + num(fexp) + " \"Exponential decay\";\n";
  s += "end StribeckFrictionParameters;\n";
  s +=
      "// Use: Modelica.Mechanics.Translational.Components.MassWithStopAndFriction mass(F_prop = p.F_prop, "
      "F_Coulomb = p.F_Coulomb, F_Stribeck = p.F_Stribeck, fexp = p.fexp, m = ..., L = ..., smax = ..., smin = ...);\n";
  return s;
}

std::string write_twentysim(const ParamFile& src, const std::string& fit_path, const Conversion& c) {
  const ModelInfo& tm = require_model(c.law);
  std::string sub = c.law == "20sim-c"      ? "C"
                    : c.law == "20sim-v"    ? "V"
                    : c.law == "20sim-cv"   ? "CV"
                    : c.law == "20sim-scvs" ? "SCVS"
                                            : "LuGre";
  std::string s = header_lines("//", src, fit_path, c, "m/s", "N");
  s += "// 20-sim parameters for the " + sub + " friction submodel (library Mechanical/Translation/Friction):\n";
  s += "// forces are the normal force F_n times these coefficients";
  if (src.model.rfind("20sim-", 0) != 0) s += "; converted at F_n = " + short_num(c.f_n) + " N";
  s += ".\nparameters\n";
  for (size_t i = 0; i < tm.params.size(); ++i)
    s += "  real " + std::string(tm.params[i].name) + " = " + num(c.params[i]) + ";  // {" + tm.params[i].unit + "} " +
         tm.params[i].description + "\n";
  return s;
}

std::string json_params_text(const ParamFile& src, const std::string& fit_path, const Conversion& c) {
  const ModelInfo& m = require_model(c.law);
  nlohmann::ordered_json j;
  j["model"] = c.law;
  nlohmann::ordered_json params = nlohmann::ordered_json::object(), units = nlohmann::ordered_json::object();
  for (size_t i = 0; i < m.params.size(); ++i) {
    params[m.params[i].name] = c.params[i];
    units[m.params[i].name] = m.params[i].unit;
  }
  j["parameters"] = params;
  j["units"] = units;
  j["exact"] = true;
  j["source"] = fit_path;
  if (!src.ignored.empty()) j["not_exported"] = src.ignored;
  return j.dump(2) + "\n";
}

}  // namespace

void add_export_params_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "export-params",
      "Write a fit's parameters for Simscape (set_param script), Modelica (MSL record), 20-sim or as plain JSON");
  auto o = std::make_shared<ExportOptions>();
  cmd->add_option("fit", o->fit, "Fit report (identify --json), or a parameter set (export-params --to json)")
      ->required();
  cmd->add_option("--to,-t", o->to, "Target: simscape, modelica, 20sim or json")
      ->required()
      ->check(CLI::IsMember({"simscape", "modelica", "20sim", "json"}));
  cmd->add_option("--output,-o", o->output, "File to write (default: standard output)");
  cmd->add_option("--velocity-range", o->velocity_range,
                  "LO:HI: |v| range [m/s, rad/s] of the data, over which an approximate conversion is fitted and "
                  "checked");
  cmd->add_option("--data", o->data, "Rig log the fit came from: its velocity channel gives the range instead");
  cmd->add_option("--pressure", o->pressure,
                  "Cylinder laws to Modelica or 20-sim: p_A + p_B [Pa] at which the pressure-dependent Coulomb force "
                  "is taken (default 0)");
  cmd->add_option("--normal-force", o->normal_force,
                  "Between 20-sim (coefficients per newton of normal force) and the other tools: F_n [N]");
  cmd->add_option("--fit", o->fit_index, "With a report of several fits (--compare, --batch): which one (1 = first)")
      ->check(kPositive);
  add_verbosity_flags(cmd);
  cmd->callback([o] {
    if (!o->output.empty()) check_output(o->output, {o->fit, o->data});
    if (!std::isfinite(o->pressure)) throw InputError("--pressure must be finite");
    const ParamFile src = read_param_file(o->fit, o->fit_index - 1);
    const Target t = o->to == "simscape"   ? Target::kSimscape
                     : o->to == "modelica" ? Target::kModelica
                     : o->to == "20sim"    ? Target::kTwentySim
                                           : Target::kJson;
    const Conversion c = convert(src, t, *o);
    std::string text;
    switch (t) {
      case Target::kSimscape: text = write_simscape(src, o->fit, c); break;
      case Target::kModelica: text = write_modelica(src, o->fit, c); break;
      case Target::kTwentySim: text = write_twentysim(src, o->fit, c); break;
      case Target::kJson: text = json_params_text(src, o->fit, c); break;
    }
    if (o->output.empty()) {
      std::fputs(text.c_str(), stdout);
    } else {
      AtomicFile out(o->output);
      out.write(text);
      out.commit();
    }
    const std::string unit = src.model == "simscape-rotational" ? "N*m" : "N";
    char line[512];
    std::snprintf(line, sizeof line,
                  "stribeck export-params: %s -> %s, %s: largest force difference %s %s over |v| in [%s, %s]%s",
                  src.model.c_str(), o->to.c_str(), c.exact ? "exact" : "approximate", short_num(c.max_error).c_str(),
                  unit.c_str(), short_num(c.v_lo).c_str(), short_num(c.v_hi).c_str(),
                  o->output.empty() ? "" : (" -> " + o->output).c_str());
    // The summary goes to stdout, as in every command, unless stdout holds the exported file.
    if (o->output.empty()) std::fprintf(stderr, "%s\n", line);
    else summary("%s", line);
  });
}

}  // namespace stribeck::cli
