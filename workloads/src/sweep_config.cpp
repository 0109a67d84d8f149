// TOML and flag parsing for `stribeck sweep` (format: docs/sweep.md).
#include "stribeck/workloads/sweep_config.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "stribeck/data/config_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/kernels/text_number.hpp"
#include "toml_text.hpp"

namespace stribeck::workloads {
namespace {

std::string where(const std::string& path, const toml::source_region& r) {
  return (path.empty() ? std::string("<config>") : path) + ":" + std::to_string(r.begin.line) + ":" +
         std::to_string(r.begin.column);
}

[[noreturn]] void fail(const std::string& path, const toml::node& n, const std::string& msg) {
  throw data::InputError(where(path, n.source()) + ": " + msg);
}

double number(const std::string& path, const toml::node& n, const std::string& what) {
  if (auto v = detail::toml_number(n)) {  // integers convert too
    if (!std::isfinite(*v)) fail(path, n, what + " must be a finite number");
    return *v;
  }
  fail(path, n, what + " must be a number");
}

std::uint64_t count(const std::string& path, const toml::node& n, const std::string& what) {
  auto v = n.value<std::int64_t>();
  if (!v || *v < 1) fail(path, n, what + " must be a positive integer");
  return static_cast<std::uint64_t>(*v);
}

std::string string(const std::string& path, const toml::node& n, const std::string& what) {
  if (auto v = n.value<std::string>()) {
    // TOML allows \u0000, which would silently cut a path or name short.
    if (v->find('\0') != std::string::npos) fail(path, n, what + " must not contain a NUL character");
    return *v;
  }
  fail(path, n, what + " must be a string");
}

bool boolean(const std::string& path, const toml::node& n, const std::string& what) {
  // is_boolean: value<bool>() would also take the integers 0 and 1.
  if (n.is_boolean()) return *n.value<bool>();
  fail(path, n, what + " must be true or false");
}

std::vector<double> numbers(const std::string& path, const toml::node& n, const std::string& what) {
  const toml::array* arr = n.as_array();
  if (!arr) fail(path, n, what + " must be an array of numbers");
  std::vector<double> out;
  for (const auto& e : *arr) out.push_back(number(path, e, what));
  return out;
}

void check_keys(const std::string& path, const toml::table& t, std::set<std::string> allowed,
                const std::string& section) {
  for (const auto& [k, v] : t)
    if (!allowed.count(std::string(k.str()))) fail(path, v, "unknown key '" + std::string(k.str()) + "' in " + section);
}

ParamSpec parse_param(const std::string& path, const std::string& name, const toml::node& n) {
  ParamSpec p;
  p.name = name;
  p.where = where(path, n.source());
  if (n.is_number()) {
    p.kind = sweep::AxisKind::kFixed;
    p.a = number(path, n, name);
    return p;
  }
  const toml::table* t = n.as_table();
  if (!t)
    fail(path, n, "parameter " + name + ": expected a number or a table such as { linear = [lo, hi], count = n }");
  check_keys(path, *t, {"values", "linear", "log", "uniform", "loguniform", "normal", "count", "truncate"},
             "parameter " + name);
  int kinds = 0;
  auto pair = [&](const char* key) {
    const std::vector<double> v = numbers(path, *t->get(key), name + "." + key);
    if (v.size() != 2) fail(path, *t->get(key), name + "." + key + " must have two numbers");
    p.a = v[0];
    p.b = v[1];
    ++kinds;
  };
  if (t->contains("values")) {
    p.kind = sweep::AxisKind::kList;
    p.values = numbers(path, *t->get("values"), name + ".values");
    if (p.values.empty()) fail(path, *t->get("values"), name + ".values is empty");
    p.count = p.values.size();
    ++kinds;
  }
  if (t->contains("linear")) p.kind = sweep::AxisKind::kLinear, pair("linear");
  if (t->contains("log")) p.kind = sweep::AxisKind::kLog, pair("log");
  if (t->contains("uniform")) p.kind = sweep::AxisKind::kUniform, pair("uniform");
  if (t->contains("loguniform")) p.kind = sweep::AxisKind::kLogUniform, pair("loguniform");
  if (t->contains("normal")) p.kind = sweep::AxisKind::kNormal, pair("normal");
  if (kinds != 1)
    fail(path, n, "parameter " + name + ": give exactly one of values, linear, log, uniform, loguniform, normal");
  if (t->contains("count")) {
    if (p.kind != sweep::AxisKind::kLinear && p.kind != sweep::AxisKind::kLog)
      fail(path, *t->get("count"), name + ".count applies to linear and log ranges only");
    p.count = count(path, *t->get("count"), name + ".count");
  }
  if (t->contains("truncate")) {
    if (p.kind != sweep::AxisKind::kNormal) fail(path, *t->get("truncate"), name + ".truncate applies to normal only");
    const std::vector<double> v = numbers(path, *t->get("truncate"), name + ".truncate");
    if (v.size() != 2) fail(path, *t->get("truncate"), name + ".truncate must have two numbers");
    p.lo = v[0];
    p.hi = v[1];
  }
  return p;
}

TraceSource parse_trace(const std::string& path, const toml::table& t) {
  TraceSource s;
  s.where = where(path, t.source());
  check_keys(path, t,
             {"file", "experiments", "name", "profile", "amplitude", "frequency", "duration", "samples", "p_a", "p_b",
              "normal_force", "reference", "noise", "seed"},
             "[[trace]]");
  if (t.contains("file") == t.contains("profile"))
    throw data::InputError(s.where + ": [[trace]] needs exactly one of file = \"rig.h5\" or profile = \"sine\"");
  if (t.contains("file")) {
    s.kind = TraceSource::kFile;
    s.path = string(path, *t.get("file"), "file");
    if (s.path.empty()) fail(path, *t.get("file"), "file is empty; name a log (HDF5, .mat, CSV)");
    if (t.contains("name"))
      fail(path, *t.get("name"), "name applies to profiles; select log experiments with experiments = [...]");
    if (auto n = t.get("experiments")) {
      const toml::array* arr = n->as_array();
      if (!arr) fail(path, *n, "experiments must be an array of experiment names");
      if (arr->empty()) fail(path, *n, "experiments is empty; leave it out to use every experiment of the log");
      for (const auto& e : *arr) s.experiments.push_back(string(path, e, "experiment name"));
    }
    // Relative to the config file's directory.
    const auto slash = path.rfind('/');
    if (!s.path.empty() && s.path[0] != '/' && slash != std::string::npos) s.path = path.substr(0, slash + 1) + s.path;
    for (const char* k :
         {"amplitude", "frequency", "duration", "samples", "p_a", "p_b", "normal_force", "reference", "noise", "seed"})
      if (t.contains(k)) fail(path, *t.get(k), std::string(k) + " applies to profiles only");
    return s;
  }
  if (t.contains("experiments")) fail(path, *t.get("experiments"), "experiments applies to file traces");
  if (t.contains("name")) s.name = string(path, *t.get("name"), "trace name");
  s.kind = TraceSource::kProfile;
  ProfileSpec& p = s.profile;
  p.shape = string(path, *t.get("profile"), "profile");
  if (p.shape != "sine") fail(path, *t.get("profile"), "unknown profile '" + p.shape + "' (known: sine)");
  if (s.name.empty()) s.name = p.shape;
  if (auto n = t.get("amplitude")) p.amplitude = number(path, *n, "amplitude");
  if (auto n = t.get("frequency")) p.frequency = number(path, *n, "frequency");
  if (auto n = t.get("duration")) p.duration = number(path, *n, "duration");
  if (auto n = t.get("samples")) {
    const std::uint64_t k = count(path, *n, "samples");
    if (k > kMaxProfileSamples) fail(path, *n, "samples = " + std::to_string(k) + ": at most 5e7 per profile trace");
    p.samples = static_cast<std::int64_t>(k);
  }
  if (auto n = t.get("p_a")) p.p_a = number(path, *n, "p_a");
  if (auto n = t.get("p_b")) p.p_b = number(path, *n, "p_b");
  if (auto n = t.get("normal_force")) p.f_n = number(path, *n, "normal_force");
  if (auto n = t.get("noise")) p.noise = number(path, *n, "noise");
  if (auto n = t.get("seed")) p.seed = count(path, *n, "seed");
  if (auto n = t.get("reference")) {
    const toml::table* r = n->as_table();
    if (!r) fail(path, *n, "reference must be a table of parameter values, e.g. { F_pr = 30 }");
    for (const auto& [k, v] : *r)
      p.reference.push_back(std::string(k.str()) + "=" + format_number(number(path, v, std::string(k.str()))));
  }
  if (!(p.duration > 0) || !(p.frequency > 0) || p.samples < 2 || !(p.noise >= 0))
    throw data::InputError(s.where + ": profile needs duration > 0, frequency > 0, samples >= 2, noise >= 0");
  if (t.contains("noise") && p.reference.empty())
    fail(path, *t.get("noise"), "noise is added to the reference force; give reference = { ... } too");
  return s;
}

}  // namespace

sweep::Design parse_design(const std::string& name, const std::string& at) {
  if (name == "grid") return sweep::Design::kGrid;
  if (name == "random") return sweep::Design::kRandom;
  if (name == "lhs" || name == "latin-hypercube") return sweep::Design::kLatinHypercube;
  if (name == "sobol") return sweep::Design::kSobol;
  throw data::InputError(at + ": unknown design '" + name + "' (known: grid, random, lhs, sobol)");
}

SweepConfig parse_sweep_config(const std::string& text, const std::string& path) {
  toml::table root;
  detail::check_toml_characters(text, path);
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw data::InputError(where(path, e.source()) + ": " + std::string(e.description()));
  }
  SweepConfig c;
  c.text = text;
  c.path = path;
  check_keys(path, root, {"model", "design", "params", "trace", "metrics", "run", "output"}, "the config");
  if (auto n = root.get("model")) c.model = string(path, *n, "model");
  if (auto n = root.get("design")) {
    const toml::table* t = n->as_table();
    if (!t) fail(path, *n, "[design] must be a table");
    check_keys(path, *t, {"type", "points", "seed", "scramble"}, "[design]");
    if (auto m = t->get("type")) c.design = parse_design(string(path, *m, "design.type"), where(path, m->source()));
    if (auto m = t->get("points")) c.points = count(path, *m, "design.points");
    if (auto m = t->get("seed")) c.seed = count(path, *m, "design.seed");
    if (auto m = t->get("scramble")) c.scramble = boolean(path, *m, "design.scramble");
  }
  if (auto n = root.get("params")) {
    const toml::table* t = n->as_table();
    if (!t) fail(path, *n, "[params] must be a table");
    for (const auto& [k, v] : *t) c.params.push_back(parse_param(path, std::string(k.str()), v));
  }
  if (auto n = root.get("trace")) {
    const toml::array* arr = n->as_array();
    if (!arr) fail(path, *n, "trace must be an array of tables: [[trace]]");
    for (const auto& e : *arr) {
      if (!e.as_table()) fail(path, e, "[[trace]] entries must be tables");
      c.traces.push_back(parse_trace(path, *e.as_table()));
    }
  }
  if (auto n = root.get("metrics")) {
    const toml::table* t = n->as_table();
    if (!t) fail(path, *n, "[metrics] must be a table");
    check_keys(path, *t, {"keep", "objective", "maximize", "top_k", "per_experiment"}, "[metrics]");
    if (auto m = t->get("keep")) {
      const toml::array* arr = m->as_array();
      if (!arr) fail(path, *m, "metrics.keep must be an array of metric names");
      for (const auto& e : *arr) {
        c.metrics.push_back(string(path, e, "metric name"));
        if (std::count(c.metrics.begin(), c.metrics.end(), c.metrics.back()) > 1)
          fail(path, e, "metrics.keep names '" + c.metrics.back() + "' twice");
      }
    }
    if (auto m = t->get("objective")) c.objective = string(path, *m, "metrics.objective");
    if (auto m = t->get("maximize")) c.maximize = boolean(path, *m, "metrics.maximize");
    if (auto m = t->get("top_k")) {
      // The flag's limit: an int (a larger count would wrap, 2^32 + 1 to 1).
      const std::uint64_t k = count(path, *m, "metrics.top_k");
      if (k > static_cast<std::uint64_t>(INT_MAX))
        fail(path, *m, "metrics.top_k = " + std::to_string(k) + ": at most 2147483647");
      c.top_k = static_cast<int>(k);
    }
    if (auto m = t->get("per_experiment")) c.per_experiment = boolean(path, *m, "metrics.per_experiment");
  }
  if (auto n = root.get("run")) {
    const toml::table* t = n->as_table();
    if (!t) fail(path, *n, "[run] must be a table");
    check_keys(path, *t, {"device", "precision", "chunk"}, "[run]");
    if (auto m = t->get("device")) c.device = string(path, *m, "run.device");
    if (auto m = t->get("precision")) c.precision = string(path, *m, "run.precision");
    if (auto m = t->get("chunk")) c.chunk = count(path, *m, "run.chunk");
  }
  if (auto n = root.get("output")) {
    const toml::table* t = n->as_table();
    if (!t) fail(path, *n, "[output] must be a table");
    check_keys(path, *t, {"file", "top_k_only", "trajectories"}, "[output]");
    if (auto m = t->get("file")) c.output = string(path, *m, "output.file");
    if (auto m = t->get("top_k_only")) c.keep_top_k_only = boolean(path, *m, "output.top_k_only");
    if (auto m = t->get("trajectories")) {
      const toml::array* arr = m->as_array();
      if (!arr) fail(path, *m, "output.trajectories must be an array of point indices");
      for (const auto& e : *arr) {
        auto v = e.value<std::int64_t>();
        if (!v || *v < 0) fail(path, e, "output.trajectories entries must be point indices >= 0");
        c.trajectories.push_back(static_cast<std::uint64_t>(*v));
      }
    }
  }
  return c;
}

