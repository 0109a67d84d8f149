#pragma once
// The sweep's results file from the engine's side (layout:
// data/sweep_file.hpp): its metadata and identity, the stream the sweep
// workload writes through (the engine's checkpoints, the top-K table,
// trajectories), and merging shard files with the engine's one merge.
#include <memory>
#include <string>
#include <vector>

#include "stribeck/data/results_stream.hpp"
#include "stribeck/data/sweep_file.hpp"
#include "stribeck/engine/runner.hpp"
#include "stribeck/workloads/sweep.hpp"

namespace stribeck::workloads {

data::SweepMeta make_sweep_meta(const SweepPlan& plan, const SweepConfig& config, const std::string& device,
                                Precision precision);

// OUT.partial of a sweep: created, or (resume) reopened after checking that
// it is this sweep's, with the checkpoint's totals and top-K given back.
class SweepOutput {
 public:
  static std::unique_ptr<SweepOutput> create(const std::string& path, const data::SweepMeta& meta);
  static std::unique_ptr<SweepOutput> resume(const std::string& path, const data::SweepMeta& meta,
                                             engine::Totals& totals, std::vector<data::TopEntry>& top);
  // A chunk's rows (nothing with top_k_only).
  void append(const data::SweepChunk& chunk);
  // The engine's checkpoint after `totals`, with the top-K table.
  void checkpoint(const engine::Totals& totals, const std::vector<data::TopEntry>& top);
  // The force traces of point `index`, one per experiment.
  void add_trajectory(std::uint64_t index, const std::vector<double>& params,
                      const std::vector<std::string>& experiments, const std::vector<std::vector<double>>& forces);
  // The last checkpoint, the counts by status, OUT.partial -> OUT.
  void finish(const engine::Totals& totals, const std::vector<data::TopEntry>& top);

 private:
  SweepOutput(const data::SweepMeta& meta, std::unique_ptr<data::ResultsStream> stream);
  data::SweepMeta meta_;
  std::unique_ptr<data::ResultsStream> stream_;
};

// `stribeck merge`: shard files of one sweep -> one file equal to a single run.
void merge_sweep_files(const std::vector<std::string>& inputs, const std::string& output,
                       const std::string& command_line);

}  // namespace stribeck::workloads
