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
#include <cctype>
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
#include "stribeck/data/units.hpp"
#include "stribeck/host/eval.hpp"
#include "stribeck/host/params.hpp"
#include "stribeck/host/simulate.hpp"
#include "stribeck/identification/curve_fit.hpp"
#include "stribeck/kernels/integrators/status.hpp"
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
  out.rotational = j.contains("force_unit") && j["force_unit"] == "N*m";
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

// Where a pressure- or normal-force-dependent law is taken: one operating
// point of the data (its experiments, each at its mean p_A + p_B and F_n;
// experiments at the same point share one) or the point --pressure /
// --normal-force states. The forces differ from point to point, so each
// point gets its own parameter set.
struct OperatingPoint {
  std::string label;              // experiment name(s), or the option that stated it; empty: no dependence
  double pressure = 0.0;          // p_A + p_B [Pa] the conversion is taken at
  double p_lo = 0.0, p_hi = 0.0;  // the data's span of p_A + p_B there (the check covers it)
  double normal_force = 1.0;      // F_n [N]
  double fn_lo = 1.0, fn_hi = 1.0;
};

// Both laws in the same spring-mass rig (the stiction form of
// kernels/systems, each with its own breakaway), driven at one speed of the
// data's range: what a simulation with the exported values does differently.
struct StickSlipCheck {
  std::string not_run;  // why it was not run (empty: it was)
  double mass = 1.0, stiffness = 0.0, drive_velocity = 0.0, t_end = 0.0;
  StickSlipMetrics<double> fitted, exported;
};

