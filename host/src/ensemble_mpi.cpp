// MPI scale-out of an ensemble (run_ensemble_mpi in ensemble.hpp): shards per
// rank, merged by rank 0, like the sweep's (sweep_mpi.cpp). Compiled to a
// stub without MPI.
#include <algorithm>
#include <cstdio>
#include <string>

#include "ensemble_output.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/host/ensemble.hpp"
#include "stribeck/host/sweep_mpi.hpp"
#if STRIBECK_HAVE_MPI
#include <mpi.h>
#endif
#if STRIBECK_HAVE_CUDA
#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#endif

namespace stribeck {

#if STRIBECK_HAVE_MPI

namespace {

// Rank 0 receives every other rank's invalid examples (joined by '\n') in
// rank order, which is point order; the others send theirs.
std::vector<std::string> gather_examples(const std::vector<std::string>& mine, int rank, int size) {
  std::string joined;
  for (const auto& e : mine) joined += e + "\n";
  if (rank != 0) {
    MPI_Send(joined.data(), static_cast<int>(joined.size()), MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    return mine;
  }
  std::vector<std::string> all = mine;
  for (int r = 1; r < size; ++r) {
    MPI_Status st;
    MPI_Probe(r, 0, MPI_COMM_WORLD, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::string text(static_cast<size_t>(n), '\0');
    MPI_Recv(text.data(), n, MPI_CHAR, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (size_t a = 0, b; (b = text.find('\n', a)) != std::string::npos; a = b + 1)
      if (all.size() < 3) all.push_back(text.substr(a, b - a));
  }
  return all;
}

}  // namespace

EnsembleResult run_ensemble_mpi(const SimulateConfig& c, EnsembleRunOptions o, int* rank_out) {
  const auto [rank, size, local] = mpi_place();
  *rank_out = rank;
  if (o.output.empty() || is_csv_output(o.output))
    throw InputError("--mpi: rank 0 merges the ranks' HDF5 shard files; name an HDF5 output (-o OUT.h5)");
  if (!o.shard.empty()) throw InputError("--mpi splits the space itself; drop --shard");
  if (o.resume || o.max_chunks) throw InputError("--mpi does not combine with --resume or --max-chunks; use --shard");
#if STRIBECK_HAVE_CUDA
  gpu::use_device_for_rank(local);  // one GPU per rank on each node (no-op without GPUs)
#endif
  const std::string final_output = o.output;
  o.shard = std::to_string(rank) + "/" + std::to_string(size);
  o.output = final_output + ".rank" + std::to_string(rank);
  if (rank != 0) o.progress = nullptr, o.note = nullptr, o.start = nullptr;  // rank 0 speaks for all
  EnsembleResult r = run_ensemble(c, o);
  // Every shard file must be complete before rank 0 merges.
  int ok = r.finished ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) throw InputError("a rank did not finish its shard");
  std::uint64_t mine[9] = {r.totals.completed, r.totals.stick_slip, r.evaluated,
                           static_cast<std::uint64_t>(r.rk4_steps)};
  std::copy(r.totals.status_counts, r.totals.status_counts + 5, mine + 4);
  std::uint64_t sum[9] = {};
  MPI_Reduce(mine, sum, 9, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  double secs[2] = {r.seconds, r.simulate_seconds}, max_secs[2] = {0, 0};
  MPI_Reduce(secs, max_secs, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  const std::vector<std::string> examples = gather_examples(r.totals.invalid_examples, rank, size);
  if (rank == 0) {
    std::vector<std::string> shards;
    for (int k = 0; k < size; ++k) shards.push_back(final_output + ".rank" + std::to_string(k));
    merge_ensemble_files(shards, final_output, o.command_line);
    for (const auto& f : shards) std::remove(f.c_str());
    r.first = 0;
    r.count = r.points;
    r.shard_index = 0;
    r.shard_count = 1;
    r.totals.completed = sum[0];
    r.totals.stick_slip = sum[1];
    r.evaluated = sum[2];
    r.rk4_steps = static_cast<long long>(sum[3]);
    std::copy(sum + 4, sum + 9, r.totals.status_counts);
    r.totals.invalid_examples = examples;
    r.seconds = max_secs[0];
    r.simulate_seconds = max_secs[1];
    r.device += " x " + std::to_string(size) + " MPI ranks";
    r.output = final_output;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return r;
}

#else

EnsembleResult run_ensemble_mpi(const SimulateConfig&, EnsembleRunOptions, int*) {
  throw InputError("--mpi: this build has no MPI support (rebuild with -DSTRIBECK_MPI=ON)");
}

#endif

}  // namespace stribeck
