// `import stribeck`: the toolkit from Python (pybind11, one translation unit).
//
//   stribeck.models()                          -> list of dicts (as `stribeck models --json`)
//   stribeck.eval(model, params, velocity=..., out=None) -> forces of the inputs' broadcast shape,
//                                              float32 or float64 as the velocity
//   stribeck.fit(model, velocity=..., force=... | log=...) -> report dict, fitted force, residuals
//   stribeck.read_log(path) / stribeck.write_log(path, experiments)
//   stribeck.sweep(config) / stribeck.simulate(config) -> columns (dict or pandas DataFrame)
//   stribeck.export_params(fit, to=...)       -> the file export-params writes, and its conversions
//
// Bad values raise ValueError with the message the CLI prints after
// "stribeck: error: " (its option names as keyword arguments), wrong types
// TypeError, missing files FileNotFoundError; model warnings are
// warnings.warn(StribeckWarning). Long calls release the GIL and check for Ctrl-C
// (PyErr_CheckSignals) between blocks of samples and at every solver
// iteration of a fit.
#include <pybind11/eval.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <glog/logging.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "stribeck/data/config_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/workloads/device.hpp"
#include "stribeck/engine/point_status.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/eval.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/simulate.hpp"
#include "stribeck/workloads/sweep_config.hpp"
#include "stribeck/workloads/sweep_output.hpp"
#include "stribeck/workloads/sweep_run.hpp"
#include "stribeck/identification/export_params.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/fit_inputs.hpp"
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

py::object json_to_python(const std::string& text) { return py::module_::import("json").attr("loads")(py::str(text)); }

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

std::string type_name(const py::handle& o) { return py::str(py::type::of(o).attr("__name__")); }

// Model warnings (e.g. LuGre's passivity) as Python warnings, which filters
// can silence or turn into errors; stacklevel 1 is the caller's line.
void warn(const std::string& text) {
  const py::object category = py::module_::import("stribeck").attr("StribeckWarning");
  if (PyErr_WarnEx(category.ptr(), text.c_str(), 1) != 0) throw py::error_already_set();
}

// Parameters: a dict NAME -> value over the model's defaults, validated as
// the CLI validates them (the same messages, less its option names).
std::vector<double> resolve(const ModelInfo& m, const py::object& params) {
  std::vector<double> p = m.defaults();
  if (!params.is_none()) {
    if (!py::isinstance<py::dict>(params))
      throw py::type_error("params: expected a dict NAME -> value, got " + type_name(params));
    for (auto item : py::reinterpret_borrow<py::dict>(params)) {
      const std::string name = py::str(item.first);
      double value = 0.0;
      try {
        value = item.second.cast<double>();
      } catch (const py::cast_error&) {
        throw py::type_error("parameter " + name + ": expected a number, got " + type_name(item.second));
      }
      const int idx = m.param_index(name);
      if (idx < 0) {
        std::string known;
        for (const auto& q : m.params) known += (known.empty() ? "" : ", ") + std::string(q.name);
        throw data::InputError("model " + m.id + " has no parameter '" + name + "' (parameters: " + known + ")");
      }
      if (!std::isfinite(value)) throw data::InputError("parameter " + name + ": not a finite number of model " + m.id);
      p[static_cast<std::size_t>(idx)] = value;
    }
  }
  const auto errors = validate_params(m, p.data());
  if (!errors.empty()) throw data::InputError(errors.front());
  return p;
}

constexpr std::size_t kBlock = 1 << 20;  // samples between signal checks

// One input channel as the loops see it: a base pointer and a stride in
// elements over the flattened broadcast shape (0 for a scalar; a channel the
// caller left out has no pointer and reads as zeros).
template <class T>
struct Column {
  const T* p = nullptr;
  py::ssize_t stride = 0;
  T operator[](std::size_t i) const { return p ? p[static_cast<py::ssize_t>(i) * stride] : T(0); }
};

