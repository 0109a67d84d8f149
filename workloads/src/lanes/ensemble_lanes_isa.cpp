// One instruction-set build of the CPU ensemble's SIMD lanes, compiled like
// sweep_lanes_isa.cpp (one object per level, everything inlined, its own
// namespace; the CTest CpuLanes.ObjectsShareNoSymbols checks the objects).
#include "libmvec.hpp"  // first: the SIMD declarations must precede every use of exp/tanh
#include "ensemble_lanes.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/systems/ensemble_lanes.hpp"

namespace stribeck::workloads::lanes::STRIBECK_LANES_NS {
namespace {

// 256 bytes of trajectories per group, four AVX-512 vectors (the sweep's
// lanes take 128): on the LuGre rig of bench/fit_draws.sh, 13-17 % more
// steps per second than 128 bytes in FP64 ETDRK4, 11 % in FP64 RK4, 2 % in FP32;
// 512 bytes gain nothing more (AVX2: the same as 128). Each RK4 stage of a
// vector is a chain of dependent exps and divisions (perf's samples wait on
// them), and the more vectors a group's loops hold, the more of that latency
// overlaps other work.
template <class T>
constexpr int kWidth = 256 / static_cast<int>(sizeof(T));

template <class M, class T>
void group(const EnsembleSpec<T>& e, const sweep::SpaceView& space, std::uint64_t first, int count, double* values,
           StickSlipMetrics<T>* out, unsigned char* ran) {
  constexpr int W = kWidth<T>;
  SmoothLanes<M, T, W> lanes;
  int row[W];
  int k = 0;
  const bool steps_fit = sim_num_steps(e.sim) <= 2147483647L;
  for (int j = 0; j < count; ++j) {
    ran[j] = 0;
    double p[sweep::kMaxParams];
    BodySystem<T> b;
    T brk;
    if (!ensemble_point_system(e, space, first + static_cast<std::uint64_t>(j), values + j * space.dims, M::kNumParams,
                               p, b, brk))
      continue;
    if (!steps_fit || !body_inputs_affine(b).on) continue;
    if constexpr (!M::kDynamic) {
      if (e.stiction) continue;
    }
    T pt[sweep::kMaxParams];
    for (int q = 0; q < M::kNumParams; ++q) pt[q] = T(p[q]);
    const typename M::template Coeffs<T> fc = M::prepare(pt);
    if constexpr (M::kDynamic) {
      if (!M::ode_ok(fc)) continue;
    }
    lanes.set(k, b, fc);
    row[k++] = j;
    ran[j] = 1;
  }
  if (k == 0) return;
  for (int l = k; l < W; ++l) lanes.copy_lane(l, 0);
  StickSlipMetrics<T> m[W];
  lanes.run(e.sim, e.metrics, k, m);
  for (int l = 0; l < k; ++l) out[row[l]] = m[l];
}

}  // namespace

EnsembleKernels ensemble_kernels(const char* model_id) {
  EnsembleKernels k;
  visit_model(model_id, [&](auto tag) {
    using M = typename decltype(tag)::type;
    k.fp64 = &group<M, double>;
    k.fp32 = &group<M, float>;
    k.width64 = kWidth<double>;
    k.width32 = kWidth<float>;
  });
  return k;
}

}  // namespace stribeck::workloads::lanes::STRIBECK_LANES_NS
