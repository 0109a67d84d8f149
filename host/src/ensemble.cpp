// Ensembles of body simulations on the CPU (OpenMP over points).
#include "stribeck/host/ensemble.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/host/content_hash.hpp"
#include "stribeck/host/params.hpp"
#include "stribeck/host/sweep.hpp"
#include "stribeck/kernels/sweep/rng.hpp"
#include "stribeck/kernels/systems/ensemble.hpp"
#if STRIBECK_HAVE_CUDA
#include "stribeck/kernels/cuda/ensemble_cuda.hpp"
#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#endif

namespace stribeck {
namespace {

// Space axes from the parsed specs, with the sweep's own axis and point-count
// rules (fill_axis, design_points); the axes may also name system quantities.
sweep::SpaceView build_space(const SimulateConfig& c, const ModelInfo& m, std::vector<double>& list_values,
                             int* target, std::vector<std::string>& names) {
  if (c.axes.size() > static_cast<size_t>(sweep::kMaxParams))
    throw InputError(c.source + ": [ensemble.params]: at most 16 varying quantities");
  sweep::SpaceView s;
  s.design = c.design;
  s.dims = static_cast<int>(c.axes.size());
  s.seed = c.seed;
  s.scramble = c.scramble;
  const bool grid = c.design == sweep::Design::kGrid;
  long double grid_points = 1;
  for (int d = 0; d < s.dims; ++d) {
    const ParamSpec& spec = c.axes[d];
    const std::string at = spec.where + ": " + spec.name;
    names.push_back(spec.name);
    const int pi = m.param_index(spec.name);
    int field = -1;
    for (int f = 0; f < kNumEnsembleFields; ++f)
      if (spec.name == ensemble_field_name(f)) field = f;
    if (pi < 0 && field < 0) {
      std::string known;
      for (const auto& q : m.params) known += std::string(q.name) + ", ";
      for (int f = 0; f < kNumEnsembleFields; ++f) known += std::string(ensemble_field_name(f)) + (f + 1 < kNumEnsembleFields ? ", " : "");
      throw InputError(at + ": not a parameter of " + m.id + " nor a system quantity (known: " + known + ")");
    }
    if (field == kFieldBreakaway && !c.stiction) throw InputError(at + ": breakaway varies only with form = \"stiction\"");
    target[d] = pi >= 0 ? pi : -1 - field;
    sweep::Axis& ax = s.axis[d];
    fill_axis(spec, grid, at, list_values, ax);
    grid_points *= static_cast<long double>(ax.count);
  }
  s.points = design_points(c.design, grid_points, c.points, c.source + ": [ensemble]", "points");
  return s;
}

// The measured input tables of the config ([system] inputs) in the working
// scalar; the spec's profiles point into them, so they must outlive the run.
template <class T>
struct TypedTables {
  std::vector<std::vector<T>> store;

