#pragma once
// Metrics of one trajectory, reduced on the fly along the trace: no force
// array is ever stored.
//
// Accumulation is two-level: a tile of samples (kTraceTile) is summed in the
// working scalar T, and each tile's partial sums are added into double
// accumulators. For T = double this is plain double accumulation; for
// T = float it bounds the float rounding to one tile while keeping the
// per-sample work in float (GPU FP32 throughput). CPU and GPU use the same tile
// length, so they add the same numbers in the same order.
//
// The energy and loop-area integrals are the trapezoid rule on the sample
// grid, computed as one weighted sum per sample (trace.hpp says how):
//   energy    = integral of F v dt  [J]
//   loop area = integral of F dx    [J]
// (x from the position channel, else the trapezoid integral of v). The loop
// area is the signed integral of F dx over the whole trace: for a trace of
// closed cycles it is the total area enclosed by the force-position loops.
#include <cmath>
#include <cstdint>

#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/integrators/status.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck::sweep {

constexpr int kTraceTile = 256;

// The one field table of a sweep point's metrics: X(id, column name, units,
// description, needs a measured force). The Metric ids, kMetricInfo and the
// engine's field table (engine/records.hpp: columns, units, CSV headers) are
// all derived from it, in this order, which is also the layout of a point's
// row of kNumMetrics doubles that the CPU and GPU stage (finalize_metrics).
//   sse             sum (F - F_meas)^2                        [N^2]
//   rmse            sqrt(SSE / samples)                       [N]
//   max_abs_error   max |F - F_meas|                          [N]
//   peak_force      max |F|                                   [N]
//   mean_force_pos  mean F over samples with v > 0            [N]
//   mean_force_neg  mean F over samples with v < 0            [N]
//   energy          dissipated energy, integral of F v dt     [J]
//   loop_area       hysteresis loop area, integral of F dx    [J]
#define STRIBECK_SWEEP_METRIC_FIELDS(X)                                                            \
  X(kSse, "sse", "N^2", "sum of squared errors against the measured force", true)                  \
  X(kRmse, "rmse", "N", "root mean square error against the measured force", true)                 \
  X(kMaxAbsError, "max_abs_error", "N", "largest absolute error against the measured force", true) \
  X(kPeakForce, "peak_force", "N", "largest |F|", false)                                           \
  X(kMeanForcePos, "mean_force_pos", "N", "mean F over samples with v > 0", false)                 \
  X(kMeanForceNeg, "mean_force_neg", "N", "mean F over samples with v < 0", false)                 \
  X(kEnergy, "energy", "J", "dissipated energy, trapezoid integral of F v dt", false)              \
  X(kLoopArea, "loop_area", "J", "hysteresis loop area, trapezoid integral of F dx", false)

enum Metric : int {
#define STRIBECK_SWEEP_METRIC_ID(id, name, unit, description, needs_force) id,
  STRIBECK_SWEEP_METRIC_FIELDS(STRIBECK_SWEEP_METRIC_ID)
#undef STRIBECK_SWEEP_METRIC_ID
      kNumMetrics
};

struct MetricInfo {
  const char* name;
  const char* unit;
  const char* description;
  bool needs_force;  // needs a measured force channel
};

constexpr MetricInfo kMetricInfo[kNumMetrics] = {
#define STRIBECK_SWEEP_METRIC_INFO(id, name, unit, description, needs_force) {name, unit, description, needs_force},
    STRIBECK_SWEEP_METRIC_FIELDS(STRIBECK_SWEEP_METRIC_INFO)
#undef STRIBECK_SWEEP_METRIC_INFO
};

// A point's outcome is the kernels' one per-point code, SimStatus
// (integrators/status.hpp): a sweep point is kSimOk, kSimNonFinite (the model
// produced NaN or Inf somewhere along the trace) or kSimInvalid (outside the
// model's ranges or relations: not computed), the codes a simulation uses.

// Raw sums of one or several experiments (double).
struct RawMetrics {
  double sse = 0, max_abs_error = 0, peak = 0, sum_pos = 0, sum_neg = 0, energy = 0, loop = 0;
  std::uint64_t samples = 0, n_pos = 0, n_neg = 0;

  STRIBECK_HD_INLINE void add(const RawMetrics& o) {
    sse += o.sse;
    max_abs_error = o.max_abs_error > max_abs_error ? o.max_abs_error : max_abs_error;
    peak = o.peak > peak ? o.peak : peak;
    sum_pos += o.sum_pos;
    sum_neg += o.sum_neg;
    energy += o.energy;
    loop += o.loop;
    samples += o.samples;
    n_pos += o.n_pos;
    n_neg += o.n_neg;
  }
};

// Partial sums of one tile, in the working scalar.
template <class T>
struct TilePartial {
  T sse, max_abs_error, peak, sum_pos, sum_neg, energy, loop;
  STRIBECK_HD_INLINE void reset() { sse = max_abs_error = peak = sum_pos = sum_neg = energy = loop = T(0); }
  // One sample: force f against the measured f_meas, with the sample's
  // metric weights (trace.hpp). Written once for the GPU thread, the scalar
  // CPU path and the CPU SIMD lanes, so all three round the same operations
  // in the same order. Every update is one multiply-add or one max, and none
  // depends on the previous sample.
  STRIBECK_HD_INLINE void add_sample(const T& f, const T& f_meas, const T& w_pos, const T& w_neg, const T& w_energy,
                                     const T& w_loop) {
    const T e = f - f_meas;
    sse += e * e;
    max_abs_error = math::running_max(math::abs(e), max_abs_error);
    peak = math::running_max(math::abs(f), peak);
    sum_pos += w_pos * f;
    sum_neg += w_neg * f;
    energy += w_energy * f;
    loop += w_loop * f;
  }
  STRIBECK_HD_INLINE void flush_into(RawMetrics& r) const {
    r.sse += static_cast<double>(sse);
    const double e = static_cast<double>(max_abs_error), p = static_cast<double>(peak);
    if (e > r.max_abs_error) r.max_abs_error = e;
    if (p > r.peak) r.peak = p;
    r.sum_pos += static_cast<double>(sum_pos);
    r.sum_neg += static_cast<double>(sum_neg);
    r.energy += static_cast<double>(energy);
    r.loop += static_cast<double>(loop);
  }
};

// Final metrics from raw sums. Metrics that need a measured force are NaN
// when `has_force` is false; means over an empty direction are NaN.
STRIBECK_HD_INLINE void finalize_metrics(const RawMetrics& r, bool has_force, double* out) {
  const double nan = NAN;
  out[kSse] = has_force ? r.sse : nan;
  out[kRmse] = has_force && r.samples ? std::sqrt(r.sse / static_cast<double>(r.samples)) : nan;
  out[kMaxAbsError] = has_force ? r.max_abs_error : nan;
  out[kPeakForce] = r.peak;
  out[kMeanForcePos] = r.n_pos ? r.sum_pos / static_cast<double>(r.n_pos) : nan;
  out[kMeanForceNeg] = r.n_neg ? r.sum_neg / static_cast<double>(r.n_neg) : nan;
  out[kEnergy] = r.energy;
  out[kLoopArea] = r.loop;
}

// True when every accumulated sum is finite (NaN/Inf forces propagate into
// the energy and loop sums, and into the peak through the explicit check).
STRIBECK_HD_INLINE bool raw_finite(const RawMetrics& r) {
  return std::isfinite(r.sse) && std::isfinite(r.peak) && std::isfinite(r.energy) && std::isfinite(r.loop) &&
         std::isfinite(r.sum_pos) && std::isfinite(r.sum_neg);
}

}  // namespace stribeck::sweep
