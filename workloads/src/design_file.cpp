// RIG.toml and DESIGN.toml of `stribeck design` (design_file.hpp).
#include "stribeck/workloads/design_file.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <toml++/toml.h>

#include "stribeck/data/config_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/registry.hpp"
#include "toml_text.hpp"

namespace stribeck::workloads {
namespace {

using detail::toml_where;

toml::table parse(const std::string& path, const std::string& what) {
  return detail::parse_toml(data::read_config_file(path, what), path);
}

// A design's known keys are named in alphabetical order.
void check_keys(const std::string& file, const toml::table& t, const std::string& table,
                const std::set<std::string>& known) {
  detail::check_toml_keys(file, t, table, {known.begin(), known.end()});
}

// A number (SI) or a string with a unit of dimension `dim`.
double quantity(const std::string& file, const toml::node& n, const std::string& key, data::Dimension dim) {
  if (const auto x = detail::toml_number(n)) {
    if (!std::isfinite(*x)) throw data::InputError(toml_where(file, n) + ": '" + key + "' must be finite");
    return *x;
  }
  const auto s = n.value<std::string>();
  if (!s)
    throw data::InputError(toml_where(file, n) + ": '" + key +
                           "' must be a number (SI) or a quantity such as \"2 bar\"");
  std::optional<data::Dimension> d;
  double x = 0;
  try {
    x = data::parse_quantity(*s, key, &d);
  } catch (const data::InputError& e) {
    throw data::InputError(toml_where(file, n) + ": " + e.what());
  }
  if (d && *d != dim)
    throw data::InputError(toml_where(file, n) + ": '" + key + "' = \"" + *s + "\" is " + data::dimension_name(*d) +
                           ", expected " + data::dimension_name(dim));
  return x;
}

double positive(const std::string& file, const toml::table& t, const std::string& key, data::Dimension dim) {
  const toml::node* n = t.get(key);
  if (!n) throw data::InputError(file + ": rig limit '" + key + "' is missing");
  const double x = quantity(file, *n, key, dim);
  if (!(x > 0)) throw data::InputError(toml_where(file, *n) + ": rig limit '" + key + "' must be > 0");
  return x;
}

const toml::node& required(const std::string& file, const toml::table& t, const std::string& key,
                           const std::string& table) {
  const toml::node* n = t.get(key);
  if (!n) throw data::InputError(file + ": '" + key + "' is missing in " + table);
  return *n;
}

double number(const std::string& file, const toml::table& t, const std::string& key, const std::string& table) {
  const toml::node& n = required(file, t, key, table);
  const auto x = detail::toml_number(n);
  if (!x || !std::isfinite(*x)) throw data::InputError(toml_where(file, n) + ": '" + key + "' must be a finite number");
  return *x;
}

std::string text(const std::string& file, const toml::table& t, const std::string& key, const std::string& table) {
  const toml::node& n = required(file, t, key, table);
  const auto s = n.value<std::string>();
  if (!s) throw data::InputError(toml_where(file, n) + ": '" + key + "' must be a string");
  return *s;
}

// A non-empty array of finite numbers.
std::vector<double> numbers(const std::string& file, const toml::table& t, const std::string& key,
                            const std::string& table) {
  const toml::node& n = required(file, t, key, table);
  const toml::array* a = n.as_array();
  if (!a || a->empty()) throw data::InputError(toml_where(file, n) + ": '" + key + "' must be a non-empty array");
  std::vector<double> out;
  for (const toml::node& x : *a) {
    const auto v = detail::toml_number(x);
    if (!v || !std::isfinite(*v)) throw data::InputError(toml_where(file, x) + ": '" + key + "' holds a non-number");
    out.push_back(*v);
  }
  return out;
}

std::string number_list(const std::vector<double>& xs) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + format_number(xs[i]);
  return s + "]";
}

// The unit suffixes of DESIGN.toml's keys.
struct Suffix {
  std::string length, speed, accel;
};
Suffix suffix(bool rotational) { return rotational ? Suffix{"rad", "rad_s", "rad_s2"} : Suffix{"m", "m_s", "m_s2"}; }

DesignedExperiment read_experiment(const std::string& path, const toml::table& t, const Suffix& u, size_t k) {
  const std::string table = "[[experiment]] " + std::to_string(k + 1);
  std::set<std::string> known = {"name",
                                 "profile",
                                 "duration_s",
                                 "rate_hz",
                                 "v_max_" + u.speed,
                                 "pressure_a_pa",
                                 "pressure_b_pa",
                                 "band_lo_hz",
                                 "band_hi_hz",
                                 "tones",
                                 "phase_seed",
                                 "levels_" + u.speed,
                                 "holds_s",
                                 "ramp_" + u.accel,
                                 "stroke_used_" + u.length,
                                 "a_peak_" + u.accel};
  check_keys(path, t, table, known);
  DesignedExperiment e;
  e.name = text(path, t, "name", table);
  e.profile = text(path, t, "profile", table);
  if (e.profile != "levels" &&
      std::find(generator_profiles().begin(), generator_profiles().end(), e.profile) == generator_profiles().end())
    throw data::InputError(toml_where(path, required(path, t, "profile", table)) + ": unknown profile '" + e.profile +
                           "'");
  e.duration = number(path, t, "duration_s", table);
  e.rate_hz = number(path, t, "rate_hz", table);
  e.v_max = number(path, t, "v_max_" + u.speed, table);
  for (const char* key : {"duration_s", "rate_hz"})
    if (!(number(path, t, key, table) > 0))
      throw data::InputError(toml_where(path, required(path, t, key, table)) + ": '" + key + "' must be > 0");
  if (!(e.v_max > 0))
    throw data::InputError(toml_where(path, required(path, t, "v_max_" + u.speed, table)) + ": v_max must be > 0");
  e.has_pressure = t.contains("pressure_a_pa");
  if (e.has_pressure) {
    e.pressure_a = number(path, t, "pressure_a_pa", table);
    if (t.contains("pressure_b_pa")) e.pressure_b = number(path, t, "pressure_b_pa", table);
  }
  if (e.profile == "multisine") {
    e.band_lo_hz = number(path, t, "band_lo_hz", table);
    e.band_hi_hz = number(path, t, "band_hi_hz", table);
    const toml::node& tones = required(path, t, "tones", table);
    const toml::node& seed = required(path, t, "phase_seed", table);
    const auto nt = tones.value_exact<std::int64_t>();
    const auto ns = seed.value_exact<std::int64_t>();
    if (!nt || *nt < 1 || *nt > 1000)
      throw data::InputError(toml_where(path, tones) + ": 'tones' must be an integer 1..1000");
    if (!ns || *ns < 1) throw data::InputError(toml_where(path, seed) + ": 'phase_seed' must be a positive integer");
    e.tones = static_cast<int>(*nt);
    e.phase_seed = static_cast<std::uint64_t>(*ns);
  }
  if (e.profile == "levels") {
    e.levels = numbers(path, t, "levels_" + u.speed, table);
    e.holds = numbers(path, t, "holds_s", table);
    e.ramp_accel = number(path, t, "ramp_" + u.accel, table);
    if (e.levels.size() != e.holds.size())
      throw data::InputError(toml_where(path, required(path, t, "holds_s", table)) + ": 'holds_s' has " +
                             std::to_string(e.holds.size()) + " values, 'levels_" + u.speed + "' " +
                             std::to_string(e.levels.size()));
    for (double h : e.holds)
      if (!(h >= 0)) throw data::InputError(toml_where(path, required(path, t, "holds_s", table)) + ": a hold is < 0");
    if (!(e.ramp_accel > 0))
      throw data::InputError(toml_where(path, required(path, t, "ramp_" + u.accel, table)) + ": 'ramp_" + u.accel +
                             "' must be > 0");
  }
  return e;
}

}  // namespace