  TypedTables(const SimulateConfig& c, BodySystem<T>& b) {
    store.reserve(2 * c.tables.size());
    for (const auto& tab : c.tables) {
      Profile<T>* p = measured_input_profile(b, tab.channel);
      if (!p) continue;
      store.emplace_back(tab.t.begin(), tab.t.end());
      p->table_t = store.back().data();
      store.emplace_back(tab.y.begin(), tab.y.end());
      p->table_y = store.back().data();
      p->table_n = static_cast<int>(tab.t.size());
    }
  }
};

// The spec without measured input tables (TypedTables attaches them).
template <class T>
EnsembleSpec<T> make_spec(const SimulateConfig& c, const ModelInfo& m, const int* target) {
  EnsembleSpec<T> e;
  const BodySystem<double>& b = c.body;
  auto prof = [](const Profile<double>& p) {
    Profile<T> q;
    q.offset = T(p.offset);
    q.slope = T(p.slope);
    q.amplitude = T(p.amplitude);
    q.frequency = T(p.frequency);
    return q;
  };
  e.base.mass = T(b.mass);
  e.base.stiffness = T(b.stiffness);
  e.base.damping = T(b.damping);
  e.base.friction_on_drive = b.friction_on_drive;
  e.base.drive_velocity = prof(b.drive_velocity);
  e.base.external_force = prof(b.external_force);
  e.base.normal_force = prof(b.normal_force);
  e.base.pressure_a = prof(b.pressure_a);
  e.base.pressure_b = prof(b.pressure_b);
  e.base.area_a = T(b.area_a);
  e.base.area_b = T(b.area_b);
  e.base.s0 = T(b.s0);
  e.base.v0 = T(b.v0);
  e.base.z0 = T(b.z0);
  for (size_t k = 0; k < c.params.size(); ++k) e.params[k] = c.params[k];
  e.breakaway = T(c.breakaway);
  e.stiction = c.stiction;
  e.sim.t_end = T(c.sim.t_end);
  e.sim.dt = T(c.sim.dt);
  e.sim.max_substeps = c.sim.max_substeps;
  e.sim.max_events = c.sim.max_events;
  e.metrics.settle_fraction = T(c.metrics.settle_fraction);
  e.metrics.v_stick = T(c.metrics.v_stick);
  e.metrics.v_breakaway = T(c.metrics.v_breakaway);
  sweep::ParamRules& r = e.rules;
  r.n = static_cast<int>(m.params.size());
  for (int i = 0; i < r.n; ++i) {
    r.lo[i] = m.params[i].lo;
    r.hi[i] = m.params[i].hi;
    r.lo_open[i] = m.params[i].lo_open;
    r.hi_open[i] = m.params[i].hi_open;
  }
  r.n_relations = static_cast<int>(m.relations.size());
  for (int k = 0; k < r.n_relations; ++k) {
    r.rel_a[k] = m.relations[k].a;
    r.rel_b[k] = m.relations[k].b;
  }
  for (int d = 0; d < sweep::kMaxParams; ++d) e.target[d] = target[d];
  return e;
}

// `progress(done)` is called by thread 0 after each of its points (points
// take milliseconds to seconds, so that is often enough and costs nothing).
// Points [first, first + n) of the space; row i of `r` is point first + i.
template <class M, class T, class Progress>
void run_points(const EnsembleSpec<T>& e, const sweep::SpaceView& s, std::uint64_t first, std::uint64_t count,
                EnsembleResult& r, const Progress& progress) {
  const std::int64_t n = static_cast<std::int64_t>(count);
  const int dims = s.dims;
  std::atomic<std::uint64_t> done{0};
#pragma omp parallel for schedule(dynamic, 8)
  for (std::int64_t i = 0; i < n; ++i) {
    double x[sweep::kMaxParams];
    const StickSlipMetrics<T> m = ensemble_point<M, T>(e, s, first + static_cast<std::uint64_t>(i), x);
    for (int d = 0; d < dims; ++d) r.values[i * dims + d] = x[d];
    StickSlipMetrics<double>& o = r.metrics[i];
    o.stick_slip = m.stick_slip;
    o.stick_fraction = m.stick_fraction;
    o.amp_spring_force = m.amp_spring_force;
    o.amp_velocity = m.amp_velocity;
    o.period = m.period;
    o.breakaway_force = m.breakaway_force;
    o.peak_velocity = m.peak_velocity;
    o.dissipated = m.dissipated;
    o.final_s = m.final_s;
    o.final_v = m.final_v;
    o.final_z = m.final_z;
    o.final_mode = m.final_mode;
    o.status = m.status;
    o.steps = m.steps;
    const std::uint64_t k = done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (omp_get_thread_num() == 0 && k < static_cast<std::uint64_t>(n)) progress(k);  // the end: run_ensemble
  }
}

// Why point i (coordinates x) was not simulated: the first rule it breaks,
// checked in the order ensemble_point checks them.
std::string invalid_reason(const SimulateConfig& c, const ModelInfo& m, const int* target, const double* x,
                           int dims) {
  std::vector<double> p = c.params;
  BodySystem<double> b = c.body;
  double brk = c.breakaway;
  for (int d = 0; d < dims; ++d) {
    if (target[d] >= 0) p[target[d]] = x[d];
    else set_field(b, brk, -1 - target[d], x[d]);
  }
  const auto why = validate_params(m, p.data());
  if (!why.empty()) return why.front();
  const std::pair<const char*, double> nonneg[] = {
      {"stiffness", b.stiffness}, {"damping", b.damping}, {"area_a", b.area_a}, {"area_b", b.area_b},
      {"drive_frequency", b.drive_velocity.frequency}, {"force_frequency", b.external_force.frequency}};
  if (!(b.mass > 0)) return "mass = " + format_number(b.mass) + " must be > 0";
  for (const auto& [name, v] : nonneg)
    if (!(v >= 0)) return std::string(name) + " = " + format_number(v) + " must be >= 0";
  std::string reason = "invalid";
  visit_model(c.model.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    const auto fc = M::prepare(p.data());
    if constexpr (M::kDynamic) {
      if (!M::ode_ok(fc)) reason = m.id + ": the ODE is not Lipschitz for these parameters (dahl needs alpha >= 1)";
    } else if (c.stiction) {
      const double slide0 = std::abs(M::force(fc, friction_sample(body_inputs(b, 0.0), 1e-12)));
      if (!(brk > 0) || !(brk >= slide0))
        reason = "breakaway = " + format_number(brk) + " is below the sliding force " + format_number(slide0) +
                 " just above zero velocity (must be > 0 and >= it)";
    }
  });
  return reason;
}

// What makes two runs parts of one ensemble: the config text (the space, the
// system, the model), the precision after --precision, and the content of
// the measured input tables it reads. The device is left out: shards from a
// GPU node and a CPU node belong together (they agree to 1e-12, not bit for bit).
std::string ensemble_identity(const SimulateConfig& c) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the text, then mixed
  for (unsigned char ch : c.text) h = (h ^ ch) * 0x100000001b3ull;
  h = sweep::mix64(h ^ (c.fp32 ? 32u : 64u));
  for (const auto& tab : c.tables) h = hash_doubles(hash_doubles(h, tab.t), tab.y);
  return hex64(h);
}

