// `import stribeck`: the toolkit from Python (pybind11, one translation unit).
//
//   stribeck.models()                          -> list of dicts (as `stribeck models --json`)
//   stribeck.eval(model, params, velocity=...) -> forces, float32 or float64 as the velocity
//   stribeck.fit(model, velocity=..., force=... | log=...) -> report dict, fitted force, residuals
//   stribeck.read_log(path) / stribeck.write_log(path, experiments)
//   stribeck.sweep(config) / stribeck.simulate(config) -> columns (dict or pandas DataFrame)
//
// Bad input raises ValueError with the message the CLI prints after
// "stribeck: error: ". Long calls release the GIL and check for Ctrl-C
// (PyErr_CheckSignals) between blocks of samples and at every solver
// iteration of a fit.
#include <pybind11/eval.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/host/engine/device.hpp"
#include "stribeck/host/engine/point_status.hpp"
#include "stribeck/host/engine/records.hpp"
#include "stribeck/host/ensemble.hpp"
#include "stribeck/host/eval.hpp"
#include "stribeck/host/params.hpp"
#include "stribeck/host/simulate.hpp"
#include "stribeck/host/sweep_config.hpp"
#include "stribeck/host/sweep_output.hpp"
#include "stribeck/host/sweep_run.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/integrators/status.hpp"
#include "stribeck/kernels/registry.hpp"

namespace py = pybind11;

namespace stribeck::python {
namespace {

// Thrown from a progress callback when Python has a pending exception
// (KeyboardInterrupt from Ctrl-C); turned back into that exception.
struct Interrupted {};

// Runs Python's signal handlers (the caller holds no GIL); throws
// Interrupted when one raised.
void check_signals() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw Interrupted{};
}

py::object json_to_python(const std::string& text) {
  return py::module_::import("json").attr("loads")(py::str(text));
}

py::list models() {
  py::list out;
  for (const ModelInfo& m : all_models()) {
    py::dict d;
    d["id"] = m.id;
    d["name"] = m.name;
    d["equation"] = m.equation;
    d["output_unit"] = m.output_unit;
    d["dynamic"] = m.dynamic;
    py::list inputs;
    for (Channel c : kAllChannels)
      if (m.needs(c)) inputs.append(channel_name(c));
    if (m.dynamic) inputs.append("time");
    d["inputs"] = inputs;
    py::list params;
    for (const auto& p : m.params) {
      py::dict q;
      q["name"] = p.name;
      q["unit"] = p.unit;
      q["default"] = p.default_value;
      q["min"] = p.lo;
      q["min_exclusive"] = p.lo_open;
      q["max"] = p.hi;
      q["description"] = p.description;
      params.append(q);
    }
    d["parameters"] = params;
    py::list rel;
    for (const auto& r : m.relations) rel.append(std::string(m.params[r.a].name) + " >= " + m.params[r.b].name);
    d["relations"] = rel;
    out.append(d);
  }
  return out;
}

// Parameters: a dict NAME -> value over the model's defaults, through the
// CLI's resolver (same validation, same messages).
// Known names and finite values are set directly (a 1-sample call is
// dominated by this); anything else goes through resolve_params for its
// message.
std::vector<double> resolve(const ModelInfo& m, const py::object& params) {
  std::vector<double> p = m.defaults();
  if (!params.is_none()) {
    if (!py::isinstance<py::dict>(params)) throw InputError("params must be a dict NAME -> value");
    for (auto item : py::reinterpret_borrow<py::dict>(params)) {
      const std::string name = py::str(item.first);
      double value = 0.0;
      try {
        value = item.second.cast<double>();
      } catch (const py::cast_error&) {
        throw InputError("parameter " + name + ": not a number");
      }
      const int idx = m.param_index(name);
      if (idx < 0 || !std::isfinite(value)) {
        resolve_params(m, {name + "=" + format_number(value)});  // throws the CLI's message
        throw InputError("parameter " + name + ": not a finite number of model " + m.id);
      }
      p[static_cast<std::size_t>(idx)] = value;
    }
  }
  const auto errors = validate_params(m, p.data());
  if (!errors.empty()) throw InputError(errors.front());
  return p;
}

constexpr std::size_t kBlock = 1 << 20;  // samples between signal checks

// One input channel as seen by the loops: a base pointer and a stride in
// elements (0 for a channel the caller left out: it reads as zeros).
template <class T>
struct Column {
  const T* p = nullptr;
  py::ssize_t stride = 0;
  T operator[](std::size_t i) const { return p ? p[static_cast<py::ssize_t>(i) * stride] : T(0); }
};

template <class T>
Column<T> column(const py::array_t<T>& a) {
  if (!a) return {};
  return {a.data(), a.ndim() == 0 ? 0 : a.strides(0) / static_cast<py::ssize_t>(sizeof(T))};
}

// A static law on arrays of T (any strides, no copies): the kernels' model
// instantiated in T, as the sweeps run it; threaded over samples.
template <class T>
void eval_static_typed(const std::string& model, const std::vector<double>& params, std::size_t n,
                       const Column<T>& v, const Column<T>& pa, const Column<T>& pb, const Column<T>& fn, T* out) {
  visit_model(StaticModels{}, model.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    T p[M::kNumParams];
    for (int i = 0; i < M::kNumParams; ++i) p[i] = static_cast<T>(params[i]);
    const auto c = M::prepare(p);
    for (std::size_t b = 0; b < n; b += kBlock) {
      const std::size_t e = std::min(n, b + kBlock);
      {
#pragma omp parallel for schedule(static)
        for (std::ptrdiff_t i = static_cast<std::ptrdiff_t>(b); i < static_cast<std::ptrdiff_t>(e); ++i) {
          const std::size_t k = static_cast<std::size_t>(i);
          out[k] = M::force(c, Sample<T>{v[k], pa[k], pb[k], fn[k]});
        }
      }
      if (e < n) check_signals();
    }
  });
}

