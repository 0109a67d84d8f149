#pragma once
// Scale-out of a sweep over MPI ranks (optional build: -DSTRIBECK_MPI=ON with
// Debian OpenMPI), on the one MPI driver (engine/mpi.hpp): every rank
// evaluates shard rank/size of the space on its own device, writes its shard
// file, and rank 0 merges the shards into the output (top-K gathered through
// the merge) — the same file as a single run.
#include <string>

#include "stribeck/engine/mpi.hpp"
#include "stribeck/workloads/sweep_run.hpp"

namespace stribeck::workloads {

// Runs `config` across the ranks of MPI_COMM_WORLD (MPI must be initialised).
// Returns the summary on rank 0 (whole space, merged top-K); other ranks
// return their shard's summary. Output is required.
SweepSummary run_sweep_mpi(const SweepConfig& config, SweepRunOptions options, int* rank_out);

}  // namespace stribeck::workloads
