#pragma once
// Ensembles of body simulations over a sweep parameter space (the [ensemble]
// table of a simulate config, docs/dynamics.md): every point of the space is
// one simulation of the base system with some model parameters and system
// quantities replaced, reduced to per-trajectory metrics.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stribeck/engine/runner.hpp"
#include "stribeck/workloads/simulate.hpp"
#include "stribeck/workloads/sweep_config.hpp"
#include "stribeck/kernels/systems/metrics.hpp"

namespace stribeck::workloads {

// Totals over the points of a run's range done so far (a resumed run's
// include the points of the runs before it): the engine's (per PointStatus,
// whose codes are the SimStatus codes: ok, non-finite, step-limit,
// event-limit, invalid-parameters; the first 3 invalid points with the rule
// each breaks), and the points with stick-slip.
struct EnsembleTotals : engine::Totals {
  std::uint64_t stick_slip = 0;
};

struct EnsembleResult {
  std::vector<std::string> names;  // space dimensions: parameter or system quantity names
  // Only when run without an output file (EnsembleRunOptions::output ""):
  std::vector<double> values;                     // points x dims
  std::vector<StickSlipMetrics<double>> metrics;  // one per point (status included)
  std::string device;                             // "cpu (N threads)" or "cuda:0 NAME"
  std::string note;                               // why device "auto" runs on the CPU ("" otherwise)
  double seconds = 0;                             // wall time of this invocation, output included
  // This invocation's work (a resumed run counts only what it simulated):
  double simulate_seconds = 0;  // time in the simulations (GPU: launches, copies, unpacking)
  std::uint64_t evaluated = 0;  // points simulated
  long long rk4_steps = 0;      // RK4 steps over those points
  // This run's part of the space: points [first, first + count) of `points`
  // (the whole space unless run as shard `shard_index`/`shard_count`).
  std::uint64_t points = 0, first = 0, count = 0;
  int shard_index = 0, shard_count = 1;
  EnsembleTotals totals;  // over [first, first + totals.completed)
  bool finished = false;  // totals.completed == count (false when stopped by max_chunks)
  std::string output;     // the file written ("" when none, or not finished)
};

constexpr std::uint64_t kMaxEnsembleChunk = std::uint64_t(1) << 24;

struct EnsembleRunOptions {
  // Called once every check has passed, just before the note and the
  // simulations (the CLI prints parameter warnings here, so a bad space is
  // reported alone, in one line).
  std::function<void()> start;
  // Called once before the simulations with the reason device "auto" runs
  // on the CPU (not called when it runs where asked).
  std::function<void(const std::string&)> note;
  // Called with (points done, points of this run, seconds since the start)
  // while the points run (CPU path: from one thread, after each of its
  // points; GPU: after each chunk) and once at the end; the callee throttles
  // its output.
  std::function<void(std::uint64_t, std::uint64_t, double)> progress;
  // "" (every point) or "i/N": run only shard i of N (0-based), the sweep's
  // split (shard_range).
  std::string shard;
  // "": the results stay in memory (EnsembleResult::values, metrics), for
  // at most 1e8 points whose results fit in 80 % of this machine's memory.
  // Else the file they are streamed to, chunk by chunk, in bounded memory:
  // HDF5 (the layout below, via OUT.partial with a checkpoint after
  // every chunk, renamed when complete), or CSV when the name ends in ".csv"
  // (one row per point; no checkpoints).
  std::string output;
  // HDF5 output: continue OUT.partial from its last checkpoint. The final
  // file equals an uninterrupted run's (provenance aside).
  bool resume = false;
  // Run even when the output's estimated size exceeds the free space of its
  // file system (else refused before the first point; output_space.hpp).
  bool allow_large_output = false;
  // Points per chunk: what a kill can lose and what a chunk's results hold
  // in memory. 0: 2^20 on the GPU (one launch), 2^14 on the CPU; at most
  // kMaxEnsembleChunk.
  std::uint64_t chunk = 0;
  // > 0: stop after this many chunks, leaving a resumable OUT.partial
  // (time-boxed jobs; HDF5 output only).
  std::uint64_t max_chunks = 0;
  std::string command_line;  // provenance of the output file
};

// Runs the points of this run's part of the space, FP64 or FP32
// (config.fp32), chunk by chunk, on the GPU (one thread per trajectory) when
// config.device is "gpu", or "auto" and a CUDA device is usable, else on
// the CPU (OpenMP over points). Both run the same ensemble_point (measured
// input tables, [system] inputs, are copied to the device). Throws
// InputError for an ensemble that names unknown quantities or breaks the
// space rules, asks for a GPU it cannot have, or (results in memory) is too
// large for memory; for a --resume whose partial file belongs to another
// run.
EnsembleResult run_ensemble(const SimulateConfig& config, const EnsembleRunOptions& options = {});

// `stribeck simulate --point K`: point K of the config's [ensemble] as a
// single simulation (ensemble off, the point's parameters and system
// quantities applied, their warnings recomputed, and a comment line naming
// the point appended to the config text the output records), to look at the
// time series behind one cell of a map. Throws InputError for an index past
// the space and for a point the ensemble does not simulate (naming the rule
// it breaks).
SimulateConfig ensemble_point_config(const SimulateConfig& config, std::uint64_t index);
// The point a config of ensemble_point_config is ("K: NAME = VALUE, ..."),
// "" for any other config.
std::string ensemble_point_label(const SimulateConfig& point);

// The probability that a point sticks and slips, with its Monte Carlo
// standard error sqrt(p (1 - p) / n): what an ensemble drawn from a fit
// (from_fit) estimates. n counts the points that ran to the end (status ok)
// and those outside the model's ranges (invalid-parameters): a draw of the
// fit's normal approximation past an ordering (F_S < F_C: no stiction
// excess) does not stick; points stopped by a step or event limit or a
// non-finite state are left out.
struct Probability {
  double value = 0.0, std_error = 0.0;
  std::uint64_t draws = 0;  // n: the points it is estimated over
};
Probability stick_slip_probability(const EnsembleTotals& totals);

// The lines reporting an ensemble run (`simulate`'s summary): points, shard,
// precision, device, time, RK4 steps/s, `where` the results went, and the
// stick-slip and status counts.
std::string ensemble_report(const EnsembleResult& r, const std::string& shard, bool fp32, const std::string& where);

// `stribeck simulate --mpi` (builds with MPI; MPI initialised): every rank
// of MPI_COMM_WORLD runs shard rank/size of the space on its own device
// (GPUs picked by node-local rank) into OUT.rankR, and rank 0 merges the
// shard files into options.output (merge_ensemble_files: the datasets of a
// single run) and removes them. Returns on rank 0 the whole space's totals
// (summed over the ranks; invalid examples in point order; seconds of the
// slowest rank; device "<rank 0's> x N MPI ranks"), on the others their
// shard's. Throws InputError without an HDF5 output, with a shard, --resume
// or max_chunks, and in a build without MPI.
EnsembleResult run_ensemble_mpi(const SimulateConfig& config, EnsembleRunOptions options, int* rank_out);

// Results kept in memory take about ensemble_result_bytes(points, dims) at
// the peak (coordinates, metrics, the GPU staging copy). check_ensemble_memory
// throws InputError naming `where` when that exceeds 80 % of
// `physical_bytes` (run_ensemble passes this machine's memory), so a
// too-large space is a one-line error, not an out-of-memory kill.
std::uint64_t ensemble_result_bytes(std::uint64_t points, int dims);
void check_ensemble_memory(std::uint64_t points, int dims, std::uint64_t physical_bytes, const std::string& where);

// The HDF5 layout of an ensemble (results group "ensemble", format_version
// 2): one column per coordinate (attribute `names` lists them in order; each
// with `units` and `long_name`, as a sweep's parameters) and one dataset per
// metric, with the
// attributes `stribeck merge` checks, so a merged file equals an unsharded
// one: `ensemble_identity` (a hash of the config text, the precision and the
// measured input tables), `points`, `first`, `count`, `shard_index`,
// `shard_count`.

// The unit of each coordinate of the space (EnsembleResult::names): a model
// parameter's, or a system quantity's (rotational systems: N*m, rad, ...);
// "" for a name it does not know. The `units` of the file's coordinate columns
// ("1" for "").
std::vector<std::string> ensemble_coordinate_units(const SimulateConfig& config, const std::vector<std::string>& names);
// What a coordinate is, the `long_name` of its column: "parameter F_s of
// lugre" (as a sweep's parameters) or "system quantity stiffness".
std::string ensemble_coordinate_long_name(const std::string& model, const std::string& name);

// Whether `path` is an HDF5 file with an ensemble results group carrying the
// shard attributes above (false for sweep files, other files, missing files).
bool is_ensemble_file(const std::string& path);

// `stribeck merge` for ensembles: shard files of one ensemble (any order) ->
// one HDF5 file whose datasets and attributes equal an unsharded run's; the
// provenance says `merged from N shards` (attribute `merged_from`, device
// list). Throws InputError naming the file for shards of another ensemble,
// a missing or overlapping shard, or a file that is no ensemble shard; the
// output is then not written. Streams the shards a block of rows at a time
// (bounded memory, whatever the ensemble's size); atomic.
void merge_ensemble_files(const std::vector<std::string>& inputs, const std::string& output,
                          const std::string& command_line);

}  // namespace stribeck::workloads