// An absent channel is a null handle (false in a test), not an empty array:
// py::array_t's default constructor allocates one.
template <class A>
A absent() {
  return py::reinterpret_steal<A>(py::handle());
}

template <class T>
py::array_t<T> optional_array(const py::object& o, const char* name, std::size_t n) {
  if (o.is_none()) return absent<py::array_t<T>>();
  py::array_t<T> a = py::array_t<T>::ensure(o);  // no copy when already of dtype T
  if (!a) throw InputError(std::string(name) + ": not convertible to an array of numbers");
  if (a.ndim() != 1) throw InputError(std::string(name) + ": must be one-dimensional, has " + std::to_string(a.ndim()) + " dimensions");
  if (static_cast<std::size_t>(a.shape(0)) != n)
    throw InputError(std::string(name) + " has " + std::to_string(a.shape(0)) + " samples, velocity " + std::to_string(n));
  return a;
}

template <class T>
py::object eval_typed(const ModelInfo& m, const std::vector<double>& params, const py::object& velocity,
                      const py::object& pressure_a, const py::object& pressure_b, const py::object& normal_force,
                      const py::object& time, double initial_state, bool vector_math, bool return_state) {
  py::array_t<T> v = py::array_t<T>::ensure(velocity);
  if (!v || v.ndim() != 1) throw InputError("velocity: must be a one-dimensional array of numbers");
  const std::size_t n = static_cast<std::size_t>(v.shape(0));
  auto pa = optional_array<T>(pressure_a, "pressure_a", n);
  auto pb = optional_array<T>(pressure_b, "pressure_b", n);
  auto fn = optional_array<T>(normal_force, "normal_force", n);
  auto t = optional_array<T>(time, "time", n);
  const std::pair<Channel, const py::array_t<T>*> needed[] = {
      {kChannelPressureA, &pa}, {kChannelPressureB, &pb}, {kChannelNormalForce, &fn}};
  for (const auto& [ch, arr] : needed)
    if (m.needs(ch) && !*arr)
      throw InputError("model " + m.id + " reads " + channel_name(ch) + ": give " + channel_name(ch) + "=...");
  py::array_t<T> out(static_cast<py::ssize_t>(n));
  T* o = out.mutable_data();
  if (m.dynamic) {
    if (!t) throw InputError("model " + m.id + " is dynamic: give time=... (seconds, strictly increasing)");
    // The dynamic engine runs in double on contiguous inputs (a float32
    // or strided input is converted first).
    auto as_double = [](const py::array_t<T>& a) {
      using D = py::array_t<double, py::array::c_style | py::array::forcecast>;
      return a ? D::ensure(a) : absent<D>();
    };
    auto dv = as_double(v), dpa = as_double(pa), dpb = as_double(pb), dfn = as_double(fn), dt = as_double(t);
    const double* tp = dt.data();
    for (std::size_t i = 1; i < n; ++i)
      if (!(tp[i] > tp[i - 1]))
        throw InputError("time must be strictly increasing (sample " + std::to_string(i) + ")");
    std::vector<double> force(n), state(n);
    {
      py::gil_scoped_release release;
      EvalInputs in;
      in.n = n;
      in.velocity = dv.data();
      in.pressure_a = dpa ? dpa.data() : nullptr;
      in.pressure_b = dpb ? dpb.data() : nullptr;
      in.normal_force = dfn ? dfn.data() : nullptr;
      in.time = tp;
      evaluate_samples(m.id, params, in, force.data(), state.data(), initial_state);
    }
    std::copy(force.begin(), force.end(), o);
    if (return_state) {
      py::array_t<T> s(static_cast<py::ssize_t>(n));
      std::copy(state.begin(), state.end(), s.mutable_data());
      return py::make_tuple(out, s);
    }
    return std::move(out);
  }
  const bool contiguous = [&] {
    for (const py::array_t<T>* a : {&v, &pa, &pb, &fn})
      if (*a && a->strides(0) != static_cast<py::ssize_t>(sizeof(T))) return false;
    return true;
  }();
  {
    py::gil_scoped_release release;
    if constexpr (std::is_same_v<T, double>) {
      if (contiguous) {
        // The engine's own path (threaded; the lanes' vector exp/tanh with vector_math).
        for (std::size_t b = 0; b < n; b += kBlock) {
          const std::size_t e = std::min(n, b + kBlock);
          EvalInputs in;
          in.n = e - b;
          in.velocity = v.data() + b;
          in.pressure_a = pa ? pa.data() + b : nullptr;
          in.pressure_b = pb ? pb.data() + b : nullptr;
          in.normal_force = fn ? fn.data() + b : nullptr;
          in.vector_math = vector_math;
          evaluate_samples(m.id, params, in, o + b);
          if (e < n) check_signals();
        }
        return std::move(out);
      }
    }
    eval_static_typed<T>(m.id, params, n, column(v), column(pa), column(pb), column(fn), o);
  }
  return std::move(out);
}

