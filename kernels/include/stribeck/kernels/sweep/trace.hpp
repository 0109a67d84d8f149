#pragma once
// One input trace as the per-trajectory code reads it: structure of arrays in
// the working scalar, one entry per sample. Channels a model does not read may
// be null.
//
// The metric weights are precomputed per sample on the host (in double), so
// that every metric is one multiply-add per sample and no sample looks back
// at the previous one (which would also cross tile boundaries). The
// trapezoid integrals over the sample grid,
//   energy    = sum_k (F_{k-1} v_{k-1} + F_k v_k)/2 * (t_k - t_{k-1})
//   loop area = sum_k (F_{k-1} + F_k)/2 * (x_k - x_{k-1}),
// regrouped by sample (summation by parts, dt_0 = dt_n = dx_0 = dx_n = 0) are
//   energy    = sum_k F_k * v_k (dt_k + dt_{k+1})/2 = sum_k F_k * w_energy_k
//   loop area = sum_k F_k * (dx_k + dx_{k+1})/2     = sum_k F_k * w_loop_k,
// the same sums, rounded differently. w_pos and w_neg are 1 where v > 0
// (v < 0) and 0 elsewhere: F * 1 and F * 0 are exact, so the directional
// sums equal the selected sums bit for bit.
#include <cstdint>

#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/sample.hpp"

namespace stribeck::sweep {

// The one channel table of a trace: X(member, units, meaning). TraceView
// (here), the host's SweepTrace and its point_view (workloads/sweep.hpp) are
// generated from it; the GPU's HostTrace carries the same member names.
#define STRIBECK_TRACE_CHANNELS(X)                                               \
  X(v, "m/s", "velocity")                                                        \
  X(p_a, "Pa", "chamber A pressure")                                             \
  X(p_b, "Pa", "chamber B pressure")                                             \
  X(f_n, "N", "normal force")                                                    \
  X(dt, "s", "t_k - t_{k-1} (dt_0 = 0): the step of models with memory")         \
  X(f_meas, "N", "measured force (zero when absent: cost metrics are then NaN)") \
  X(w_pos, "1", "1 where v > 0, else 0")                                         \
  X(w_neg, "1", "1 where v < 0, else 0")                                         \
  X(w_energy, "m", "v_k (dt_k + dt_{k+1}) / 2")                                  \
  X(w_loop, "m", "(dx_k + dx_{k+1}) / 2")

template <class T>
struct TraceView {
#define STRIBECK_TRACE_VIEW_MEMBER(member, units, meaning) const T* member = nullptr;
  STRIBECK_TRACE_CHANNELS(STRIBECK_TRACE_VIEW_MEMBER)
#undef STRIBECK_TRACE_VIEW_MEMBER
  std::int64_t n = 0;
};
// Channels of a TraceView: per-sample values a trace may carry.
#define STRIBECK_TRACE_COUNT(member, units, meaning) +1
constexpr int kTraceChannels = 0 STRIBECK_TRACE_CHANNELS(STRIBECK_TRACE_COUNT);
#undef STRIBECK_TRACE_COUNT
static_assert(sizeof(TraceView<float>) == kTraceChannels * sizeof(const float*) + sizeof(std::int64_t),
              "kTraceChannels counts the channel pointers of TraceView");

// Everything the trajectory loop consumes at one sample: the model's inputs,
// the step and the metric weights.
template <class T>
struct TraceSample {
  Sample<T> in;
  T dt, f_meas, w_pos, w_neg, w_energy, w_loop;
};

// Sample k of a trace, reading only the channels model M needs (the others
// stay 0, and their pointers may be null).
template <class M, class T>
STRIBECK_HD_INLINE TraceSample<T> trace_sample(const TraceView<T>& t, std::int64_t k) {
  TraceSample<T> s{{t.v[k], T(0), T(0), T(0)}, T(0), t.f_meas[k], t.w_pos[k], t.w_neg[k], t.w_energy[k], t.w_loop[k]};
  if constexpr ((M::kInputs & kChannelPressureA) != 0) s.in.p_a = t.p_a[k];
  if constexpr ((M::kInputs & kChannelPressureB) != 0) s.in.p_b = t.p_b[k];
  if constexpr ((M::kInputs & kChannelNormalForce) != 0) s.in.f_n = t.f_n[k];
  if constexpr (M::kDynamic) s.dt = t.dt[k];
  return s;
}

// Counts of one experiment that do not depend on the parameters.
struct TraceCounts {
  std::uint64_t samples = 0, n_pos = 0, n_neg = 0;
  bool has_force = false;
};

}  // namespace stribeck::sweep
