// MPI scale-out of a batch fit (run_batch_fit_mpi in batch_fit.hpp): one
// shard per rank, merged by rank 0, as ensembles (host/src/ensemble_mpi.cpp)
// and sweeps do. Compiled to a stub without MPI.
#include <algorithm>
#include <cstdio>
#include <string>

#include "stribeck/data/error.hpp"
#include "stribeck/host/sweep_mpi.hpp"
#include "stribeck/identification/batch_fit.hpp"
#if STRIBECK_HAVE_MPI
#include <mpi.h>
#endif

namespace stribeck::ident {

#if STRIBECK_HAVE_MPI

namespace {

// Rank 0 receives every other rank's bad-data examples in rank order (which
// is fit order); the others send theirs.
std::vector<std::string> gather_bad_examples(const std::vector<std::string>& mine, int rank, int size) {
  std::string joined;
  for (const auto& e : mine) joined += e + "\n";
  if (rank != 0) {
    MPI_Send(joined.data(), static_cast<int>(joined.size()), MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    return mine;
  }
  std::vector<std::string> all = mine;
  for (int r = 1; r < size; ++r) {
    MPI_Status st;
    MPI_Probe(r, 1, MPI_COMM_WORLD, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::string text(static_cast<size_t>(n), '\0');
    MPI_Recv(text.data(), n, MPI_CHAR, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (size_t a = 0, b; (b = text.find('\n', a)) != std::string::npos; a = b + 1)
      if (all.size() < engine::kInvalidExamples) all.push_back(text.substr(a, b - a));
  }
  return all;
}

}  // namespace

BatchFitResult run_batch_fit_mpi(const ExperimentSource& src, BatchFitOptions o, int* rank_out) {
  const auto [rank, size, local] = mpi_place();
  (void)local;
  *rank_out = rank;
  if (o.output.empty())
    throw InputError("--mpi: rank 0 merges the ranks' HDF5 shard files; name an HDF5 output (-o OUT.h5)");
  if (!o.shard.empty()) throw InputError("--mpi splits the batch itself; drop --shard");
  if (o.resume || o.max_chunks) throw InputError("--mpi does not combine with --resume or --max-chunks; use --shard");
  const std::string final_output = o.output;
  o.shard = std::to_string(rank) + "/" + std::to_string(size);
  o.output = final_output + ".rank" + std::to_string(rank);
  if (rank != 0) o.progress = nullptr;  // rank 0 speaks for all
  BatchFitResult r = run_batch_fit(src, o);
  int ok = r.finished ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) throw InputError("a rank did not finish its shard");
  constexpr int kN = 3 + engine::kPointStatusCount + kBatchFitStatusCount;
  std::uint64_t mine[kN] = {r.totals.completed, r.evaluated, r.with_warnings}, sum[kN] = {};
  std::copy(r.totals.status_counts, r.totals.status_counts + engine::kPointStatusCount, mine + 3);
  std::copy(r.status_counts, r.status_counts + kBatchFitStatusCount, mine + 3 + engine::kPointStatusCount);
  MPI_Reduce(mine, sum, kN, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  double secs[2] = {r.seconds, r.fit_seconds}, max_secs[2] = {0, 0};
  MPI_Reduce(secs, max_secs, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int threads = r.threads, all_threads = 0;
  MPI_Reduce(&threads, &all_threads, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  const std::vector<std::string> examples = gather_bad_examples(r.totals.invalid_examples, rank, size);
  if (rank == 0) {
    std::vector<std::string> shards;
    for (int k = 0; k < size; ++k) shards.push_back(final_output + ".rank" + std::to_string(k));
    merge_batch_fit_files(shards, final_output, o.provenance.command_line);
    for (const auto& f : shards) std::remove(f.c_str());
    r.first = 0;
    r.count = r.points;
    r.shard_index = 0;
    r.shard_count = 1;
    r.totals.completed = sum[0];
    r.evaluated = sum[1];
    r.with_warnings = sum[2];
    std::copy(sum + 3, sum + 3 + engine::kPointStatusCount, r.totals.status_counts);
    std::copy(sum + 3 + engine::kPointStatusCount, sum + kN, r.status_counts);
    r.totals.invalid_examples = examples;
    r.seconds = max_secs[0];
    r.fit_seconds = max_secs[1];
    r.threads = all_threads;
    r.output = final_output;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return r;
}

#else

BatchFitResult run_batch_fit_mpi(const ExperimentSource&, BatchFitOptions, int*) {
  throw InputError("--mpi: this build has no MPI support (rebuild with -DSTRIBECK_MPI=ON)");
}

#endif

}  // namespace stribeck::ident