py::object eval(const std::string& model, const py::object& params, const py::object& velocity,
                const py::object& pressure_a, const py::object& pressure_b, const py::object& normal_force,
                const py::object& time, double initial_state, bool vector_math, bool return_state) {
  const ModelInfo& m = require_model(model);
  const std::vector<double> p = resolve(m, params);
  if (velocity.is_none()) throw InputError("velocity=... is required");
  const bool f32 = py::isinstance<py::array>(velocity) &&
                   py::reinterpret_borrow<py::array>(velocity).dtype().is(py::dtype::of<float>());
  if (f32) return eval_typed<float>(m, p, velocity, pressure_a, pressure_b, normal_force, time, initial_state, vector_math, return_state);
  return eval_typed<double>(m, p, velocity, pressure_a, pressure_b, normal_force, time, initial_state, vector_math, return_state);
}

// ---- fit -------------------------------------------------------------------

std::vector<std::string> string_list(const py::handle& o, const std::string& what) {
  if (py::isinstance<py::str>(o)) return {py::str(o)};
  std::vector<std::string> out;
  try {
    for (auto x : py::iter(o)) out.push_back(py::str(x));
  } catch (const py::error_already_set&) {
    throw InputError(what + ": expected a string or a list of strings");
  }
  return out;
}

// NAME=VALUE lists from a dict {NAME: VALUE} (or a list of "NAME=VALUE").
std::vector<std::string> assignments(const py::handle& o, const std::string& what) {
  if (!py::isinstance<py::dict>(o)) return string_list(o, what);
  std::vector<std::string> out;
  for (auto item : py::reinterpret_borrow<py::dict>(o)) {
    const std::string name = py::str(item.first);
    if (py::isinstance<py::tuple>(item.second) || py::isinstance<py::list>(item.second)) {  // bounds (lo, hi)
      auto seq = py::reinterpret_borrow<py::sequence>(item.second);
      if (seq.size() != 2) throw InputError(what + " " + name + ": expected (lo, hi)");
      auto side = [](const py::handle& h) { return h.is_none() ? std::string() : format_number(h.cast<double>()); };
      out.push_back(name + "=" + side(seq[0]) + ":" + side(seq[1]));
    } else {
      out.push_back(name + "=" + format_number(item.second.cast<double>()));
    }
  }
  return out;
}

ident::FitOptions fit_options(const py::dict& kw) {
  ident::FitOptions o;
  for (auto item : kw) {
    const std::string k = py::str(item.first);
    const py::handle v = item.second;
    auto num = [&] { return v.cast<double>(); };
    auto integer = [&] {
      const double d = v.cast<double>();
      if (d != std::floor(d) || d < 0 || d > 1e9) throw InputError(k + ": must be a whole number >= 0");
      return static_cast<int>(d);
    };
    try {
      if (k == "free") o.free = string_list(v, k);
      else if (k == "fix") o.fix = assignments(v, k);
      else if (k == "initial") o.initial = assignments(v, k);
      else if (k == "bounds") o.bounds = assignments(v, k);
      else if (k == "per_experiment") o.per_experiment = string_list(v, k);
      else if (k == "asymmetric") o.asymmetric = v.cast<bool>();
      else if (k == "offset") o.offset = v.cast<bool>();
      else if (k == "offset_per_experiment") o.offset_per_experiment = v.cast<bool>();
      else if (k == "inertia") o.inertia = v.cast<bool>();
      else if (k == "mass") o.mass = num();
      else if (k == "area_a") o.area_a = num();
      else if (k == "area_b") o.area_b = num();
      else if (k == "cutoff") o.cutoff_hz = num();
      else if (k == "parallel_filter") o.parallel_filter = v.cast<bool>();
      else if (k == "decimation") o.decimation = integer();
      else if (k == "loss") o.loss = py::str(v);
      else if (k == "starts") o.starts = integer();
      else if (k == "max_starts") o.max_starts = integer();
      else if (k == "coarse_points") o.coarse_points = integer();
      else if (k == "seed") o.seed = static_cast<std::uint64_t>(integer());
      else if (k == "validate") o.validate = string_list(v, k);
      else if (k == "max_iterations") o.max_iterations = integer();
      else if (k == "threads") o.num_threads = integer();
      else
        throw InputError("unknown fit option '" + k + "' (free, fix, initial, bounds, per_experiment, asymmetric, "
                         "offset, offset_per_experiment, inertia, mass, area_a, area_b, cutoff, parallel_filter, "
                         "decimation, loss, starts, max_starts, coarse_points, seed, validate, max_iterations, threads)");
    } catch (const py::cast_error&) {
      throw InputError("fit option " + k + ": wrong type");
    }
  }
  return o;
}

