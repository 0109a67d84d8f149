// One instruction-set build of the CPU sweep's SIMD lanes. workloads/CMakeLists.txt
// compiles this file once per level with STRIBECK_LANES_NS naming the level
// (generic, x86_64_v3, x86_64_v4), that level's -march, -fno-math-errno and
// -fno-trapping-math (so selects and vector math calls can be if-converted),
// and STRIBECK_HOST_ALWAYS_INLINE (so nothing shared is emitted out of line;
// the test cpu_lanes_objects_share_no_symbols checks the objects).
#include "libmvec.hpp"  // first: the SIMD declarations must precede every use of exp/tanh
#include "sweep_lanes.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/sweep/lanes.hpp"

namespace stribeck::workloads::lanes::STRIBECK_LANES_NS {
namespace {

// 128 bytes of points per batch: two AVX-512 vectors (four AVX2, eight SSE2),
// so there is independent work in flight around each vector math call. On
// the grid benchmark this beat one vector by ~1.2x and tied with four.
template <class T>
constexpr int kWidth = 128 / static_cast<int>(sizeof(T));

template <class M, class T>
void batch(const double* params, const sweep::TraceView<T>* traces, const sweep::TraceCounts* counts, int n_exp,
           sweep::RawMetrics* out) {
  sweep::evaluate_points_lanes<M, T, kWidth<T>>(params, traces, counts, n_exp, out);
}

// The samples of one law, one per vector lane (eval's vector-math path).
template <class M>
void eval_samples(const double* params, long n, const double* v, const double* p_a, const double* p_b,
                  const double* f_n, double* force) {
  const typename M::template Coeffs<double> c = M::prepare(params);
  STRIBECK_LANES_IVDEP
  for (long i = 0; i < n; ++i) force[i] = M::force(c, Sample<double>{v[i], p_a[i], p_b[i], f_n[i]});
}

}  // namespace

Kernels kernels(const char* model_id) {
  Kernels k;
  visit_model(StaticModels{}, model_id, [&](auto tag) {
    using M = typename decltype(tag)::type;
    k.eval64 = &eval_samples<M>;
    k.fp64 = &batch<M, double>;
    k.fp32 = &batch<M, float>;
    k.width64 = kWidth<double>;
    k.width32 = kWidth<float>;
  });
  return k;
}

}  // namespace stribeck::workloads::lanes::STRIBECK_LANES_NS