// The datasets of the HDF5 group in the order write_ensemble writes them.
std::vector<std::string> ensemble_dataset_names() {
  std::vector<std::string> k{"points"};
  for (const auto& [name, v] : stick_slip_metric_columns(StickSlipMetrics<double>{})) k.push_back(name);
  return k;
}

void write_results_atomically(const std::string& path, const Results& res) {
  AtomicFile out(path);
  std::remove(out.temp_path().c_str());  // append_results creates the HDF5 file itself
  append_results(out.temp_path(), res);
  out.commit();
}

std::uint64_t parse_u64(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end) throw InputError(where + ": '" + text + "' is not a count");
  return v;
}

// This machine's physical memory (0 when it cannot be read: no check then).
std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

bool ends_with(const std::string& s, const char* suffix) {
  const std::string x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

}  // namespace

std::uint64_t ensemble_result_bytes(std::uint64_t points, int dims) {
  const std::uint64_t per_point = sizeof(StickSlipMetrics<double>) + 8ull * dims  // the result
#if STRIBECK_HAVE_CUDA
                                  + 8ull * cuda::kEnsembleMetrics  // GPU staging
#endif
                                  + 8ull * (dims + 14);  // output columns (stick_slip_metric_columns)
  return points * per_point;
}

void check_ensemble_memory(std::uint64_t points, int dims, std::uint64_t physical_bytes, const std::string& where) {
  const std::uint64_t need = ensemble_result_bytes(points, dims);
  if (physical_bytes == 0 || need <= physical_bytes / 10 * 8) return;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                ": %llu points need about %.3g GB of host memory for their results, more than 80 %% of this "
                "machine's %.3g GB; split the space (--shard i/N, then stribeck merge)",
                static_cast<unsigned long long>(points), need / 1e9, physical_bytes / 1e9);
  throw InputError(where + buf);
}

