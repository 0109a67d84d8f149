#pragma once
// Ensembles of body simulations over a sweep parameter space (the [ensemble]
// table of a simulate config, docs/dynamics.md): every point of the space is
// one simulation of the base system with some model parameters and system
// quantities replaced, reduced to per-trajectory metrics.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stribeck/host/simulate.hpp"
#include "stribeck/host/sweep_config.hpp"
#include "stribeck/kernels/systems/metrics.hpp"

namespace stribeck {

struct EnsembleResult {
  std::vector<std::string> names;             // space dimensions: parameter or system quantity names
  std::vector<double> values;                 // points x dims
  std::vector<StickSlipMetrics<double>> metrics;  // one per point (status included)
  std::string device;                         // "cpu (N threads)" or "cuda:0 NAME"
  std::string note;                           // why device "auto" runs on the CPU ("" otherwise)
  double seconds = 0;                         // wall time of the simulations
  long rk4_points = 0;                        // points run (status != invalid)
  long long rk4_steps = 0;                    // RK4 steps over all points
  std::vector<std::string> invalid_examples;  // the first 3 invalid points and the rule each breaks
  // This run's part of the space: points [first, first + metrics.size()) of
  // `points` (the whole space unless run as shard `shard_index`/`shard_count`).
  std::uint64_t points = 0, first = 0;
  int shard_index = 0, shard_count = 1;
};

struct EnsembleRunOptions {
  // Called once every check has passed, just before the note and the
  // simulations (the CLI prints parameter warnings here, so a bad space is
  // reported alone, in one line).
  std::function<void()> start;
  // Called once before the simulations with the reason device "auto" runs
  // on the CPU (not called when it runs where asked).
  std::function<void(const std::string&)> note;
  // Called with (points done, points, seconds since the start) while the
  // points run (CPU path: from one thread, after each of its points; GPU:
  // at the end) and once at the end; the callee throttles its output.
  std::function<void(std::uint64_t, std::uint64_t, double)> progress;
  // "" (every point) or "i/N": run only shard i of N (0-based), the sweep's
  // split (shard_range). The memory check and the point limit apply to the
  // shard's own points.
  std::string shard;
};

// Runs every point, FP64 or FP32 (config.fp32), on the GPU (one thread per
// trajectory) when config.device is "gpu", or "auto" and a CUDA device is
// usable, else on the CPU (OpenMP over points). Both run the same
// ensemble_point (measured input tables, [system] inputs, are copied to the
// device). Throws InputError for an ensemble that names unknown
// quantities or breaks the space rules, or asks for a GPU it cannot have.
EnsembleResult run_ensemble(const SimulateConfig& config, const EnsembleRunOptions& options = {});

// Results of an ensemble stay in host memory until written: about
// ensemble_result_bytes(points, dims) at the peak (coordinates, metrics, the
// GPU staging copy, the output's columns). Throws InputError naming `where`
// when that exceeds 80 % of `physical_bytes` (run_ensemble passes this
// machine's memory), so a too-large space is a one-line error, not an
// out-of-memory kill.
std::uint64_t ensemble_result_bytes(std::uint64_t points, int dims);
void check_ensemble_memory(std::uint64_t points, int dims, std::uint64_t physical_bytes, const std::string& where);

// Writes the points and metrics: HDF5 (results group "ensemble": `points`
// (points x dims, attribute `names`), one dataset per metric) or CSV (one row
// per point) when the name ends in ".csv". Atomic.
//
// The HDF5 group also records what `stribeck merge` checks (every run, so a
// merged file equals an unsharded one): `ensemble_identity` (a hash of the
// config text, the precision and the measured input tables), `points`,
// `first`, `count`, `shard_index`, `shard_count`.
void write_ensemble(const std::string& path, const EnsembleResult& result, const SimulateConfig& config,
                    const std::string& command_line);

// Whether `path` is an HDF5 file with an ensemble results group carrying the
// shard attributes above (false for sweep files, other files, missing files).
bool is_ensemble_file(const std::string& path);

// `stribeck merge` for ensembles: shard files of one ensemble (any order) ->
// one HDF5 file whose datasets and attributes equal an unsharded run's; the
// provenance says `merged from N shards` (attribute `merged_from`, device
// list). Throws InputError naming the file for shards of another ensemble,
// a missing or overlapping shard, or a file that is no ensemble shard; the
// output is then not written. Atomic.
void merge_ensemble_files(const std::vector<std::string>& inputs, const std::string& output,
                          const std::string& command_line);

}  // namespace stribeck
