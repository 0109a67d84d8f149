// The CPU path: OpenMP over parameter sets. Memoryless laws run in SIMD
// batches of parameter sets (kernels/sweep/lanes.hpp, built per instruction
// set in lanes/); stateful models run one point per thread with the same
// per-trajectory code as a GPU thread (kernels/sweep/trajectory.hpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "lanes/sweep_lanes.hpp"
#include "stribeck/data/error.hpp"

#include "stribeck/workloads/sweep.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/sweep/trajectory.hpp"

namespace stribeck::workloads {
namespace {

// The traces converted to the working scalar, with views onto them.
template <class T>
struct TypedTraces {
  std::vector<std::vector<T>> store;
  std::vector<sweep::TraceView<T>> views;
  std::vector<sweep::TraceCounts> counts;

  explicit TypedTraces(const std::vector<SweepTrace>& traces) {
    store.reserve(traces.size() * sweep::kTraceChannels);
    auto conv = [&](const std::vector<double>& src) -> const T* {
      if (src.empty()) return nullptr;
      store.emplace_back(src.begin(), src.end());
      return store.back().data();
    };
    for (const auto& t : traces) {
      sweep::TraceView<T> v;
      t.point_view(v, conv);
      views.push_back(v);
      counts.push_back(t.counts);
    }
  }
};

// Writes one point's results into row j of the chunk.
struct ChunkRows {
  const SweepPlan& plan;
  data::SweepChunk& out;
  const std::vector<sweep::TraceCounts>& counts;

  void invalid(std::int64_t j) const {
    const int n_exp = static_cast<int>(counts.size());
    out.status[j] = kSimInvalid;
    double* met = &out.metrics[static_cast<std::size_t>(j) * sweep::kNumMetrics];
    std::fill(met, met + sweep::kNumMetrics, NAN);
    if (plan.per_experiment)
      std::fill_n(&out.exp_metrics[static_cast<std::size_t>(j) * n_exp * sweep::kNumMetrics],
                  n_exp * sweep::kNumMetrics, NAN);
  }
  // raw[e]: the point's sums of experiment e.
  void finish(std::int64_t j, const sweep::RawMetrics* raw) const {
    const int n_exp = static_cast<int>(counts.size());
    sweep::RawMetrics total;
    bool finite = true, has_force = false;
    for (int e = 0; e < n_exp; ++e) {
      total.add(raw[e]);
      finite = finite && sweep::raw_finite(raw[e]);
      has_force = has_force || counts[e].has_force;
      if (plan.per_experiment)
        sweep::finalize_metrics(raw[e], counts[e].has_force,
                                &out.exp_metrics[(static_cast<std::size_t>(j) * n_exp + e) * sweep::kNumMetrics]);
    }
    sweep::finalize_metrics(total, has_force, &out.metrics[static_cast<std::size_t>(j) * sweep::kNumMetrics]);
    out.status[j] = finite ? kSimOk : kSimNonFinite;
  }
};

// One point per loop iteration: every model, stateful ones included.
template <class M, class T>
void run_cpu_points(const SweepPlan& plan, std::uint64_t first, std::uint64_t count, data::SweepChunk& out) {
  const TypedTraces<T> tt(plan.traces);
  const ChunkRows rows{plan, out, tt.counts};
  const int n_exp = static_cast<int>(tt.views.size());
  const std::int64_t n = static_cast<std::int64_t>(count);
#pragma omp parallel
  {
    std::vector<sweep::RawMetrics> raw(n_exp);
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t j = 0; j < n; ++j) {
      double* p = &out.params[static_cast<std::size_t>(j) * plan.space.dims];
      plan.point(first + static_cast<std::uint64_t>(j), p);
      if (!sweep::params_valid(plan.rules, p)) {
        rows.invalid(j);
        continue;
      }
      sweep::evaluate_point<M, T>(p, tt.views.data(), tt.counts.data(), n_exp, raw.data());
      rows.finish(j, raw.data());
    }
  }
}

// Batches of `width` valid points through a SIMD lane kernel. A batch short
// of valid points is padded with copies of its first one (their results are
// dropped); a lane's result does not depend on its neighbours.
template <class T>
void run_cpu_lanes(const SweepPlan& plan, lanes::BatchFn<T> batch, int width, std::uint64_t first, std::uint64_t count,
                   data::SweepChunk& out) {
  const TypedTraces<T> tt(plan.traces);
  const ChunkRows rows{plan, out, tt.counts};
  const int n_exp = static_cast<int>(tt.views.size());
  const int dims = plan.space.dims;
  const std::int64_t n = static_cast<std::int64_t>(count);
  const std::int64_t n_batches = (n + width - 1) / width;
#pragma omp parallel
  {
    std::vector<double> params(static_cast<std::size_t>(width) * dims);
    std::vector<sweep::RawMetrics> raw(static_cast<std::size_t>(width) * n_exp);
    std::vector<std::int64_t> row(width);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < n_batches; ++b) {
      int lanes = 0;
      for (std::int64_t j = b * width; j < std::min(n, (b + 1) * width); ++j) {
        double* p = &out.params[static_cast<std::size_t>(j) * dims];
        plan.point(first + static_cast<std::uint64_t>(j), p);
        if (!sweep::params_valid(plan.rules, p)) {
          rows.invalid(j);
          continue;
        }
        std::copy(p, p + dims, &params[static_cast<std::size_t>(lanes) * dims]);
        row[lanes++] = j;
      }
      if (lanes == 0) continue;
      for (int l = lanes; l < width; ++l)
        std::copy(params.begin(), params.begin() + dims, params.begin() + static_cast<std::ptrdiff_t>(l) * dims);
      batch(params.data(), tt.views.data(), tt.counts.data(), n_exp, raw.data());
      for (int l = 0; l < lanes; ++l) rows.finish(row[l], &raw[static_cast<std::size_t>(l) * n_exp]);
    }
  }
}

