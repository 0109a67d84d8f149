#pragma once
// One trajectory: one parameter set driven along input traces, reduced to
// metrics on the fly. Generic over the model through model_step<M>, so static
// laws and stateful models (state reset at the start of each experiment) run
// through the same code on CPU threads and GPU threads.
//
// The GPU kernel drives Trajectory tile by tile from shared memory; the CPU
// path drives it tile by tile straight from the trace arrays (evaluate_point).
// Both add the same tile partials in the same order.
#include <cstdint>

#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/kernels/sweep/trace.hpp"

namespace stribeck::sweep {

template <class M, class T>
struct Trajectory {
  typename M::template Coeffs<T> coeffs;
  typename M::template State<T> state;

  STRIBECK_HD_INLINE void prepare(const double* p) {
    T pt[M::kNumParams];
    for (int i = 0; i < M::kNumParams; ++i) pt[i] = static_cast<T>(p[i]);
    coeffs = M::prepare(pt);
  }
  STRIBECK_HD_INLINE void start_experiment() { state = typename M::template State<T>{}; }
  // Samples [begin, end) of `t` (at most one tile), partial sums flushed into
  // `raw`. `t` is a TraceView, or any source with the same
  // `trace_sample<M>(t, k)` (the GPU kernel's shared-memory tile).
  template <class Src>
  STRIBECK_HD_INLINE void run(const Src& t, std::int64_t begin, std::int64_t end, RawMetrics& raw) {
    // Locals, not members: stores through the trace's T pointers could
    // otherwise alias them and force a reload of every coefficient per sample.
    const typename M::template Coeffs<T> c = coeffs;
    typename M::template State<T> st = state;
    TilePartial<T> part;
    part.reset();
    // A 32-bit counter over the tile (at most kTraceTile samples): 64-bit
    // loop arithmetic costs the GPU about two instructions per sample.
    const int n = static_cast<int>(end - begin);
    for (int i = 0; i < n; ++i) {
      const TraceSample<T> s = trace_sample<M>(t, begin + i);
      part.add_sample(model_step<M>(c, s.in, st, s.dt), s.f_meas, s.w_pos, s.w_neg, s.w_energy, s.w_loop);
    }
    state = st;
    part.flush_into(raw);
  }
};

// Raw sums of one experiment before its first sample: only the counts that
// do not depend on the parameters.
STRIBECK_HD_INLINE RawMetrics raw_before_first_sample(const TraceCounts& c) {
  RawMetrics raw;
  raw.samples = c.samples;
  raw.n_pos = c.n_pos;
  raw.n_neg = c.n_neg;
  return raw;
}

// Calls f(begin, end) for the tiles of a trace of n samples, in order: the
// tiling every path shares, so all of them add the same partial sums.
template <class F>
STRIBECK_HD_INLINE void for_each_tile(std::int64_t n, F&& f) {
  for (std::int64_t b = 0; b < n; b += kTraceTile) f(b, b + kTraceTile < n ? b + kTraceTile : n);
}

// Host/CPU driver of one point over `n_exp` experiments: per-experiment raw
// sums into per_exp[0 .. n_exp) (counts taken from `counts`).
template <class M, class T>
STRIBECK_HD_INLINE void evaluate_point(const double* p, const TraceView<T>* traces, const TraceCounts* counts,
                                       int n_exp, RawMetrics* per_exp) {
  Trajectory<M, T> tr;
  tr.prepare(p);
  for (int e = 0; e < n_exp; ++e) {
    RawMetrics raw = raw_before_first_sample(counts[e]);
    tr.start_experiment();
    for_each_tile(traces[e].n, [&](std::int64_t begin, std::int64_t end) { tr.run(traces[e], begin, end, raw); });
    per_exp[e] = raw;
  }
}

}  // namespace stribeck::sweep
