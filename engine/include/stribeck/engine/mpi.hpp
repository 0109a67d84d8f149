#pragma once
// The one MPI driver of every batch workload (docs/architecture.md, "Batch
// workloads"): each rank runs shard rank/size of the space into OUT.rankK on
// its own device (GPUs picked by node-local rank), the ranks agree that every
// shard finished, sum their counters, take the longest times, gather their
// invalid-point examples in rank order (which is point order), and rank 0
// merges the shard files into OUT — the same file as one run — and removes
// them. The workload supplies how a rank runs, what it counts, and its merge.
// Optional build (-DSTRIBECK_MPI=ON, Debian OpenMPI); without MPI, run_mpi
// throws the one "no MPI support" InputError.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace stribeck::engine {

// True when this build has MPI support.
bool mpi_built();

// A process's place in MPI_COMM_WORLD: rank, number of ranks, and rank
// among the ranks on its node (which picks its GPU).
struct MpiPlace {
  int rank = 0, size = 1, local = 0;
};

// MPI_Init / MPI_Finalize / MPI_Abort wrappers so the CLI needs no MPI header
// (`stribeck sweep|simulate|identify --batch ... --mpi` alike).
void mpi_init(int* argc, char*** argv);
void mpi_finalize();
[[noreturn]] void mpi_abort(int code);

// The --mpi run of a command (sweep, simulate, identify --batch): MPI
// initialised, `body` run (it sets *rank as soon as the rank is known), MPI
// finalised. An exception on any rank prints "stribeck: error (MPI rank R):
// ..." on stderr and aborts every rank with exit code 2, so no rank waits for
// one that failed. Returns true on rank 0, which reports the whole run.
bool run_mpi_command(const std::function<void(int* rank)>& body);

// What one rank's run hands the driver. `sums` and `maxes` have the same
// length on every rank.
struct RankReport {
  bool finished = false;              // the rank's shard is complete
  std::vector<std::uint64_t> sums;    // counters, summed over the ranks
  std::vector<double> maxes;          // times, the largest over the ranks
  std::vector<std::string> examples;  // invalid points, the first kInvalidExamples over the ranks kept
};

// The options as the user gave them: the merged output (HDF5: empty or
// `csv_output` is refused), and what --mpi does not combine with.
struct MpiOptions {
  std::string output;
  bool csv_output = false;
  std::string shard;
  bool resume = false;
  std::uint64_t max_chunks = 0;
  bool gpu_per_rank = false;  // CUDA builds: each rank takes GPU (node-local rank)
};

struct MpiJob {
  MpiOptions options;
  // Runs shard `shard` ("rank/size") into `output` (OUT.rankK); only rank 0
  // should speak (progress, notes).
  std::function<RankReport(const MpiPlace& place, const std::string& shard, const std::string& output)> run;
  // Rank 0: merges the shard files (in rank order) into `output`.
  std::function<void(const std::vector<std::string>& shards, const std::string& output)> merge;
};

struct MpiResult {
  MpiPlace place;
  RankReport all;  // rank 0: over all ranks (sums, maxes, examples); other ranks: their own
};

// Runs `job` across the ranks of MPI_COMM_WORLD (MPI initialised by the
// caller). *rank_out is this rank as soon as it is known (for the caller's
// error message). Throws InputError for refused options (on every rank, before
// anything runs) and when a rank did not finish its shard.
MpiResult run_mpi(const MpiJob& job, int* rank_out);

// A rank-0 result made the whole space's: first point 0, all points, shard 0/1.
template <class Result>
void as_whole_space(Result& r) {
  r.first = 0;
  r.count = r.points;
  r.shard_index = 0;
  r.shard_count = 1;
}

}  // namespace stribeck::engine
