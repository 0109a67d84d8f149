// The one MPI driver (engine/mpi.hpp). Compiled to stubs without MPI.
#include "stribeck/engine/mpi.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "stribeck/data/error.hpp"
#include "stribeck/engine/runner.hpp"
#if STRIBECK_HAVE_MPI
#include <mpi.h>
#endif
#if STRIBECK_HAVE_CUDA
#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#endif

namespace stribeck::engine {

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

namespace {

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

// Rank 0 receives every other rank's examples (joined by '\n') in rank
// order, which is point order, and keeps the first kInvalidExamples; the
// others send theirs.
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
      if (all.size() < kInvalidExamples) all.push_back(text.substr(a, b - a));
  }
  return all;
}

}  // namespace

MpiResult run_mpi(const MpiJob& job, int* rank_out) {
  MpiResult res;
  res.place = mpi_place();
  const auto [rank, size, local] = res.place;
  *rank_out = rank;
  const MpiOptions& o = job.options;
  if (o.output.empty() || o.csv_output)
    throw data::InputError("--mpi: rank 0 merges the ranks' HDF5 shard files; name an HDF5 output (-o OUT.h5)");
  if (!o.shard.empty()) throw data::InputError("--mpi splits the space itself; drop --shard");
  if (o.resume || o.max_chunks)
    throw data::InputError("--mpi does not combine with --resume or --max-chunks; use --shard");
#if STRIBECK_HAVE_CUDA
  if (o.gpu_per_rank) gpu::use_device_for_rank(local);  // one GPU per rank on each node (no-op without GPUs)
#else
  (void)local;
#endif
  auto rank_file = [&](int k) { return o.output + ".rank" + std::to_string(k); };
  RankReport mine = job.run(res.place, std::to_string(rank) + "/" + std::to_string(size), rank_file(rank));
  // Every shard file must be complete before rank 0 merges.
  int ok = mine.finished ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) throw data::InputError("a rank did not finish its shard");
  RankReport& all = res.all;
  all.finished = true;
  all.sums.assign(mine.sums.size(), 0);
  all.maxes.assign(mine.maxes.size(), 0);
  MPI_Reduce(mine.sums.data(), all.sums.data(), static_cast<int>(mine.sums.size()), MPI_UINT64_T, MPI_SUM, 0,
             MPI_COMM_WORLD);
  MPI_Reduce(mine.maxes.data(), all.maxes.data(), static_cast<int>(mine.maxes.size()), MPI_DOUBLE, MPI_MAX, 0,
             MPI_COMM_WORLD);
  all.examples = gather_examples(mine.examples, rank, size);
  if (rank == 0) {
    std::vector<std::string> shards;
    for (int k = 0; k < size; ++k) shards.push_back(rank_file(k));
    job.merge(shards, o.output);
    for (const auto& f : shards) std::remove(f.c_str());
  } else {
    all = std::move(mine);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return res;
}

#else

bool mpi_built() { return false; }
void mpi_init(int*, char***) {}
void mpi_finalize() {}
void mpi_abort(int code) { std::exit(code); }

MpiResult run_mpi(const MpiJob&, int*) {
  throw data::InputError("--mpi: this build has no MPI support (rebuild with -DSTRIBECK_MPI=ON)");
}

#endif

bool run_mpi_command(const std::function<void(int* rank)>& body) {
  int rank = 0;
  mpi_init(nullptr, nullptr);
  try {
    body(&rank);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stribeck: error (MPI rank %d): %s\n", rank, e.what());
    mpi_abort(2);
  }
  mpi_finalize();
  return rank == 0;
}

}  // namespace stribeck::engine