// A static law on columns of T (any strides, no copies): the kernels' model
// instantiated in T, as the sweeps run it; threaded over samples.
template <class T>
void eval_static_typed(const std::string& model, const std::vector<double>& params, std::size_t n, const Column<T>& v,
                       const Column<T>& pa, const Column<T>& pb, const Column<T>& fn, T* out) {
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

using Shape = std::vector<py::ssize_t>;

// As NumPy prints shapes: "()", "(3,)", "(2, 3)".
std::string shape_text(const Shape& s) {
  std::string t = "(";
  for (std::size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
  return t + (s.size() == 1 ? ",)" : ")");
}

template <class T>
Shape shape_of(const py::array_t<T>& a) {
  return Shape(a.shape(), a.shape() + a.ndim());
}

// One input of eval: an array of T (read in place when it already is one:
// no copy), or absent.
template <class T>
py::array_t<T> input_array(const py::object& o, const char* name) {
  if (o.is_none()) return absent<py::array_t<T>>();
  if (py::isinstance<py::str>(o) || py::isinstance<py::bytes>(o))
    throw py::type_error(std::string(name) + ": expected numbers (an array, a sequence or a scalar), got " +
                         type_name(o));
  py::array_t<T> a = py::array_t<T>::ensure(o);
  if (!a)
    throw py::type_error(std::string(name) + ": expected numbers (an array, a sequence or a scalar), got " +
                         type_name(o));
  return a;
}

// NumPy's broadcasting rule over the given inputs.
template <class T>
Shape broadcast(const std::vector<std::pair<const char*, const py::array_t<T>*>>& inputs) {
  Shape s;
  for (const auto& [name, a] : inputs) {
    if (!*a) continue;
    const Shape own = shape_of(*a);
    if (own.size() > s.size()) s.insert(s.begin(), own.size() - s.size(), 1);
    for (std::size_t k = 0; k < own.size(); ++k) {
      py::ssize_t& d = s[s.size() - own.size() + k];
      if (d == 1) d = own[k];
      else if (own[k] != 1 && own[k] != d)
        throw data::InputError(std::string(name) + " has shape " + shape_text(own) +
                               ", which does not broadcast against the other inputs' " + shape_text(s));
    }
  }
  return s;
}

// The stride (in elements) that walks `a` broadcast to `s` in C order, or
// -1 when no single stride does (an outer product, a transposed array).
template <class T>
py::ssize_t flat_stride(const py::array_t<T>& a, const Shape& s) {
  if (reinterpret_cast<std::uintptr_t>(a.data()) % alignof(T) != 0) return -1;
  const std::size_t off = s.size() - static_cast<std::size_t>(a.ndim());
  py::ssize_t stride = 0, inner = 1;
  bool found = false;
  for (std::size_t j = s.size(); j-- > 0;) {
    if (s[j] == 1) continue;
    const py::ssize_t bytes = j < off || a.shape(j - off) == 1 ? 0 : a.strides(j - off);
    if (bytes % static_cast<py::ssize_t>(sizeof(T)) != 0) return -1;
    const py::ssize_t e = bytes / static_cast<py::ssize_t>(sizeof(T));
    if (!found) stride = e, found = true;  // the innermost axis that is longer than 1
    else if (e != stride * inner) return -1;
    inner *= s[j];
  }
  return stride;
}

// Whether channel `c` (n samples) and the output [o, o + n) share bytes.
template <class T>
bool overlaps(const Column<T>& c, std::size_t n, const T* o) {
  if (!c.p || n == 0) return false;
  const T* last = c.p + static_cast<py::ssize_t>(n - 1) * c.stride;
  const T* lo = std::min(c.p, last);
  const T* hi = std::max(c.p, last) + 1;
  return lo < o + n && o < hi;
}

template <class T>
py::object eval_typed(const ModelInfo& m, const std::vector<double>& params, const py::object& velocity,
                      const py::object& pressure_a, const py::object& pressure_b, const py::object& normal_force,
                      const py::object& time, double initial_state, bool vector_math, bool return_state,
                      const py::object& out_arg) {
  std::array<py::array_t<T>, 5> arr = {input_array<T>(velocity, "velocity"), input_array<T>(pressure_a, "pressure_a"),
                                       input_array<T>(pressure_b, "pressure_b"),
                                       input_array<T>(normal_force, "normal_force"), input_array<T>(time, "time")};
  const char* const names[] = {"velocity", "pressure_a", "pressure_b", "normal_force", "time"};
  const std::pair<Channel, int> needed[] = {{kChannelPressureA, 1}, {kChannelPressureB, 2}, {kChannelNormalForce, 3}};
  for (const auto& [ch, k] : needed)
    if (m.needs(ch) && !arr[k])
      throw data::InputError("model " + m.id + " reads " + channel_name(ch) + ": give " + channel_name(ch) + "=...");
  if (m.dynamic && !arr[4])
    throw data::InputError("model " + m.id + " is dynamic: give time=... (seconds, strictly increasing)");
  std::vector<std::pair<const char*, const py::array_t<T>*>> present;
  for (int k = 0; k < 5; ++k) present.push_back({names[k], &arr[k]});
  const Shape shape = broadcast<T>(present);
  if (m.dynamic && shape.size() != 1)
    throw data::InputError("model " + m.id +
                           " is dynamic: its inputs are one time series (one-dimensional), not of shape " +
                           shape_text(shape));
  std::size_t n = 1;
  for (py::ssize_t d : shape) n *= static_cast<std::size_t>(d);

  // The result: `out` checked as NumPy checks a ufunc's, or a new array.
  py::array_t<T> result;
  if (!out_arg.is_none()) {
    if (!py::isinstance<py::array>(out_arg))
      throw py::type_error("out: expected a numpy.ndarray, got " + type_name(out_arg));
    const auto given = py::reinterpret_borrow<py::array>(out_arg);
    if (!py::array_t<T>::check_(given))
      throw py::type_error("out: dtype " + std::string(py::str(given.dtype())) + ", the result is " +
                           std::string(py::str(py::dtype::of<T>())) + " (the velocity's dtype chooses it)");
    result = py::reinterpret_borrow<py::array_t<T>>(given);
    if (shape_of(result) != shape)
      throw data::InputError("out has shape " + shape_text(shape_of(result)) + ", the result " + shape_text(shape));
    if (!(result.flags() & py::array::c_style)) throw data::InputError("out must be C-contiguous");
    if (!result.writeable()) throw data::InputError("out is read-only");
  } else {
    result = py::array_t<T>(shape);
  }
  T* o = n ? result.mutable_data() : nullptr;

  // Each channel as one stride over the samples; one that no stride walks,
  // or one that the output overwrites under it, is copied once.
  std::array<Column<T>, 5> col;
  std::vector<py::object> copies;
  // numpy is imported only for a copy: a 1-sample call stays cheap.
  auto broadcast_to = [&](int k) {
    return py::module_::import("numpy").attr("broadcast_to")(arr[k], py::tuple(py::cast(shape)));
  };
  for (int k = 0; k < 5; ++k) {
    if (!arr[k]) continue;
    py::ssize_t s = flat_stride(arr[k], shape);
    col[k] = {arr[k].data(), s};
    const bool in_place = s == 1 && col[k].p == o && !m.dynamic;  // elementwise: each sample read before written
    if (s < 0 || (!in_place && overlaps(col[k], n, o))) {
      py::array_t<T> c(py::module_::import("numpy").attr("array")(broadcast_to(k), py::arg("order") = "C"));
      copies.push_back(c);
      col[k] = {c.data(), 1};
    }
  }
  const Column<T>&v = col[0], &pa = col[1], &pb = col[2], &fn = col[3];

  if (m.dynamic) {
    // The dynamic engine runs in double on contiguous channels (others are
    // converted first) and writes the force straight into a float64 result.
    auto as_double = [&](int k) -> const double* {
      if (!col[k].p) return nullptr;
      if constexpr (std::is_same_v<T, double>)
        if (col[k].stride == 1) return col[k].p;
      auto c = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(broadcast_to(k));
      copies.push_back(c);
      return c.data();
    };
    workloads::EvalInputs in;
    in.n = n;
    in.velocity = as_double(0);
    in.pressure_a = as_double(1);
    in.pressure_b = as_double(2);
    in.normal_force = as_double(3);
    in.time = as_double(4);
    for (std::size_t i = 1; i < n; ++i)
      if (!(in.time[i] > in.time[i - 1]))
        throw data::InputError("time must be strictly increasing (sample " + std::to_string(i) + ")");
    py::array_t<T> state = return_state ? py::array_t<T>(shape) : absent<py::array_t<T>>();
    std::vector<double> force_d, state_d;  // float32 results only: computed in double first
    double* force_out = nullptr;
    double* state_out = nullptr;
    if constexpr (std::is_same_v<T, double>) {
      force_out = o;
      state_out = state ? state.mutable_data() : nullptr;
    } else {
      force_d.resize(n);
      force_out = force_d.data();
      if (state) state_d.resize(n), state_out = state_d.data();
    }
    {
      py::gil_scoped_release release;
      workloads::evaluate_samples(m.id, params, in, force_out, state_out, initial_state);
    }
    if constexpr (!std::is_same_v<T, double>) {
      std::copy(force_d.begin(), force_d.end(), o);
      if (state) std::copy(state_d.begin(), state_d.end(), state.mutable_data());
    }
    if (return_state) return py::make_tuple(result, state);
    return std::move(result);
  }
  bool engine = std::is_same_v<T, double>;  // contiguous or scalar float64 channels: the engine's loop
  for (const Column<T>* c : {&v, &pa, &pb, &fn})
    if (c->p && c->stride != 0 && c->stride != 1) engine = false;
  {
    py::gil_scoped_release release;
    if constexpr (std::is_same_v<T, double>) {
      if (engine) {
        // Scalars (stride 0) are repeated into a block-sized buffer, filled
        // once: the blocks are smaller then, so the buffers stay small.
        bool scalars = false;
        for (const Column<T>* c : {&v, &pa, &pb, &fn}) scalars |= c->p && c->stride == 0;
        const std::size_t block = scalars ? std::size_t(1) << 16 : kBlock;
        std::array<std::vector<double>, 4> fill;
        std::array<const double*, 4> base{};
        for (int k = 0; k < 4; ++k) {
          if (col[k].p && col[k].stride == 0) fill[k].assign(std::min(n, block), col[k].p[0]);
          base[k] = col[k].p;
        }
        for (std::size_t b = 0; b < n; b += block) {
          const std::size_t e = std::min(n, b + block);
          auto at = [&](int k) -> const double* {
            return !base[k] ? nullptr : fill[k].empty() ? base[k] + b : fill[k].data();
          };
          workloads::EvalInputs in;
          in.n = e - b;
          in.velocity = at(0);
          in.pressure_a = at(1);
          in.pressure_b = at(2);
          in.normal_force = at(3);
          in.vector_math = vector_math;
          workloads::evaluate_samples(m.id, params, in, o + b);
          if (e < n && e / kBlock != b / kBlock) check_signals();
        }
      }
    }
    if (!engine) eval_static_typed<T>(m.id, params, n, v, pa, pb, fn, o);
  }
  if (shape.empty() && out_arg.is_none()) return py::object(result[py::tuple()]);  // scalars in, a NumPy scalar out
  return std::move(result);
}

py::object eval(const std::string& model, const py::object& params, const py::object& velocity,
                const py::object& pressure_a, const py::object& pressure_b, const py::object& normal_force,
                const py::object& time, double initial_state, bool vector_math, bool return_state,
                const py::object& out) {
  const ModelInfo& m = workloads::require_model(model);
  const std::vector<double> p = resolve(m, params);
  if (velocity.is_none())
    throw py::type_error("velocity: expected numbers (an array, a sequence or a scalar), got None");
  for (const auto& w : param_warnings(m, p.data())) warn(w);
  // The velocity's dtype: an array's, or a NumPy scalar's (np.float32(0.1)).
  const bool f32 = py::isinstance<py::array>(velocity)
                       ? py::reinterpret_borrow<py::array>(velocity).dtype().is(py::dtype::of<float>())
                       : py::isinstance(velocity, py::module_::import("numpy").attr("float32"));
  if (f32)
    return eval_typed<float>(m, p, velocity, pressure_a, pressure_b, normal_force, time, initial_state, vector_math,
                             return_state, out);
  return eval_typed<double>(m, p, velocity, pressure_a, pressure_b, normal_force, time, initial_state, vector_math,
                            return_state, out);
}

// ---- paths -----------------------------------------------------------------

// A path argument: str, bytes or os.PathLike, as open() takes them.
std::string path_arg(const py::object& o, const char* what) {
  if (!py::isinstance<py::str>(o) && !py::isinstance<py::bytes>(o) &&
      !py::isinstance(o, py::module_::import("os").attr("PathLike")))
    throw py::type_error(std::string(what) + ": expected a path (str or os.PathLike), got " + type_name(o));
  return py::str(py::module_::import("os").attr("fsdecode")(o));
}

// The OSError subclass open() would raise (FileNotFoundError,
// PermissionError, IsADirectoryError), from errno.
[[noreturn]] void raise_os_error(int err, const std::string& path) {
  errno = err;
  PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
  throw py::error_already_set();
}

// A file to read: it must exist and not be a directory; the readers' own
// checks (format, content) follow and raise ValueError.
std::string input_path(const py::object& o, const char* what) {
  const std::string path = path_arg(o, what);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) raise_os_error(errno, path);
  if (S_ISDIR(st.st_mode)) raise_os_error(EISDIR, path);
  return path;
}

// A file to write: its directory must exist, and it must not be one.
std::string output_path(const py::object& o, const char* what) {
  const std::string path = path_arg(o, what);
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) raise_os_error(errno, path);
  if (!S_ISDIR(st.st_mode)) raise_os_error(ENOTDIR, path);
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) raise_os_error(EISDIR, path);
  return path;
}