RigLimits read_rig_limits(const std::string& path, bool rotational, bool needs_pressure) {
  const toml::table root = parse(path, "rig limits");
  check_keys(path, root, "the rig limits",
             {"stroke", "v_max", "a_max", "duration", "rate", "force_noise", "pressure_levels", "pressure_min",
              "pressure_max", "pressure_b", "max_experiments"});
  RigLimits r;
  r.stroke = positive(path, root, "stroke", rotational ? data::Dimension::kAngle : data::Dimension::kLength);
  r.v_max = positive(path, root, "v_max", rotational ? data::Dimension::kAngularVelocity : data::Dimension::kVelocity);
  r.a_max = positive(path, root, "a_max",
                     rotational ? data::Dimension::kAngularAcceleration : data::Dimension::kAcceleration);
  r.duration = positive(path, root, "duration", data::Dimension::kTime);
  r.rate_hz = positive(path, root, "rate", data::Dimension::kDimensionless);
  r.force_noise = positive(path, root, "force_noise", rotational ? data::Dimension::kTorque : data::Dimension::kForce);
  if (const toml::node* n = root.get("pressure_levels")) {
    const toml::array* a = n->as_array();
    if (!a || a->empty())
      throw data::InputError(toml_where(path, *n) + ": 'pressure_levels' must be a non-empty array of pressures");
    for (const toml::node& p : *a) {
      r.pressure_levels.push_back(quantity(path, p, "pressure_levels", data::Dimension::kPressure));
      if (r.pressure_levels.back() < 0) throw data::InputError(toml_where(path, p) + ": a pressure level must be >= 0");
    }
  }
  const bool lo = root.contains("pressure_min"), hi = root.contains("pressure_max");
  if (lo != hi)
    throw data::InputError(path + ": give both pressure_min and pressure_max (a range), or pressure_levels");
  if (lo) {
    if (!r.pressure_levels.empty())
      throw data::InputError(path + ": give pressure_levels or pressure_min/pressure_max, not both");
    r.pressure_range = true;
    r.pressure_min = quantity(path, *root.get("pressure_min"), "pressure_min", data::Dimension::kPressure);
    r.pressure_max = quantity(path, *root.get("pressure_max"), "pressure_max", data::Dimension::kPressure);
    if (!(r.pressure_min >= 0 && r.pressure_max > r.pressure_min))
      throw data::InputError(toml_where(path, *root.get("pressure_max")) + ": needs 0 <= pressure_min < pressure_max");
  }
  if (needs_pressure && r.pressure_levels.empty() && !r.pressure_range)
    throw data::InputError(path +
                           ": rig limit 'pressure_levels' (or pressure_min/pressure_max) is missing: the model reads "
                           "pressure");
  if (const toml::node* n = root.get("pressure_b"))
    r.pressure_b = quantity(path, *n, "pressure_b", data::Dimension::kPressure);
  if (const toml::node* n = root.get("max_experiments")) {
    const auto k = n->value_exact<std::int64_t>();
    if (!k || *k < 1 || *k > 64)
      throw data::InputError(toml_where(path, *n) + ": 'max_experiments' must be an integer 1..64");
    r.max_experiments = static_cast<int>(*k);
  }
  return r;
}

