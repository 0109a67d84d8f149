#pragma once
// Plain C++ interface of the CUDA sweep kernels (kernels/cuda/*.cu). No CUDA
// types cross it, so host code compiled by the C++ compiler calls it; it is
// only linked when CMake found nvcc (STRIBECK_HAVE_CUDA).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stribeck/kernels/sweep/rules.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/kernels/sweep/trace.hpp"

namespace stribeck::gpu {

// What outlives one call and belongs to the caller: two non-blocking
// streams, the device and pinned buffers, and the traces uploaded for the
// current sweep (re-uploaded only when their content, size or precision
// changes). A runner holds one across its chunks; a request without one gets
// a workspace for that call only. One call at a time per workspace. Defined
// in kernels/cuda/workspace.cuh.
struct Workspace;
struct WorkspaceDeleter {
  void operator()(Workspace* w) const;
};
using WorkspacePtr = std::unique_ptr<Workspace, WorkspaceDeleter>;
// Creates the streams on the current device; throws std::runtime_error.
WorkspacePtr make_workspace();

// True when a CUDA device can run kernels; otherwise `reason` says why. Any
// CUDA error during discovery means "no GPU", never a crash.
bool probe_device(std::string& name, std::string& reason);

// MPI ranks: makes device (local_rank mod device count) current; does
// nothing where no device is usable.
void use_device_for_rank(int local_rank);

// One experiment in host memory (double, SI); null for channels not read.
struct HostTrace {
  const double *v = nullptr, *p_a = nullptr, *p_b = nullptr, *f_n = nullptr, *dt = nullptr, *f_meas = nullptr,
               *w_pos = nullptr, *w_neg = nullptr, *w_energy = nullptr, *w_loop = nullptr;
  std::int64_t n = 0;
  sweep::TraceCounts counts;
};

// Top-K mode output: the best `top_k` points of every device sub-chunk
// (selected on the device), so only K rows per sub-chunk cross PCIe; the
// caller merges them. Ties are broken by the smaller index.
struct TopKOutput {
  std::vector<std::uint64_t> index;  // global point indices
  std::vector<double> params;        // rows x dims
  std::vector<double> metrics;       // rows x kNumMetrics
  std::uint64_t invalid = 0, nonfinite = 0;
};

struct SweepRequest {
  const char* model_id = nullptr;
  bool fp32 = false;
  sweep::SpaceView space;  // space.list_values: host pointer to n_list values
  std::uint64_t n_list = 0;
  sweep::ParamRules rules;
  const HostTrace* traces = nullptr;
  int n_exp = 0;
  bool per_experiment = false;
  std::uint64_t first = 0, count = 0;  // points to evaluate
  // Host outputs (count rows): params x dims, metrics x kNumMetrics, status,
  // exp_metrics x n_exp x kNumMetrics (per_experiment only).
  double* params = nullptr;
  double* metrics = nullptr;
  std::uint8_t* status = nullptr;
  double* exp_metrics = nullptr;
  // Top-K mode (top != null): the row outputs above are not used.
  TopKOutput* top = nullptr;
  int top_k = 0;
  int objective = 0;
  bool maximize = false;
  // The caller's streams and buffers (null: a workspace for this call only).
  Workspace* workspace = nullptr;
};

// Evaluates the request on the current device, split into sub-chunks that
// fit in free device memory, copies overlapping compute. Throws
// std::runtime_error naming the CUDA call that failed.
void run_sweep(const SweepRequest& request);

}  // namespace stribeck::gpu