SweepConfig read_sweep_config(const std::string& path) {
  return parse_sweep_config(data::read_config_file(path, "sweep config"), path);
}

void apply_param_flag(SweepConfig& c, const std::string& flag) {
  const std::string at = "--param " + flag;
  const auto eq = flag.find('=');
  if (eq == std::string::npos || eq == 0) throw data::InputError(at + ": expected NAME=SPEC");
  ParamSpec p;
  p.name = flag.substr(0, eq);
  p.where = "--param " + p.name;
  const std::string spec = flag.substr(eq + 1);
  std::vector<std::string> parts;
  for (size_t s = 0;;) {
    const auto e = spec.find(':', s);
    parts.push_back(spec.substr(s, e == std::string::npos ? std::string::npos : e - s));
    if (e == std::string::npos) break;
    s = e + 1;
  }
  auto num = [&](const std::string& s) {
    double x;
    if (!parse_double(s, x)) throw data::InputError(at + ": '" + s + "' is not a finite number");
    return x;
  };
  auto cnt = [&](const std::string& s) {
    const double x = num(s);
    if (!(x >= 1) || x != static_cast<double>(static_cast<std::uint64_t>(x)))
      throw data::InputError(at + ": count '" + s + "' must be a positive integer");
    return static_cast<std::uint64_t>(x);
  };
  const std::string& kind = parts[0];
  const size_t n = parts.size();
  if (n == 1) {
    p.kind = sweep::AxisKind::kFixed;
    p.a = num(kind);
  } else if (kind == "list" && n == 2) {
    p.kind = sweep::AxisKind::kList;
    for (size_t s = 0;;) {
      const auto e = parts[1].find(',', s);
      p.values.push_back(num(parts[1].substr(s, e == std::string::npos ? std::string::npos : e - s)));
      if (e == std::string::npos) break;
      s = e + 1;
    }
    p.count = p.values.size();
  } else if ((kind == "linear" || kind == "log") && (n == 3 || n == 4)) {
    p.kind = kind == "linear" ? sweep::AxisKind::kLinear : sweep::AxisKind::kLog;
    p.a = num(parts[1]);
    p.b = num(parts[2]);
    if (n == 4) p.count = cnt(parts[3]);
  } else if ((kind == "uniform" || kind == "loguniform") && n == 3) {
    p.kind = kind == "uniform" ? sweep::AxisKind::kUniform : sweep::AxisKind::kLogUniform;
    p.a = num(parts[1]);
    p.b = num(parts[2]);
  } else if (kind == "normal" && (n == 3 || n == 5)) {
    p.kind = sweep::AxisKind::kNormal;
    p.a = num(parts[1]);
    p.b = num(parts[2]);
    if (n == 5) p.lo = num(parts[3]), p.hi = num(parts[4]);
  } else {
    throw data::InputError(at +
                           ": expected VALUE, list:V1,V2,..., linear:LO:HI:COUNT, log:LO:HI:COUNT, "
                           "uniform:LO:HI, loguniform:LO:HI or normal:MEAN:SD[:LO:HI]");
  }
  for (auto& q : c.params)
    if (q.name == p.name) {
      // A flag replaces the config's spec; two flags for one parameter are a mistake.
      if (q.where == p.where) throw data::InputError(at + ": " + p.name + " is given by --param twice");
      q = p;
      return;
    }
  c.params.push_back(p);
}