const char* const kChannelUnits[][2] = {{"time", "s"},          {"position", "m"},    {"velocity", "m/s"},
                                        {"acceleration", "m/s^2"}, {"force", "N"},     {"pressure_a", "Pa"},
                                        {"pressure_b", "Pa"},    {"normal_force", "N"}};

py::dict fit(const std::string& model, const py::object& log, const py::object& experiment, const py::dict& arrays,
             const py::dict& kw) {
  std::vector<Experiment> exps;
  if (!log.is_none()) {
    if (arrays.size() != 0) throw InputError("give either log=... or channel arrays, not both");
    for (const std::string& path : string_list(log, "log")) {
      std::vector<Experiment> e = read_any_log(path);
      exps.insert(exps.end(), e.begin(), e.end());
    }
    if (!experiment.is_none()) {
      const std::vector<std::string> keep = string_list(experiment, "experiment");
      std::vector<Experiment> picked;
      for (const auto& name : keep) picked.push_back(select_experiment(exps, name, string_list(log, "log").front()));
      exps = picked;
    }
  } else {
    Experiment e;
    e.name = "arrays";
    e.source = "<arrays>";
    std::size_t n = 0;
    for (auto item : arrays) {
      const std::string name = py::str(item.first);
      if (item.second.is_none()) continue;
      const char* unit = nullptr;
      for (const auto& cu : kChannelUnits)
        if (name == cu[0]) unit = cu[1];
      if (!unit) throw InputError("unknown channel '" + name + "'");
      auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(item.second);
      if (!a || a.ndim() != 1) throw InputError(name + ": must be a one-dimensional array of numbers");
      if (n && static_cast<std::size_t>(a.shape(0)) != n)
        throw InputError(name + " has " + std::to_string(a.shape(0)) + " samples, the other channels " + std::to_string(n));
      n = static_cast<std::size_t>(a.shape(0));
      e.channels[name].assign(a.data(), a.data() + n);
      e.units[name] = unit;
    }
    if (e.channels.empty()) throw InputError("give log=PATH or channel arrays (velocity=..., force=..., ...)");
    exps.push_back(std::move(e));
  }
  ident::FitOptions o = fit_options(kw);
  o.progress = [](const ident::FitProgress&) { check_signals(); };
  ident::FitSummary s;
  {
    py::gil_scoped_release release;
    s = ident::fit(exps, model, o);
  }
  py::dict out;
  out["report"] = json_to_python(ident::to_json(s));
  py::list names, fitted, residual;
  for (const auto& e : s.experiments) {
    names.append(e.name);
    fitted.append(py::array_t<double>(static_cast<py::ssize_t>(e.fitted.size()), e.fitted.data()));
    residual.append(py::array_t<double>(static_cast<py::ssize_t>(e.residual.size()), e.residual.data()));
  }
  out["experiments"] = names;
  out["fitted"] = fitted;
  out["residual"] = residual;
  return out;
}

// ---- logs ------------------------------------------------------------------

py::list read_log(const std::string& path) {
  std::vector<Experiment> exps;
  {
    py::gil_scoped_release release;
    exps = read_any_log(path);
  }
  py::list out;
  for (const auto& e : exps) {
    py::dict d, ch;
    d["name"] = e.name;
    for (const auto& [name, v] : e.channels) ch[py::str(name)] = py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
    d["channels"] = ch;
    d["units"] = e.units;
    d["attributes"] = e.attributes;
    out.append(d);
  }
  return out;
}

void write_log(const std::string& path, const py::object& experiments) {
  py::list list;
  if (py::isinstance<py::dict>(experiments)) list.append(experiments);
  else list = py::list(experiments);
  std::vector<Experiment> exps;
  for (auto item : list) {
    if (!py::isinstance<py::dict>(item)) throw InputError("write_log: each experiment must be a dict with name and channels");
    auto d = py::reinterpret_borrow<py::dict>(item);
    Experiment e;
    e.name = d.contains("name") ? std::string(py::str(d["name"])) : "experiment";
    e.source = path;
    if (!d.contains("channels")) throw InputError("write_log: experiment '" + e.name + "' has no channels");
    for (auto c : py::reinterpret_borrow<py::dict>(d["channels"])) {
      const std::string name = py::str(c.first);
      auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(c.second);
      if (!a || a.ndim() != 1) throw InputError("write_log: channel " + name + " must be one-dimensional");
      e.channels[name].assign(a.data(), a.data() + a.shape(0));
      std::string unit;
      for (const auto& cu : kChannelUnits)
        if (name == cu[0]) unit = cu[1];
      e.units[name] = unit;
    }
    if (d.contains("units"))
      for (auto u : py::reinterpret_borrow<py::dict>(d["units"])) e.units[py::str(u.first)] = py::str(u.second);
    if (d.contains("attributes"))
      for (auto u : py::reinterpret_borrow<py::dict>(d["attributes"])) e.attributes[py::str(u.first)] = py::str(u.second);
    exps.push_back(std::move(e));
  }
  const char* argv[] = {"python", "stribeck.write_log"};
  const Provenance prov = make_provenance(2, argv);
  py::gil_scoped_release release;
  stribeck::write_log(path, exps, prov);
}

