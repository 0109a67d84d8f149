// Ensembles of body simulations, chunk by chunk, on the GPU or the CPU
// (OpenMP over points); the chunks go to an EnsembleSink (ensemble_output.cpp).
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/output_space.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <type_traits>

#include "ensemble_output.hpp"
#include "lanes/ensemble_lanes.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/device.hpp"
#include "stribeck/engine/model_rules.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/engine/runner.hpp"
#include "stribeck/workloads/sweep.hpp"
#include "stribeck/kernels/sweep/rng.hpp"
#include "stribeck/kernels/systems/ensemble.hpp"
#if STRIBECK_HAVE_CUDA
#include "stribeck/kernels/cuda/ensemble_cuda.hpp"
#endif

namespace stribeck::workloads {
namespace {

// The fit's free parameters (from_fit) as the joint-normal axes after the
// config's own: their mean and Cholesky factor (and a split normal's scales
// and bounds) go to list_values.
void add_prior_axes(const SimulateConfig& c, const ModelInfo& m, std::vector<double>& list_values, int* target,
                    std::vector<std::string>& names, sweep::SpaceView& s) {
  const FitPrior& p = c.prior;
  if (p.file.empty()) return;
  const int k = static_cast<int>(p.names.size());
  if (s.dims + k > sweep::kMaxParams)
    throw data::InputError(c.source + ": [ensemble]: at most 16 varying quantities (the fit draws " +
                           std::to_string(k) + ")");
  for (const auto& spec : c.axes)
    for (const auto& n : p.names)
      if (spec.name == n)
        throw data::InputError(spec.where + ": " + n +
                               " is drawn from the fit (from_fit); remove it from [ensemble.params]");
  const int first = s.dims;
  s.joint = k;
  s.joint_offset = list_values.size();
  s.joint_split = p.draw == FitDraw::kProfileIntervals;
  const std::vector<double> joint = p.joint_list();
  list_values.insert(list_values.end(), joint.begin(), joint.end());
  for (int j = 0; j < k; ++j) {
    sweep::Axis& ax = s.axis[first + j];
    ax.kind = sweep::AxisKind::kJointNormal;
    ax.count = static_cast<std::uint64_t>(j);
    ax.a = p.transform[j];
    ax.b = p.base[j] >= 0 ? first + p.base[j] : 0;
    target[first + j] = m.param_index(p.names[j]);
    names.push_back(p.names[j]);
  }
  s.dims += k;
}

// Space axes from the parsed specs, with the sweep's own axis and point-count
// rules (fill_axis, design_points); the axes may also name system quantities.
sweep::SpaceView build_space(const SimulateConfig& c, const ModelInfo& m, std::vector<double>& list_values, int* target,
                             std::vector<std::string>& names) {
  if (c.axes.size() > static_cast<size_t>(sweep::kMaxParams))
    throw data::InputError(c.source + ": [ensemble.params]: at most 16 varying quantities");
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
      for (int f = 0; f < kNumEnsembleFields; ++f)
        known += std::string(ensemble_field_name(f)) + (f + 1 < kNumEnsembleFields ? ", " : "");
      throw data::InputError(at + ": not a parameter of " + m.id + " nor a system quantity (known: " + known + ")");
    }
    if (field == kFieldBreakaway && !c.stiction)
      throw data::InputError(at + ": breakaway varies only with form = \"stiction\"");
    target[d] = pi >= 0 ? pi : -1 - field;
    sweep::Axis& ax = s.axis[d];
    fill_axis(spec, grid, at, list_values, ax);
    grid_points *= static_cast<long double>(ax.count);
  }
  add_prior_axes(c, m, list_values, target, names, s);
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

// Whether one of the first n dimensions varies the breakaway (then it holds
// on both sides, not the law's own).
bool breakaway_varies(const int* target, int n) {
  for (int d = 0; d < n; ++d)
    if (target[d] == -1 - kFieldBreakaway) return true;
  return false;
}

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
  // A breakaway axis gives the breakaway on both sides instead of the law.
  e.breakaway_from = breakaway_varies(target, sweep::kMaxParams) ? BreakawayParams{} : c.breakaway_from;
  e.stiction = c.stiction;
  e.sim.t_end = T(c.sim.t_end);
  e.sim.dt = T(c.sim.dt);
  e.sim.max_substeps = c.sim.max_substeps;
  e.sim.max_events = c.sim.max_events;
  e.sim.integrator = c.sim.integrator;
  e.metrics.settle_fraction = T(c.metrics.settle_fraction);
  e.metrics.v_stick = T(c.metrics.v_stick);
  e.metrics.v_breakaway = T(c.metrics.v_breakaway);
  e.rules = engine::model_rules(m);  // bounded as a sweep's: relations past kMaxRelations are refused
  for (int d = 0; d < sweep::kMaxParams; ++d) e.target[d] = target[d];
  return e;
}

