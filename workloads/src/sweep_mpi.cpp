// A sweep over MPI ranks (sweep_mpi.hpp): its glue to the one MPI driver
// (engine/mpi.hpp), which runs the shards and calls merge_sweep_files.
#include "stribeck/workloads/sweep_mpi.hpp"

#include "stribeck/engine/mpi.hpp"
#include "stribeck/workloads/sweep_output.hpp"

namespace stribeck::workloads {

SweepSummary run_sweep_mpi(const SweepConfig& config, SweepRunOptions o, int* rank_out) {
  SweepSummary s;
  engine::MpiJob job;
  job.options = {o.output, false, "", o.resume, o.max_chunks, /*gpu_per_rank=*/true};
  job.run = [&](const engine::MpiPlace& place, const std::string& shard, const std::string& output) {
    const SweepPlan plan = plan_sweep(config, shard);
    SweepRunOptions ro = o;
    ro.output = output;
    if (place.rank != 0) ro.progress = nullptr;  // one progress line: rank 0's
    s = run_sweep(plan, config, ro);
    return engine::RankReport{
        s.finished, {s.invalid, s.nonfinite, s.evaluated, s.completed}, {s.seconds}, s.invalid_examples};
  };
  job.merge = [&o](const std::vector<std::string>& shards, const std::string& output) {
    merge_sweep_files(shards, output, o.command_line);
  };
  const engine::MpiResult m = engine::run_mpi(job, rank_out);
  if (m.place.rank == 0) {
    const data::SweepFile merged = data::read_sweep_file(o.output, /*with_rows=*/false);
    s.points = merged.meta.points;
    s.invalid = m.all.sums[0];
    s.nonfinite = m.all.sums[1];
    s.evaluated = m.all.sums[2];
    s.completed = m.all.sums[3];
    s.ok = s.completed - s.invalid - s.nonfinite;
    s.invalid_examples = m.all.examples;  // the whole space's first ones (rank order = point order)
    s.seconds = m.all.maxes[0];
    s.top = merged.progress.top;
    s.output = o.output;
    s.device += " x " + std::to_string(m.place.size) + " MPI ranks";
  }
  return s;
}

}  // namespace stribeck::workloads