// ---- sweep, simulate ------------------------------------------------------

// A config given as a path (str without a newline, or os.PathLike) or as
// TOML text (a str holding a newline): (text, name for messages).
std::pair<std::string, std::string> config_text(const py::object& config, const char* what) {
  if (py::isinstance(config, py::module_::import("os").attr("PathLike"))) {
    const std::string path = py::str(py::module_::import("os").attr("fspath")(config));
    return {read_config_file(path, what), path};
  }
  if (!py::isinstance<py::str>(config))
    throw InputError(std::string(what) + ": give a path to a TOML file or TOML text (a str with a newline)");
  const std::string s = py::str(config);
  if (s.find('\n') != std::string::npos) return {s, "<config>"};
  return {read_config_file(s, what), s};
}

// Ctrl-C during a batch run: the runner reports progress after each chunk
// (here on the calling thread, outside any parallel region: throw there)
// and, for ensembles, from thread 0 of the parallel region after each point
// (only note it there: nothing may leave an OpenMP region by an exception).
struct InterruptCheck {
  std::atomic<bool> raised{false};
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
  void operator()() {
    if (omp_in_parallel()) {
      const auto now = std::chrono::steady_clock::now();
      if (raised || now - last < std::chrono::milliseconds(50)) return;
      last = now;
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) raised = true;
      return;
    }
    if (raised) throw Interrupted{};
    check_signals();
  }
};

// One column of a result table: values, units, long name.
struct TableColumn {
  std::string name;
  py::array values;
  std::string units, long_name;
};

// The result table: a pandas DataFrame when `frame` is true (or None and
// pandas imports), else a stribeck.Columns (a dict name -> array with
// .attrs); attrs holds "units" and "long_name" (dicts by column) and `extra`.
py::object make_table(const std::vector<TableColumn>& cols, const py::dict& extra, const py::object& frame) {
  py::dict units, long_names, data;
  for (const auto& c : cols) {
    data[py::str(c.name)] = c.values;
    units[py::str(c.name)] = c.units.empty() ? std::string("1") : c.units;
    long_names[py::str(c.name)] = c.long_name;
  }
  py::dict attrs;
  attrs["units"] = units;
  attrs["long_name"] = long_names;
  for (auto item : extra) attrs[item.first] = item.second;
  bool as_frame = false;
  if (frame.is_none()) {
    try {
      py::module_::import("pandas");
      as_frame = true;
    } catch (const py::error_already_set& e) {
      if (!e.matches(PyExc_ImportError)) throw;
    }
  } else {
    as_frame = frame.cast<bool>();
  }
  py::object table;
  if (as_frame) table = py::module_::import("pandas").attr("DataFrame")(data, py::arg("copy") = false);
  else table = py::module_::import("stribeck").attr("Columns")(data);
  table.attr("attrs") = attrs;
  return table;
}

template <class T>
py::array_t<T> new_column(std::uint64_t n) {
  return py::array_t<T>(static_cast<py::ssize_t>(n));
}

