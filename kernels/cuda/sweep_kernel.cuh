#pragma once
// The fused sweep kernel: one thread per parameter set. A block loads each
// tile of the trace (kTraceTile samples, only the channels the model reads)
// into shared memory once; every thread then runs its trajectory over the tile
// with the same Trajectory code the CPU path runs, keeping its metrics in
// registers. Nothing per sample is written to device memory.
#include <cstdint>

#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/kernels/sweep/rules.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/kernels/sweep/trajectory.hpp"

namespace stribeck::cuda {

constexpr int kSweepBlock = 128;
constexpr int kMaxExperiments = 32;

// The experiments of a sweep in device memory (working scalar), by value.
template <class T>
struct DeviceTraces {
  sweep::TraceView<T> view[kMaxExperiments];
  sweep::TraceCounts counts[kMaxExperiments];
  int n_exp = 0;
};

template <class M, class T>
__global__ void __launch_bounds__(kSweepBlock)
sweep_kernel(sweep::SpaceView space, sweep::ParamRules rules, DeviceTraces<T> traces, std::uint64_t first,
             std::uint64_t count, double* __restrict__ params_out, double* __restrict__ metrics_out,
             std::uint8_t* __restrict__ status_out, double* __restrict__ exp_metrics_out) {
  __shared__ T s_v[sweep::kTraceTile], s_pa[sweep::kTraceTile], s_pb[sweep::kTraceTile], s_fn[sweep::kTraceTile],
      s_fm[sweep::kTraceTile], s_dt[sweep::kTraceTile], s_dx[sweep::kTraceTile];
  const std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool in_range = j < count;
  double p[sweep::kMaxParams];
  bool valid = false;
  if (in_range) {
    space_point(space, first + j, p);
    valid = sweep::params_valid(rules, p);
  }
  // The whole block must reach every __syncthreads(); skip only when no thread works.
  const int any_valid = __syncthreads_or(valid ? 1 : 0);
  sweep::Trajectory<M, T> tr;
  if (valid) tr.prepare(p);
  sweep::RawMetrics total;
  bool finite = true, has_force = false;
  const int dims = space.dims;
  for (int e = 0; e < traces.n_exp && any_valid; ++e) {
    const sweep::TraceView<T>& t = traces.view[e];
    sweep::RawMetrics raw = sweep::raw_before_first_sample(traces.counts[e]);
    if (valid) tr.start_experiment();
    for (std::int64_t b = 0; b < t.n; b += sweep::kTraceTile) {
      const int len = static_cast<int>(t.n - b < sweep::kTraceTile ? t.n - b : sweep::kTraceTile);
      __syncthreads();
      for (int k = threadIdx.x; k < len; k += blockDim.x) {
        s_v[k] = t.v[b + k];
        if constexpr ((M::kInputs & kChannelPressureA) != 0) s_pa[k] = t.p_a[b + k];
        if constexpr ((M::kInputs & kChannelPressureB) != 0) s_pb[k] = t.p_b[b + k];
        if constexpr ((M::kInputs & kChannelNormalForce) != 0) s_fn[k] = t.f_n[b + k];
        s_fm[k] = t.f_meas[b + k];
        s_dt[k] = t.dt[b + k];
        s_dx[k] = t.dx[b + k];
      }
      __syncthreads();
      if (valid) {
        sweep::TraceView<T> tile;
        tile.v = s_v;
        tile.p_a = s_pa;
        tile.p_b = s_pb;
        tile.f_n = s_fn;
        tile.f_meas = s_fm;
        tile.dt = s_dt;
        tile.dx = s_dx;
        tile.n = len;
        tr.run(tile, 0, len, raw);
      }
    }
    if (valid) {
      total.add(raw);
      finite = finite && sweep::raw_finite(raw);
      has_force = has_force || traces.counts[e].has_force;
      if (exp_metrics_out)
        sweep::finalize_metrics(raw, traces.counts[e].has_force,
                                exp_metrics_out + (j * traces.n_exp + e) * sweep::kNumMetrics);
    }
  }
  if (!in_range) return;
  for (int d = 0; d < dims; ++d) params_out[j * dims + d] = p[d];
  double* met = metrics_out + j * sweep::kNumMetrics;
  if (!valid) {
    for (int m = 0; m < sweep::kNumMetrics; ++m) met[m] = NAN;
    if (exp_metrics_out)
      for (int m = 0; m < traces.n_exp * sweep::kNumMetrics; ++m)
        exp_metrics_out[j * traces.n_exp * sweep::kNumMetrics + m] = NAN;
    status_out[j] = sweep::kStatusInvalidParams;
    return;
  }
  sweep::finalize_metrics(total, has_force, met);
  status_out[j] = finite ? sweep::kStatusOk : sweep::kStatusNonFinite;
}

}  // namespace stribeck::cuda
