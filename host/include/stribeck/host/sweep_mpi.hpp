#pragma once
// Scale-out of a sweep over MPI ranks (optional build: -DSTRIBECK_MPI=ON with
// Debian OpenMPI). Every rank evaluates shard rank/size of the space on its
// own device (GPUs picked by node-local rank), writes its shard file, and
// rank 0 merges the shards into the output (top-K gathered through the
// merge) — the same file as a single run.
#include <string>

#include "stribeck/host/sweep_run.hpp"

namespace stribeck {

// True when this build has MPI support.
bool mpi_built();

// Runs `config` across the ranks of MPI_COMM_WORLD (MPI must be initialised).
// Returns the summary on rank 0 (whole space, merged top-K); other ranks
// return their shard's summary. Output is required.
SweepSummary run_sweep_mpi(const SweepConfig& config, SweepRunOptions options, int* rank_out);

// This process's place in MPI_COMM_WORLD: rank, number of ranks, and rank
// among the ranks on its node (which picks its GPU). MPI builds only.
struct MpiPlace {
  int rank = 0, size = 1, local = 0;
};
MpiPlace mpi_place();

// MPI_Init / MPI_Finalize / MPI_Abort wrappers so the CLI needs no MPI header
// (`stribeck sweep --mpi` and `stribeck simulate --mpi` alike).
void mpi_init(int* argc, char*** argv);
void mpi_finalize();
[[noreturn]] void mpi_abort(int code);

}  // namespace stribeck
