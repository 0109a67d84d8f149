#pragma once
// The HDF5 file of a sweep (layout: docs/sweep.md, "Output"): one results
// group `sweep` that the engine streams through ResultsStream as every
// workload's results are streamed (the one results format, checkpoints,
// resume, merge): a column per parameter and kept metric, the status, and
// per-experiment metrics as (point, experiment) tables; beside the rows the
// top-K table (replaced at every checkpoint) and the force trajectories of
// chosen points, as tables of the group.
//
// This header is what the writer (workloads/src/sweep_output.cpp) and the readers
// (merge, map, report, tests) share: the plain records the sweep engine
// fills, the layout (columns, attributes, tables from the metadata), and
// read_sweep_file, which also reads the root layout of format_version 1 and
// 2 (sweep_file_legacy.cpp).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "stribeck/data/log.hpp"
#include "stribeck/data/results_stream.hpp"
#include "stribeck/kernels/sweep/metrics.hpp"

namespace stribeck::data {

// Results of a contiguous run of points.
struct SweepChunk {
  std::uint64_t first = 0, count = 0;
  // Non-empty for a compacted chunk (GPU top-K mode): the global index of
  // each row; rows are then a selection of [first, first+count), all ok.
  std::vector<std::uint64_t> index;
  std::vector<double> params;        // count x dims
  std::vector<double> metrics;       // count x kNumMetrics (all metrics; the writer selects)
  std::vector<double> exp_metrics;   // count x experiments x kNumMetrics (per_experiment only)
  std::vector<std::uint8_t> status;  // count, the kernels' SimStatus codes (= engine::PointStatus)
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
  Provenance provenance;  // toolkit version, command line, config text, date, device
  std::string model, design, precision;
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

// The results group and the version of its layout (1 and 2: the root
// layout before the sweep was a workload's ResultsStream).
constexpr const char* kSweepGroup = "sweep";
constexpr int kSweepFormatVersion = 3;

// The group's attributes: what --resume compares (all of them) and merge
// checks, and what a reader learns the sweep from.
std::map<std::string, std::string> sweep_attributes(const SweepMeta& meta);
// The group's columns (none with top_k_only), in the order of
// sweep_chunk_columns: each parameter, each kept metric, `status` (given:
// the engine's one status column), `<metric>_by_experiment` with
// per_experiment. `metrics` (given: the engine's columns of the metrics'
// field table, engine::record_columns(kSweepMetricRecord)) holds the column
// of every metric in the order of sweep::Metric. Throws std::logic_error
// when two would share a name (a model parameter named like a metric).
std::vector<StreamColumn> sweep_columns(const SweepMeta& meta, const StreamColumn& status,
                                        const std::vector<StreamColumn>& metrics);
// A chunk's rows as those columns' values (one vector per column).
std::vector<std::vector<double>> sweep_chunk_columns(const SweepMeta& meta, const SweepChunk& chunk);
// The top-K table `top_k` (dimension `rank`, 0 best): index, objective, the
// parameters, every metric (`metrics` as for sweep_columns); and its entries
// read back (`where` names it).
StreamTable top_k_table(const SweepMeta& meta, const std::vector<TopEntry>& top,
                        const std::vector<StreamColumn>& metrics);
std::vector<TopEntry> top_k_entries(const SweepMeta& meta, const StreamTable& table, const std::string& where);
// The force of point `index` along experiment `experiment`'s trace: table
// `trajectories/<index>/<experiment>` (dimension `sample`), the point's
// parameters as its attributes.
StreamTable trajectory_table(const SweepMeta& meta, std::uint64_t index, const std::vector<double>& params,
                             const std::string& experiment, const std::vector<double>& force);

// Progress a file records: a finished file's counts, or an unfinished
// one's last checkpoint.
struct SweepProgress {
  std::uint64_t completed = 0;  // points of [first, first+count) done, in order
  std::uint64_t invalid = 0, nonfinite = 0;
  std::vector<TopEntry> top;
};

// A sweep file read back whole (merge checks, report, tests).
struct SweepFile {
  SweepMeta meta;
  SweepProgress progress;
  SweepChunk rows;  // params (count x dims), metrics (count x kNumMetrics: NaN for metrics not kept),
                    // exp_metrics, status; empty when top_k_only
  bool complete = false;
  int format_version = kSweepFormatVersion;
};
// `with_rows` false: metadata, progress and top-K only (a file of any size).
SweepFile read_sweep_file(const std::string& path, bool with_rows = true);
// The metadata of a format_version 3 group from its attributes and
// provenance (`at` names the group in messages).
SweepMeta sweep_meta(const std::map<std::string, std::string>& attributes, const Provenance& provenance,
                     const std::string& at);
// Whether `path` is a sweep file of any version (a group `sweep` with
// `sweep_identity`, or root attribute format = "stribeck-sweep"); false for
// other files and missing ones.
bool is_sweep_file(const std::string& path);

namespace detail {
// The reader of format_version 1 and 2 (root layout): sweep_file_legacy.cpp.
// Its format_version (1 or 2) when `path` is a sweep file of the root
// layout, else 0 (other files, missing ones). Reads attributes only.
int legacy_sweep_version(const std::string& path);
SweepFile read_legacy_sweep_file(const std::string& path);
}  // namespace detail

}  // namespace stribeck::data