// ---- fit -------------------------------------------------------------------

std::vector<std::string> string_list(const py::handle& o, const std::string& what) {
  if (py::isinstance<py::str>(o)) return {py::str(o)};
  std::vector<std::string> out;
  try {
    for (auto x : py::iter(o)) out.push_back(py::str(x));
  } catch (const py::error_already_set&) {
    throw data::InputError(what + ": expected a string or a list of strings");
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
      if (seq.size() != 2) throw data::InputError(what + " " + name + ": expected (lo, hi)");
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
      if (d != std::floor(d) || d < 0 || d > 1e9) throw data::InputError(k + ": must be a whole number >= 0");
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
        throw data::InputError(
            "unknown fit option '" + k +
            "' (free, fix, initial, bounds, per_experiment, asymmetric, "
            "offset, offset_per_experiment, inertia, mass, area_a, area_b, cutoff, parallel_filter, "
            "decimation, loss, starts, max_starts, coarse_points, seed, validate, max_iterations, threads)");
    } catch (const py::cast_error&) {
      throw data::InputError("fit option " + k + ": wrong type");
    }
  }
  return o;
}

const char* const kChannelUnits[][2] = {
    {"time", "s"},  {"position", "m"},    {"velocity", "m/s"},  {"acceleration", "m/s^2"},
    {"force", "N"}, {"pressure_a", "Pa"}, {"pressure_b", "Pa"}, {"normal_force", "N"}};