py::object sweep(const py::object& config, const py::object& device, const py::object& precision,
                 std::uint64_t chunk, const py::object& frame) {
  const auto [text, source] = config_text(config, "sweep config");
  SweepConfig c = parse_sweep_config(text, source);
  if (!device.is_none()) c.device = py::str(device);
  if (!precision.is_none()) c.precision = py::str(precision);
  if (c.precision != "fp64" && c.precision != "fp32")
    throw InputError("precision '" + c.precision + "': expected fp64 or fp32");
  if (c.keep_top_k_only)
    throw InputError(source + ": [output] top_k_only: stribeck.sweep returns every point (drop it, or sort the table)");
  if (!c.trajectories.empty())
    throw InputError(source +
                     ": [output] trajectories: force traces are written to files only; evaluate a point's "
                     "parameters with stribeck.eval");
  const SweepPlan plan = plan_sweep(c);
  const SweepMeta meta = make_sweep_meta(plan, c, "", Precision::kFp64);
  const std::uint64_t n = plan.count;
  const int dims = plan.space.dims;
  const int n_exp = static_cast<int>(plan.traces.size());
  const std::size_t kept = plan.metrics.size();
  // The table in memory: point, parameters, kept metrics (and per experiment), status.
  const double bytes = static_cast<double>(n) *
                       (8.0 * (1 + dims + kept * (1 + (plan.per_experiment ? n_exp : 0))) + 1.0);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0 && bytes > 0.8 * double(pages) * double(page))
    throw InputError(source + ": " + std::to_string(n) + " points need about " + format_number(std::round(bytes / 1e8) / 10) +
                     " GB for their results, more than 80 % of this machine's memory; run `stribeck sweep` with -o, "
                     "which streams them to a file");
  auto point = new_column<std::uint64_t>(n);
  std::vector<py::array_t<double>> params, metrics, exp_metrics;
  for (int d = 0; d < dims; ++d) params.push_back(new_column<double>(n));
  for (std::size_t k = 0; k < kept; ++k) metrics.push_back(new_column<double>(n));
  if (plan.per_experiment)
    for (int e = 0; e < n_exp; ++e)
      for (std::size_t k = 0; k < kept; ++k) exp_metrics.push_back(new_column<double>(n));
  auto status = new_column<std::uint8_t>(n);
  std::uint64_t* pt = point.mutable_data();
  std::vector<double*> pp, mp, ep;
  for (auto& a : params) pp.push_back(a.mutable_data());
  for (auto& a : metrics) mp.push_back(a.mutable_data());
  for (auto& a : exp_metrics) ep.push_back(a.mutable_data());
  std::uint8_t* sp = status.mutable_data();

  SweepRunOptions o;
  o.device = c.device;
  o.precision = c.precision == "fp32" ? Precision::kFp32 : Precision::kFp64;
  o.chunk = chunk ? chunk : std::min<std::uint64_t>(c.chunk, std::uint64_t(1) << 16);  // Ctrl-C between chunks
  std::string note;
  o.note = [&note](const std::string& t) { note = t; };
  // Rows as the sweep file holds them (sweep_chunk_columns), per-experiment
  // metrics as one column per experiment.
  o.on_chunk = [&](const SweepChunk& ch) {
    const std::uint64_t at = ch.first - plan.first;
    for (std::uint64_t j = 0; j < ch.count; ++j) {
      const std::uint64_t r = at + j;
      pt[r] = ch.first + j;
      for (int d = 0; d < dims; ++d) pp[d][r] = ch.params[j * dims + d];
      for (std::size_t k = 0; k < kept; ++k) mp[k][r] = ch.metrics[j * sweep::kNumMetrics + plan.metrics[k]];
      sp[r] = ch.status[j];
      if (plan.per_experiment)
        for (int e = 0; e < n_exp; ++e)
          for (std::size_t k = 0; k < kept; ++k)
            ep[e * kept + k][r] = ch.exp_metrics[(j * n_exp + e) * sweep::kNumMetrics + plan.metrics[k]];
    }
  };
  InterruptCheck interrupt;
  o.progress = [&interrupt](std::uint64_t, std::uint64_t, double) { interrupt(); };
  SweepSummary s;
  {
    py::gil_scoped_release release;
    s = run_sweep(plan, c, o);
  }
  std::vector<TableColumn> cols;
  cols.push_back({"point", point, "1", "index of the point in the space"});
  for (int d = 0; d < dims; ++d)
    cols.push_back({meta.param_names[d], params[d], meta.param_units[d],
                    "parameter " + meta.param_names[d] + " of " + plan.model->id});
  for (std::size_t k = 0; k < kept; ++k) {
    const auto& mi = sweep::kMetricInfo[plan.metrics[k]];
    cols.push_back({mi.name, metrics[k], mi.unit, mi.description});
  }
  for (int e = 0; e < (plan.per_experiment ? n_exp : 0); ++e)
    for (std::size_t k = 0; k < kept; ++k) {
      const auto& mi = sweep::kMetricInfo[plan.metrics[k]];
      cols.push_back({plan.traces[e].name + "/" + mi.name, exp_metrics[e * kept + k], mi.unit,
                      std::string(mi.description) + " (experiment " + plan.traces[e].name + ")"});
    }
  cols.push_back({"status", status, "1", "point status: 0 ok, 1 non_finite, 4 invalid"});
  py::dict extra, summary;
  summary["model"] = plan.model->id;
  summary["points"] = s.points;
  summary["ok"] = s.ok;
  summary["invalid"] = s.invalid;
  summary["non_finite"] = s.nonfinite;
  summary["invalid_examples"] = s.invalid_examples;
  summary["device"] = s.device;
  summary["precision"] = c.precision;
  summary["seconds"] = s.seconds;
  summary["objective"] = sweep::kMetricInfo[plan.objective].name;
  summary["maximize"] = plan.maximize;
  py::list top;
  for (const TopEntry& t : s.top) top.append(t.index);
  summary["top"] = top;
  if (!note.empty()) summary["note"] = note;
  extra["kind"] = "sweep";
  extra["summary"] = summary;
  return make_table(cols, extra, frame);
}