// Points [first, first + count) of the space into one chunk's buffers (row i
// is point first + i). `progress(done)` is called by thread 0 after each of
// its points (points take milliseconds to seconds, so that is often enough
// and costs nothing).
template <class M, class T, class Progress>
void run_points(const EnsembleSpec<T>& e, const sweep::SpaceView& s, std::uint64_t first, std::uint64_t count,
                double* values, StickSlipMetrics<double>* metrics, const Progress& progress) {
  const std::int64_t n = static_cast<std::int64_t>(count);
  const int dims = s.dims;
  std::atomic<std::uint64_t> done{0};
#pragma omp parallel for schedule(dynamic, 8)
  for (std::int64_t i = 0; i < n; ++i) {
    double x[sweep::kMaxParams];
    const StickSlipMetrics<T> m = ensemble_point<M, T>(e, s, first + static_cast<std::uint64_t>(i), x);
    for (int d = 0; d < dims; ++d) values[i * dims + d] = x[d];
    metrics[i] = engine::convert<double>(m);
    const std::uint64_t k = done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (omp_get_thread_num() == 0 && k < static_cast<std::uint64_t>(n)) progress(k);  // the end: the chunk loop
  }
}

// The same points through the SIMD lanes (lanes::EnsembleGroupFn): groups
// of `width` consecutive points, one group per OpenMP iteration; a point the
// lanes do not run (invalid, stiction form, inputs not affine) runs alone
// through ensemble_point.
template <class M, class T, class Progress>
void run_points_lanes(const EnsembleSpec<T>& e, const sweep::SpaceView& s, lanes::EnsembleGroupFn<T> group, int width,
                      std::uint64_t first, std::uint64_t count, double* values, StickSlipMetrics<double>* metrics,
                      const Progress& progress) {
  const std::int64_t n = static_cast<std::int64_t>(count);
  const std::int64_t n_groups = (n + width - 1) / width;
  const int dims = s.dims;
  std::atomic<std::uint64_t> done{0};
#pragma omp parallel
  {
    std::vector<StickSlipMetrics<T>> m(static_cast<std::size_t>(width));
    std::vector<unsigned char> ran(static_cast<std::size_t>(width));
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t g = 0; g < n_groups; ++g) {
      const std::int64_t i0 = g * width;
      const int k = static_cast<int>(std::min<std::int64_t>(width, n - i0));
      group(e, s, first + static_cast<std::uint64_t>(i0), k, values + i0 * dims, m.data(), ran.data());
      for (int j = 0; j < k; ++j) {
        const std::int64_t i = i0 + j;
        if (!ran[j]) m[j] = ensemble_point<M, T>(e, s, first + static_cast<std::uint64_t>(i), values + i * dims);
        metrics[i] = engine::convert<double>(m[j]);
      }
      const std::uint64_t d = done.fetch_add(static_cast<std::uint64_t>(k), std::memory_order_relaxed) + k;
      if (omp_get_thread_num() == 0 && d < static_cast<std::uint64_t>(n)) progress(d);
    }
  }
}

// The SIMD lanes of the level the CPU sweep uses (cpu_vector_level); none
// for "scalar".
lanes::EnsembleKernels ensemble_lane_kernels(const std::string& model) {
  const std::string level = cpu_vector_level();
#if STRIBECK_LANES_HAVE_x86_64_v4
  if (level == "x86-64-v4") return lanes::x86_64_v4::ensemble_kernels(model.c_str());
#endif
#if STRIBECK_LANES_HAVE_x86_64_v3
  if (level == "x86-64-v3") return lanes::x86_64_v3::ensemble_kernels(model.c_str());
#endif
  if (level == "generic") return lanes::generic::ensemble_kernels(model.c_str());
  return {};
}

// A chunk's counts where the device reduced them (the GPU path): the points
// of each status, those with stick-slip, and their RK4 steps.
struct DeviceCounts {
  bool filled = false;
  std::uint64_t status[engine::kPointStatusCount] = {};
  std::uint64_t stick_slip = 0, steps = 0;
};