void apply_profile_flag(SweepConfig& c, const std::string& flag) {
  const std::string at = "--profile " + flag;
  std::vector<std::string> parts;
  for (size_t b = 0;;) {
    const auto e = flag.find(',', b);
    parts.push_back(flag.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  if (parts[0] != "sine") throw data::InputError(at + ": unknown profile '" + parts[0] + "' (known: sine)");
  TraceSource t;
  t.kind = TraceSource::kProfile;
  t.name = "sine";
  t.where = at;
  ProfileSpec& p = t.profile;
  std::set<std::string> seen;
  for (size_t i = 1; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    const std::string key = parts[i].substr(0, eq), text = eq == std::string::npos ? "" : parts[i].substr(eq + 1);
    if (!seen.insert(key).second) throw data::InputError(at + ": '" + key + "' is given twice");
    if (key == "name") {
      t.name = text;
      continue;
    }
    double x;
    if (eq == std::string::npos || !parse_double(text, x))
      throw data::InputError(at + ": expected KEY=NUMBER, got '" + parts[i] + "'");
    if (key == "amplitude") p.amplitude = x;
    else if (key == "frequency") p.frequency = x;
    else if (key == "duration") p.duration = x;
    else if (key == "samples") {
      if (!(x >= 2 && x <= static_cast<double>(kMaxProfileSamples) && x == std::floor(x)))
        throw data::InputError(at + ": samples must be a whole number from 2 to 5e7, not '" + text + "'");
      p.samples = static_cast<std::int64_t>(x);
    } else if (key == "p_a") p.p_a = x;
    else if (key == "p_b") p.p_b = x;
    else if (key == "normal_force") p.f_n = x;
    else
      throw data::InputError(at + ": unknown key '" + key +
                             "' (known: name, amplitude, frequency, duration, samples, p_a, p_b, normal_force)");
  }
  if (!(p.duration > 0) || !(p.frequency > 0) || p.samples < 2)
    throw data::InputError(at + ": profile needs duration > 0, frequency > 0, samples >= 2");
  c.traces.push_back(t);
}

}  // namespace stribeck::workloads
