#pragma once
// The CPU's SIMD form of Trajectory (trajectory.hpp) for memoryless laws: W
// parameter sets advance together along one trace, a vector lane each. Every
// lane reads the same sample, so the loop over lanes is the inner one and the
// compiler vectorises it with the model's own force() inlined. Coefficients and tile partials are kept lane-major (a structure of
// arrays), so each field of W lanes is one contiguous vector load.
//
// A lane computes what Trajectory computes for its point, the same operations
// in the same order (TilePartial::add_sample, tiles of kTraceTile); only the
// elementary functions differ: the vector exp/tanh of the C library (libmvec,
// within 4 ulp) instead of the scalar ones, and in FP64 with AVX-512 the
// inlined poly_exp (within 1 ulp; poly_exp.hpp says why). A lane's result depends on its own
// point alone, so how points are grouped into batches never changes results.
//
// Host only; built once per instruction set by workloads/src/lanes/.
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/kernels/sweep/trace.hpp"
#include "stribeck/kernels/sweep/trajectory.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#define STRIBECK_LANES_IVDEP _Pragma("GCC ivdep")
#else
#define STRIBECK_LANES_IVDEP
#endif

namespace stribeck::sweep {

// W copies of an aggregate made only of T fields (a model's Coeffs), stored
// field by field. get() rebuilds a lane's struct by aggregate initialisation
// from one element per field: the form GCC's vectoriser follows (a memcpy or
// a pointer walk over the struct defeats its data-reference analysis).
template <class S, class T, int W>
struct LaneArray {
  static_assert(std::is_aggregate_v<S> && std::is_trivially_copyable_v<S> && sizeof(S) % sizeof(T) == 0,
                "a lane array holds aggregates of T fields only");
  static constexpr int kFields = static_cast<int>(sizeof(S) / sizeof(T));
  alignas(64) T field[kFields][W];

  STRIBECK_HD_INLINE S get(int lane) const { return get(lane, std::make_index_sequence<kFields>{}); }
  STRIBECK_HD_INLINE void set(int lane, const S& s) {
    T flat[kFields];
    std::memcpy(flat, &s, sizeof(S));
    for (int i = 0; i < kFields; ++i) field[i][lane] = flat[i];
  }

 private:
  template <std::size_t... I>
  STRIBECK_HD_INLINE S get(int lane, std::index_sequence<I...>) const {
    return S{field[I][lane]...};
  }
};

// The tile partials (TilePartial) of W lanes, field by field.
template <class T, int W>
struct TilePartialLanes {
  alignas(64) T sse[W], max_abs_error[W], peak[W], sum_pos[W], sum_neg[W], energy[W], loop[W];

  STRIBECK_HD_INLINE void reset() {
    for (int l = 0; l < W; ++l)
      sse[l] = max_abs_error[l] = peak[l] = sum_pos[l] = sum_neg[l] = energy[l] = loop[l] = T(0);
  }
  STRIBECK_HD_INLINE TilePartial<T> get(int l) const {
    return TilePartial<T>{sse[l], max_abs_error[l], peak[l], sum_pos[l], sum_neg[l], energy[l], loop[l]};
  }
  STRIBECK_HD_INLINE void set(int l, const TilePartial<T>& p) {
    sse[l] = p.sse;
    max_abs_error[l] = p.max_abs_error;
    peak[l] = p.peak;
    sum_pos[l] = p.sum_pos;
    sum_neg[l] = p.sum_neg;
    energy[l] = p.energy;
    loop[l] = p.loop;
  }
};

template <class M, class T, int W>
struct TrajectoryLanes {
  static_assert(!M::kDynamic, "lanes run memoryless laws: a state would need per-lane sub-steps");
  using Coeffs = typename M::template Coeffs<T>;
  LaneArray<Coeffs, T, W> coeffs;

  // Lane `lane` takes the parameter set p (as Trajectory::prepare).
  STRIBECK_HD_INLINE void prepare(int lane, const double* p) {
    T pt[M::kNumParams];
    for (int i = 0; i < M::kNumParams; ++i) pt[i] = static_cast<T>(p[i]);
    coeffs.set(lane, M::prepare(pt));
  }
  // Samples [begin, end) of `t` (at most one tile); lane l's partial sums are
  // flushed into raw[l * stride].
  STRIBECK_HD_INLINE void run(const TraceView<T>& t, std::int64_t begin, std::int64_t end, RawMetrics* raw,
                              int stride) {
    TilePartialLanes<T, W> part;
    part.reset();
    for (std::int64_t k = begin; k < end; ++k) {
      const TraceSample<T> s = trace_sample<M>(t, k);
      // GCC's own vectoriser, not `omp simd`: OpenMP's per-lane privatisation
      // would keep the Coeffs temporary in memory and defeat the vectoriser.
      STRIBECK_LANES_IVDEP
      for (int l = 0; l < W; ++l) {
        const T f = M::force(coeffs.get(l), s.in);
        TilePartial<T> p = part.get(l);
        p.add_sample(f, s.f_meas, s.w_pos, s.w_neg, s.w_energy, s.w_loop);
        part.set(l, p);
      }
    }
    for (int l = 0; l < W; ++l) part.get(l).flush_into(raw[l * stride]);
  }
};

// W points over `n_exp` experiments: params holds W rows of M::kNumParams;
// per_exp[l * n_exp + e] receives lane l's raw sums of experiment e.
template <class M, class T, int W>
STRIBECK_HD_INLINE void evaluate_points_lanes(const double* params, const TraceView<T>* traces,
                                              const TraceCounts* counts, int n_exp, RawMetrics* per_exp) {
  TrajectoryLanes<M, T, W> tr;
  for (int l = 0; l < W; ++l) tr.prepare(l, params + l * M::kNumParams);
  for (int e = 0; e < n_exp; ++e) {
    for (int l = 0; l < W; ++l) per_exp[l * n_exp + e] = raw_before_first_sample(counts[e]);
    // A plain loop, not for_each_tile: a lambda's call operator could be
    // emitted out of line, shared between the per-ISA builds.
    for (std::int64_t b = 0; b < traces[e].n; b += kTraceTile)
      tr.run(traces[e], b, b + kTraceTile < traces[e].n ? b + kTraceTile : traces[e].n, per_exp + e, n_exp);
  }
}

}  // namespace stribeck::sweep
