#pragma once
// Plain C++ interface of the CUDA ensemble kernel (kernels/cuda/ensemble_launch.cu):
// one thread per trajectory runs ensemble_point (systems/ensemble.hpp) with
// the whole state in registers. Only linked when CMake found nvcc
// (STRIBECK_HAVE_CUDA); device discovery is gpu::probe_device and the caller's
// streams and buffers a gpu::Workspace (sweep_cuda.hpp).
#include <cstdint>

#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#include "stribeck/kernels/integrators/status.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/kernels/systems/ensemble.hpp"

namespace stribeck::gpu {

// Values written per point after its coordinates: the StickSlipMetrics in the
// order of ensemble_metric_values().
constexpr int kEnsembleMetrics = 14;

// The columns of that row the device reduces (EnsembleCounts).
constexpr int kEnsembleStickSlipColumn = 0, kEnsembleStatusColumn = 12, kEnsembleStepsColumn = 13;
// Statuses a point can end with: the SimStatus codes 0 to kSimInvalid.
constexpr int kEnsembleStatuses = kSimInvalid + 1;

template <class T>
STRIBECK_HD_INLINE void ensemble_metric_values(const StickSlipMetrics<T>& m, double* out) {
  out[kEnsembleStickSlipColumn] = m.stick_slip;
  out[1] = double(m.stick_fraction);
  out[2] = double(m.amp_spring_force);
  out[3] = double(m.amp_velocity);
  out[4] = double(m.period);
  out[5] = double(m.breakaway_force);
  out[6] = double(m.peak_velocity);
  out[7] = double(m.dissipated);
  out[8] = double(m.final_s);
  out[9] = double(m.final_v);
  out[10] = double(m.final_z);
  out[11] = m.final_mode;
  out[kEnsembleStatusColumn] = m.status;
  out[kEnsembleStepsColumn] = double(m.steps);
}

// What a request's points add up to, reduced on the device by CUB
// (cub::DeviceHistogram over the status column, cub::DeviceReduce::Sum over
// the stick-slip and steps columns) for each sub-chunk: the points of each
// status (SimStatus codes), the points with stick-slip and their RK4 steps.
// All integers, so the sums equal the CPU's in whatever order CUB adds them.
struct EnsembleCounts {
  std::uint64_t status[kEnsembleStatuses] = {};
  std::uint64_t stick_slip = 0, steps = 0;
};

struct EnsembleRequest {
  const char* model_id = nullptr;
  bool fp32 = false;
  // Used when !fp32 / fp32. Measured input tables of the base system's
  // profiles are host pointers here; run_ensemble copies them to the device.
  EnsembleSpec<double> spec64;
  EnsembleSpec<float> spec32;
  sweep::SpaceView space;  // space.list_values: host pointer to n_list values
  std::uint64_t n_list = 0;
  std::uint64_t first = 0, count = 0;
  // Host outputs, count rows each: coordinates (space.dims) and metrics (kEnsembleMetrics).
  double* values = nullptr;
  double* metrics = nullptr;
  // Added to, when not null: the request's counts, reduced on the device.
  EnsembleCounts* counts = nullptr;
  // The caller's streams and buffers (null: a workspace for this call only).
  Workspace* workspace = nullptr;
};

// Runs the request on the current device in sub-chunks sized by free device
// memory, two streams overlapping one sub-chunk's copies with the next one's
// kernel; throws std::runtime_error
// naming the CUDA call that failed.
void run_ensemble(const EnsembleRequest& request);

}  // namespace stribeck::gpu