EnsembleResult run_ensemble(const SimulateConfig& c, const EnsembleRunOptions& o) {
  const ModelInfo& m = require_model(c.model);
  if (m.params.size() > static_cast<size_t>(sweep::kMaxParams))
    throw InputError("model " + m.id + " has more parameters than an ensemble supports (16)");
  std::vector<double> list_values;
  int target[sweep::kMaxParams] = {};
  EnsembleResult r;
  sweep::SpaceView s = build_space(c, m, list_values, target, r.names);
  s.list_values = list_values.data();
  const ShardRange part = shard_range(o.shard, s.points);
  const std::uint64_t n = part.count;
  r.points = s.points;
  r.first = part.first;
  r.shard_index = part.index;
  r.shard_count = part.shards;
  if (n > 100'000'000ull)
    throw InputError(c.source + ": [ensemble]: " + std::to_string(n) + " points" +
                     (part.shards > 1 ? " in shard " + o.shard : std::string()) +
                     "; at most 1e8 per run on the CPU path (split it with --shard i/N)");
  check_ensemble_memory(n, s.dims, physical_memory_bytes(), c.source + ": [ensemble]");
  bool gpu = false;
  std::string gpu_name, reason = "this build has no CUDA support";
#if STRIBECK_HAVE_CUDA
  if (c.device != "cpu") gpu = cuda::probe_device(gpu_name, reason);
#endif
  if (c.device == "gpu" && !gpu) throw InputError(c.source + ": [ensemble]: device = \"gpu\" but no GPU is usable: " + reason);
  if (c.device == "auto" && !gpu) r.note = "no usable GPU (" + reason + "); running on the CPU";
  if (o.start) o.start();
  r.values.assign(n * s.dims, 0.0);  // after every check (and `start`), so a refused run allocates nothing
  r.metrics.assign(n, StickSlipMetrics<double>{});
  if (!r.note.empty() && o.note) o.note(r.note);
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  auto progress = [&](std::uint64_t done) {
    if (o.progress) o.progress(done, n, seconds());
  };
  if (gpu) {
#if STRIBECK_HAVE_CUDA
    r.device = "cuda:0 " + gpu_name;
    cuda::EnsembleRequest q;
    q.model_id = c.model.c_str();
    q.fp32 = c.fp32;
    q.spec64 = make_spec<double>(c, m, target);
    q.spec32 = make_spec<float>(c, m, target);
    const TypedTables tables64(c, q.spec64.base);  // host copies; run_ensemble uploads them
    const TypedTables tables32(c, q.spec32.base);
    q.space = s;
    q.n_list = list_values.size();
    q.first = part.first;
    q.count = n;
    std::vector<double> met(n * cuda::kEnsembleMetrics);
    q.values = r.values.data();
    q.metrics = met.data();
    cuda::run_ensemble(q);
    for (std::uint64_t i = 0; i < n; ++i) {
      const double* x = &met[i * cuda::kEnsembleMetrics];
      StickSlipMetrics<double>& o = r.metrics[i];
      o.stick_slip = static_cast<int>(x[0]);
      o.stick_fraction = x[1];
      o.amp_spring_force = x[2];
      o.amp_velocity = x[3];
      o.period = x[4];
      o.breakaway_force = x[5];
      o.peak_velocity = x[6];
      o.dissipated = x[7];
      o.final_s = x[8];
      o.final_v = x[9];
      o.final_z = x[10];
      o.final_mode = static_cast<int>(x[11]);
      o.status = static_cast<int>(x[12]);
      o.steps = static_cast<long>(x[13]);
    }
#endif
  } else {
    r.device = "cpu (" + std::to_string(omp_get_max_threads()) + " threads)";
    visit_model(c.model.c_str(), [&](auto tag) {
      using M = typename decltype(tag)::type;
      auto run = [&](auto spec) {
        const TypedTables tables(c, spec.base);
        run_points<M>(spec, s, part.first, n, r, progress);
      };
      if (c.fp32) run(make_spec<float>(c, m, target));
      else run(make_spec<double>(c, m, target));
    });
  }
  r.seconds = seconds();
  if (o.progress && n > 0) o.progress(n, n, r.seconds);
  for (std::uint64_t i = 0; i < n; ++i) {
    const StickSlipMetrics<double>& x = r.metrics[i];
    r.rk4_points += x.status != kSimInvalid;
    r.rk4_steps += x.steps;
    if (x.status == kSimInvalid && r.invalid_examples.size() < 3)
      r.invalid_examples.push_back("point " + std::to_string(part.first + i) + ": " +
                                   invalid_reason(c, m, target, &r.values[i * s.dims], s.dims));
  }
  return r;
}

