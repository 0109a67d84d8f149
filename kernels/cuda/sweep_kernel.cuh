#pragma once
// The fused sweep kernel: one thread per parameter set. A block loads each
// tile of the trace (kTraceTile samples, only the channels the model reads)
// into shared memory once; every thread then runs its trajectory over the tile
// with the same Trajectory code the CPU path runs, keeping its metrics in
// registers. Nothing per sample is written to device memory.
//
// The tile is packed sample by sample (PackedSample: eight values, 16-byte
// aligned), so a thread reads a whole sample with two 16-byte shared loads in
// FP32 (four in FP64) instead of one load per channel. Every thread of a warp
// reads the same sample: the loads are broadcasts, free of bank conflicts.
#include <cstdint>

#include "gpu_layer.cuh"
#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/kernels/sweep/rules.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/kernels/sweep/trajectory.hpp"

namespace stribeck::gpu {

constexpr int kMaxExperiments = 32;

// The experiments of a sweep in device memory (working scalar), by value.
template <class T>
struct DeviceTraces {
  sweep::TraceView<T> view[kMaxExperiments];
  sweep::TraceCounts counts[kMaxExperiments];
  int n_exp = 0;
};

// Where a model's inputs besides velocity sit in PackedSample::x: pressure
// A, pressure B, normal force, then the step of models with memory.
template <class M>
struct PackedSlots {
  static constexpr bool a = (M::kInputs & kChannelPressureA) != 0, b = (M::kInputs & kChannelPressureB) != 0,
                        n = (M::kInputs & kChannelNormalForce) != 0, d = M::kDynamic;
  static constexpr int pa = 0, pb = a, fn = a + b, dt = a + b + n;
  static_assert(a + b + n + d <= 2, "PackedSample holds at most two inputs besides velocity");
};

template <class T>
struct alignas(16) PackedSample {
  T v, x[2], f_meas, w_pos, w_neg, w_energy, w_loop;
};

// One tile of a trace in shared memory.
template <class T>
struct PackedTile {
  const PackedSample<T>* s;
};

template <class M, class T>
__device__ __forceinline__ PackedSample<T> pack_sample(const sweep::TraceView<T>& t, std::int64_t k) {
  using S = PackedSlots<M>;
  PackedSample<T> p{t.v[k], {T(0), T(0)}, t.f_meas[k], t.w_pos[k], t.w_neg[k], t.w_energy[k], t.w_loop[k]};
  if constexpr (S::a) p.x[S::pa] = t.p_a[k];
  if constexpr (S::b) p.x[S::pb] = t.p_b[k];
  if constexpr (S::n) p.x[S::fn] = t.f_n[k];
  if constexpr (S::d) p.x[S::dt] = t.dt[k];
  return p;
}

// The Trajectory loop's view of a packed sample (found by argument-dependent
// lookup from sweep::Trajectory::run).
template <class M, class T>
STRIBECK_HD_INLINE sweep::TraceSample<T> trace_sample(const PackedTile<T>& t, std::int64_t k) {
  using S = PackedSlots<M>;
  const PackedSample<T> p = t.s[k];
  sweep::TraceSample<T> s{{p.v, T(0), T(0), T(0)}, T(0), p.f_meas, p.w_pos, p.w_neg, p.w_energy, p.w_loop};
  if constexpr (S::a) s.in.p_a = p.x[S::pa];
  if constexpr (S::b) s.in.p_b = p.x[S::pb];
  if constexpr (S::n) s.in.f_n = p.x[S::fn];
  if constexpr (S::d) s.dt = p.x[S::dt];
  return s;
}

template <class M, class T>
__global__ void __launch_bounds__(DevicePolicy::Sweep::kBlock, DevicePolicy::Sweep::kMinBlocks)
    sweep_kernel(sweep::SpaceView space, sweep::ParamRules rules, DeviceTraces<T> traces, std::uint64_t first,
                 std::uint64_t count, double* __restrict__ params_out, double* __restrict__ metrics_out,
                 std::uint8_t* __restrict__ status_out, double* __restrict__ exp_metrics_out) {
  __shared__ PackedSample<T> s_tile[sweep::kTraceTile];
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
      for (int k = threadIdx.x; k < len; k += blockDim.x) s_tile[k] = pack_sample<M>(t, b + k);
      __syncthreads();
      if (valid) tr.run(PackedTile<T>{s_tile}, 0, len, raw);
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
    status_out[j] = kSimInvalid;
    return;
  }
  sweep::finalize_metrics(total, has_force, met);
  status_out[j] = finite ? kSimOk : kSimNonFinite;
}

}  // namespace stribeck::gpu
