// An ensemble over MPI ranks (run_ensemble_mpi in ensemble.hpp): its glue to
// the one MPI driver (engine/mpi.hpp), which runs the shards and calls
// merge_ensemble_files.
#include <algorithm>

#include "ensemble_output.hpp"
#include "stribeck/engine/mpi.hpp"
#include "stribeck/workloads/ensemble.hpp"

namespace stribeck::workloads {

EnsembleResult run_ensemble_mpi(const SimulateConfig& c, EnsembleRunOptions o, int* rank_out) {
  EnsembleResult r;
  engine::MpiJob job;
  job.options = {o.output, is_csv_output(o.output), o.shard, o.resume, o.max_chunks, /*gpu_per_rank=*/true};
  job.run = [&](const engine::MpiPlace& place, const std::string& shard, const std::string& output) {
    EnsembleRunOptions ro = o;
    ro.shard = shard;
    ro.output = output;
    if (place.rank != 0) ro.progress = nullptr, ro.note = nullptr, ro.start = nullptr;  // rank 0 speaks for all
    r = run_ensemble(c, ro);
    engine::RankReport mine{
        r.finished,
        {r.totals.completed, r.totals.stick_slip, r.evaluated, static_cast<std::uint64_t>(r.rk4_steps)},
        {r.seconds, r.simulate_seconds},
        r.totals.invalid_examples};
    mine.sums.insert(mine.sums.end(), r.totals.status_counts, r.totals.status_counts + engine::kPointStatusCount);
    return mine;
  };
  job.merge = [&](const std::vector<std::string>& shards, const std::string& output) {
    merge_ensemble_files(shards, output, o.command_line);
  };
  const engine::MpiResult m = engine::run_mpi(job, rank_out);
  if (m.place.rank == 0) {
    const auto& sum = m.all.sums;
    engine::as_whole_space(r);
    r.totals.completed = sum[0];
    r.totals.stick_slip = sum[1];
    r.evaluated = sum[2];
    r.rk4_steps = static_cast<long long>(sum[3]);
    std::copy(sum.begin() + 4, sum.end(), r.totals.status_counts);
    r.totals.invalid_examples = m.all.examples;
    r.seconds = m.all.maxes[0];
    r.simulate_seconds = m.all.maxes[1];
    r.device += " x " + std::to_string(m.place.size) + " MPI ranks";
    r.output = o.output;
  }
  return r;
}

}  // namespace stribeck::workloads
