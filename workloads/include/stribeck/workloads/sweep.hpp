#pragma once
// The sweep engine on the host: plan (validate a config against the model,
// build the space and the traces), evaluate chunks of points on the CPU or
// the GPU, keep the top-K, stream chunks to a sink.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stribeck/data/experiment.hpp"
#include "stribeck/data/sweep_file.hpp"
#include "stribeck/workloads/sweep_config.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/kernels/sweep/rules.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/kernels/sweep/trace.hpp"

namespace stribeck::workloads {

// One experiment prepared for the engine: SoA channels in SI (absent channels
// the model does not read stay empty; a missing force is zero-filled and
// flagged in counts.has_force) and the per-sample metric weights
// (kernels/sweep/trace.hpp).
struct SweepTrace {
  std::string name;
  // One vector per channel of sweep::STRIBECK_TRACE_CHANNELS: v, p_a, p_b,
  // f_n, dt, f_meas, w_pos, w_neg, w_energy, w_loop.
#define STRIBECK_SWEEP_TRACE_MEMBER(member, units, meaning) std::vector<double> member;
  STRIBECK_TRACE_CHANNELS(STRIBECK_SWEEP_TRACE_MEMBER)
#undef STRIBECK_SWEEP_TRACE_MEMBER
  sweep::TraceCounts counts;

  // Points a per-trace view (sweep::TraceView<T> for the CPU path,
  // gpu::HostTrace for the GPU request: same channel members) at this
  // trace's channels; `ptr` maps a channel to its pointer (nullptr when the
  // channel is empty). Generated from the channel table.
  template <class View, class Ptr>
  void point_view(View& view, Ptr&& ptr) const {
#define STRIBECK_SWEEP_TRACE_POINT(member, units, meaning) view.member = ptr(member);
    STRIBECK_TRACE_CHANNELS(STRIBECK_SWEEP_TRACE_POINT)
#undef STRIBECK_SWEEP_TRACE_POINT
    view.n = static_cast<std::int64_t>(v.size());
  }
};

struct SweepPlan {
  const ModelInfo* model = nullptr;
  sweep::SpaceView space;  // list_values points into list_values below
  std::vector<double> list_values;
  sweep::ParamRules rules;
  std::vector<SweepTrace> traces;
  std::vector<int> metrics;  // kept metric ids (all when the config named none)
  int objective = sweep::kRmse;
  bool maximize = false;
  int top_k = 10;
  bool per_experiment = false;
  std::uint64_t first = 0, count = 0;  // this run's index range (a shard: a part of the space)
  int shard_index = 0, shard_count = 1;

  // Copying a plan must re-point the space at the copy's list values.
  SweepPlan() = default;
  SweepPlan(const SweepPlan& o) { *this = o; }
  SweepPlan& operator=(const SweepPlan& o);

  void point(std::uint64_t i, double* out) const { sweep::space_point(space, i, out); }
  bool has_force() const;
};

// Loads traces (CSV files, built-in profiles) as Experiments.
std::vector<data::Experiment> load_sweep_experiments(const SweepConfig& config, const ModelInfo& model);
// Checks a config against the model; throws InputError naming what is wrong.
// `shard` is "" or "i/N" (0-based i).
// One varying quantity of a parameter space from its spec: copies the spec
// into `ax` (list values appended to `list_values`) and enforces the rules of
// the design (counts only in grids, distributions only in random designs,
// finite values, valid ranges). `at` names the spec in messages.
void fill_axis(const ParamSpec& spec, bool grid, const std::string& at, std::vector<double>& list_values,
               sweep::Axis& ax);
// Number of points of a design: the product of the axis counts for a grid,
// else the requested `points` (required, and at most 2^32 for Sobol').
// `points_key` is how the user sets it, for messages.
std::uint64_t design_points(sweep::Design design, long double grid_points, std::uint64_t points,
                            const std::string& where, const std::string& points_key);
SweepPlan plan_sweep(const SweepConfig& config, const std::string& shard = "");

// A sweep as typed values, for a caller that holds its data already (the
// coarse search of a fit): the model, the design, one axis per parameter
// (a parameter without one stays at its default), the ranking. A config
// becomes one of these in plan_sweep(SweepConfig), through the same checks.
struct SweepSpec {
  std::string model;  // model id
  sweep::Design design = sweep::Design::kGrid;
  std::uint64_t points = 0;  // non-grid designs
  std::uint64_t seed = 1;
  bool scramble = true;  // Sobol'
  std::vector<ParamSpec> params;
  std::vector<int> metrics;  // kept metric ids (sweep::kRmse, ...); empty: all
  int objective = -1;        // ranks the top-K; -1: rmse when a trace has a measured force, else energy
  bool maximize = false;
  int top_k = 10;
  bool per_experiment = false;
  std::string where = "sweep";  // names the sweep in messages
};
// Plans `spec` over `traces` (make_sweep_trace), checked as a config is:
// InputError naming what is wrong (no trace among them).
SweepPlan plan_sweep(const SweepSpec& spec, std::vector<SweepTrace> traces, const std::string& shard = "");
// The index range of shard "i/N" (0-based i) of a space of `points`:
// [floor(points*i/N), floor(points*(i+1)/N)), the same split for sweeps and
// ensembles so `stribeck merge` can check coverage. "" is the whole space.
// Throws InputError "--shard TEXT: expected i/N with 0 <= i < N".
struct ShardRange {
  std::uint64_t first = 0, count = 0;
  int index = 0, shards = 1;
};
ShardRange shard_range(const std::string& shard, std::uint64_t points);
// One experiment as the engine reads it; throws InputError for missing channels.
SweepTrace make_sweep_trace(const ModelInfo& model, const data::Experiment& e);

// Force along one experiment for one parameter set (double, host), the same
// model_step loop the engine runs; used for profile references and for the
// trajectories an output keeps.
std::vector<double> sweep_force_trace(const ModelInfo& model, const double* params, const SweepTrace& trace);

enum class Precision { kFp64, kFp32 };

// Evaluates points [first, first + count) on the CPU: OpenMP over points,
// memoryless laws in SIMD batches of points (docs/sweep.md, "CPU path").
void evaluate_chunk_cpu(const SweepPlan& plan, Precision precision, std::uint64_t first, std::uint64_t count,
                        data::SweepChunk& out);

// The CPU path's vector level: "x86-64-v4" (AVX-512), "x86-64-v3" (AVX2),
// "generic" (the build's baseline) or "scalar" (one point at a time). The
// best this processor runs, unless the environment variable STRIBECK_CPU_ISA
// names one (InputError when it names an unknown level or one this processor
// cannot run).
std::string cpu_vector_level();
// Every level this build has and this processor runs, best first.
std::vector<std::string> cpu_vector_levels();

// Keeps the K best points seen so far; ties broken by the smaller index, so
// the table is the same whatever the chunking or sharding.
class TopK {
 public:
  TopK(int k, int objective, bool maximize) : k_(k), objective_(objective), maximize_(maximize) {}
  void add_chunk(const data::SweepChunk& c, int dims);
  void add(const data::TopEntry& e);
  const std::vector<data::TopEntry>& entries() const { return entries_; }
  bool better(const data::TopEntry& a, const data::TopEntry& b) const;

 private:
  int k_, objective_;
  bool maximize_;
  std::vector<data::TopEntry> entries_;  // sorted best first
};

}  // namespace stribeck::workloads