#if STRIBECK_HAVE_CUDA
// A chunk on the GPU: one launch of gpu::run_ensemble, metrics unpacked
// (ensemble_metric_values packs them in the field table's order; the test
// Records.StickSlipPackingMatchesTheGpuStaging checks it), counts reduced on
// the device.
static_assert(gpu::kEnsembleMetrics == static_cast<int>(engine::kStickSlipFieldCount),
              "the GPU's metric row and the StickSlipMetrics field table disagree");
static_assert(gpu::kEnsembleStatuses == engine::kPointStatusCount, "the device counts other statuses");
void gpu_points(gpu::EnsembleRequest& q, std::uint64_t first, std::uint64_t count, double* values,
                StickSlipMetrics<double>* metrics, std::vector<double>& staging, DeviceCounts& counts) {
  staging.resize(count * gpu::kEnsembleMetrics);
  q.first = first;
  q.count = count;
  q.values = values;
  q.metrics = staging.data();
  gpu::EnsembleCounts c;
  q.counts = &c;
  gpu::run_ensemble(q);
  q.counts = nullptr;
  counts.filled = true;
  std::copy(c.status, c.status + gpu::kEnsembleStatuses, counts.status);
  counts.stick_slip = c.stick_slip;
  counts.steps = c.steps;
  // On every core: a million-trajectory chunk unpacks 130 MB of rows.
  const std::int64_t n = static_cast<std::int64_t>(count);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) engine::unpack(&staging[i * gpu::kEnsembleMetrics], metrics[i]);
}
#endif

// The base config with point coordinates x applied: model parameters, system
// quantities, the breakaway.
void apply_point(SimulateConfig& c, const int* target, const double* x, int dims) {
  for (int d = 0; d < dims; ++d) {
    if (target[d] >= 0) c.params[target[d]] = x[d];
    else set_field(c.body, c.breakaway, -1 - target[d], x[d]);
  }
  if (breakaway_varies(target, dims)) c.breakaway_from = BreakawayParams{};
}

// Why point i (coordinates x) is not simulated: the first rule it breaks,
// checked in the order ensemble_point checks them ("" when it breaks none).
std::string invalid_reason(const SimulateConfig& base, const ModelInfo& m, const int* target, const double* x,
                           int dims) {
  SimulateConfig c = base;
  apply_point(c, target, x, dims);
  const std::vector<double>& p = c.params;
  const BodySystem<double>& b = c.body;
  const auto why = validate_params(m, p.data());
  if (!why.empty()) return why.front();
  const std::pair<const char*, double> nonneg[] = {{"stiffness", b.stiffness},
                                                   {"damping", b.damping},
                                                   {"area_a", b.area_a},
                                                   {"area_b", b.area_b},
                                                   {"drive_frequency", b.drive_velocity.frequency},
                                                   {"force_frequency", b.external_force.frequency}};
  if (!(b.mass > 0)) return "mass = " + format_number(b.mass) + " must be > 0";
  for (const auto& [name, v] : nonneg)
    if (!(v >= 0)) return std::string(name) + " = " + format_number(v) + " must be >= 0";
  if (!normal_force_valid(b.normal_force, c.sim.t_end))
    return "normal_force = " + format_number(b.normal_force.offset) +
           " must be >= 0 (with its amplitude and slope, over the run)";
  std::string reason;
  visit_model(c.model.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    const auto fc = M::prepare(p.data());
    if constexpr (M::kDynamic) {
      if (!M::ode_ok(fc)) reason = m.id + ": the ODE is not Lipschitz for these parameters (dahl needs alpha >= 1)";
    } else if (c.stiction) {
      StictionBreakaway<double> brk;
      reason = stiction_breakaway_problem<M>(c, b, p.data(), brk);
    }
  });
  return reason;
}

// The ensemble as a workload of the engine: a chunk's coordinates and
// metrics in two buffer slots, simulated by `simulate` (CPU or GPU), tallied
// (status, stick-slip, RK4 steps: on the GPU path as the device reduced
// them; why a point is invalid) and handed to the sink with its checkpoint.
template <class Simulate>
class EnsembleWorkload : public engine::Workload {
 public:
  EnsembleWorkload(const SimulateConfig& c, const ModelInfo& m, const int* target, int dims, EnsembleSink& sink,
                   EnsembleResult& r, Simulate& simulate)
      : c_(c), m_(m), target_(target), dims_(dims), sink_(sink), r_(r), simulate_(simulate) {}

