#pragma once
// gpu::Workspace (declared in sweep_cuda.hpp): the caller's streams and the
// buffers the sweep and ensemble launches keep between calls.
#include <cstdint>

#include "gpu_layer.cuh"
#include "stribeck/kernels/cuda/sweep_cuda.hpp"

namespace stribeck::gpu {

struct Workspace {
  // The architecture of the code the device runs: which PolicyNNN the
  // launches use (policies.cuh).
  int arch = 0;
  Stream streams[2];
  // Sub-chunk results, one set per stream: device rows and status, pinned staging.
  DeviceBuffer<double> rows[2];
  DeviceBuffer<std::uint8_t> status[2];
  PinnedBuffer<double> h_rows[2];
  PinnedBuffer<std::uint8_t> h_status[2];
  // Sweep inputs: the traces (as bytes of the working scalar), list values,
  // an ensemble's measured input tables.
  DeviceBuffer<unsigned char> traces;
  DeviceBuffer<double> lists;
  DeviceBuffer<unsigned char> tables[4];
  std::uint64_t trace_key = 0;
  // The temporary storage of the CUB calls queued on each stream (top-K's
  // histogram and sort, an ensemble's counts): sized once for a run's
  // sub-chunks, like the rows.
  DeviceBuffer<unsigned char> cub_temp[2];
  // Top-K selection (top_k.cuh), one set per stream: keys and indices (in,
  // then sorted), the class byte of each point, the output (counts by
  // class, then the picked indices) and the picked rows, with their pinned
  // staging.
  DeviceBuffer<unsigned long long> top_keys[2], top_out[2];
  DeviceBuffer<unsigned> top_index[2];
  DeviceBuffer<std::uint8_t> top_class[2];
  DeviceBuffer<double> top_rows[2];
  PinnedBuffer<unsigned long long> h_top_out[2];
  PinnedBuffer<double> h_top_rows[2];
  // An ensemble's counts of each sub-chunk (ensemble_launch.cu), one set per
  // stream, with their pinned staging.
  DeviceBuffer<unsigned long long> counts[2];
  PinnedBuffer<unsigned long long> h_counts[2];
};

// The request's workspace, or `local` created for this call.
inline Workspace& workspace_for(Workspace* given, WorkspacePtr& local) {
  if (given) return *given;
  local = make_workspace();
  return *local;
}

}  // namespace stribeck::gpu