std::string design_toml(const DesignFile& d, const std::string& comment) {
  const Suffix u = suffix(d.rotational);
  std::string s;
  size_t pos = 0;
  while (pos < comment.size()) {
    const size_t end = std::min(comment.find('\n', pos), comment.size());
    s += "# " + comment.substr(pos, end - pos) + "\n";
    pos = end + 1;
  }
  s += "format = \"stribeck-design\"\nversion = 1\nmodel = \"" + d.model + "\"\nmotion = \"" +
       (d.rotational ? "rotational" : "translational") + "\"\n\n[params]\n";
  for (const auto& [name, value] : d.params) s += name + " = " + format_number(value) + "\n";
  // format_number writes integers without a point; TOML then reads an
  // integer, which toml_number accepts as a number as well.
  for (const auto& e : d.experiments) {
    s += "\n[[experiment]]\nname = \"" + e.name + "\"\nprofile = \"" + e.profile + "\"\n";
    s += "duration_s = " + format_number(e.duration) + "\nrate_hz = " + format_number(e.rate_hz) + "\n";
    s += "v_max_" + u.speed + " = " + format_number(e.v_max) + "\n";
    if (e.has_pressure)
      s += "pressure_a_pa = " + format_number(e.pressure_a) + "\npressure_b_pa = " + format_number(e.pressure_b) + "\n";
    if (e.profile == "multisine")
      s += "band_lo_hz = " + format_number(e.band_lo_hz) + "\nband_hi_hz = " + format_number(e.band_hi_hz) +
           "\ntones = " + std::to_string(e.tones) + "\nphase_seed = " + std::to_string(e.phase_seed) + "\n";
    if (e.profile == "levels")
      s += "levels_" + u.speed + " = " + number_list(e.levels) + "\nholds_s = " + number_list(e.holds) + "\nramp_" +
           u.accel + " = " + format_number(e.ramp_accel) + "\n";
    s += "stroke_used_" + u.length + " = " + format_number(e.stroke_used) + "\na_peak_" + u.accel + " = " +
         format_number(e.a_peak) + "\n";
  }
  return s;
}

