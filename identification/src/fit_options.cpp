// The one check of a fit's options, FitOptions::IsValid, shaped as Ceres'
// Solver::Options::IsValid: every rule on the options' values and their
// combinations, against the model only, so that the CLI and Python refuse
// bad options before they read a log or create a file. Rules that depend
// on the data (channels a law reads, --validate names, the number of
// experiments) stay where the data is read.
#include <cfloat>
#include <cmath>
#include <map>
#include <set>

#include "dynamic_fit.hpp"
#include "problem.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/kernels/models/stribeck_asymmetric.hpp"
#include "stribeck/kernels/models/stribeck_delta.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/workloads/params.hpp"

namespace stribeck::ident {
namespace {

// The first broken rule of the solver and search settings, or "".
std::string settings_error(const FitOptions& o) {
  if (o.starts < 0) return "--starts must be >= 0 (0 = automatic)";
  if (o.starts_per_round < 1) return "FitOptions::starts_per_round must be >= 1";
  if (o.max_starts < 1) return "FitOptions::max_starts must be >= 1";
  if (o.max_profile_restarts < 0) return "FitOptions::max_profile_restarts must be >= 0";
  if (!(o.agree_tolerance >= 0) || !std::isfinite(o.agree_tolerance))
    return "FitOptions::agree_tolerance must be a finite number >= 0";
  if (o.coarse_points < 0) return "--coarse-points must be >= 0 (0 = automatic)";
  if (o.max_iterations < 1) return "--max-iterations must be >= 1";
  // Ceres' own Solver::Options::IsValid refuses these; said here in our terms.
  const std::pair<const char*, double> tolerances[] = {{"function_tolerance", o.function_tolerance},
                                                       {"gradient_tolerance", o.gradient_tolerance},
                                                       {"parameter_tolerance", o.parameter_tolerance}};
  for (const auto& [name, x] : tolerances)
    if (!(x >= 0) || !std::isfinite(x)) return std::string("FitOptions::") + name + " must be a finite number >= 0";
  return "";
}

// The first broken rule of the force balance and the derived kinematics, or "".
std::string force_balance_error(const FitOptions& o) {
  if (!std::isfinite(o.area_a) || !std::isfinite(o.area_b)) return "--area-a/--area-b must be finite";
  // NaN asks for the mass to be estimated; any other value is a mass. (The
  // CLI's --mass implies --inertia; a library or Python caller's mass
  // without inertia is unused, but still has to be one.)
  if (!std::isnan(o.mass) && !(std::isfinite(o.mass) && o.mass >= 0))
    return std::isfinite(o.mass) ? "--mass must be >= 0" : "--mass must be a finite mass >= 0 [kg] (NaN: estimated)";
  if (!(o.cutoff_hz >= 0) || !std::isfinite(o.cutoff_hz))
    return "--cutoff must be a frequency > 0 [Hz] (0: sample rate / 20)";
  if (o.decimation < 0) return "--decimate must be >= 0 (0: automatic, 1: every sample)";
  return "";
}

// A law with a parameter set per direction already: --asymmetric would give
// each of its sets a second one for the direction it does not act in, which
// no log determines (the fit failed later on the parameter count).
std::string asymmetric_error(const ModelInfo& model, const FitOptions& o) {
  if (!o.asymmetric || model.id != StribeckAsymmetric::kId) return "";
  return "model " + model.id + " has a parameter set per direction already; fit it without --asymmetric (or " +
         StribeckDelta::kId + " with it)";
}

// What a dynamic model's fit cannot do.
std::string dynamic_error(const ModelInfo& model, const FitOptions& o) {
  if (!model.dynamic) return "";
  if (o.asymmetric)
    return "model " + model.id + " is dynamic; with --asymmetric identification fits the static models only";
  if (!detail::has_two_stage_fit(model.id))
    return "model " + model.id + " is dynamic and identification has no fit of it yet";
  if (o.inertia) return "--inertia is not supported for " + model.id + " yet (the state needs the velocity)";
  if (!o.per_experiment.empty()) return "--per-experiment is not supported for " + model.id + " yet";
  return "";
}

// A dynamic model's stiffness, damping and shape are simulated by stage 2
// of its two-stage fit from their start, which must be a value the model
// takes (a --init outside the range has no state to simulate).
bool simulated_from_start(const ModelInfo& model, const ParamInfo& p) {
  return model.dynamic && (p.role == ParamRole::kBristleStiffness || p.role == ParamRole::kBristleDamping ||
                           p.role == ParamRole::kShape);
}

// "NAME=LO:HI" (either side empty or inf: open).
bool parse_bounds(const std::string& spec, double& lo, double& hi, std::string* error) {
  auto fail = [error](const std::string& why) { return error && (*error = why, false); };
  const size_t eq = spec.find('='), colon = spec.find(':', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || colon == std::string::npos)
    return fail("--bounds '" + spec + "': expected NAME=LO:HI");
  const std::string side[2] = {spec.substr(eq + 1, colon - eq - 1), spec.substr(colon + 1)};
  double* out[2] = {&lo, &hi};
  for (int k = 0; k < 2; ++k) {
    const std::string& t = side[k];
    if (t.empty()) *out[k] = k == 0 ? -kInf : kInf;
    else if (t == "inf" || t == "+inf") *out[k] = kInf;
    else if (t == "-inf") *out[k] = -kInf;
    else if (!parse_double(t, *out[k])) return fail("--bounds '" + spec + "': '" + t + "' is not a number");
  }
  if (!(lo < hi)) return fail("--bounds '" + spec + "': LO must be below HI");
  return true;
}

// The first broken rule of --free, --per-experiment, --fix, --init and
// --bounds, or "". Fills `u` with their values.
std::string names_error(const ModelInfo& model, const FitOptions& o, detail::UserOptions& u) {
  std::set<std::string> names = {"mass", "offset"};
  std::string list;
  for (const auto& p : model.params) {
    names.insert(p.name);
    list += (list.empty() ? "" : ", ") + std::string(p.name);
  }
  auto unknown = [&](const std::string& opt, const std::string& n) {
    return names.count(n) ? std::string()
                          : opt + ": model " + model.id + " has no parameter '" + n + "' (parameters: " + list +
                                ", and mass, offset for the force balance)";
  };
  std::string e;
  u.free.insert(o.free.begin(), o.free.end());
  for (const auto& n : u.free)
    if (!(e = unknown("--free", n)).empty()) return e;
  u.per_experiment.insert(o.per_experiment.begin(), o.per_experiment.end());
  for (const auto& n : u.per_experiment)
    if (!(e = unknown("--per-experiment", n)).empty()) return e;
  for (const auto& a : o.fix) {
    const size_t eq = a.find('=');
    if (eq == std::string::npos) return "--fix '" + a + "': expected NAME=VALUE";
    const std::string n = a.substr(0, eq);
    if (!(e = unknown("--fix", n)).empty()) return e;
    double x;
    if (!parse_double(a.substr(eq + 1), x)) return "--fix '" + a + "': value is not a finite number";
    // A fixed model parameter must be one the model takes (fits used to
    // run with R_brk = 0.5 held, below its range [1, inf)).
    const int j = model.param_index(n);
    if (j >= 0 && !(e = check_param(model.params[j], x)).empty()) return "--fix " + n + ": " + e;
    if (!u.fixed.emplace(n, x).second) return "--fix: parameter " + n + " given twice";
    if (u.free.count(n)) return "--fix and --free both name " + n + ": hold it fixed or fit it, not both";
  }
  for (const auto& a : o.initial) {
    const size_t eq = a.find('=');
    double x;
    if (eq == std::string::npos || !parse_double(a.substr(eq + 1), x))
      return "--init '" + a + "': expected NAME=VALUE with a finite VALUE";
    const std::string n = a.substr(0, eq);
    if (!(e = unknown("--init", n)).empty()) return e;
    // A start value must be a normal number (1e-310 would divide to inf).
    const int j = model.param_index(n);
    if (j >= 0 && ((x != 0 && std::abs(x) < DBL_MIN) || simulated_from_start(model, model.params[j])) &&
        !(e = check_param(model.params[j], x)).empty())
      return "--init " + n + ": " + e;
    u.initial[n] = x;
  }
  for (const auto& b : o.bounds) {
    double lo, hi;
    if (!parse_bounds(b, lo, hi, &e)) return e;
    const std::string n = b.substr(0, b.find('='));
    if (!(e = unknown("--bounds", n)).empty()) return e;
    u.bounds[n] = {lo, hi};
  }
  return "";
}

// Bounds that leave a parameter no value, and held values that break the
// model's relations (a >= b), in the order the layout meets them.
std::string layout_error(const ModelInfo& model, const FitOptions& o, const detail::UserOptions& u) {
  auto overlaps = [&](const std::string& n, double lo, double hi) {
    const auto b = u.bounds.find(n);
    return b == u.bounds.end() || std::max(lo, b->second.first) <= std::min(hi, b->second.second);
  };
  for (const auto& p : model.params)
    if (!overlaps(p.name, p.lo, p.hi))
      return "--bounds for " + std::string(p.name) + " do not overlap the model's range of it";
  // The mass is an unknown only when estimated; it is >= 0.
  if (o.inertia && std::isnan(o.mass) && !overlaps("mass", 0.0, kInf))
    return "--bounds for mass do not overlap the model's range of it";
  // A held parameter keeps its --fix value, else its --init value, else the
  // model's default; held are those --fix names, those outside --free, and
  // (without --free) the sign-smoothing ones.
  auto held = [&](const ParamInfo& p) {
    return u.fixed.count(p.name) || (u.free.empty() ? p.role == ParamRole::kSmoothing : !u.free.count(p.name));
  };
  auto value = [&](const ParamInfo& p) {
    if (const auto f = u.fixed.find(p.name); f != u.fixed.end()) return f->second;
    if (const auto i = u.initial.find(p.name); i != u.initial.end()) return i->second;
    return p.default_value;
  };
  // Named as the fit names them (per-experiment copies by their parameter,
  // the experiments being unknown before the data is read).
  const std::string side = o.asymmetric ? "+" : "";
  for (const auto& r : model.relations) {
    const ParamInfo &a = model.params[r.a], &b = model.params[r.b];
    if (held(a) && held(b) && !(value(a) >= value(b)))
      return "--fix: " + std::string(a.name) + side + " must be >= " + b.name + side + " (" + r.why + ")";
  }
  return "";
}

}  // namespace

bool detail::parse_loss_spec(const std::string& spec, std::string* kind, double* scale, std::string* error) {
  auto fail = [error](const std::string& why) { return error && (*error = why, false); };
  kind->clear();
  if (spec.empty() || spec == "none" || spec == "l2") return true;
  const size_t c = spec.find(':');
  const std::string name = spec.substr(0, c);
  double d = std::numeric_limits<double>::quiet_NaN();
  if (c == std::string::npos || !parse_double(spec.substr(c + 1), d) || !(d > 0))
    return fail("--loss '" + spec + "': expected huber:D or cauchy:D with D > 0 (in N)");
  if (name != "huber" && name != "cauchy")
    return fail("--loss '" + spec + "': unknown loss '" + name + "' (huber or cauchy)");
  *kind = name;
  *scale = d;
  return true;
}

detail::UserOptions detail::parse_user_options(const ModelInfo& model, const FitOptions& o) {
  UserOptions u;
  const std::string e = names_error(model, o, u);
  if (!e.empty()) throw data::InputError(e);  // options IsValid refused: no fit gets here
  return u;
}

bool FitOptions::IsValid(const std::string& model_id, std::string* error) const {
  std::string e, loss_kind;
  double loss_scale;
  detail::UserOptions user;
  const ModelInfo* model = nullptr;
  try {
    model = &workloads::require_model(model_id);
  } catch (const data::InputError& unknown) {
    e = unknown.what();
  }
  if (model && (e = asymmetric_error(*model, *this)).empty() && (e = dynamic_error(*model, *this)).empty() &&
      (e = settings_error(*this)).empty() && (e = force_balance_error(*this)).empty() &&
      detail::parse_loss_spec(loss, &loss_kind, &loss_scale, &e) && (e = names_error(*model, *this, user)).empty())
    e = layout_error(*model, *this, user);
  if (e.empty()) return true;
  if (error) *error = e;
  return false;
}

void check_fit_options(const std::string& model_id, const FitOptions& o) {
  std::string error;
  if (!o.IsValid(model_id, &error)) throw data::InputError(error);
}

}  // namespace stribeck::ident
