// TOML config of `stribeck simulate` (format: docs/dynamics.md).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "stribeck/data/config_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/simulate.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/systems/ensemble.hpp"
#include "toml_text.hpp"

namespace stribeck::workloads {
namespace {

using detail::toml_where;

const toml::table* subtable(const std::string& file, const toml::table& t, const char* key) {
  const toml::node* n = t.get(key);
  if (!n) return nullptr;
  if (!n->is_table()) throw data::InputError(toml_where(file, *n) + ": '" + key + "' must be a table");
  return n->as_table();
}

// No quantity of a system is subnormal (nonzero, below DBL_MIN): a mass of
// 1e-310 kg makes 1/m infinite, so the run would fail with numbers that say
// nothing about the config. 0 stays allowed where the range allows it.
void subnormal(const std::string& file, const toml::node& n, const std::string& key, double x) {
  if (x != 0 && std::abs(x) < DBL_MIN)
    throw data::InputError(toml_where(file, n) + ": '" + key + "' = " + format_number(x) +
                           " is subnormal (nonzero and below 2.2e-308): no physical quantity is that small, and "
                           "dividing by it overflows");
}

bool number(const std::string& file, const toml::table& t, const char* key, double& out) {
  const toml::node* n = t.get(key);
  if (!n) return false;
  if (auto d = detail::toml_number(*n)) {
    if (!std::isfinite(*d)) throw data::InputError(toml_where(file, *n) + ": '" + key + "' is not a finite number");
    subnormal(file, *n, key, *d);
    out = *d;
    return true;
  }
  throw data::InputError(toml_where(file, *n) + ": '" + key + "' must be a number");
}

std::string text(const std::string& file, const toml::table& t, const char* key, const std::string& def) {
  const toml::node* n = t.get(key);
  if (!n) return def;
  if (auto s = n->value<std::string>()) {
    // TOML allows \u0000, which would silently cut a path or name short.
    if (s->find('\0') != std::string::npos)
      throw data::InputError(toml_where(file, *n) + ": '" + key + "' contains a NUL character");
    return *s;
  }
  throw data::InputError(toml_where(file, *n) + ": '" + key + "' must be a string");
}

void require(bool ok, const std::string& file, const toml::table& t, const char* key, const char* what) {
  if (ok) return;
  const toml::node* n = t.get(key);
  throw data::InputError((n ? toml_where(file, *n) : file) + ": '" + key + "' " + what);
}

// A profile is a number (constant) or a table {offset, slope, amplitude, frequency}.
void profile(const std::string& file, const toml::table& t, const char* key, Profile<double>& p) {
  const toml::node* n = t.get(key);
  if (!n) return;
  if (auto d = detail::toml_number(*n)) {
    if (!std::isfinite(*d)) throw data::InputError(toml_where(file, *n) + ": '" + key + "' is not a finite number");
    subnormal(file, *n, key, *d);
    p = constant_profile(*d);
    return;
  }
  if (!n->is_table())
    throw data::InputError(toml_where(file, *n) + ": '" + key +
                           "' must be a number or a table "
                           "{offset, slope, amplitude, frequency}");
  const toml::table& pt = *n->as_table();
  detail::check_toml_keys(file, pt, key, {"offset", "slope", "amplitude", "frequency"});
  number(file, pt, "offset", p.offset);
  number(file, pt, "slope", p.slope);
  number(file, pt, "amplitude", p.amplitude);
  number(file, pt, "frequency", p.frequency);
  require(p.frequency >= 0, file, pt, "frequency", "must be >= 0");
}

// The law's own breakaway parameters: F_brk / T_brk (Simscape), F_s
// (stribeck-delta) on both sides, F_s_pos and F_s_neg (stribeck-asymmetric);
// -1 where the law has none (the config must give 'breakaway').
BreakawayParams law_breakaway_params(const ModelInfo& m) {
  for (const char* both : {"F_brk", "T_brk", "F_s"}) {
    const int k = m.param_index(both);
    if (k >= 0) return {k, k};
  }
  return {m.param_index("F_s_pos"), m.param_index("F_s_neg")};
}

}  // namespace

// Output samples of one simulation (the time series is held in memory).
constexpr double kMaxSimSteps = 5e7;

SimulateConfig read_simulate_config(const std::string& path) {
  return parse_simulate_config(data::read_config_file(path, "simulate config"), path);
}

SimulateConfig parse_simulate_config(const std::string& config_text, const std::string& path) {
  SimulateConfig c;
  c.source = path;
  c.text = config_text;
  toml::table root;
  root = detail::parse_toml(c.text, path);
  detail::check_toml_keys(path, root, "the config", {"system", "friction", "simulation", "metrics", "ensemble"});

  // [friction]
  const toml::table* fr = subtable(path, root, "friction");
  if (!fr) throw data::InputError(path + ": missing table [friction] (model = \"...\")");
  detail::check_toml_keys(path, *fr, "[friction]", {"model", "form", "breakaway", "params"});
  c.model = text(path, *fr, "model", "");
  require(!c.model.empty(), path, *fr, "model", "is required (see `stribeck models`)");
  const ModelInfo& m = [&]() -> const ModelInfo& {
    try {
      return require_model(c.model);
    } catch (const data::InputError& e) {
      throw data::InputError(toml_where(path, *fr->get("model")) + ": " + e.what());
    }
  }();
  std::vector<std::string> assignments;
  // [ensemble] from_fit: the fit's values are the base parameters, and its
  // free parameters are drawn from its covariance ([ensemble] below).
  const toml::table* ensemble_table = root.get_as<toml::table>("ensemble");
  if (const toml::node* ff = ensemble_table ? ensemble_table->get("from_fit") : nullptr) {
    const auto file = ff->value<std::string>();
    if (!file || file->empty())
      throw data::InputError(toml_where(path, *ff) + ": 'from_fit' must be the path of a fit's JSON");
    std::filesystem::path fp(*file);
    if (fp.is_relative()) fp = std::filesystem::path(path).parent_path() / fp;  // relative to the config, as inputs are
    FitDraw draw = FitDraw::kCovariance;
    if (const toml::node* fd = ensemble_table->get("from_fit_draw")) {
      const auto name = fd->value<std::string>();
      if (!name || !parse_fit_draw(*name, draw))
        throw data::InputError(toml_where(path, *fd) +
                               ": 'from_fit_draw' must be \"covariance\" or \"profile-intervals\"");
    }
    c.prior = read_fit_prior(fp.string(), m, toml_where(path, *ff) + ": from_fit", draw);
    for (const auto& [i, v] : c.prior.values)
      assignments.push_back(std::string(m.params[i].name) + "=" + format_number(v));
  }
  if (const toml::node* fd =
          ensemble_table && !ensemble_table->get("from_fit") ? ensemble_table->get("from_fit_draw") : nullptr)
    throw data::InputError(toml_where(path, *fd) + ": 'from_fit_draw' needs from_fit (the fit to draw from)");
  if (const toml::table* pt = subtable(path, *fr, "params")) {
    for (const auto& [k, v] : *pt) {
      auto d = detail::toml_number(v);
      if (!d)
        throw data::InputError(toml_where(path, v) + ": parameter '" + std::string(k.str()) + "' must be a number");
      if (!std::isfinite(*d))
        throw data::InputError(toml_where(path, v) + ": parameter '" + std::string(k.str()) +
                               "' is not a finite number");
      for (const auto& drawn : c.prior.names)
        if (drawn == k.str())
          throw data::InputError(toml_where(path, v) + ": parameter '" + drawn +
                                 "' is drawn from the fit (from_fit); remove it here");
      assignments.push_back(std::string(k.str()) + "=" + format_number(*d));
    }
  }
  try {
    c.params = resolve_params(m, assignments);
  } catch (const data::InputError& e) {
    throw data::InputError(path + ": [friction.params]: " + e.what());
  }
  c.warnings = param_warnings(m, c.params.data());
  const std::string form = text(path, *fr, "form", "smooth");
  if (form == "stiction") {
    if (m.dynamic)
      throw data::InputError(toml_where(path, *fr->get("form")) + ": form = \"stiction\" needs a static law; " + m.id +
                             " is dynamic (use form = \"smooth\")");
    c.stiction = true;
    if (number(path, *fr, "breakaway", c.breakaway)) {
      require(c.breakaway > 0, path, *fr, "breakaway", "must be > 0");
    } else {
      // The law's own static force, per side where it has one per side (as
      // F_brk of the Simscape laws): what its curve starts from at rest.
      c.breakaway_from = law_breakaway_params(m);
      if (c.breakaway_from.pos < 0)
        throw data::InputError(path + ": [friction]: form = \"stiction\" with " + m.id +
                               " needs 'breakaway' (the law has no F_brk, T_brk or F_s parameter)");
    }
  } else if (form != "smooth") {
    throw data::InputError(toml_where(path, *fr->get("form")) + ": form must be \"smooth\" or \"stiction\", not \"" +
                           form + "\"");
  } else if (fr->get("breakaway")) {
    throw data::InputError(toml_where(path, *fr->get("breakaway")) +
                           ": 'breakaway' only applies to form = \"stiction\"");
  }

  // [system]
  BodySystem<double>& b = c.body;
  if (const toml::table* st = subtable(path, root, "system")) {
    detail::check_toml_keys(path, *st, "[system]",
                            {"motion", "mass", "stiffness", "damping", "friction_on", "drive_velocity",
                             "external_force", "normal_force", "pressure_a", "pressure_b", "area_a", "area_b",
                             "initial_elongation", "initial_velocity", "initial_state", "inputs", "inputs_experiment"});
    const std::string motion = text(path, *st, "motion", "translational");
    require(motion == "translational" || motion == "rotational", path, *st, "motion",
            "must be \"translational\" or \"rotational\"");
    c.rotational = motion == "rotational";
    number(path, *st, "mass", b.mass);
    require(b.mass > 0, path, *st, "mass", "must be > 0");
    number(path, *st, "stiffness", b.stiffness);
    require(b.stiffness >= 0, path, *st, "stiffness", "must be >= 0");
    number(path, *st, "damping", b.damping);
    require(b.damping >= 0, path, *st, "damping", "must be >= 0");
    const std::string on = text(path, *st, "friction_on", "ground");
    require(on == "ground" || on == "drive", path, *st, "friction_on", "must be \"ground\" or \"drive\"");
    b.friction_on_drive = on == "drive";
    profile(path, *st, "drive_velocity", b.drive_velocity);
    profile(path, *st, "external_force", b.external_force);
    profile(path, *st, "normal_force", b.normal_force);
    profile(path, *st, "pressure_a", b.pressure_a);
    profile(path, *st, "pressure_b", b.pressure_b);
    number(path, *st, "area_a", b.area_a);
    number(path, *st, "area_b", b.area_b);
    require(b.area_a >= 0, path, *st, "area_a", "must be >= 0");
    require(b.area_b >= 0, path, *st, "area_b", "must be >= 0");
    number(path, *st, "initial_elongation", b.s0);
    number(path, *st, "initial_velocity", b.v0);
    if (number(path, *st, "initial_state", b.z0))
      require(m.dynamic, path, *st, "initial_state", "applies to dynamic models only");
    // Measured inputs from a log (HDF5, .mat or delimited text, read by the
    // data layer): its pressure_a, pressure_b, normal_force and
    // external_force channels are added to the profiles of the same name.
    const std::string log = text(path, *st, "inputs", "");
    if (!log.empty()) {
      namespace fs = std::filesystem;
      fs::path lp(log);
      if (lp.is_relative()) lp = fs::path(path).parent_path() / lp;  // relative to the config
      const auto exps = [&] {
        try {
          return data::read_any_log(lp.string());
        } catch (const data::InputError& err) {
          throw data::InputError(toml_where(path, *st->get("inputs")) + ": " + err.what());
        }
      }();
      const std::string chosen = text(path, *st, "inputs_experiment", "");
      if (chosen.empty() && exps.size() > 1) {
        std::string names;
        for (const auto& x : exps) names += (names.empty() ? "" : ", ") + x.name;
        throw data::InputError(toml_where(path, *st->get("inputs")) + ": the inputs log " + lp.string() + " holds " +
                               std::to_string(exps.size()) + " experiments (" + names +
                               "); choose one with inputs_experiment = \"NAME\"");
      }
      const data::Experiment& e = [&]() -> const data::Experiment& {
        try {
          return data::select_experiment(exps, chosen, lp.string());
        } catch (const data::InputError& err) {
          const toml::node* at = st->get("inputs_experiment");
          throw data::InputError(toml_where(path, at ? *at : *st->get("inputs")) + ": " + err.what());
        }
      }();
      if (!e.has("time"))
        throw data::InputError(toml_where(path, *st->get("inputs")) + ": the inputs log " + lp.string() +
                               " has no 'time' channel");
      for (const char* ch : {"pressure_a", "pressure_b", "normal_force", "external_force"})
        if (e.has(ch)) c.tables.push_back({ch, e.channel("time"), e.channel(ch)});
      if (c.tables.empty())
        throw data::InputError(toml_where(path, *st->get("inputs")) + ": the inputs log " + lp.string() +
                               " has none of the channels pressure_a, pressure_b, normal_force, external_force");
    }
  }

  // [simulation]
  if (const toml::table* sm = subtable(path, root, "simulation")) {
    detail::check_toml_keys(path, *sm, "[simulation]", {"t_end", "dt", "max_substeps", "max_events", "integrator"});
    number(path, *sm, "t_end", c.sim.t_end);
    number(path, *sm, "dt", c.sim.dt);
    require(c.sim.t_end > 0, path, *sm, "t_end", "must be > 0");
    require(c.sim.dt > 0 && c.sim.dt <= c.sim.t_end, path, *sm, "dt", "must be > 0 and <= t_end");
    // The run takes round(t_end / dt) output steps: a dt that does not
    // divide t_end would silently end it early or late.
    const double steps = c.sim.t_end / c.sim.dt;
    // Checked here, in floating point: t_end = 1e20 would overflow the step
    // counter (a long) before the limit below was reached.
    if (!(steps <= kMaxSimSteps))
      throw data::InputError(path + ": [simulation]: t_end/dt = " + format_number(steps) +
                             " output samples; at most 5e7 (raise dt or shorten t_end)");
    if (std::abs(steps - std::round(steps)) > 1e-6 * std::max(1.0, steps))
      throw data::InputError(toml_where(path, *sm->get("dt")) + ": dt = " + format_number(c.sim.dt) +
                             " does not divide t_end = " + format_number(c.sim.t_end) + " (" + format_number(steps) +
                             " steps); the run would end at " + format_number(std::round(steps) * c.sim.dt) +
                             "; choose dt = t_end / N");
    double ms = c.sim.max_substeps, me = c.sim.max_events;
    number(path, *sm, "max_substeps", ms);
    number(path, *sm, "max_events", me);
    require(ms >= 1 && ms <= 1e8 && ms == std::floor(ms), path, *sm, "max_substeps", "must be an integer in [1, 1e8]");
    require(me >= 1 && me <= 1e6 && me == std::floor(me), path, *sm, "max_events", "must be an integer in [1, 1e6]");
    c.sim.max_substeps = static_cast<int>(ms);
    c.sim.max_events = static_cast<int>(me);
    const std::string integrator = text(path, *sm, "integrator", "rk4");
    if (integrator == "etd-rk4") {
      // Refused rather than run as RK4: a user who asks for it expects its step count.
      bool bristle = false;
      visit_model(c.model.c_str(), [&](auto tag) { bristle = etd_form<typename decltype(tag)::type>(); });
      if (!bristle)
        throw data::InputError(toml_where(path, *sm->get("integrator")) +
                               ": integrator = \"etd-rk4\" needs a bristle state dz/dt = v - a(v) z (lugre, "
                               "20sim-lugre); " +
                               c.model + " has none (use \"rk4\")");
      c.sim.integrator = kIntegratorEtdRk4;
    } else if (integrator != "rk4") {
      throw data::InputError(toml_where(path, *sm->get("integrator")) +
                             ": integrator must be \"rk4\" or \"etd-rk4\", not \"" + integrator + "\"");
    }
  }
  // A normal force that goes negative turns friction into a drive; a model
  // of friction coefficients without one has no friction at all.
  if (!normal_force_valid(b.normal_force, c.sim.t_end))
    throw data::InputError(path + ": [system]: normal_force (offset " + format_number(b.normal_force.offset) +
                           ", amplitude " + format_number(b.normal_force.amplitude) + ", slope " +
                           format_number(b.normal_force.slope) + ") must stay >= 0 over the run");
  for (const auto& t : c.tables)
    if (t.channel == "normal_force")
      for (double v : t.y)
        if (!(v >= 0))
          throw data::InputError(path + ": [system] inputs: the measured normal_force holds " + format_number(v) +
                                 "; a normal force must be >= 0");
  if (sim_num_steps(c.sim) > static_cast<long>(kMaxSimSteps))
    throw data::InputError(path + ": [simulation]: t_end/dt = " + format_number(c.sim.t_end / c.sim.dt) +
                           " output samples; at most 5e7 (raise dt)");

  // [metrics]
  if (const toml::table* mt = subtable(path, root, "metrics")) {
    detail::check_toml_keys(path, *mt, "[metrics]", {"settle_fraction", "v_stick", "v_breakaway"});
    number(path, *mt, "settle_fraction", c.metrics.settle_fraction);
    number(path, *mt, "v_stick", c.metrics.v_stick);
    number(path, *mt, "v_breakaway", c.metrics.v_breakaway);
    require(c.metrics.settle_fraction >= 0 && c.metrics.settle_fraction < 1, path, *mt, "settle_fraction",
            "must be in [0, 1)");
    require(c.metrics.v_stick > 0, path, *mt, "v_stick", "must be > 0");
    require(c.metrics.v_breakaway > 0, path, *mt, "v_breakaway", "must be > 0");
  }
  // [ensemble]
  if (const toml::table* et = subtable(path, root, "ensemble")) {
    detail::check_toml_keys(
        path, *et, "[ensemble]",
        {"design", "points", "seed", "scramble", "precision", "device", "params", "from_fit", "from_fit_draw"});
    c.ensemble = true;
    const std::string design = text(path, *et, "design", "grid");
    c.design = parse_design(design, et->get("design") ? toml_where(path, *et->get("design")) : path);
    // Whole numbers as TOML integers (a double would lose digits past 2^53).
    auto whole = [&](const char* key, std::int64_t lo, std::int64_t hi, std::uint64_t& out) {
      const toml::node* n = et->get(key);
      if (!n) return;
      const auto v = n->value_exact<std::int64_t>();
      if (!v || *v < lo || *v > hi)
        throw data::InputError(toml_where(path, *n) + ": '" + key + "' must be a whole number from " +
                               std::to_string(lo) + " to " + format_number(double(hi)));
      out = static_cast<std::uint64_t>(*v);
    };
    whole("points", 0, 1'000'000'000'000, c.points);
    whole("seed", 0, INT64_MAX, c.seed);
    if (const toml::node* n = et->get("scramble")) {
      if (!n->is_boolean()) throw data::InputError(toml_where(path, *n) + ": 'scramble' must be true or false");
      c.scramble = *n->value<bool>();
    }
    const std::string prec = text(path, *et, "precision", "fp64");
    require(prec == "fp64" || prec == "fp32", path, *et, "precision", "must be \"fp64\" or \"fp32\"");
    c.fp32 = prec == "fp32";
    c.device = text(path, *et, "device", "auto");
    require(c.device == "auto" || c.device == "cpu" || c.device == "gpu", path, *et, "device",
            "must be \"auto\", \"cpu\" or \"gpu\"");
    if (!c.prior.file.empty() && c.design == sweep::Design::kGrid)
      throw data::InputError(toml_where(path, *et->get("from_fit")) +
                             ": draws from a fit need design = \"random\", \"sobol\" or \"lhs\" (and points = N)");
    const toml::table* pt = subtable(path, *et, "params");
    if ((!pt || pt->empty()) && c.prior.file.empty())
      throw data::InputError(path + ": [ensemble] needs [ensemble.params] with at least one varying quantity");
    // Values use the sweep's flag syntax: a number, "list:a,b", "linear:lo:hi:n",
    // "log:lo:hi:n", "uniform:lo:hi", "loguniform:lo:hi", "normal:mean:sd[:lo:hi]".
    SweepConfig sc;
    static const toml::table kNone;
    for (const auto& [k, v] : pt ? *pt : kNone) {
      std::string spec;
      if (auto d = detail::toml_number(v)) spec = format_number(*d);
      else if (auto s = v.value<std::string>()) spec = *s;
      else
        throw data::InputError(toml_where(path, v) + ": '" + std::string(k.str()) +
                               "' must be a number or a spec string");
      try {
        apply_param_flag(sc, std::string(k.str()) + "=" + spec);
      } catch (const data::InputError& e) {
        throw data::InputError(toml_where(path, v) + ": " + e.what());
      }
      sc.params.back().where = toml_where(path, v);
    }
    c.axes = sc.params;
  }
  if (m.needs(kChannelNormalForce)) {
    const Profile<double>& n = b.normal_force;
    bool given = n.offset != 0 || n.slope != 0 || n.amplitude != 0;
    for (const auto& t : c.tables) given = given || t.channel == "normal_force";
    for (const auto& a : c.axes) given = given || a.name == "normal_force";
    if (!given)
      throw data::InputError(path + ": " + m.id +
                             " takes the normal force as an input (friction = coefficient x F_n); "
                             "set [system] normal_force = F_n in N (it is 0, so there would be no friction)");
  }
  return c;
}

}  // namespace stribeck::workloads