// The report's JSON objects come sorted by key; every "parameters" table in
// it is put in the model's order (as models() and the CLI list them), a
// name's derived entries ("F_C[run1]") after it, other entries last.
void in_model_order(const py::handle node, const ModelInfo& m) {
  if (py::isinstance<py::list>(node))
    for (auto x : node) in_model_order(x, m);
  if (!py::isinstance<py::dict>(node)) return;
  auto d = py::reinterpret_borrow<py::dict>(node);
  for (auto item : d) in_model_order(item.second, m);
  if (!d.contains("parameters") || !py::isinstance<py::dict>(d["parameters"])) return;
  auto table = py::reinterpret_borrow<py::dict>(d["parameters"]);
  auto rank = [&m](const std::string& key) {
    for (std::size_t i = 0; i < m.params.size(); ++i) {
      const std::string name = m.params[i].name;
      if (key.compare(0, name.size(), name) == 0 &&
          (key.size() == name.size() ||
           !(std::isalnum(static_cast<unsigned char>(key[name.size()])) || key[name.size()] == '_')))
        return i;
    }
    return m.params.size();
  };
  std::vector<std::pair<std::size_t, std::string>> keys;
  for (auto item : table) {
    const std::string k = py::str(item.first);
    keys.push_back({rank(k), k});
  }
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  py::dict ordered;
  for (const auto& [r, k] : keys) ordered[py::str(k)] = table[py::str(k)];
  d["parameters"] = ordered;
}