struct CpuLevel {
  const char* name;
  lanes::Kernels (*kernels)(const char* model_id);  // null: one point at a time
  bool runs_here;
};

std::vector<CpuLevel> cpu_levels() {
  std::vector<CpuLevel> levels;
#if STRIBECK_LANES_HAVE_x86_64_v4
  levels.push_back({"x86-64-v4", &lanes::x86_64_v4::kernels, __builtin_cpu_supports("x86-64-v4") != 0});
#endif
#if STRIBECK_LANES_HAVE_x86_64_v3
  levels.push_back({"x86-64-v3", &lanes::x86_64_v3::kernels, __builtin_cpu_supports("x86-64-v3") != 0});
#endif
  levels.push_back({"generic", &lanes::generic::kernels, true});
  levels.push_back({"scalar", nullptr, true});
  return levels;
}

// The level STRIBECK_CPU_ISA names, else the best one this processor runs.
CpuLevel cpu_level() {
  const auto levels = cpu_levels();
  const char* want = std::getenv("STRIBECK_CPU_ISA");
  if (want == nullptr || *want == '\0')
    return *std::find_if(levels.begin(), levels.end(), [](const CpuLevel& l) { return l.runs_here; });
  std::string names;
  for (const auto& l : levels) {
    if (l.name == std::string(want)) {
      if (!l.runs_here)
        throw data::InputError(std::string("STRIBECK_CPU_ISA=") + want + ": this processor does not run it");
      return l;
    }
    names += std::string(names.empty() ? "" : ", ") + l.name;
  }
  throw data::InputError(std::string("STRIBECK_CPU_ISA=") + want + ": expected one of " + names);
}

}  // namespace

std::string cpu_vector_level() { return cpu_level().name; }

std::vector<std::string> cpu_vector_levels() {
  std::vector<std::string> names;
  for (const auto& l : cpu_levels())
    if (l.runs_here) names.push_back(l.name);
  return names;
}

void evaluate_chunk_cpu(const SweepPlan& plan, Precision precision, std::uint64_t first, std::uint64_t count,
                        data::SweepChunk& out) {
  out.first = first;
  out.count = count;
  out.params.resize(count * plan.space.dims);
  out.metrics.resize(count * sweep::kNumMetrics);
  out.status.resize(count);
  out.exp_metrics.resize(plan.per_experiment ? count * plan.traces.size() * sweep::kNumMetrics : 0);
  const CpuLevel level = cpu_level();
  const lanes::Kernels k = level.kernels ? level.kernels(plan.model->id.c_str()) : lanes::Kernels{};
  if (precision == Precision::kFp32 && k.fp32) return run_cpu_lanes<float>(plan, k.fp32, k.width32, first, count, out);
  if (precision == Precision::kFp64 && k.fp64) return run_cpu_lanes<double>(plan, k.fp64, k.width64, first, count, out);
  visit_model(plan.model->id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    if (precision == Precision::kFp32) run_cpu_points<M, float>(plan, first, count, out);
    else run_cpu_points<M, double>(plan, first, count, out);
  });
}

bool TopK::better(const data::TopEntry& a, const data::TopEntry& b) const {
  if (a.objective != b.objective) return maximize_ ? a.objective > b.objective : a.objective < b.objective;
  return a.index < b.index;
}

void TopK::add(const data::TopEntry& e) {
  if (k_ <= 0 || std::isnan(e.objective)) return;
  if (static_cast<int>(entries_.size()) == k_ && !better(e, entries_.back())) return;
  auto pos = std::lower_bound(entries_.begin(), entries_.end(), e,
                              [&](const data::TopEntry& x, const data::TopEntry& y) { return better(x, y); });
  entries_.insert(pos, e);
  if (static_cast<int>(entries_.size()) > k_) entries_.pop_back();
}

void TopK::add_chunk(const data::SweepChunk& c, int dims) {
  data::TopEntry e;
  const std::uint64_t rows = c.index.empty() ? c.count : c.index.size();
  for (std::uint64_t j = 0; j < rows; ++j) {
    const std::uint64_t index = c.index.empty() ? c.first + j : c.index[j];
    if (c.status[j] != kSimOk) continue;
    e.objective = c.metrics[j * sweep::kNumMetrics + objective_];
    if (std::isnan(e.objective)) continue;
    if (static_cast<int>(entries_.size()) == k_) {
      data::TopEntry probe;
      probe.objective = e.objective;
      probe.index = index;
      if (!better(probe, entries_.back())) continue;
    }
    e.index = index;
    e.params.assign(&c.params[j * dims], &c.params[j * dims] + dims);
    e.metrics.assign(&c.metrics[j * sweep::kNumMetrics], &c.metrics[j * sweep::kNumMetrics] + sweep::kNumMetrics);
    add(e);
  }
}

}  // namespace stribeck::workloads