// What the file sets: a kernel model's parameter vector (the target's law
// written as a model the toolkit runs), or for MSL rotational elements a
// table of the sliding characteristic and its peak.
struct Conversion {
  OperatingPoint at;
  std::string law;                       // kernel model id of the target's law (empty for a table)
  std::vector<double> params;            // its parameters
  std::vector<double> table_v, table_f;  // table nodes (MSL BearingFriction)
  double peak = 1.0;                     // BearingFriction: breakaway = peak * tau_pos(0)
  bool exact = false;
  std::string how;         // one line: how the values were obtained
  double max_error = 0.0;  // largest |F_target - F_fit| on the check grid (and the data's span of inputs)
  double max_force = 0.0;  // largest |F_fit| there
  double v_lo = 0.0, v_hi = 0.0;
  double breakaway_fit = 0.0, breakaway_export = 0.0;  // the force each holds at rest before it slides
  StickSlipCheck stick;
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

// The force a law's contact holds at rest before it slides, as the stiction
// simulation takes it: the breakaway parameter, else the Coulomb level (times
// the breakaway ratio for the cylinder laws), at the operating point.
double breakaway_of(const std::string& id, const std::vector<double>& p, double pressure, double f_n) {
  const ModelInfo& m = require_model(id);
  auto at = [&](const char* n) {
    const int i = m.param_index(n);
    return i < 0 ? 0.0 : p[static_cast<size_t>(i)];
  };
  if (id == "simscape-translational") return at("F_brk");
  if (id == "simscape-rotational") return at("T_brk");
  if (id == "simscape-cylinder") return (at("F_pr") + at("f_cfr") * pressure) * at("K_brk");
  if (id == "simscape-cylinder-il") return (at("F_pr") + at("f_cfr") * pressure) * at("R_brk");
  if (id == "20sim-scvs") return f_n * at("mu_s");
  if (id == "20sim-c" || id == "20sim-cv") return f_n * at("mu_c");
  if (id == "coulomb-viscous") return at("F_C");
  return 0.0;  // 20sim-v: no Coulomb or static level
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

// Features of a force curve on the grid, for the first start of a fit:
// viscous slope and Coulomb level from the top of the range, the peak of
// F - f_v v and where it is.
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
  double pressure = std::nan("");
  double normal_force = std::nan("");
  int fit_index = 1;
};

// The source law's velocity range: --velocity-range, else the data's
// velocity channel (--data), else (exact conversions only) a default.
void velocity_range(const ExportOptions& o, const std::vector<Experiment>& data, bool needed, const std::string& vunit,
                    double& lo, double& hi) {
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
    for (const Experiment& e : data)
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

// Mean, smallest and largest finite value of a channel sum (b may be null).
void span_of(const std::vector<double>& a, const std::vector<double>* b, double& mean, double& lo, double& hi) {
  double sum = 0.0;
  long n = 0;
  lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t i = 0; i < a.size(); ++i) {
    const double x = a[i] + (b ? (*b)[i] : 0.0);
    if (!std::isfinite(x)) continue;
    sum += x, ++n, lo = std::min(lo, x), hi = std::max(hi, x);
  }
  if (n == 0) lo = hi = mean = std::nan("");
  else mean = sum / static_cast<double>(n);
}

// The operating points a conversion is taken at. `pressure` / `normal_force`:
// whether it depends on p_A + p_B / F_n; `why` names the conversion.
std::vector<OperatingPoint> operating_points(const ExportOptions& o, const std::vector<Experiment>& data, bool pressure,
                                             bool normal_force, const std::string& why) {
  OperatingPoint stated;
  const bool p_given = std::isfinite(o.pressure), fn_given = std::isfinite(o.normal_force);
  if (fn_given && o.normal_force <= 0.0) throw InputError("--normal-force must be > 0");
  if (fn_given) stated.normal_force = stated.fn_lo = stated.fn_hi = o.normal_force;
  if (p_given) stated.pressure = stated.p_lo = stated.p_hi = o.pressure;
  if ((!pressure || p_given) && (!normal_force || fn_given)) {
    if (pressure) stated.label = "--pressure " + short_num(o.pressure) + " Pa";
    if (normal_force)
      stated.label +=
          (stated.label.empty() ? "" : ", ") + std::string("--normal-force ") + short_num(o.normal_force) + " N";
    return {stated};
  }
  const std::string what = pressure && !p_given ? "p_A + p_B" : "the normal force";
  const std::string option = pressure && !p_given ? "--pressure PA" : "--normal-force N (> 0)";
  if (o.data.empty())
    throw InputError(why + " needs the operating point it is taken at (" + what + "; never taken as 0): give " +
                     option + " or --data LOG");
  std::vector<OperatingPoint> out;
  for (const Experiment& e : data) {
    OperatingPoint q = stated;
    q.label = e.name;
    if (pressure && !p_given) {
      if (!e.has("pressure_a"))
        throw InputError(o.data + ": experiment '" + e.name + "' has no pressure_a channel, so " + why +
                         " has no operating point p_A + p_B: give --pressure PA");
      span_of(e.channel("pressure_a"), e.has("pressure_b") ? &e.channel("pressure_b") : nullptr, q.pressure, q.p_lo,
              q.p_hi);
      if (!std::isfinite(q.pressure))
        throw InputError(o.data + ": experiment '" + e.name + "': p_A + p_B has no finite sample; give --pressure PA");
    }
    if (normal_force && !fn_given) {
      if (!e.has("normal_force"))
        throw InputError(o.data + ": experiment '" + e.name + "' has no normal_force channel, so " + why +
                         " has no operating point: give --normal-force N (> 0)");
      span_of(e.channel("normal_force"), nullptr, q.normal_force, q.fn_lo, q.fn_hi);
      if (!(q.normal_force > 0.0))
        throw InputError(o.data + ": experiment '" + e.name +
                         "': the mean normal force is not > 0; give --normal-force N (> 0)");
    }
    // Experiments at the same point (to 1e-9) share one parameter set.
    auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
    auto it = std::find_if(out.begin(), out.end(), [&](const OperatingPoint& r) {
      return same(r.pressure, q.pressure) && same(r.normal_force, q.normal_force);
    });
    if (it == out.end()) {
      out.push_back(q);
      continue;
    }
    it->label += ", " + q.label;
    it->p_lo = std::min(it->p_lo, q.p_lo), it->p_hi = std::max(it->p_hi, q.p_hi);
    it->fn_lo = std::min(it->fn_lo, q.fn_lo), it->fn_hi = std::max(it->fn_hi, q.fn_hi);
  }
  return out;
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

// The spring-mass rig of the stick-slip check: a body on a spring pulled
// where the fitted law falls fastest on the check grid (a falling
// characteristic is what makes a contact stick-slip), at least a hundredth of
// the range's top speed and a tenth of it where the law does not fall; the
// spring stiff enough that it reaches the fitted breakaway after 50 ms of
// drive travel; 1 s, the second half the steady state the metrics read. The
// body is 1 kg (kg m^2), or heavier where a law's slope just above rest (a
// thin linear zone, a steep tanh) would need more than 256 RK4 sub-steps per
// 0.1 ms output step: the integrator resolves slope/mass, so a light body on
// such a law takes minutes. A run that still hits the limit says so (status
// step-limit) with the metrics up to where it stopped.
double check_drive_velocity(const std::vector<double>& v, const std::vector<double>& f) {
  double steepest = 0.0, at = 0.1 * v.back();
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    const double slope = (f[i + 1] - f[i]) / (v[i + 1] - v[i]);
    if (slope < steepest) steepest = slope, at = v[i];
  }
  return std::max(at, 0.01 * v.back());
}
void stick_slip_check(Conversion& c, double v_d, const std::string& src_model, const std::vector<double>& src_params,
                      double src_fn, bool rotational) {
  if (c.law.empty()) {
    c.stick.not_run = "a table has no law to simulate; its breakaway is the fit's";
    return;
  }
  const double scale = std::max(c.max_force, 1e-300);
  const double hold = std::max(c.breakaway_fit, 1e-3 * scale);
  c.stick.drive_velocity = v_d;
  c.stick.stiffness = hold / (0.05 * v_d);
  c.stick.t_end = 1.0;
  constexpr double kDt = 1e-4, kRho = 0.05;  // kStictionStepRho: h * slope / mass <= 0.05 while sliding
  constexpr int kSubsteps = 256;
  auto slope_at_rest = [&](const std::string& model, const std::vector<double>& p, double fn) {
    const double d = 1e-9 * c.v_hi;
    const std::vector<double> f = eval_law(model, p, {d, 2.0 * d}, c.at.pressure, fn);
    return std::abs(f[1] - f[0]) / d;
  };
  const double slope =
      std::max(slope_at_rest(src_model, src_params, src_fn), slope_at_rest(c.law, c.params, c.at.normal_force));
  c.stick.mass = std::max(1.0, 2.0 * slope * kDt / (kSubsteps * kRho));
  auto run = [&](const std::string& model, const std::vector<double>& p, double breakaway, double fn,
                 StickSlipMetrics<double>& out) {
    SimulateConfig s;
    s.source = "export-params: stick-slip check of " + model;
    s.model = model;
    s.params = p;
    s.stiction = true;
    // The contact must hold at least what the law gives just above rest.
    const double slide0 = std::abs(eval_law(model, p, {1e-12}, c.at.pressure, fn)[0]);
    s.breakaway = std::max({breakaway, slide0, 1e-9 * scale});
    s.rotational = rotational;
    s.body.mass = c.stick.mass;
    s.body.stiffness = c.stick.stiffness;
    s.body.drive_velocity.offset = v_d;
    s.body.pressure_a.offset = c.at.pressure;
    s.body.normal_force.offset = fn;
    s.sim.t_end = c.stick.t_end;
    s.sim.dt = kDt;
    s.sim.max_substeps = kSubsteps;
    s.metrics.v_stick = 1e-2 * v_d;
    s.metrics.v_breakaway = 0.1 * v_d;
    out = simulate_series(s).summary.metrics;
  };
  try {
    run(src_model, src_params, c.breakaway_fit, src_fn, c.stick.fitted);
    run(c.law, c.params, c.breakaway_export, c.at.normal_force, c.stick.exported);
  } catch (const InputError& e) {
    c.stick.not_run = e.what();
  }
}

Conversion convert(const ParamFile& src, Target target, const ExportOptions& o, const std::vector<Experiment>& data,
                   const OperatingPoint& at) {
  const ModelInfo& m = require_model(src.model);
  const std::string& id = src.model;
  const bool rotational = id == "simscape-rotational" || src.rotational;
  const std::string vunit = rotational ? "rad/s" : "m/s";
  const bool twentysim_src = id.rfind("20sim-", 0) == 0;
  const bool pressure_src = id == "simscape-cylinder" || id == "simscape-cylinder-il";
  const double fn = at.normal_force;
  auto p = [&](const char* n) { return src.values[static_cast<size_t>(m.param_index(n))]; };
  Conversion c;
  c.at = at;
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
    if (id == "simscape-translational" || id == "simscape-rotational" || pressure_src) {
      c.law = id, exact_params = src.values, exact = true;
      c.how = "the block's law is the fitted law: values carried over";
    } else {
      c.law = "simscape-translational";
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
    // A law fitted to a rotational log: the same law in the Rotational
    // Friction block, whose parameters are the Translational block's in order.
    if (src.rotational && c.law == "simscape-translational") c.law = "simscape-rotational";
  } else if (target == Target::kModelica) {
    if (m.dynamic) throw unsupported("the MSL friction elements are static laws; use --to json");
    if (rotational) {
      c.law.clear();  // Rotational.Components.BearingFriction: a table
    } else {
      c.law = "simscape-cylinder";  // MSL MassWithStopAndFriction's sliding law, f_cfr = 0
      if (id == "simscape-cylinder") {
        exact_params = {p("F_pr") + p("f_cfr") * at.pressure, 0.0, p("K_brk"), p("f_vfr"), p("c_v"), p("v_th")};
        exact = true;
        c.how =
            "the sliding law of MassWithStopAndFriction is the block's law outside |v| <= v_th (F_Coulomb = F_pr + "
            "f_cfr (p_A + p_B) at p_A + p_B = " +
            short_num(at.pressure) +
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
      c.law = "20sim-scvs";
    }
  } else {
    c.law = id, exact_params = src.values, exact = true;
    c.how = "the fitted parameters as they are";
  }
  if (m.dynamic) {
    // Carried over unchanged (json, 20sim-lugre): nothing to compare, and a
    // law with memory has no force curve without a motion.
    c.law = id, c.params = src.values, c.exact = exact;
    c.stick.not_run = "a law with memory is carried over unchanged";
    return c;
  }
  double lo = 0.0, hi = 0.0;
  velocity_range(o, data, !exact, vunit, lo, hi);
  if (!(hi > 0.0)) hi = law_velocity_scale(m, src.values);
  c.v_lo = lo, c.v_hi = hi;
  const std::vector<double> v = check_grid(lo, hi);
  const double src_fn = twentysim_src ? fn : 0.0;
  const std::vector<double> f = eval_law(id, src.values, v, at.pressure, src_fn);
  for (double x : f) c.max_force = std::max(c.max_force, std::abs(x));
  c.breakaway_fit = breakaway_of(id, src.values, at.pressure, fn);
  // The source law over the data's span of inputs at this point: the
  // conversion holds one value of each, so a span is part of its error.
  std::vector<std::vector<double>> spans = {f};
  for (double q : {at.p_lo, at.p_hi})
    if (pressure_src && q != at.pressure) spans.push_back(eval_law(id, src.values, v, q, src_fn));
  for (double q : {at.fn_lo, at.fn_hi})
    if (twentysim_src && q != fn) spans.push_back(eval_law(id, src.values, v, at.pressure, q));
  for (const auto& s : spans)
    for (double x : s) c.max_force = std::max(c.max_force, std::abs(x));
  auto largest_difference = [&](const std::vector<double>& g) {
    double e = 0.0;
    for (const auto& s : spans)
      for (size_t i = 0; i < v.size(); ++i) e = std::max(e, std::abs(g[i] - s[i]));
    return e;
  };

  if (c.law.empty()) {
    // MSL BearingFriction's tau_pos table: w = 0 holding the value at the
    // range's lower end, then 16 geometric and 15 linear nodes, linear
    // interpolation in between; `peak` makes the element break away at the
    // fitted law's breakaway torque (MSL: at peak * tau_pos(0), peak >= 1).
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
    std::vector<double> interp(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const size_t k = std::upper_bound(c.table_v.begin(), c.table_v.end(), v[i]) - c.table_v.begin();
      const size_t a = std::min(std::max<size_t>(k, 1), c.table_v.size() - 1) - 1;
      const double t = (v[i] - c.table_v[a]) / (c.table_v[a + 1] - c.table_v[a]);
      interp[i] = c.table_f[a] + t * (c.table_f[a + 1] - c.table_f[a]);
    }
    c.max_error = largest_difference(interp);
    c.peak = c.table_f.front() > 0.0 ? std::max(1.0, c.breakaway_fit / c.table_f.front()) : 1.0;
    c.breakaway_export = c.peak * c.table_f.front();
    c.exact = false;
    c.how = "tau_pos sampled from the fitted law at " + std::to_string(c.table_v.size() - 1) +
            " velocities (MSL interpolates linearly between them), peak = breakaway / tau_pos(0)";
    stick_slip_check(c, check_drive_velocity(v, f), id, src.values, src_fn, rotational);
    return c;
  }

  const ModelInfo& tm = require_model(c.law);
  const double tgt_fn = c.law.rfind("20sim-", 0) == 0 ? fn : 0.0;
  const double tgt_pressure = pressure_src && c.law == id ? at.pressure : 0.0;
  if (exact) {
    c.params = exact_params;
  } else {
    // The target's law fitted to the fitted curve on the grid, globally: the
    // multistart spreads its starts over each parameter's plausible range
    // (forces up to twice the curve's peak, velocity scales over the range)
    // and stops when two starts agree on the best cost.
    const Features ft = features(v, f);
    const double vmin = std::max(v.front(), 1e-4 * hi);
    ident::CurveFitProblem pr;
    pr.model = c.law;
    pr.v = v;
    pr.p_a.assign(v.size(), tgt_pressure);
    pr.p_b.assign(v.size(), 0.0);
    pr.f_n.assign(v.size(), tgt_fn);
    pr.target = f;
    const double peak = std::max({ft.peak, ft.f_c, 1e-300});
    const double slope_max = 2.0 * c.max_force / hi;
    if (c.law == "simscape-translational" || c.law == "simscape-rotational") {
      pr.start = {peak, std::max(ft.v_peak, v.front()), ft.f_c, ft.f_v};
      pr.free = {true, true, true, true};
      pr.range_lo = {1e-3 * peak, vmin, 1e-3 * peak, 0.0};
      pr.range_hi = {2.0 * peak, hi, 2.0 * peak, slope_max};
      c.how = "the Translational Friction law fitted to the fitted law";
    } else if (c.law == "simscape-cylinder") {
      pr.start = {ft.f_c,         0.0, std::max(1.0, peak / ft.f_c), ft.f_v, 1.0 / std::max(ft.v_peak, v.front()),
                  0.5 * v.front()};
      pr.free = {true, false, true, true, true, false};
      // MSL's F_Stribeck may be negative (a rising sliding law) as long as
      // the breakaway F_Coulomb + F_Stribeck is not: K_brk >= 0 here.
      const double nan = std::nan("");
      pr.lower = {nan, nan, 0.0, nan, nan, nan};
      pr.range_lo = {1e-3 * peak, 0.0, 0.01, 0.0, 0.3 / hi, 0.0};
      pr.range_hi = {2.0 * peak, 0.0, 10.0, slope_max, 30.0 / vmin, 0.0};
      c.how =
          "MassWithStopAndFriction's sliding law F_Coulomb + F_Stribeck exp(-fexp v) + F_prop v fitted to the "
          "fitted law";
    } else {  // 20sim-scvs
      pr.start = {peak / fn, ft.f_c / fn, ft.f_v / fn, 3.0 / std::max(v.front(), 1e-3 * ft.v_peak),
                  2.0 * std::max(ft.v_peak, v.front())};
      pr.free = {true, true, true, true, true};
      pr.range_lo = {1e-3 * peak / fn, 1e-3 * peak / fn, 0.0, 0.3 / hi, vmin};
      pr.range_hi = {2.0 * peak / fn, 2.0 * peak / fn, slope_max / fn, 30.0 / vmin, hi};
      c.how = "the SCVS law fitted to the fitted law at F_n = " + short_num(fn) + " N";
    }
    const ident::CurveFitResult r = ident::fit_curve(pr);
    c.params = r.params;
    c.how += " (least squares over the range, Ceres; best of " + std::to_string(r.starts) + " starts spread over " +
             "the parameters' ranges, " + std::to_string(r.at_best) + " reaching it: " +
             (r.settled ? "the best this law allows there" : "no two starts agreed, a better fit may exist") +
             "; RMS difference " + short_num(r.rms_error) + (c.law == "simscape-rotational" ? " N*m" : " N") + ")";
    if (c.law != "simscape-cylinder") {
      const auto errs = validate_params(tm, c.params.data());
      if (!errs.empty()) throw InputError("the conversion's fit gave invalid parameters: " + errs.front());
    }
  }
  // The stated error: both laws through the kernels on the same velocities.
  c.max_error = largest_difference(eval_law(c.law, c.params, v, tgt_pressure, tgt_fn));
  if (!std::isfinite(c.max_error)) throw InputError("the conversion gave a non-finite force; check the fit report");
  // Exact only where the check finds no difference: a law taken at one
  // operating point of data that span several is not.
  c.exact = exact && c.max_error <= 1e-9 * std::max(1.0, c.max_force);
  if (exact && !c.exact)
    c.how += "; exact at the operating point, but the data span p_A + p_B in [" + short_num(at.p_lo) + ", " +
             short_num(at.p_hi) + "] Pa and F_n in [" + short_num(at.fn_lo) + ", " + short_num(at.fn_hi) + "] N";
  c.breakaway_export = breakaway_of(c.law, c.params, tgt_pressure, tgt_fn);
  stick_slip_check(c, check_drive_velocity(v, f), id, src.values, src_fn, rotational);
  return c;
}

// ---- writers --------------------------------------------------------------

std::string percent_change(double exported, double fitted) {
  if (fitted == 0.0) return exported == 0.0 ? "0 %" : "from 0";
  const double d = 100.0 * (exported - fitted) / std::abs(fitted);
  return (d > 0 ? "+" : "") + short_num(d) + " %";
}

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
bool breakaway_differs(const Conversion& c) {
  return c.max_force > 0.0 && std::abs(c.breakaway_export - c.breakaway_fit) > 0.05 * std::abs(c.breakaway_fit);
}
std::string breakaway_warning(const Conversion& c, const std::string& funit) {
  return "the exported values break away at " + short_num(c.breakaway_export) + " " + funit + ", the fit at " +
         short_num(c.breakaway_fit) + " " + funit + " (the target's force at v = 0+ is its breakaway; see the " +
         "stick-slip check)";
}

// What one conversion is, how good, and where it was taken.
std::string conversion_lines(const char* cm, const Conversion& c, const std::string& vunit, const std::string& funit) {
  const std::string p(cm);
  std::string s;
  if (!c.at.label.empty()) s += p + " Operating point: " + c.at.label + ".\n";
  if (c.exact)
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
std::string write_simscape(const ParamFile& src, const std::string& fit_path, const std::vector<Conversion>& cs) {
  const std::string& law = cs.front().law;
  std::string block, lib;
  std::string vunit = "m/s", funit = "N";
  auto values = [&](const std::vector<double>& p) -> std::vector<NamedValue> {
    if (law == "simscape-translational")
      return {
          {"brkwy_frc", "N", p[0]}, {"brkwy_vel", "m/s", p[1]}, {"Col_frc", "N", p[2]}, {"visc_coef", "N/(m/s)", p[3]}};
    if (law == "simscape-rotational")
      return {{"brkwy_trq", "N*m", p[0]},
              {"brkwy_vel", "rad/s", p[1]},
              {"Col_trq", "N*m", p[2]},
              {"visc_coef", "N*m/(rad/s)", p[3]}};
    if (law == "simscape-cylinder")
      return {{"frc_preload", "N", p[0]},     {"fr_coef", "N/Pa", p[1]},   {"frc_brkwy_coef", "", p[2]},
              {"visc_coef", "N/(m/s)", p[3]}, {"trans_coef", "s/m", p[4]}, {"vel_thr", "m/s", p[5]}};
    return {{"preload_force", "N", p[0]},  // simscape-cylinder-il
            {"Coulomb_coeff", "N/Pa", p[1]},
            {"breakaway_Coulomb_ratio", "", p[2]},
            {"viscous_coeff", "N/(m/s)", p[4]},
            {"breakaway_velocity", "m/s", p[3]}};
  };
  if (law == "simscape-translational") {
    block = "Translational Friction";
    lib = "fl_lib/Mechanical/Translational Elements/Translational Friction";
  } else if (law == "simscape-rotational") {
    block = "Rotational Friction";
    lib = "fl_lib/Mechanical/Rotational Elements/Rotational Friction";
    vunit = "rad/s", funit = "N*m";
  } else if (law == "simscape-cylinder") {
    block = "Cylinder Friction";
    lib = "sh_lib/Hydraulic Cylinders/Cylinder Friction";
  } else {
    block = "Cylinder Friction (IL)";
    lib = "SimscapeFluids_lib/Isothermal Liquid/Actuators/Auxiliary Components/Cylinder Friction (IL)";
  }
  std::string s = file_header("%", src, fit_path);
  for (const Conversion& c : cs) s += conversion_lines("%", c, vunit, funit);
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
  for (const Conversion& c : cs) names += (names.empty() ? "''" : ", ''") + identifier(c.at.label) + "''";
  std::string listed;
  for (const Conversion& c : cs) listed += (listed.empty() ? "'" : ", '") + identifier(c.at.label) + "'";
  s += "% One parameter set per operating point of the data: set op to one of " + listed + ".\n";
  s += "if ~exist('op', 'var')\n  error('stribeck:export', 'set op to the operating point: one of " + names +
       "');\nend\nswitch op\n";
  for (const Conversion& c : cs) s += "  case '" + identifier(c.at.label) + "'\n" + set_lines(c.params, "    ");
  s += "  otherwise\n    error('stribeck:export', 'op must be one of " + names + "');\nend\n";
  return s;
}

std::string write_modelica(const ParamFile& src, const std::string& fit_path, const std::vector<Conversion>& cs) {
  const bool table = cs.front().law.empty();
  std::string s = file_header("//", src, fit_path);
  for (const Conversion& c : cs) s += conversion_lines("//", c, table ? "rad/s" : "m/s", table ? "N.m" : "N");
  if (table) {
    s += "// Modifier for Modelica.Mechanics.Rotational.Components.BearingFriction (MSL 4.x):\n";
    s += "//   tau_pos: positive sliding friction torque [N.m] as function of w [rad/s] (w >= 0); the element\n";
    s += "//   breaks away at peak * tau_pos(w = 0).\n";
  } else {
    s += "// Modifier for Modelica.Mechanics.Translational.Components.MassWithStopAndFriction (MSL 4.x):\n";
    s += "//   sliding friction f = F_Coulomb + F_prop*v + F_Stribeck*exp(-fexp*v) for v > 0, stuck below\n";
    s += "//   F_Coulomb + F_Stribeck. m, L, smax, smin are the user's.\n";
  }
  for (const Conversion& c : cs) {
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

std::string write_twentysim(const ParamFile& src, const std::string& fit_path, const std::vector<Conversion>& cs) {
  const ModelInfo& tm = require_model(cs.front().law);
  const std::string& law = cs.front().law;
  std::string sub = law == "20sim-c"      ? "C"
                    : law == "20sim-v"    ? "V"
                    : law == "20sim-cv"   ? "CV"
                    : law == "20sim-scvs" ? "SCVS"
                                          : "LuGre";
  std::string s = file_header("//", src, fit_path);
  s += "// 20-sim parameters for the " + sub + " friction submodel (library Mechanical/Translation/Friction):\n";
  s += "// forces are the normal force F_n times these coefficients.\n";
  if (cs.size() > 1) s += "// One parameters section per operating point of the data: use the one of yours.\n";
  for (const Conversion& c : cs) {
    s += conversion_lines("//", c, "m/s", "N");
    if (src.model.rfind("20sim-", 0) != 0) s += "// Converted at F_n = " + short_num(c.at.normal_force) + " N.\n";
    s += "parameters\n";
    for (size_t i = 0; i < tm.params.size(); ++i)
      s += "  real " + std::string(tm.params[i].name) + " = " + num(c.params[i]) + ";  // {" + tm.params[i].unit +
           "} " + tm.params[i].description + "\n";
  }
  return s;
}

std::string json_params_text(const ParamFile& src, const std::string& fit_path, const Conversion& c) {
  const ModelInfo& m = require_model(c.law);
  nlohmann::ordered_json j;
  j["model"] = c.law;
  nlohmann::ordered_json params = nlohmann::ordered_json::object(), units = nlohmann::ordered_json::object();
  for (size_t i = 0; i < m.params.size(); ++i) {
    params[m.params[i].name] = c.params[i];
    // A generic law fitted to a rotational log: its units by dimension (N*m, rad/s).
    units[m.params[i].name] =
        src.rotational && m.output_unit != "N*m" ? rotational_unit(m.params[i].unit) : std::string(m.params[i].unit);
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
      ->type_name("FILE")
      ->required();
  cmd->add_option("--to,-t", o->to, "Target: simscape, modelica, 20sim or json")
      ->required()
      ->check(CLI::IsMember({"simscape", "modelica", "20sim", "json"}));
  cmd->add_option("--output,-o", o->output, "File to write (default: standard output)")->type_name("FILE");
  cmd->add_option("--velocity-range", o->velocity_range,
                  "LO:HI: |v| range [m/s, rad/s] of the data, over which an approximate conversion is fitted and "
                  "checked")
      ->type_name("LO:HI");
  cmd->add_option("--data", o->data,
                  "Rig log the fit came from: its velocity channel gives the range, its experiments the operating "
                  "points (p_A + p_B, F_n)")
      ->type_name("FILE");
  auto* pressure = cmd->add_option("--pressure", o->pressure,
                                   "Cylinder laws to Modelica or 20-sim: p_A + p_B [Pa] at which the "
                                   "pressure-dependent Coulomb force is taken "
                                   "(else each experiment's of --data; required without --data)")
                       ->type_name("PA");
  cmd->add_option("--normal-force", o->normal_force,
                  "Between 20-sim (coefficients per newton of normal force) and the other tools: F_n [N] (else each "
                  "experiment's of --data)")
      ->type_name("NEWTON");
  cmd->add_option("--fit", o->fit_index, "With a report of several fits (--compare, --batch): which one (1 = first)")
      ->type_name("N")
      ->check(kPositive);
  add_verbosity_flags(cmd);
  cmd->callback([o, pressure] {
    if (!o->output.empty()) check_output(o->output, {o->fit, o->data});
    if (pressure->count() && !std::isfinite(o->pressure)) throw InputError("--pressure must be finite");
    const ParamFile src = read_param_file(o->fit, o->fit_index - 1);
    const Target t = o->to == "simscape"   ? Target::kSimscape
                     : o->to == "modelica" ? Target::kModelica
                     : o->to == "20sim"    ? Target::kTwentySim
                                           : Target::kJson;
    const ModelInfo& m = require_model(src.model);
    const std::vector<Experiment> data = o->data.empty() ? std::vector<Experiment>{} : read_any_log(o->data);
    // What the conversion depends on besides v (dynamic laws and rotational
    // to 20-sim have no conversion: convert refuses them).
    const bool twentysim_src = src.model.rfind("20sim-", 0) == 0;
    const bool static_law = !m.dynamic && src.model != "simscape-rotational" && !src.rotational;
    const bool needs_fn = static_law && t != Target::kJson && (twentysim_src != (t == Target::kTwentySim));
    const int cfr = m.param_index("f_cfr");
    const bool needs_p = (src.model == "simscape-cylinder" || src.model == "simscape-cylinder-il") &&
                         (t == Target::kModelica || t == Target::kTwentySim) &&
                         src.values[static_cast<size_t>(cfr)] != 0.0;
    std::vector<Conversion> cs;
    if (needs_fn || needs_p) {
      const std::string why = "the conversion of " + src.model + " to " + o->to;
      for (const OperatingPoint& at : operating_points(*o, data, needs_p, needs_fn, why))
        cs.push_back(convert(src, t, *o, data, at));
    } else {
      OperatingPoint at;
      if (std::isfinite(o->normal_force)) at.normal_force = at.fn_lo = at.fn_hi = o->normal_force;
      cs.push_back(convert(src, t, *o, data, at));
    }
    std::string text;
    switch (t) {
      case Target::kSimscape: text = write_simscape(src, o->fit, cs); break;
      case Target::kModelica: text = write_modelica(src, o->fit, cs); break;
      case Target::kTwentySim: text = write_twentysim(src, o->fit, cs); break;
      case Target::kJson: text = json_params_text(src, o->fit, cs.front()); break;
    }
    if (o->output.empty()) {
      std::fputs(text.c_str(), stdout);
    } else {
      AtomicFile out(o->output);
      out.write(text);
      out.commit();
    }
    const bool rotational = src.model == "simscape-rotational" || src.rotational;
    const std::string unit = rotational ? "N*m" : "N";
    const std::string vunit = rotational ? "rad/s" : "m/s";
    for (const Conversion& c : cs) {
      std::string line = "stribeck export-params: " + src.model + " -> " + o->to +
                         (c.at.label.empty() ? "" : " at " + c.at.label) + ", " + (c.exact ? "exact" : "approximate") +
                         ": largest force difference " + short_num(c.max_error) + " " + unit + " over |v| in [" +
                         short_num(c.v_lo) + ", " + short_num(c.v_hi) + "]" +
                         (o->output.empty() ? "" : " -> " + o->output);
      if (c.max_force > 0.0)
        line += "; breakaway " + short_num(c.breakaway_export) + " " + unit + " (fit " + short_num(c.breakaway_fit) +
                " " + unit + ")";
      if (!c.stick.not_run.empty() || c.stick.t_end > 0.0) line += "\n  " + stick_slip_text(c.stick, vunit, unit);
      if (breakaway_differs(c)) warn(breakaway_warning(c, unit));
      // The summary goes to stdout, as in every command, unless stdout holds the exported file.
      if (o->output.empty()) std::fprintf(stderr, "%s\n", line.c_str());
      else summary("%s", line.c_str());
    }
  });
}

}  // namespace stribeck::cli