py::object simulate(const py::object& config, const py::object& device, const py::object& precision,
                    std::uint64_t chunk, const py::object& frame) {
  const auto [text, source] = config_text(config, "simulate config");
  SimulateConfig c = parse_simulate_config(text, source);
  if ((!device.is_none() || !precision.is_none()) && !c.ensemble)
    throw InputError(std::string(device.is_none() ? "precision" : "device") +
                     " applies to ensembles (an [ensemble] table); a single simulation runs on the CPU in fp64");
  if (!device.is_none()) {
    c.device = py::str(device);
    if (c.device != "auto" && c.device != "gpu" && c.device != "cpu")
      throw InputError("device " + c.device + ": expected auto, gpu or cpu");
  }
  if (!precision.is_none()) {
    const std::string p = py::str(precision);
    if (p != "fp64" && p != "fp32") throw InputError("precision " + p + ": expected fp64 or fp32");
    c.fp32 = p == "fp32";
  }
  py::dict extra;
  py::list warnings;
  for (const auto& w : c.warnings) warnings.append(w);
  extra["warnings"] = warnings;
  std::vector<TableColumn> cols;
  if (!c.ensemble) {
    SimulationSeries r;
    {
      py::gil_scoped_release release;
      r = simulate_series(c);
    }
    for (auto& ch : r.channels) {
      auto a = new_column<double>(ch.values.size());
      std::copy(ch.values.begin(), ch.values.end(), a.mutable_data());
      std::vector<double>().swap(ch.values);
      cols.push_back({ch.name, a, ch.unit, ch.long_name});
    }
    py::dict metrics, metric_units;
    const auto values = stick_slip_metric_columns(r.summary.metrics);
    for (std::size_t k = 0; k < values.size(); ++k) {
      const engine::FieldInfo& f = engine::kStickSlipFields[k];
      if (f.integer) metrics[py::str(values[k].first)] = static_cast<long long>(values[k].second);
      else metrics[py::str(values[k].first)] = values[k].second;
      metric_units[py::str(values[k].first)] = c.rotational ? engine::rotational_units(f.units) : std::string(f.units);
    }
    extra["kind"] = "simulation";
    extra["model"] = c.model;
    extra["status"] = sim_status_name(r.summary.metrics.status);
    extra["metrics"] = metrics;
    extra["metric_units"] = metric_units;
    return make_table(cols, extra, frame);
  }
  EnsembleRunOptions o;
  if (chunk) o.chunk = chunk;
  else if (!choose_device(c.device, source + ": [ensemble] device").gpu) o.chunk = 128;  // Ctrl-C: between chunks
  std::string note;
  o.note = [&note](const std::string& t) { note = t; };
  InterruptCheck interrupt;
  o.progress = [&interrupt](std::uint64_t, std::uint64_t, double) { interrupt(); };
  EnsembleResult r;
  {
    py::gil_scoped_release release;
    r = run_ensemble(c, o);
  }
  const std::uint64_t n = r.count;
  const std::size_t dims = r.names.size();
  auto point = new_column<std::uint64_t>(n);
  for (std::uint64_t i = 0; i < n; ++i) point.mutable_data()[i] = r.first + i;
  cols.push_back({"point", point, "1", "index of the point in the space"});
  const std::vector<std::string> units = ensemble_coordinate_units(c, r.names);
  for (std::size_t d = 0; d < dims; ++d) {
    auto a = new_column<double>(n);
    for (std::uint64_t i = 0; i < n; ++i) a.mutable_data()[i] = r.values[i * dims + d];
    cols.push_back({r.names[d], a, units[d], "coordinate " + r.names[d]});
  }
  std::vector<double> row(engine::kStickSlipFieldCount);
  std::vector<py::array> metric_cols;
  for (std::size_t f = 0; f < engine::kStickSlipFieldCount; ++f) {
    const engine::FieldInfo& k = engine::kStickSlipFields[f];
    // The file's stored types (engine::field_column).
    py::array a = k.storage == engine::FieldStorage::kFloat64  ? py::array(new_column<double>(n))
                  : k.storage == engine::FieldStorage::kInt64  ? py::array(new_column<std::int64_t>(n))
                  : k.storage == engine::FieldStorage::kStatus ? py::array(new_column<std::uint8_t>(n))
                                                               : py::array(new_column<std::int32_t>(n));
    metric_cols.push_back(a);
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    engine::pack(r.metrics[i], row.data());
    for (std::size_t f = 0; f < engine::kStickSlipFieldCount; ++f) {
      const engine::FieldInfo& k = engine::kStickSlipFields[f];
      void* base = metric_cols[f].mutable_data();
      switch (k.storage) {
        case engine::FieldStorage::kFloat64: static_cast<double*>(base)[i] = row[f]; break;
        case engine::FieldStorage::kInt64: static_cast<std::int64_t*>(base)[i] = static_cast<std::int64_t>(row[f]); break;
        case engine::FieldStorage::kStatus: static_cast<std::uint8_t*>(base)[i] = static_cast<std::uint8_t>(row[f]); break;
        case engine::FieldStorage::kInt32: static_cast<std::int32_t*>(base)[i] = static_cast<std::int32_t>(row[f]); break;
      }
    }
  }
  for (std::size_t f = 0; f < engine::kStickSlipFieldCount; ++f) {
    const engine::FieldInfo& k = engine::kStickSlipFields[f];
    cols.push_back({k.name, metric_cols[f], c.rotational ? engine::rotational_units(k.units) : std::string(k.units),
                    k.long_name});
  }
  py::dict summary;
  const auto& sc = r.totals.status_counts;
  summary["points"] = r.points;
  summary["device"] = r.device;
  summary["precision"] = c.fp32 ? "fp32" : "fp64";
  summary["seconds"] = r.seconds;
  summary["rk4_steps"] = r.rk4_steps;
  summary["stick_slip"] = r.totals.stick_slip;
  py::dict st;
  st["ok"] = sc[0];
  st["non_finite"] = sc[1];
  st["step_limit"] = sc[2];
  st["event_limit"] = sc[3];
  st["invalid_parameters"] = sc[4];
  summary["status"] = st;
  summary["invalid_examples"] = r.totals.invalid_examples;
  if (!note.empty()) summary["note"] = note;
  extra["kind"] = "ensemble";
  extra["model"] = c.model;
  extra["summary"] = summary;
  return make_table(cols, extra, frame);
}

}  // namespace
}  // namespace stribeck::python