py::dict fit(const std::string& model, const py::object& log, const py::object& experiment, const py::dict& arrays,
             const py::dict& kw) {
  // The options first, as the CLI checks them: before any log is read.
  ident::FitOptions o = fit_options(kw);
  ident::check_fit_options(model, o);
  std::vector<data::Experiment> exps;
  if (!log.is_none()) {
    if (arrays.size() != 0) throw data::InputError("give either log=... or channel arrays, not both");
    // One path (str, bytes, os.PathLike) or a list of them.
    std::vector<std::string> paths;
    const bool one = py::isinstance<py::str>(log) || py::isinstance<py::bytes>(log) ||
                     py::isinstance(log, py::module_::import("os").attr("PathLike"));
    if (one) {
      paths.push_back(input_path(log, "log"));
    } else {
      if (!py::isinstance<py::iterable>(log))
        throw py::type_error("log: expected a path or a list of paths, got " + type_name(log));
      for (auto x : log) paths.push_back(input_path(py::reinterpret_borrow<py::object>(x), "log"));
    }
    for (const std::string& path : paths) {
      std::vector<data::Experiment> e = data::read_any_log(path);
      exps.insert(exps.end(), e.begin(), e.end());
    }
    if (!experiment.is_none()) {
      const std::vector<std::string> keep = string_list(experiment, "experiment");
      std::vector<data::Experiment> picked;
      for (const auto& name : keep) picked.push_back(data::select_experiment(exps, name, paths.front()));
      exps = picked;
    }
  } else {
    data::Experiment e;
    e.name = "arrays";
    e.source = "<arrays>";
    std::size_t n = 0;
    for (auto item : arrays) {
      const std::string name = py::str(item.first);
      if (item.second.is_none()) continue;
      const char* unit = nullptr;
      for (const auto& cu : kChannelUnits)
        if (name == cu[0]) unit = cu[1];
      if (!unit) throw data::InputError("unknown channel '" + name + "'");
      auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(item.second);
      if (!a) throw py::type_error(name + ": expected an array of numbers, got " + type_name(item.second));
      if (a.ndim() != 1)
        throw data::InputError(name + ": must be one-dimensional, has " + std::to_string(a.ndim()) + " dimensions");
      if (n && static_cast<std::size_t>(a.shape(0)) != n)
        throw data::InputError(name + " has " + std::to_string(a.shape(0)) + " samples, the other channels " +
                               std::to_string(n));
      n = static_cast<std::size_t>(a.shape(0));
      e.channels[name].assign(a.data(), a.data() + n);
      e.units[name] = unit;
    }
    if (e.channels.empty()) throw data::InputError("give log=PATH or channel arrays (velocity=..., force=..., ...)");
    exps.push_back(std::move(e));
  }
  o.progress = [](const ident::FitProgress&) { check_signals(); };
  ident::FitSummary s;
  {
    py::gil_scoped_release release;
    s = ident::fit(exps, model, o);
  }
  py::dict out;
  py::object report = json_to_python(ident::to_json(s));
  in_model_order(report, workloads::require_model(model));
  out["report"] = report;
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

// ---- parameter exports -------------------------------------------------------

// `stribeck export-params`: identification's export_params, its text and
// each conversion as values.
py::dict export_params(const py::object& fit, const std::string& to, const py::object& data,
                       const py::object& velocity_range, const py::object& pressure, const py::object& normal_force,
                       int fit_index) {
  ident::ExportOptions o;
  if (!ident::parse_export_target(to, &o.to))
    throw data::InputError("--to '" + to + "' must be simscape, modelica, 20sim or json");
  o.fit = input_path(fit, "fit");
  if (!data.is_none()) o.data = input_path(data, "data");
  if (py::isinstance<py::str>(velocity_range)) {
    o.velocity_range = velocity_range.cast<std::string>();
  } else if (!velocity_range.is_none()) {
    // (lo, hi): written as the option's LO:HI text in digits that read back exactly.
    const auto lh = velocity_range.cast<std::pair<double, double>>();
    char buf[80];
    std::snprintf(buf, sizeof buf, "%.17g:%.17g", lh.first, lh.second);
    o.velocity_range = buf;
  }
  if (!pressure.is_none()) o.pressure = pressure.cast<double>();
  if (!normal_force.is_none()) o.normal_force = normal_force.cast<double>();
  o.fit_index = fit_index;
  ident::ExportResult r;
  {
    py::gil_scoped_release release;
    r = ident::export_params(o);
  }
  py::list conversions, summary;
  for (std::size_t i = 0; i < r.conversions.size(); ++i) {
    const ident::ExportConversion& c = r.conversions[i];
    py::dict d;
    d["operating_point"] = c.at.label;
    d["pressure"] = c.at.pressure;
    d["normal_force"] = c.at.normal_force;
    d["law"] = c.law.empty() ? py::object(py::none()) : py::object(py::str(c.law));
    py::dict params;
    if (!c.law.empty()) {
      const ModelInfo& m = workloads::require_model(c.law);
      for (std::size_t k = 0; k < m.params.size(); ++k) params[py::str(m.params[k].name)] = c.params[k];
    }
    d["parameters"] = params;
    if (c.law.empty()) {
      d["table_velocity"] = py::array_t<double>(static_cast<py::ssize_t>(c.table_v.size()), c.table_v.data());
      d["table_force"] = py::array_t<double>(static_cast<py::ssize_t>(c.table_f.size()), c.table_f.data());
      d["peak"] = c.peak;
    }
    d["exact"] = c.exact;
    d["how"] = c.how;
    d["max_error"] = c.max_error;
    d["max_force"] = c.max_force;
    d["velocity_range"] = py::make_tuple(c.v_lo, c.v_hi);
    d["breakaway_fit"] = c.breakaway_fit;
    d["breakaway_export"] = c.breakaway_export;
    conversions.append(d);
    summary.append(ident::export_summary(r, o, i, ""));
    const std::string w = ident::export_warning(r, i);
    if (!w.empty()) warn(w);
  }
  py::dict out;
  out["text"] = r.text;
  out["model"] = r.source.model;
  out["not_exported"] = r.source.ignored;
  out["conversions"] = conversions;
  out["summary"] = summary;
  return out;
}

// identify's --stream decision (ident::plan_stream): which experiments of
// the logs a fit of `model` (an id, or a list of ids as --compare) streams,
// or why it is held in memory.
py::dict stream_plan(const py::object& model, const py::object& log, const py::object& experiment,
                     const std::string& stream, bool batch, const py::kwargs& kw) {
  ident::StreamRequest q;
  q.models = py::isinstance<py::str>(model) ? std::vector<std::string>{model.cast<std::string>()}
                                            : string_list(model, "model");
  const ident::FitOptions o = fit_options(kw);
  for (const auto& m : q.models) ident::check_fit_options(m, o);  // before the logs are opened
  if (py::isinstance<py::str>(log) || py::isinstance<py::bytes>(log) ||
      py::isinstance(log, py::module_::import("os").attr("PathLike")))
    q.logs.push_back(input_path(log, "log"));
  else
    for (auto x : log) q.logs.push_back(input_path(py::reinterpret_borrow<py::object>(x), "log"));
  if (!experiment.is_none()) q.experiments = string_list(experiment, "experiment");
  if (stream != "auto" && stream != "always" && stream != "never")
    throw data::InputError("stream '" + stream + "': expected auto, always or never");
  q.mode = stream == "always"  ? ident::StreamMode::kAlways
           : stream == "never" ? ident::StreamMode::kNever
                               : ident::StreamMode::kAuto;
  q.batch = batch;
  ident::StreamPlan plan;
  {
    py::gil_scoped_release release;
    plan = ident::plan_stream(q, o);
  }
  py::list logs;
  for (const auto& l : plan.logs) {
    py::dict d;
    d["path"] = l.path;
    d["experiment"] = l.experiment;
    d["name"] = l.name;
    logs.append(d);
  }
  py::dict out;
  out["streamed"] = !plan.logs.empty();
  out["logs"] = logs;
  out["why_not"] = plan.why_not;
  return out;
}

// ---- logs ------------------------------------------------------------------

py::list read_log(const py::object& path_obj) {
  const std::string path = input_path(path_obj, "path");
  std::vector<data::Experiment> exps;
  {
    py::gil_scoped_release release;
    exps = data::read_any_log(path);
  }
  py::list out;
  for (const auto& e : exps) {
    py::dict d, ch;
    d["name"] = e.name;
    for (const auto& [name, v] : e.channels)
      ch[py::str(name)] = py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
    d["channels"] = ch;
    d["units"] = e.units;
    d["attributes"] = e.attributes;
    out.append(d);
  }
  return out;
}

void write_log(const py::object& path_obj, const py::object& experiments) {
  const std::string path = output_path(path_obj, "path");
  py::list list;
  if (py::isinstance<py::dict>(experiments)) list.append(experiments);
  else if (py::isinstance<py::list>(experiments) || py::isinstance<py::tuple>(experiments))
    list = py::list(experiments);
  else throw py::type_error("experiments: expected a dict or a list of dicts, got " + type_name(experiments));
  std::vector<data::Experiment> exps;
  for (auto item : list) {
    if (!py::isinstance<py::dict>(item))
      throw py::type_error("experiments: each must be a dict with name and channels, got " + type_name(item));
    auto d = py::reinterpret_borrow<py::dict>(item);
    data::Experiment e;
    e.name = d.contains("name") ? std::string(py::str(d["name"])) : "experiment";
    e.source = path;
    if (!d.contains("channels")) throw data::InputError("write_log: experiment '" + e.name + "' has no channels");
    for (auto c : py::reinterpret_borrow<py::dict>(d["channels"])) {
      const std::string name = py::str(c.first);
      auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(c.second);
      if (!a) throw py::type_error("channel " + name + ": expected an array of numbers, got " + type_name(c.second));
      if (a.ndim() != 1) throw data::InputError("channel " + name + " must be one-dimensional");
      e.channels[name].assign(a.data(), a.data() + a.shape(0));
      std::string unit;
      for (const auto& cu : kChannelUnits)
        if (name == cu[0]) unit = cu[1];
      e.units[name] = unit;
    }
    if (d.contains("units"))
      for (auto u : py::reinterpret_borrow<py::dict>(d["units"])) e.units[py::str(u.first)] = py::str(u.second);
    if (d.contains("attributes"))
      for (auto u : py::reinterpret_borrow<py::dict>(d["attributes"]))
        e.attributes[py::str(u.first)] = py::str(u.second);
    exps.push_back(std::move(e));
  }
  const char* argv[] = {"python", "stribeck.write_log"};
  const data::Provenance prov = data::make_provenance(2, argv);
  py::gil_scoped_release release;
  stribeck::data::write_log(path, exps, prov);
}

// ---- sweep, simulate ------------------------------------------------------

// A config given as a path (str without a newline, or os.PathLike) or as
// TOML text (a str holding a newline): (text, name for messages).
std::pair<std::string, std::string> config_text(const py::object& config, const char* what) {
  if (py::isinstance<py::str>(config)) {
    const std::string s = py::str(config);
    if (s.find('\n') != std::string::npos) return {s, "<config>"};
  } else if (!py::isinstance<py::bytes>(config) &&
             !py::isinstance(config, py::module_::import("os").attr("PathLike"))) {
    throw py::type_error(std::string(what) + ": expected a path (str or os.PathLike) or TOML text, got " +
                         type_name(config));
  }
  const std::string path = input_path(config, what);
  return {data::read_config_file(path, what), path};
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

py::object sweep(const py::object& config, const py::object& device, const py::object& precision, std::uint64_t chunk,
                 const py::object& frame) {
  const auto [text, source] = config_text(config, "sweep config");
  workloads::SweepConfig c = workloads::parse_sweep_config(text, source);
  if (!device.is_none()) c.device = py::str(device);
  if (!precision.is_none()) c.precision = py::str(precision);
  if (c.precision != "fp64" && c.precision != "fp32")
    throw data::InputError("precision '" + c.precision + "': expected fp64 or fp32");
  if (c.keep_top_k_only)
    throw data::InputError(source +
                           ": [output] top_k_only: stribeck.sweep returns every point (drop it, or sort the table)");
  // Force traces of chosen points only shape the results file, as [output]
  // file does: ignored here (stribeck.eval gives any point's forces).
  c.trajectories.clear();
  const workloads::SweepPlan plan = workloads::plan_sweep(c);
  const data::SweepMeta meta = workloads::make_sweep_meta(plan, c, "", workloads::Precision::kFp64);
  const std::uint64_t n = plan.count;
  const int dims = plan.space.dims;
  const int n_exp = static_cast<int>(plan.traces.size());
  const std::size_t kept = plan.metrics.size();
  // The table in memory: point, parameters, kept metrics (and per experiment), status.
  const double bytes =
      static_cast<double>(n) * (8.0 * (1 + dims + kept * (1 + (plan.per_experiment ? n_exp : 0))) + 1.0);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0 && bytes > 0.8 * double(pages) * double(page))
    throw data::InputError(
        source + ": " + std::to_string(n) + " points need about " + format_number(std::round(bytes / 1e8) / 10) +
        " GB for their results, more than 80 % of this machine's memory; the command `stribeck sweep` "
        "streams them to a file");
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

  workloads::SweepRunOptions o;
  o.device = c.device;
  o.precision = c.precision == "fp32" ? workloads::Precision::kFp32 : workloads::Precision::kFp64;
  o.chunk = chunk ? chunk : std::min<std::uint64_t>(c.chunk, std::uint64_t(1) << 16);  // Ctrl-C between chunks
  std::string note;
  o.note = [&note](const std::string& t) { note = t; };
  // Rows as the sweep file holds them (sweep_chunk_columns), per-experiment
  // metrics as one column per experiment.
  o.on_chunk = [&](const data::SweepChunk& ch) {
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
  workloads::SweepSummary s;
  {
    py::gil_scoped_release release;
    s = workloads::run_sweep(plan, c, o);
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
  for (const data::TopEntry& t : s.top) top.append(t.index);
  summary["top"] = top;
  if (!note.empty()) summary["note"] = note;
  extra["kind"] = "sweep";
  extra["summary"] = summary;
  return make_table(cols, extra, frame);
}

py::object simulate(const py::object& config, const py::object& device, const py::object& precision,
                    std::uint64_t chunk, const py::object& frame) {
  const auto [text, source] = config_text(config, "simulate config");
  workloads::SimulateConfig c = workloads::parse_simulate_config(text, source);
  if ((!device.is_none() || !precision.is_none()) && !c.ensemble)
    throw data::InputError(std::string(device.is_none() ? "precision" : "device") +
                           " applies to ensembles (an [ensemble] table); a single simulation runs on the CPU in fp64");
  if (!device.is_none()) {
    c.device = py::str(device);
    if (c.device != "auto" && c.device != "gpu" && c.device != "cpu")
      throw data::InputError("device " + c.device + ": expected auto, gpu or cpu");
  }
  if (!precision.is_none()) {
    const std::string p = py::str(precision);
    if (p != "fp64" && p != "fp32") throw data::InputError("precision " + p + ": expected fp64 or fp32");
    c.fp32 = p == "fp32";
  }
  py::dict extra;
  py::list warnings;
  for (const auto& w : c.warnings) {
    warnings.append(w);
    warn(w);
  }
  extra["warnings"] = warnings;
  std::vector<TableColumn> cols;
  if (!c.ensemble) {
    workloads::SimulationSeries r;
    {
      py::gil_scoped_release release;
      r = workloads::simulate_series(c);
    }
    for (auto& ch : r.channels) {
      auto a = new_column<double>(ch.values.size());
      std::copy(ch.values.begin(), ch.values.end(), a.mutable_data());
      std::vector<double>().swap(ch.values);
      cols.push_back({ch.name, a, ch.unit, ch.long_name});
    }
    py::dict metrics, metric_units;
    const auto values = workloads::stick_slip_metric_columns(r.summary.metrics);
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
  workloads::EnsembleRunOptions o;
  if (chunk) o.chunk = chunk;
  else if (!workloads::choose_device(c.device, source + ": [ensemble] device").gpu)
    o.chunk = 128;  // Ctrl-C: between chunks
  std::string note;
  o.note = [&note](const std::string& t) { note = t; };
  InterruptCheck interrupt;
  o.progress = [&interrupt](std::uint64_t, std::uint64_t, double) { interrupt(); };
  workloads::EnsembleResult r;
  {
    py::gil_scoped_release release;
    r = workloads::run_ensemble(c, o);
  }
  const std::uint64_t n = r.count;
  const std::size_t dims = r.names.size();
  auto point = new_column<std::uint64_t>(n);
  for (std::uint64_t i = 0; i < n; ++i) point.mutable_data()[i] = r.first + i;
  cols.push_back({"point", point, "1", "index of the point in the space"});
  const std::vector<std::string> units = workloads::ensemble_coordinate_units(c, r.names);
  for (std::size_t d = 0; d < dims; ++d) {
    auto a = new_column<double>(n);
    for (std::uint64_t i = 0; i < n; ++i) a.mutable_data()[i] = r.values[i * dims + d];
    cols.push_back({r.names[d], a, units[d], workloads::ensemble_coordinate_long_name(c.model, r.names[d])});
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
        case engine::FieldStorage::kInt64:
          static_cast<std::int64_t*>(base)[i] = static_cast<std::int64_t>(row[f]);
          break;
        case engine::FieldStorage::kStatus:
          static_cast<std::uint8_t*>(base)[i] = static_cast<std::uint8_t>(row[f]);
          break;
        case engine::FieldStorage::kInt32:
          static_cast<std::int32_t*>(base)[i] = static_cast<std::int32_t>(row[f]);
          break;
      }
    }
  }
  for (std::size_t f = 0; f < engine::kStickSlipFieldCount; ++f) {
    const engine::FieldInfo& k = engine::kStickSlipFields[f];
    cols.push_back(
        {k.name, metric_cols[f], c.rotational ? engine::rotational_units(k.units) : std::string(k.units), k.long_name});
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

// The library's messages name the CLI's options ("--fix a=1: ..."); in
// Python they are keyword arguments: "--fix" -> "fix", "--area-a" ->
// "area_a", and the few whose names differ.
std::string python_message(const std::string& text) {
  static const std::pair<const char*, const char*> renamed[] = {
      {"init", "initial"}, {"decimate", "decimation"}, {"param", "params"}};
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const bool starts = text.compare(i, 2, "--") == 0 && i + 2 < text.size() &&
                        std::islower(static_cast<unsigned char>(text[i + 2])) &&
                        (i == 0 || std::string(" '\"(/").find(text[i - 1]) != std::string::npos);
    if (!starts) {
      out += text[i++];
      continue;
    }
    std::size_t e = i + 2;
    while (e < text.size() && (std::islower(static_cast<unsigned char>(text[e])) || text[e] == '-')) ++e;
    std::string name = text.substr(i + 2, e - i - 2);
    for (const auto& [cli, py_name] : renamed)
      if (name == cli) name = py_name;
    std::replace(name.begin(), name.end(), '-', '_');
    out += name;
    i = e;
  }
  return out;
}

// pybind11 gives its functions no __text_signature__, so inspect.signature
// fails on them. CPython reads one from a docstring that starts with
// "name(args)\n--\n\n"; it is made here from the same py::arg objects the
// binding uses, so the two cannot disagree.
void signature_part(std::string& sig, const py::arg_v& a) {
  sig += std::string(sig.empty() ? "" : ", ") + a.name + "=" + std::string(py::repr(a.value));
}
void signature_part(std::string& sig, const py::arg& a) { sig += std::string(sig.empty() ? "" : ", ") + a.name; }
void signature_part(std::string& sig, const py::kw_only&) { sig += sig.empty() ? "*" : ", *"; }

template <class F, class... Extra>
void def(py::module_& m, const char* name, F&& f, const std::string& doc, const char* var_keywords,
         const Extra&... extra) {
  std::string sig;
  (signature_part(sig, extra), ...);
  if (var_keywords) sig += std::string(sig.empty() ? "**" : ", **") + var_keywords;
  const std::string text = std::string(name) + "(" + sig + ")\n--\n\n" + doc;
  m.def(name, std::forward<F>(f), extra..., text.c_str());  // pybind11 copies the text
}

}  // namespace
}  // namespace stribeck::python

PYBIND11_MODULE(stribeck, m) {
  using namespace stribeck::python;
  m.doc() = "Stribeck: friction models exactly as Simscape / 20-sim define them, evaluation, identification, logs";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const stribeck::data::InputError& e) {
      PyErr_SetString(PyExc_ValueError, python_message(e.what()).c_str());
    } catch (const Interrupted&) {
      // The Python exception (KeyboardInterrupt) is already set.
    }
  });
  // Ceres logs through glog (a start whose residuals fail, with its whole
  // Jacobian); fit and export_params report such starts themselves, so glog
  // is silenced below FATAL as the CLI does (STRIBECK_GLOG=1 keeps it).
  const char* keep_glog = std::getenv("STRIBECK_GLOG");
  if (!keep_glog || std::strcmp(keep_glog, "1") != 0) {
    FLAGS_minloglevel = google::GLOG_FATAL;
    FLAGS_stderrthreshold = google::GLOG_FATAL;
    FLAGS_logtostderr = false;
  }
  // Signatures come from the docstrings def() writes (see signature_part).
  py::options options;
  options.disable_function_signatures();
  m.attr("__version__") = STRIBECK_VERSION;
  py::exec(R"py(
class StribeckWarning(UserWarning):
    """A model's warning about valid but questionable input (e.g. LuGre parameters that are not passive)."""


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
  m.attr("StribeckWarning").attr("__module__") = "stribeck";
  m.attr("Columns").attr("__module__") = "stribeck";
  def(m, "models", &models, "Every friction model: id, equation, inputs, parameters in the model's order.", nullptr);
  def(m, "eval", &eval,
      "Friction force of `model` at every sample, with `params` (dict NAME -> value over the defaults).\n\n"
      "velocity, pressure_a, pressure_b, normal_force and time are arrays, sequences or scalars and\n"
      "broadcast as NumPy's do; the result has the broadcast shape (a NumPy scalar when every input is\n"
      "one). A float32 velocity computes in float32, anything else in float64. out: a C-contiguous\n"
      "array of the result's shape and dtype to write into (returned). vector_math=True: float64\n"
      "static laws run the vector exp/tanh kernel (within 4 ulp of the scalar law); False: the scalar\n"
      "law. Dynamic models (lugre, 20sim-lugre, dahl) need time (1-D, strictly increasing) and return\n"
      "(force, state) with return_state=True. Parameter warnings are issued as StribeckWarning.",
      nullptr, py::arg("model"), py::arg("params") = py::none(), py::kw_only(), py::arg("velocity"),
      py::arg("pressure_a") = py::none(), py::arg("pressure_b") = py::none(), py::arg("normal_force") = py::none(),
      py::arg("time") = py::none(), py::arg("initial_state") = 0.0, py::arg("vector_math") = true,
      py::arg("return_state") = false, py::arg("out") = py::none());
  def(
      m, "fit",
      [](const std::string& model, const py::object& log, const py::object& experiment, const py::object& time,
         const py::object& position, const py::object& velocity, const py::object& acceleration,
         const py::object& force, const py::object& pressure_a, const py::object& pressure_b,
         const py::object& normal_force, const py::kwargs& kw) {
        py::dict arrays;
        const std::pair<const char*, const py::object*> ch[] = {{"time", &time},
                                                                {"position", &position},
                                                                {"velocity", &velocity},
                                                                {"acceleration", &acceleration},
                                                                {"force", &force},
                                                                {"pressure_a", &pressure_a},
                                                                {"pressure_b", &pressure_b},
                                                                {"normal_force", &normal_force}};
        for (const auto& [name, o] : ch)
          if (!o->is_none()) arrays[name] = *o;
        return fit(model, log, experiment, arrays, kw);
      },
      "Identifies `model` from channel arrays (one experiment, SI units) or log=... (a path or a list of\n"
      "paths; experiment= names some) with identify's options (free, fix, initial, bounds, offset,\n"
      "inertia, starts, ...). Returns {'report': the JSON report as a dict (parameters in the model's\n"
      "order), 'experiments': names, 'fitted': [arrays], 'residual': [arrays]}.",
      "options", py::arg("model"), py::kw_only(), py::arg("log") = py::none(), py::arg("experiment") = py::none(),
      py::arg("time") = py::none(), py::arg("position") = py::none(), py::arg("velocity") = py::none(),
      py::arg("acceleration") = py::none(), py::arg("force") = py::none(), py::arg("pressure_a") = py::none(),
      py::arg("pressure_b") = py::none(), py::arg("normal_force") = py::none());
  def(m, "stream_plan", &stream_plan,
      "Whether identify would fit `model` (an id, or a list of ids as --compare) to log=... (a path or a list\n"
      "of paths; experiment= names some) streamed (stream='auto', 'always' or 'never'; batch=True as --batch)\n"
      "with identify's options: {'streamed': bool, 'logs': [{'path', 'experiment', 'name'}], 'why_not': str}.",
      "options", py::arg("model"), py::kw_only(), py::arg("log"), py::arg("experiment") = py::none(),
      py::arg("stream") = "auto", py::arg("batch") = false);
  def(m, "sweep", &sweep,
      "Runs a sweep config (a TOML path: str or os.PathLike; or TOML text: a str with a newline) as\n"
      "`stribeck sweep` does, in memory: one row per point with the results file's columns (point,\n"
      "parameters, kept metrics, status). A pandas DataFrame when pandas imports (frame=None) or\n"
      "frame=True, else stribeck.Columns; attrs holds units, long names and the summary.",
      nullptr, py::arg("config"), py::kw_only(), py::arg("device") = py::none(), py::arg("precision") = py::none(),
      py::arg("chunk") = 0, py::arg("frame") = py::none());
  def(m, "simulate", &simulate,
      "Runs a simulate config (a TOML path or TOML text) as `stribeck simulate` does, in memory. An\n"
      "ensemble: one row per point (point, coordinates, metrics); a single simulation: its time\n"
      "series, with attrs['metrics']. Table type as stribeck.sweep; the config's warnings are issued\n"
      "as StribeckWarning.",
      nullptr, py::arg("config"), py::kw_only(), py::arg("device") = py::none(), py::arg("precision") = py::none(),
      py::arg("chunk") = 0, py::arg("frame") = py::none());
  def(m, "export_params", &export_params,
      "A fit's parameters for a reference tool, as `stribeck export-params` writes them: fit is a fit\n"
      "report (identify --json) or a parameter set (export-params --to json); to is 'simscape' (a\n"
      "set_param script), 'modelica' (MSL records), '20sim' (a parameters section) or 'json'. data: the\n"
      "rig log the fit came from (velocity range, operating points); velocity_range: 'LO:HI' or (lo, hi)\n"
      "in m/s (rad/s); pressure: p_A + p_B [Pa]; normal_force: F_n [N]; fit_index: which fit of a\n"
      "report of several (1 = first, as --fit). Returns {'text': the file, 'model', 'not_exported',\n"
      "'conversions': [one dict per operating point: law, parameters, exact, how, max_error,\n"
      "velocity_range, breakaway_fit, breakaway_export, ...], 'summary': [the CLI's summary lines]};\n"
      "a breakaway the export does not keep is issued as StribeckWarning.",
      nullptr, py::arg("fit"), py::kw_only(), py::arg("to"), py::arg("data") = py::none(),
      py::arg("velocity_range") = py::none(), py::arg("pressure") = py::none(), py::arg("normal_force") = py::none(),
      py::arg("fit_index") = 1);
  def(m, "read_log", &read_log,
      "Experiments of a log (HDF5, MATLAB or delimited text; path: str or os.PathLike):\n"
      "[{'name', 'channels': {name: array}, 'units', 'attributes'}].",
      nullptr, py::arg("path"));
  def(m, "write_log", &write_log,
      "Writes experiments (a dict or a list of dicts as read_log returns) as an HDF5 log, atomically.", nullptr,
      py::arg("path"), py::arg("experiments"));
}
