// A batch fit over MPI ranks (run_batch_fit_mpi in batch_fit.hpp): its glue
// to the one MPI driver (host engine/mpi.hpp), which runs the shards and
// calls merge_batch_fit_files.
#include <algorithm>

#include "stribeck/engine/mpi.hpp"
#include "stribeck/identification/batch_fit.hpp"

namespace stribeck::ident {

BatchFitResult run_batch_fit_mpi(const ExperimentSource& src, BatchFitOptions o, int* rank_out) {
  BatchFitResult r;
  engine::MpiJob job;
  job.options = {o.output, false, o.shard, o.resume, o.max_chunks, /*gpu_per_rank=*/false};  // fits: CPU only
  job.run = [&](const engine::MpiPlace& place, const std::string& shard, const std::string& output) {
    BatchFitOptions ro = o;
    ro.shard = shard;
    ro.output = output;
    if (place.rank != 0) ro.progress = nullptr;  // rank 0 speaks for all
    r = run_batch_fit(src, ro);
    engine::RankReport mine{r.finished,
                            {r.totals.completed, r.evaluated, r.with_warnings, static_cast<std::uint64_t>(r.threads)},
                            {r.seconds, r.fit_seconds},
                            r.totals.invalid_examples};
    mine.sums.insert(mine.sums.end(), r.totals.status_counts, r.totals.status_counts + engine::kPointStatusCount);
    mine.sums.insert(mine.sums.end(), r.status_counts, r.status_counts + kBatchFitStatusCount);
    return mine;
  };
  job.merge = [&](const std::vector<std::string>& shards, const std::string& output) {
    merge_batch_fit_files(shards, output, o.provenance.command_line);
  };
  const engine::MpiResult m = engine::run_mpi(job, rank_out);
  if (m.place.rank == 0) {
    const auto& sum = m.all.sums;
    engine::as_whole_space(r);
    r.totals.completed = sum[0];
    r.evaluated = sum[1];
    r.with_warnings = sum[2];
    r.threads = static_cast<int>(sum[3]);
    const auto counts = sum.begin() + 4;
    std::copy(counts, counts + engine::kPointStatusCount, r.totals.status_counts);
    std::copy(counts + engine::kPointStatusCount, sum.end(), r.status_counts);
    r.totals.invalid_examples = m.all.examples;
    r.seconds = m.all.maxes[0];
    r.fit_seconds = m.all.maxes[1];
    r.output = o.output;
  }
  return r;
}

}  // namespace stribeck::ident
