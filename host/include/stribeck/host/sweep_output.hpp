#pragma once
// The HDF5 file of a sweep (layout: docs/sweep.md). Written in chunks as the
// sweep runs, so host memory stays bounded; a checkpoint after every chunk
// lets --resume continue an interrupted run to the same file.
//
// The file is written as OUT.h5.partial and renamed to OUT.h5 when complete,
// so OUT.h5 never holds a partial result.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stribeck/host/sweep.hpp"

namespace stribeck {

// Everything the file says about the sweep apart from the per-point data.
struct SweepMeta {
  std::string model, design, precision, device, config, created;
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

SweepMeta make_sweep_meta(const SweepPlan& plan, const SweepConfig& config, const std::string& device,
                          Precision precision);

// Progress kept in the file at each checkpoint.
struct SweepProgress {
  std::uint64_t completed = 0;  // points of [first, first+count) done, in order
  std::uint64_t invalid = 0, nonfinite = 0;
  std::vector<TopEntry> top;
};

class SweepWriter {
 public:
  // Starts OUT.partial (replacing a stale one) ...
  static std::unique_ptr<SweepWriter> create(const std::string& path, const SweepMeta& meta);
  // ... or reopens it after an interruption: checks it belongs to the same
  // sweep (config text, shard, precision) and drops rows past the checkpoint.
  static std::unique_ptr<SweepWriter> resume(const std::string& path, const SweepMeta& meta,
                                             SweepProgress& progress);
  ~SweepWriter();

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

// `stribeck merge`: shard files of one sweep -> one file equal to a single run.
void merge_sweep_files(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace stribeck