  void compute(int slot, std::uint64_t first, std::uint64_t k,
               const std::function<void(std::uint64_t)>& progress) override {
    values_[slot].assign(k * dims_, 0.0);
    metrics_[slot].assign(k, StickSlipMetrics<double>{});
    counts_[slot] = DeviceCounts{};
    simulate_(first, k, values_[slot].data(), metrics_[slot].data(), progress, counts_[slot]);
  }
  void tally(int slot, std::uint64_t first, std::uint64_t k, engine::Totals& t) override {
    const DeviceCounts& d = counts_[slot];
    std::uint64_t invalid = 0;
    if (d.filled) {
      std::uint64_t counted = 0;
      for (int s = 0; s < engine::kPointStatusCount; ++s) {
        t.add(engine::from_sim_status(s), d.status[s]);
        counted += d.status[s];
      }
      // A code outside the statuses falls in no bin of the device's
      // histogram; from_sim_status counts it as invalid.
      t.add(engine::PointStatus::kInvalid, k - counted);
      invalid = d.status[kSimInvalid] + k - counted;
      r_.totals.stick_slip += d.stick_slip;  // t is r_.totals
      r_.rk4_steps += static_cast<long long>(d.steps);
    }
    // The CPU path's points are counted here; on either path the first
    // invalid points are explained, in point order.
    for (std::uint64_t i = 0; i < k && (!d.filled || (invalid && t.wants_example())); ++i) {
      const StickSlipMetrics<double>& x = metrics_[slot][i];
      const engine::PointStatus st = engine::from_sim_status(x.status);
      if (!d.filled) {
        t.add(st);
        r_.totals.stick_slip += x.stick_slip != 0;
        r_.rk4_steps += x.steps;
      }
      if (st == engine::PointStatus::kInvalid && t.wants_example())
        t.add_example(first + i, invalid_reason(c_, m_, target_, &values_[slot][i * dims_], dims_));
    }
  }
  std::function<void()> write(int slot, std::uint64_t k, const engine::Totals&) override {
    return [this, slot, k, snapshot = r_.totals] {
      sink_.append(k, values_[slot].data(), metrics_[slot].data());
      sink_.checkpoint(snapshot);
    };
  }

 private:
  const SimulateConfig& c_;
  const ModelInfo& m_;
  const int* target_;
  int dims_;
  EnsembleSink& sink_;
  EnsembleResult& r_;
  Simulate& simulate_;
  std::vector<double> values_[2];
  std::vector<StickSlipMetrics<double>> metrics_[2];
  DeviceCounts counts_[2];
};

// This machine's physical memory (0 when it cannot be read: no check then).
std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

}  // namespace

// The comment line ensemble_point_config appends to the config text.
constexpr const char* kPointMark = "\n# stribeck simulate --point ";

SimulateConfig ensemble_point_config(const SimulateConfig& c, std::uint64_t index) {
  const ModelInfo& m = require_model(c.model);
  std::vector<double> list_values;
  int target[sweep::kMaxParams] = {};
  std::vector<std::string> names;
  sweep::SpaceView s = build_space(c, m, list_values, target, names);
  s.list_values = list_values.data();
  if (index >= s.points)
    throw data::InputError("--point " + std::to_string(index) + ": the ensemble of " + c.source + " has " +
                           std::to_string(s.points) + " points (0 to " + std::to_string(s.points - 1) + ")");
  double x[sweep::kMaxParams];
  sweep::space_point(s, index, x);
  const std::string why = invalid_reason(c, m, target, x, s.dims);
  if (!why.empty())
    throw data::InputError("--point " + std::to_string(index) + ": not simulated in the ensemble: " + why);
  SimulateConfig one = c;
  apply_point(one, target, x, s.dims);
  one.ensemble = false;
  one.axes.clear();
  one.warnings = param_warnings(m, one.params.data());
  std::string coords;
  for (int d = 0; d < s.dims; ++d) coords += (d ? ", " : "") + names[d] + " = " + format_number(x[d]);
  one.text += kPointMark + std::to_string(index) + ": " + coords + "\n";
  return one;
}

