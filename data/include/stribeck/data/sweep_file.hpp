#pragma once
// The HDF5 file of a sweep (layout: docs/sweep.md), written in chunks as the
// sweep runs so host memory stays bounded, with a checkpoint after every chunk
// so an interrupted run can be resumed to the same file; and read back (merge,
// tests). The file is written as OUT.h5.partial and renamed to OUT.h5 when
// complete, so OUT.h5 never holds a partial result.
//
// Plain types only: the sweep engine (host/) fills them; this layer knows the
// file, not the engine.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stribeck/kernels/sweep/metrics.hpp"

namespace stribeck {

// Results of a contiguous run of points.
struct SweepChunk {
  std::uint64_t first = 0, count = 0;
  // Non-empty for a compacted chunk (GPU top-K mode): the global index of
  // each row; rows are then a selection of [first, first+count), all ok.
  std::vector<std::uint64_t> index;
  std::vector<double> params;        // count x dims
  std::vector<double> metrics;       // count x kNumMetrics (all metrics; the writer selects)
  std::vector<double> exp_metrics;   // count x experiments x kNumMetrics (per_experiment only)
  std::vector<std::uint8_t> status;  // count, sweep::Status
};

// One entry of the top-K table.
struct TopEntry {
  std::uint64_t index = 0;
  double objective = 0;
  std::vector<double> params;
  std::vector<double> metrics;  // all kNumMetrics
};

// Everything the file says about the sweep apart from the per-point data.
struct SweepMeta {
  std::string toolkit_version, model, design, precision, device, config, created, command_line;
  // Canonical text of everything that determines the results (resolved
  // space, trace content hash, metrics, top-K settings): a resumed run or a
  // merged shard must match it, whatever mix of config and flags produced it.
  std::string identity;
  std::uint64_t points = 0, first = 0, count = 0;
  int shard_index = 0, shard_count = 1;
  std::vector<std::string> param_names, param_units;
  std::vector<int> metrics;              // kept metric ids
  std::vector<std::string> experiments;  // experiment names
  int objective = 0;
  bool maximize = false;
  int top_k = 10;
  bool per_experiment = false;
  bool top_k_only = false;
};

// Progress kept in the file at each checkpoint.
struct SweepProgress {
  std::uint64_t completed = 0;  // points of [first, first+count) done, in order
  std::uint64_t invalid = 0, nonfinite = 0;
  std::vector<TopEntry> top;
};

class SweepWriter {
 public:
  // Starts OUT.partial (checking both paths, check_output_path, and refusing
  // an existing OUT.partial: refuse_unfinished, `resumable` false for
  // writers without --resume such as merge; destroyed unfinished before a
  // checkpoint counted points, it removes the file again) ...
  static std::unique_ptr<SweepWriter> create(const std::string& path, const SweepMeta& meta, bool resumable = true);
  // ... or reopens it after an interruption: checks it belongs to the same
  // sweep (identity, shard, output options) and drops rows past the checkpoint.
  static std::unique_ptr<SweepWriter> resume(const std::string& path, const SweepMeta& meta, SweepProgress& progress);
  ~SweepWriter();
  SweepWriter(const SweepWriter&) = delete;
  SweepWriter& operator=(const SweepWriter&) = delete;

  void append(const SweepChunk& chunk, int n_exp);
  void checkpoint(const SweepProgress& progress);
  // One force trace per experiment of point `index`.
  void add_trajectory(std::uint64_t index, const std::vector<double>& params,
                      const std::vector<std::string>& experiments, const std::vector<std::vector<double>>& forces);
  // Copies /trajectories/* of another sweep file (merge).
  void copy_trajectories_from(const std::string& path);
  // Final checkpoint, close, rename OUT.partial -> OUT.
  void finish(const SweepProgress& progress, double seconds);

  struct Impl;

 private:
  explicit SweepWriter(std::unique_ptr<Impl> impl);
  void append_rows(const SweepChunk& chunk, int n_exp);
  void write_trajectory(std::uint64_t index, const std::vector<double>& params,
                        const std::vector<std::string>& experiments, const std::vector<std::vector<double>>& forces);
  std::unique_ptr<Impl> impl_;
};

// A complete sweep file read back (all rows in memory: merge, tests).
struct SweepFile {
  SweepMeta meta;
  SweepProgress progress;
  SweepChunk rows;  // params (count x dims), metrics (count x kNumMetrics: NaN for metrics not kept),
                    // exp_metrics, status; empty when top_k_only
  bool complete = false;
  double seconds = 0;  // wall time of the run(s)
};
SweepFile read_sweep_file(const std::string& path);
// Whether `path` is a sweep file (root attribute format = "stribeck-sweep");
// false for other files and missing ones.
bool is_sweep_file(const std::string& path);

}  // namespace stribeck