void write_ensemble(const std::string& path, const EnsembleResult& r, const SimulateConfig& c,
                    const std::string& command_line) {
  const size_t n = r.metrics.size(), dims = r.names.size();
  if (ends_with(path, ".csv")) {
    AtomicFile out(path);
    std::string text = "# stribeck simulate " + c.source + ": ensemble of " + std::to_string(n) + " points, model " +
                       c.model + "\nindex";
    for (const auto& nm : r.names) text += "," + nm;
    for (const auto& [k, v] : stick_slip_metric_columns(StickSlipMetrics<double>{})) text += "," + k;
    text += '\n';
    std::FILE* f = out.stream();
    for (size_t i = 0; i < n; ++i) {
      text += std::to_string(i);
      for (size_t d = 0; d < dims; ++d) {
        text += ',';
        append_double(text, r.values[i * dims + d]);
      }
      for (const auto& [k, v] : stick_slip_metric_columns(r.metrics[i])) {
        text += ',';
        append_double(text, v);
      }
      text += '\n';
      if (text.size() > (1u << 20) || i + 1 == n) {
        if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) throw InputError(path + ": write failed");
        text.clear();
      }
    }
    out.commit();
    return;
  }
  Results res;
  res.group = "ensemble";
  std::string names;
  for (const auto& nm : r.names) names += (names.empty() ? "" : ",") + nm;
  res.datasets.push_back({"points", {n, dims}, r.values, "", "coordinates of each point: " + names});
  const auto keys = stick_slip_metric_columns(StickSlipMetrics<double>{});
  const size_t first = res.datasets.size();
  for (const auto& [k, v] : keys) res.datasets.push_back({k, {n}, {}, "", "per-trajectory metric (docs/dynamics.md)"});
  for (size_t i = 0; i < n; ++i) {
    const auto row = stick_slip_metric_columns(r.metrics[i]);
    for (size_t k = 0; k < row.size(); ++k) res.datasets[first + k].values.push_back(row[k].second);
  }
  res.attributes["names"] = names;
  res.attributes["model"] = c.model;
  res.attributes["form"] = c.stiction ? "stiction" : "smooth";
  res.attributes["precision"] = c.fp32 ? "fp32" : "fp64";
  res.attributes["ensemble_identity"] = ensemble_identity(c);
  res.attributes["points"] = std::to_string(r.points);
  res.attributes["first"] = std::to_string(r.first);
  res.attributes["count"] = std::to_string(n);
  res.attributes["shard_index"] = std::to_string(r.shard_index);
  res.attributes["shard_count"] = std::to_string(r.shard_count);
  res.provenance.command_line = command_line;
  res.provenance.config = c.text;
  res.provenance.device = r.device;
  write_results_atomically(path, res);
}

bool is_ensemble_file(const std::string& path) {
  try {
    if (!std::ifstream(path)) return false;
    const h5::File f = h5::open_file(path);  // attributes only: shard files can be large
    if (!h5::has_child(f.id(), "ensemble")) return false;
    const h5::Group g = h5::open_group(f.id(), "ensemble", path);
    return h5::has_attribute(g.id(), "ensemble_identity");
  } catch (const std::exception&) {
    return false;
  }
}