DesignFile read_design_file(const std::string& path) {
  const toml::table root = parse(path, "design");
  check_keys(path, root, "the design", {"format", "version", "model", "motion", "params", "experiment"});
  if (text(path, root, "format", "the design") != "stribeck-design")
    throw data::InputError(toml_where(path, *root.get("format")) + ": not a design of `stribeck design` (format \"" +
                           text(path, root, "format", "the design") + "\")");
  if (number(path, root, "version", "the design") != 1)
    throw data::InputError(toml_where(path, *root.get("version")) + ": design version 1 expected");
  DesignFile d;
  d.model = text(path, root, "model", "the design");
  const ModelInfo* m = find_model(d.model);
  if (!m) throw data::InputError(toml_where(path, *root.get("model")) + ": unknown model '" + d.model + "'");
  d.rotational = m->output_unit == "N*m";
  const std::string motion = text(path, root, "motion", "the design");
  if (motion != (d.rotational ? "rotational" : "translational"))
    throw data::InputError(toml_where(path, *root.get("motion")) + ": motion \"" + motion + "\" is not that of model " +
                           d.model);
  const toml::node& pn = required(path, root, "params", "the design");
  if (!pn.is_table()) throw data::InputError(toml_where(path, pn) + ": 'params' must be a table");
  // In the model's order (a TOML table has none), every parameter given.
  const toml::table& pt = *pn.as_table();
  for (const auto& [k, v] : pt)
    if (m->param_index(k.str()) < 0)
      throw data::InputError(toml_where(path, v) + ": '" + std::string(k.str()) + "' is not a parameter of " + d.model);
  for (const auto& info : m->params) {
    const toml::node* v = pt.get(info.name);
    if (!v) throw data::InputError(toml_where(path, pn) + ": parameter '" + std::string(info.name) + "' is missing");
    const auto x = detail::toml_number(*v);
    if (!x || !std::isfinite(*x))
      throw data::InputError(toml_where(path, *v) + ": parameter '" + std::string(info.name) + "' must be a number");
    d.params.emplace_back(info.name, *x);
  }
  const toml::node& en = required(path, root, "experiment", "the design");
  const toml::array* arr = en.as_array();
  if (!arr || arr->empty() || !arr->is_array_of_tables())
    throw data::InputError(toml_where(path, en) + ": 'experiment' must be one or more [[experiment]] tables");
  const Suffix u = suffix(d.rotational);
  std::set<std::string> names;
  for (size_t k = 0; k < arr->size(); ++k) {
    d.experiments.push_back(read_experiment(path, *arr->get(k)->as_table(), u, k));
    if (!names.insert(d.experiments.back().name).second)
      throw data::InputError(toml_where(path, *arr->get(k)) + ": experiment name '" + d.experiments.back().name +
                             "' is used twice");
  }
  return d;
}

GeneratorOptions generator_options(const DesignedExperiment& e, const std::string& model,
                                   const std::vector<double>& params) {
  GeneratorOptions o;
  o.model = model;
  o.params = params;
  o.profile = e.profile;
  o.rate_hz = e.rate_hz;
  o.duration = e.duration;
  o.v_max = e.v_max;
  if (e.has_pressure) o.pressure_levels = {e.pressure_a};
  o.pressure_b = e.pressure_b;
  o.band_lo_hz = e.band_lo_hz;
  o.band_hi_hz = e.band_hi_hz;
  o.tones = e.tones;
  o.phase_seed = e.phase_seed;
  o.levels = e.levels;
  o.holds = e.holds;
  o.ramp_accel = e.ramp_accel;
  return o;
}

std::vector<data::Experiment> generate_design(const DesignFile& d, const std::vector<double>& params,
                                              const GeneratorOptions& sensors) {
  std::vector<data::Experiment> out;
  for (size_t k = 0; k < d.experiments.size(); ++k) {
    GeneratorOptions o = sensors;
    const GeneratorOptions e = generator_options(d.experiments[k], d.model, params);
    o.model = e.model;
    o.params = e.params;
    o.profile = e.profile;
    o.rate_hz = e.rate_hz;
    o.duration = e.duration;
    o.v_max = e.v_max;
    o.pressure_levels = e.pressure_levels;
    o.pressure_b = e.pressure_b;
    o.band_lo_hz = e.band_lo_hz;
    o.band_hi_hz = e.band_hi_hz;
    o.tones = e.tones;
    o.phase_seed = e.phase_seed;
    o.levels = e.levels;
    o.holds = e.holds;
    o.ramp_accel = e.ramp_accel;
    o.seed = sensors.seed * 1000003ull + k;
    auto logs = generate_log(o);
    logs.front().name = d.experiments[k].name;
    out.push_back(std::move(logs.front()));
  }
  return out;
}

TrajectoryUse trajectory_use(const data::Experiment& e) {
  TrajectoryUse u;
  const auto& x = e.channels.at("position");
  const auto& a = e.channels.at("acceleration");
  const auto& v = e.channels.at("velocity");
  if (!x.empty()) u.stroke = *std::max_element(x.begin(), x.end()) - *std::min_element(x.begin(), x.end());
  for (double y : a) u.a_peak = std::max(u.a_peak, std::abs(y));
  for (double y : v) u.v_peak = std::max(u.v_peak, std::abs(y));
  return u;
}

}  // namespace stribeck::workloads