std::string ensemble_point_label(const SimulateConfig& c) {
  const size_t at = c.text.rfind(kPointMark);
  if (at == std::string::npos) return "";
  std::string line = c.text.substr(at + std::strlen(kPointMark));
  while (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

std::string ensemble_report(const EnsembleResult& r, const std::string& shard, bool fp32, const std::string& where) {
  const std::string part = r.shard_count > 1 ? ", shard " + shard + " of " + std::to_string(r.points) : std::string();
  const auto& n = r.totals.status_counts;
  // Room for the fixed text and the numbers, and for every string whole.
  std::string buf(1024 + part.size() + r.device.size() + where.size(), '\0');
  const int len = std::snprintf(
      buf.data(), buf.size(),
      "stribeck simulate: ensemble of %llu points%s (%s, %s): %llu simulated in %.3g s, %.3g RK4 "
      "steps/s -> %s\n"
      "  stick-slip in %llu; status ok %llu, non-finite %llu, step-limit %llu, event-limit %llu, "
      "invalid-parameters %llu",
      static_cast<unsigned long long>(r.count), part.c_str(), fp32 ? "fp32" : "fp64", r.device.c_str(),
      static_cast<unsigned long long>(r.evaluated), r.seconds, r.seconds > 0 ? double(r.rk4_steps) / r.seconds : 0.0,
      where.c_str(), static_cast<unsigned long long>(r.totals.stick_slip), static_cast<unsigned long long>(n[0]),
      static_cast<unsigned long long>(n[1]), static_cast<unsigned long long>(n[2]),
      static_cast<unsigned long long>(n[3]), static_cast<unsigned long long>(n[4]));
  buf.resize(static_cast<size_t>(len));
  return buf;
}

Probability stick_slip_probability(const EnsembleTotals& t) {
  Probability p;
  p.draws = t.status_counts[0] + t.status_counts[4];
  if (p.draws == 0) return p;
  p.value = static_cast<double>(t.stick_slip) / static_cast<double>(p.draws);
  p.std_error = std::sqrt(p.value * (1.0 - p.value) / static_cast<double>(p.draws));
  return p;
}

std::uint64_t ensemble_result_bytes(std::uint64_t points, int dims) {
  // The coordinates and metrics of every point; a chunk's buffers and the
  // GPU's staging copy are bounded by the chunk, not counted.
  return points * (sizeof(StickSlipMetrics<double>) + 8ull * static_cast<std::uint64_t>(dims));
}

void check_ensemble_memory(std::uint64_t points, int dims, std::uint64_t physical_bytes, const std::string& where) {
  const std::uint64_t need = ensemble_result_bytes(points, dims);
  if (physical_bytes == 0 || need <= physical_bytes / 10 * 8) return;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                ": %llu points need about %.3g GB of host memory for their results, more than 80 %% of this "
                "machine's %.3g GB; write them to a file (-o OUT.h5), which streams them",
                static_cast<unsigned long long>(points), need / 1e9, physical_bytes / 1e9);
  throw data::InputError(where + buf);
}

EnsembleResult run_ensemble(const SimulateConfig& c, const EnsembleRunOptions& o) {
  const ModelInfo& m = require_model(c.model);
  if (m.params.size() > static_cast<size_t>(sweep::kMaxParams))
    throw data::InputError("model " + m.id + " has more parameters than an ensemble supports (16)");
  std::vector<double> list_values;
  int target[sweep::kMaxParams] = {};
  EnsembleResult r;
  sweep::SpaceView s = build_space(c, m, list_values, target, r.names);
  s.list_values = list_values.data();
  const engine::Range part = engine::split_range(o.shard, s.points);
  const std::uint64_t n = part.count;
  r.points = s.points;
  r.first = part.first;
  r.count = n;
  r.shard_index = part.shard_index;
  r.shard_count = part.shard_count;
  const bool csv = is_csv_output(o.output);
  // A chunk's buffers take about 350 B per point (docs/dynamics.md): 2^24
  // points, 6 GB, is far beyond what keeps a GPU busy.
  if (o.chunk > kMaxEnsembleChunk)
    throw data::InputError("--chunk " + std::to_string(o.chunk) + ": at most " + std::to_string(kMaxEnsembleChunk) +
                           " points per chunk");
  if (o.output.empty()) {
    if (o.resume) throw data::InputError("--resume needs an output file (-o OUT.h5)");
    if (n > 100'000'000ull)
      throw data::InputError(c.source + ": [ensemble]: " + std::to_string(n) + " points" +
                             (part.shard_count > 1 ? " in shard " + o.shard : std::string()) +
                             "; at most 1e8 per run with the results in memory (write them to a file)");
    check_ensemble_memory(n, s.dims, physical_memory_bytes(), c.source + ": [ensemble]");
  } else if (csv && (o.resume || o.max_chunks)) {
    throw data::InputError(std::string(o.resume ? "--resume" : "--max-chunks") + ": " + o.output +
                           ": a CSV output has no checkpoints; write HDF5 (-o OUT.h5) to stop and resume");
  }
  if (!o.output.empty()) {
    // Coordinates and metrics as float64 (HDF5), or about 24 characters a
    // number (CSV).
    const double numbers = static_cast<double>(s.dims) + sizeof(StickSlipMetrics<double>) / 8.0;
    const double per_point = csv ? 24 * (numbers + 1) : 8 * numbers;
    char what[128];
    std::snprintf(what, sizeof what, "%.4g points x %.0f B", static_cast<double>(n), per_point);
    check_output_space(o.output, per_point * static_cast<double>(n), o.allow_large_output, o.resume, what);
  }
  const DeviceChoice dev = choose_device(
      c.device, c.source + ": [ensemble] device",
      "cpu (" + std::to_string(omp_get_max_threads()) + (omp_get_max_threads() == 1 ? " thread)" : " threads)"));
  const bool gpu = dev.gpu;
  r.note = dev.note;
  r.device = gpu ? "cuda:0 " + dev.name : dev.name;
  // Opened before `start`: a --resume of another run's partial file is
  // refused before anything is announced or allocated.
  const std::unique_ptr<EnsembleSink> sink = open_ensemble_sink(c, o, r);
  if (o.start) o.start();
  if (!r.note.empty() && o.note) o.note(r.note);
  engine::RunOptions ro;
  ro.chunk = o.chunk ? o.chunk : gpu ? std::uint64_t(1) << 20 : std::uint64_t(1) << 14;
  ro.max_chunks = o.max_chunks;
  ro.progress = o.progress;
  const auto t0 = std::chrono::steady_clock::now();
  auto run = [&](auto&& simulate) {
    EnsembleWorkload<std::decay_t<decltype(simulate)>> w(c, m, target, s.dims, *sink, r, simulate);
    const engine::RunStats st = engine::run(part, w, r.totals, ro);
    r.simulate_seconds += st.compute_seconds;
    r.evaluated += st.evaluated;
  };
  if (gpu) {
#if STRIBECK_HAVE_CUDA
    gpu::EnsembleRequest q;
    q.model_id = c.model.c_str();
    q.fp32 = c.fp32;
    q.spec64 = make_spec<double>(c, m, target);
    q.spec32 = make_spec<float>(c, m, target);
    const TypedTables tables64(c, q.spec64.base);  // host copies; gpu::run_ensemble uploads them
    const TypedTables tables32(c, q.spec32.base);
    q.space = s;
    q.n_list = list_values.size();
    // One workspace for the run's chunks: streams and buffers allocated once.
    const gpu::WorkspacePtr ws = gpu::make_workspace();
    q.workspace = ws.get();
    std::vector<double> staging;
    run([&](std::uint64_t first, std::uint64_t k, double* values, StickSlipMetrics<double>* metrics,
            const std::function<void(std::uint64_t)>&,
            DeviceCounts& counts) { gpu_points(q, first, k, values, metrics, staging, counts); });
#endif
  } else {
    const lanes::EnsembleKernels lk = ensemble_lane_kernels(c.model);
    visit_model(c.model.c_str(), [&](auto tag) {
      using M = typename decltype(tag)::type;
      auto with_spec = [&](auto spec, auto group, int width) {
        const TypedTables tables(c, spec.base);
        run([&](std::uint64_t first, std::uint64_t k, double* values, StickSlipMetrics<double>* metrics,
                const std::function<void(std::uint64_t)>& progress, DeviceCounts&) {
          if (group) run_points_lanes<M>(spec, s, group, width, first, k, values, metrics, progress);
          else run_points<M>(spec, s, first, k, values, metrics, progress);
        });
      };
      if (c.fp32) with_spec(make_spec<float>(c, m, target), lk.fp32, lk.width32);
      else with_spec(make_spec<double>(c, m, target), lk.fp64, lk.width64);
    });
  }
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  r.finished = r.totals.completed == n;
  if (r.finished) {
    sink->finish(r.totals);
    r.output = o.output;
  }
  r.seconds = seconds();
  return r;
}

}  // namespace stribeck::workloads