void merge_ensemble_files(const std::vector<std::string>& inputs, const std::string& output,
                          const std::string& command_line) {
  if (inputs.empty()) throw InputError("merge: no input files");
  if (ends_with(output, ".csv"))
    throw InputError(output + ": merged ensembles are written as HDF5 (name the output .h5)");
  struct Shard {
    std::string path;
    Results res;
    std::uint64_t points, first, count;
  };
  for (const auto& in : inputs)
    if (!is_ensemble_file(in)) throw InputError(in + ": not an ensemble shard file (stribeck simulate --shard i/N)");
  {
    // The whole ensemble's size from the first shard's attributes, before any
    // dataset is read: a merge that memory cannot hold is refused up front.
    const h5::File f = h5::open_file(inputs.front());
    const h5::Group g = h5::open_group(f.id(), "ensemble", inputs.front());
    const std::string at = inputs.front() + ": group 'ensemble'";
    const std::uint64_t points =
        parse_u64(h5::read_string_attribute(g.id(), "points", at), at + ": attribute 'points'");
    const std::string names = h5::read_string_attribute(g.id(), "names", at);
    const int dims = names.empty() ? 0 : 1 + static_cast<int>(std::count(names.begin(), names.end(), ','));
    check_ensemble_memory(points, dims, physical_memory_bytes(), "merge");
  }
  std::vector<Shard> shards;
  for (const auto& in : inputs) {
    Shard sh{in, read_results(in, "ensemble"), 0, 0, 0};
    const std::string at = in + ": group 'ensemble'";
    auto& a = sh.res.attributes;
    for (const char* k : {"points", "first", "count", "names", "model", "form", "precision"})
      if (!a.count(k)) throw InputError(at + ": no attribute '" + k + "'");
    sh.points = parse_u64(a["points"], at + ": attribute 'points'");
    sh.first = parse_u64(a["first"], at + ": attribute 'first'");
    sh.count = parse_u64(a["count"], at + ": attribute 'count'");
    shards.push_back(std::move(sh));
  }
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.first < b.first; });
  const Shard& s0 = shards.front();
  size_t dims = 0;
  for (const auto& d : s0.res.datasets)
    if (d.name == "points" && d.shape.size() == 2) dims = d.shape[1];
  const std::vector<std::string> keys = ensemble_dataset_names();
  std::uint64_t next = 0;
  for (const Shard& sh : shards) {
    for (const char* k : {"ensemble_identity", "points", "names", "model", "form", "precision"})
      if (sh.res.attributes.at(k) != s0.res.attributes.at(k))
        throw InputError(sh.path + ": belongs to a different ensemble than " + s0.path +
                         " (config, precision or measured inputs differ)");
    if (sh.first != next)
      throw InputError(sh.path + ": shard starts at point " + std::to_string(sh.first) + ", expected " +
                       std::to_string(next) + (sh.first < next ? " (overlapping shards)" : " (a shard is missing)"));
    for (const auto& k : keys) {
      const ResultDataset* d = nullptr;
      for (const auto& x : sh.res.datasets)
        if (x.name == k) d = &x;
      const size_t width = k == "points" ? dims : 1;
      if (!d || d->values.size() != sh.count * width)
        throw InputError(sh.path + ": group 'ensemble': dataset '" + k + "' is missing or does not hold " +
                         std::to_string(sh.count) + " points");
    }
    next = sh.first + sh.count;
  }
  if (next != s0.points)
    throw InputError(shards.back().path + ": the last shard ends at point " + std::to_string(next) + " of " +
                     std::to_string(s0.points) + " (a shard is missing)");

  Results res;
  res.group = "ensemble";
  res.attributes = s0.res.attributes;
  res.attributes["first"] = "0";
  res.attributes["count"] = std::to_string(s0.points);
  res.attributes["shard_index"] = "0";
  res.attributes["shard_count"] = "1";
  res.attributes["merged_from"] = std::to_string(shards.size()) + " shards";
  std::string devices;
  for (const Shard& sh : shards)
    if (devices.find(sh.res.provenance.device) == std::string::npos)
      devices += (devices.empty() ? "" : "; ") + sh.res.provenance.device;
  res.provenance.command_line = command_line;
  res.provenance.config = s0.res.provenance.config;
  res.provenance.device = "merged from " + std::to_string(shards.size()) + " shards: " + devices;
  for (const auto& k : keys) {
    ResultDataset out;
    for (Shard& sh : shards)
      for (auto& d : sh.res.datasets)
        if (d.name == k) {
          if (out.name.empty()) out = ResultDataset{d.name, {}, {}, d.units, d.description};
          out.values.insert(out.values.end(), d.values.begin(), d.values.end());
          std::vector<double>().swap(d.values);  // free the shard's copy as it is merged
        }
    out.shape = {static_cast<unsigned long long>(s0.points)};
    if (k == "points") out.shape.push_back(dims);
    res.datasets.push_back(std::move(out));
  }
  write_results_atomically(output, res);
}

}  // namespace stribeck
