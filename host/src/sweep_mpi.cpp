// MPI scale-out of a sweep (see sweep_mpi.hpp). Compiled to stubs without MPI.
#include "stribeck/host/sweep_mpi.hpp"

#include <cstdio>
#include <cstdlib>

#include "stribeck/data/error.hpp"
#include "stribeck/host/sweep_output.hpp"
#if STRIBECK_HAVE_MPI
#include <mpi.h>
#endif
#if STRIBECK_HAVE_CUDA
#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#endif

namespace stribeck {

#if STRIBECK_HAVE_MPI

bool mpi_built() { return true; }

void mpi_init(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
}
void mpi_finalize() { MPI_Finalize(); }
void mpi_abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

MpiPlace mpi_place() {
  MpiPlace p;
  MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p.size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, p.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &p.local);
  MPI_Comm_free(&node);
  return p;
}

SweepSummary run_sweep_mpi(const SweepConfig& config, SweepRunOptions o, int* rank_out) {
  const auto [rank, size, local] = mpi_place();
  *rank_out = rank;
  if (o.output.empty()) throw InputError("--mpi needs an output file (-o OUT.h5)");
  if (o.resume || o.max_chunks) throw InputError("--mpi does not combine with --resume or --max-chunks; use --shard");
#if STRIBECK_HAVE_CUDA
  gpu::use_device_for_rank(local);  // one GPU per rank on each node (no-op without GPUs)
#endif
  const std::string shard = std::to_string(rank) + "/" + std::to_string(size);
  const SweepPlan plan = plan_sweep(config, shard);
  const std::string final_output = o.output;
  o.output = final_output + ".rank" + std::to_string(rank);
  if (rank != 0) o.progress = nullptr;  // one progress line: rank 0's
  SweepSummary s = run_sweep(plan, config, o);
  // Everyone's shard file must be complete before rank 0 merges.
  int ok = s.finished ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) throw InputError("a rank did not finish its shard");
  std::uint64_t mine[4] = {s.invalid, s.nonfinite, s.evaluated, s.completed}, sum[4] = {0, 0, 0, 0};
  MPI_Reduce(mine, sum, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  double secs = s.seconds, max_secs = 0;
  MPI_Reduce(&secs, &max_secs, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::vector<std::string> shards;
    for (int r = 0; r < size; ++r) shards.push_back(final_output + ".rank" + std::to_string(r));
    merge_sweep_files(shards, final_output);
    for (const auto& f : shards) std::remove(f.c_str());
    const SweepFile merged = read_sweep_file(final_output);
    s.points = merged.meta.points;
    s.completed = sum[3];
    s.invalid = sum[0];
    s.nonfinite = sum[1];
    s.evaluated = sum[2];
    s.ok = s.completed - s.invalid - s.nonfinite;
    s.seconds = max_secs;
    s.top = merged.progress.top;
    s.output = final_output;
    s.device += " x " + std::to_string(size) + " MPI ranks";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return s;
}

#else

bool mpi_built() { return false; }
MpiPlace mpi_place() { return {}; }
void mpi_init(int*, char***) {}
void mpi_finalize() {}
void mpi_abort(int code) { std::exit(code); }
SweepSummary run_sweep_mpi(const SweepConfig&, SweepRunOptions, int*) {
  throw InputError("--mpi: this build has no MPI support (rebuild with -DSTRIBECK_MPI=ON)");
}

#endif

}  // namespace stribeck
