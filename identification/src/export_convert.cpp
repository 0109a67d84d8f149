// One conversion of a fitted law for a target tool at one operating point:
// which law the target holds, its parameters (carried over, or fitted to the
// fitted curve with fit_curve), and the check of both laws through the
// kernels on the same velocities.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "export_internal.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/eval.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/identification/curve_fit.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident::exporter {

std::vector<double> eval_law(const std::string& model, const std::vector<double>& params, const std::vector<double>& v,
                             double pressure, double f_n) {
  std::vector<double> pa(v.size(), pressure), pb(v.size(), 0.0), fn(v.size(), f_n), f(v.size());
  workloads::EvalInputs in;
  in.n = v.size();
  in.velocity = v.data();
  in.pressure_a = pa.data();
  in.pressure_b = pb.data();
  in.normal_force = fn.data();
  workloads::evaluate_samples(model, params, in, f.data());
  return f;
}

namespace {

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

// The source law's velocity range: --velocity-range, else the data's
// velocity channel (--data), else (exact conversions only) a default.
void velocity_range(const ExportOptions& o, const std::vector<data::Experiment>& data, bool needed,
                    const std::string& vunit, double& lo, double& hi) {
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
      throw data::InputError("--velocity-range '" + o.velocity_range + "' must be LO:HI with 0 <= LO < HI (|v| in " +
                             vunit + ")");
    return;
  }
  if (!o.data.empty()) {
    lo = std::numeric_limits<double>::infinity();
    hi = 0.0;
    for (const data::Experiment& e : data)
      for (double v : e.channel("velocity"))
        if (std::isfinite(v)) lo = std::min(lo, std::abs(v)), hi = std::max(hi, std::abs(v));
    if (!(hi > 0.0)) throw data::InputError(o.data + ": the velocity channel holds no motion (max |v| = 0)");
    lo = std::min(lo, hi * 0.5);
    return;
  }
  if (needed)
    throw data::InputError(
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

}  // namespace

// The operating points a conversion is taken at. `pressure` / `normal_force`:
// whether it depends on p_A + p_B / F_n; `why` names the conversion.
std::vector<OperatingPoint> operating_points(const ExportOptions& o, const std::vector<data::Experiment>& data,
                                             bool pressure, bool normal_force, const std::string& why) {
  OperatingPoint stated;
  const bool p_given = o.pressure.has_value(), fn_given = o.normal_force.has_value();
  if (fn_given && *o.normal_force <= 0.0) throw data::InputError("--normal-force must be > 0");
  if (fn_given) stated.normal_force = stated.fn_lo = stated.fn_hi = *o.normal_force;
  if (p_given) stated.pressure = stated.p_lo = stated.p_hi = *o.pressure;
  if ((!pressure || p_given) && (!normal_force || fn_given)) {
    if (pressure) stated.label = "--pressure " + short_num(*o.pressure) + " Pa";
    if (normal_force)
      stated.label +=
          (stated.label.empty() ? "" : ", ") + std::string("--normal-force ") + short_num(*o.normal_force) + " N";
    return {stated};
  }
  const std::string what = pressure && !p_given ? "p_A + p_B" : "the normal force";
  const std::string option = pressure && !p_given ? "--pressure PA" : "--normal-force N (> 0)";
  if (o.data.empty())
    throw data::InputError(why + " needs the operating point it is taken at (" + what + "; never taken as 0): give " +
                           option + " or --data LOG");
  std::vector<OperatingPoint> out;
  for (const data::Experiment& e : data) {
    OperatingPoint q = stated;
    q.label = e.name;
    if (pressure && !p_given) {
      if (!e.has("pressure_a"))
        throw data::InputError(o.data + ": experiment '" + e.name + "' has no pressure_a channel, so " + why +
                               " has no operating point p_A + p_B: give --pressure PA");
      span_of(e.channel("pressure_a"), e.has("pressure_b") ? &e.channel("pressure_b") : nullptr, q.pressure, q.p_lo,
              q.p_hi);
      if (!std::isfinite(q.pressure))
        throw data::InputError(o.data + ": experiment '" + e.name +
                               "': p_A + p_B has no finite sample; give --pressure PA");
    }
    if (normal_force && !fn_given) {
      if (!e.has("normal_force"))
        throw data::InputError(o.data + ": experiment '" + e.name + "' has no normal_force channel, so " + why +
                               " has no operating point: give --normal-force N (> 0)");
      span_of(e.channel("normal_force"), nullptr, q.normal_force, q.fn_lo, q.fn_hi);
      if (!(q.normal_force > 0.0))
        throw data::InputError(o.data + ": experiment '" + e.name +
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

namespace {

// Which law the target holds (c.law, empty for MSL's BearingFriction table)
// and, where its values follow from the fitted ones, those (exact_params,
// c.how): true then. Throws InputError where the target has no such law.
bool choose_law(const ParamFile& src, ExportTarget target, const OperatingPoint& at, ExportConversion& c,
                std::vector<double>& exact_params) {
  const ModelInfo& m = workloads::require_model(src.model);
  const std::string& id = src.model;
  const Law law = law_of(id);
  const bool rotational = law == Law::kSimscapeRotational || src.rotational;
  const bool pressure_src = is_pressure_law(law);
  const double fn = at.normal_force;
  auto p = [&](const char* n) { return src.values[static_cast<size_t>(m.param_index(n))]; };
  auto unsupported = [&](const std::string& why) {
    return data::InputError("model " + id + " has no " + export_target_name(target) + " export: " + why);
  };
  bool exact = false;
  if (target == ExportTarget::kSimscape) {
    // Of the laws with memory only 20sim-lugre has another target (20-sim's LuGre submodel).
    if (m.dynamic)
      throw unsupported(std::string("Simscape's friction blocks are static laws; use --to ") +
                        (is_twentysim(law) ? "20sim or json" : "json"));
    if (law == Law::kSimscapeTranslational || law == Law::kSimscapeRotational || pressure_src) {
      c.law = id, exact_params = src.values, exact = true;
      c.how = "the block's law is the fitted law: values carried over";
    } else {
      c.law = "simscape-translational";
      if (law == Law::kCoulombViscous && p("v_eps") > 0.0) {
        exact_params = {p("F_C"), 10.0 * p("v_eps"), p("F_C"), p("f_v")}, exact = true;
        c.how = "F_C tanh(v/v_eps) + f_v v is the block's law with F_brk = F_C, v_brk = 10 v_eps";
      } else if (law == Law::kTwentySimCv || law == Law::kTwentySimC) {
        const double mu_v = law == Law::kTwentySimCv ? p("mu_v") : 0.0;
        exact_params = {fn * p("mu_c"), 10.0 / p("slope"), fn * p("mu_c"), fn * mu_v}, exact = true;
        c.how = "at F_n = " + short_num(fn) + " N: F_brk = F_C = F_n mu_c, v_brk = 10/slope, f_v = F_n mu_v";
      } else if (law == Law::kTwentySimV) {
        exact_params = {0.0, 0.1, 0.0, fn * p("mu_v")}, exact = true;
        c.how = "at F_n = " + short_num(fn) + " N: f_v = F_n mu_v, no Coulomb or Stribeck term";
      }
    }
    // A law fitted to a rotational log: the same law in the Rotational
    // Friction block, whose parameters are the Translational block's in order.
    if (src.rotational && law_of(c.law) == Law::kSimscapeTranslational) c.law = "simscape-rotational";
  } else if (target == ExportTarget::kModelica) {
    if (m.dynamic) throw unsupported("the MSL friction elements are static laws; use --to json");
    if (rotational) {
      c.law.clear();  // Rotational.Components.BearingFriction: a table
    } else {
      c.law = "simscape-cylinder";  // MSL MassWithStopAndFriction's sliding law, f_cfr = 0
      if (law == Law::kSimscapeCylinder) {
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
  } else if (target == ExportTarget::kTwentySim) {
    if (rotational) throw unsupported("the 20-sim friction submodels are translational; use --to simscape");
    // Of the laws with memory only 20sim-lugre is a 20-sim submodel.
    if (m.dynamic && !is_twentysim(law))
      throw unsupported("its bristle parameters have no 20-sim counterpart in this export; use --to json");
    if (is_twentysim(law)) {
      c.law = id, exact_params = src.values, exact = true;
      c.how = "the submodel's law is the fitted law: values carried over";
    } else {
      c.law = "20sim-scvs";
    }
  } else {
    c.law = id, exact_params = src.values, exact = true;
    c.how = "the fitted parameters as they are";
  }
  return exact;
}

// MSL BearingFriction's tau_pos table: w = 0 holding the value at the
// range's lower end, then 16 geometric and 15 linear nodes, linear
// interpolation in between. Returns the table on the check grid `v`.
std::vector<double> sample_table(ExportConversion& c, const std::vector<double>& v, double lo, double hi,
                                 const ParamFile& src) {
  const std::string& id = src.model;
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
  return interp;
}

// The target's law fitted to the fitted curve `f` on the grid, globally: the
// multistart spreads its starts over each parameter's plausible range
// (forces up to twice the curve's peak, velocity scales over the range) and
// stops when two starts agree on the best cost. Sets c.params and c.how.
void fit_target_law(ExportConversion& c, const std::vector<double>& v, const std::vector<double>& f, double hi,
                    double fn, double tgt_pressure, double tgt_fn) {
  const ModelInfo& tm = workloads::require_model(c.law);
  const Law target_law = law_of(c.law);
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
  if (target_law == Law::kSimscapeTranslational || target_law == Law::kSimscapeRotational) {
    pr.start = {peak, std::max(ft.v_peak, v.front()), ft.f_c, ft.f_v};
    pr.free = {true, true, true, true};
    pr.range_lo = {1e-3 * peak, vmin, 1e-3 * peak, 0.0};
    pr.range_hi = {2.0 * peak, hi, 2.0 * peak, slope_max};
    c.how = "the Translational Friction law fitted to the fitted law";
  } else if (target_law == Law::kSimscapeCylinder) {
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
           "; RMS difference " + short_num(r.rms_error) + (target_law == Law::kSimscapeRotational ? " N*m" : " N") +
           ")";
  if (target_law != Law::kSimscapeCylinder) {
    const auto errs = validate_params(tm, c.params.data());
    if (!errs.empty()) throw data::InputError("the conversion's fit gave invalid parameters: " + errs.front());
  }
}

}  // namespace

ExportConversion convert(const ParamFile& src, ExportTarget target, const ExportOptions& o,
                         const std::vector<data::Experiment>& data, const OperatingPoint& at) {
  const ModelInfo& m = workloads::require_model(src.model);
  const std::string& id = src.model;
  const Law law = law_of(id);
  const bool rotational = law == Law::kSimscapeRotational || src.rotational;
  const std::string vunit = rotational ? "rad/s" : "m/s";
  const bool twentysim_src = is_twentysim(law);
  const bool pressure_src = is_pressure_law(law);
  const double fn = at.normal_force;
  ExportConversion c;
  c.at = at;
  std::vector<double> exact_params;
  const bool exact = choose_law(src, target, at, c, exact_params);
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
    // `peak` makes the element break away at the fitted law's breakaway
    // torque (MSL: at peak * tau_pos(0), peak >= 1).
    c.max_error = largest_difference(sample_table(c, v, lo, hi, src));
    c.peak = c.table_f.front() > 0.0 ? std::max(1.0, c.breakaway_fit / c.table_f.front()) : 1.0;
    c.breakaway_export = c.peak * c.table_f.front();
    c.exact = false;
    c.how = "tau_pos sampled from the fitted law at " + std::to_string(c.table_v.size() - 1) +
            " velocities (MSL interpolates linearly between them), peak = breakaway / tau_pos(0)";
    stick_slip_check(c, check_drive_velocity(v, f), id, src.values, src_fn, rotational);
    return c;
  }

  const double tgt_fn = is_twentysim(law_of(c.law)) ? fn : 0.0;
  const double tgt_pressure = pressure_src && c.law == id ? at.pressure : 0.0;
  if (exact) c.params = exact_params;
  else fit_target_law(c, v, f, hi, fn, tgt_pressure, tgt_fn);
  // The stated error: both laws through the kernels on the same velocities.
  c.max_error = largest_difference(eval_law(c.law, c.params, v, tgt_pressure, tgt_fn));
  if (!std::isfinite(c.max_error))
    throw data::InputError("the conversion gave a non-finite force; check the fit report");
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

}  // namespace stribeck::ident::exporter