PYBIND11_MODULE(stribeck, m) {
  using namespace stribeck::python;
  m.doc() = "Stribeck: friction models exactly as Simscape / 20-sim define them, evaluation, identification, logs";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const stribeck::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const Interrupted&) {
      // The Python exception (KeyboardInterrupt) is already set.
    }
  });
  m.def("models", &models, "Every friction model: id, equation, inputs, parameters (as `stribeck models --json`)");
  m.def("eval", &eval, py::arg("model"), py::arg("params") = py::none(), py::kw_only(),
        py::arg("velocity") = py::none(), py::arg("pressure_a") = py::none(), py::arg("pressure_b") = py::none(),
        py::arg("normal_force") = py::none(), py::arg("time") = py::none(), py::arg("initial_state") = 0.0,
        py::arg("vector_math") = true, py::arg("return_state") = false,
        "Friction force of `model` with `params` (dict over the defaults) at every sample. float32 velocity: "
        "computed in float32, else float64; arrays of the velocity's dtype are read in place (any strides). "
        "vector_math=True (default): contiguous float64 inputs of a static law run the vector exp/tanh kernel "
        "(within 4 ulp of the scalar law, as `eval --vector-math`); False: bit-identical to `stribeck "
        "eval`. Dynamic models need time=... and return (force, state) with return_state=True.");
  m.def(
      "fit",
      [](const std::string& model, const py::object& log, const py::object& experiment, const py::object& time,
         const py::object& position, const py::object& velocity, const py::object& acceleration,
         const py::object& force, const py::object& pressure_a, const py::object& pressure_b,
         const py::object& normal_force, const py::kwargs& kw) {
        py::dict arrays;
        const std::pair<const char*, const py::object*> ch[] = {
            {"time", &time},     {"position", &position},     {"velocity", &velocity},     {"acceleration", &acceleration},
            {"force", &force},   {"pressure_a", &pressure_a}, {"pressure_b", &pressure_b}, {"normal_force", &normal_force}};
        for (const auto& [name, o] : ch)
          if (!o->is_none()) arrays[name] = *o;
        return fit(model, log, experiment, arrays, kw);
      },
      py::arg("model"), py::kw_only(), py::arg("log") = py::none(), py::arg("experiment") = py::none(),
      py::arg("time") = py::none(), py::arg("position") = py::none(), py::arg("velocity") = py::none(),
      py::arg("acceleration") = py::none(), py::arg("force") = py::none(), py::arg("pressure_a") = py::none(),
      py::arg("pressure_b") = py::none(), py::arg("normal_force") = py::none(),
      "Identify `model` from channel arrays or log file(s) with identify's options (free, fix, initial, bounds, "
      "offset, inertia, starts, ...). Returns {'report': the JSON report as a dict, 'experiments': names, "
      "'fitted': [arrays], 'residual': [arrays]}.");
  py::exec(R"py(
class Columns(dict):
    """A results table as columns: a dict name -> NumPy array, in the results file's order.

    attrs (as pandas.DataFrame.attrs): "units" and "long_name" by column, "kind", and the run's
    summary or metrics (docs/python.md).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.attrs = {}

    def __repr__(self):
        n = len(next(iter(self.values()))) if self else 0
        return f"Columns({n} rows: {', '.join(self)})"
)py",
           m.attr("__dict__"));
  m.attr("Columns").attr("__module__") = "stribeck";
  m.def("sweep", &sweep, py::arg("config"), py::kw_only(), py::arg("device") = py::none(),
        py::arg("precision") = py::none(), py::arg("chunk") = 0, py::arg("frame") = py::none(),
        "Runs a sweep config (a TOML path, or TOML text: a str with a newline) as `stribeck sweep` does, in "
        "memory: one row per point with the results file's columns (point, parameters, kept metrics, status). "
        "A pandas DataFrame when pandas imports (frame=None) or frame=True, else stribeck.Columns; attrs "
        "holds units, long names and the summary.");
  m.def("simulate", &simulate, py::arg("config"), py::kw_only(), py::arg("device") = py::none(),
        py::arg("precision") = py::none(), py::arg("chunk") = 0, py::arg("frame") = py::none(),
        "Runs a simulate config (a TOML path, or TOML text) as `stribeck simulate` does, in memory. An "
        "ensemble: one row per point (point, coordinates, metrics); a single simulation: its time series, "
        "with attrs['metrics']. Table type as stribeck.sweep.");
  m.def("read_log", &read_log, py::arg("path"),
        "Experiments of a log (HDF5, MATLAB or delimited text): [{'name', 'channels': {name: array}, 'units', "
        "'attributes'}]");
  m.def("write_log", &write_log, py::arg("path"), py::arg("experiments"),
        "Writes experiments (a dict or a list of dicts as read_log returns) as an HDF5 log, atomically");
}
