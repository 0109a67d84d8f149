#pragma once
// CUDA ensembles of body simulations: one thread per trajectory, the state,
// the coefficients and the metric accumulators in registers; the space point
// is computed on the thread (nothing per point is read from memory), results
// are written once at the end.
//
// launch_ensemble<M, T> is instantiated in the ensemble_*.cu files, one
// precision and model group each (their entry tables, entries.hpp), so the
// build compiles them on every core; ensemble_launch.cu dispatches by model id.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "entries.hpp"
#include "gpu_layer.cuh"
#include "stribeck/kernels/cuda/ensemble_cuda.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "workspace.cuh"

namespace stribeck::gpu {

// Points per launch at most: 2^18 is 2.6 waves of an H200 for the FP32
// LuGre kernel (6 blocks of 128 per SM) and keeps the pinned staging near
// 40 MB per stream (18 doubles a row); a million-point chunk pipelines four
// launches instead of two.
constexpr std::uint64_t kEnsembleChunk = 1u << 18;

// ensemble_launch.cu: the counts of a sub-chunk (EnsembleCounts) by CUB,
// one buffer set per stream: set b sized for sub-chunks of `sub` points; the
// counts of the n rows at d_metrics queued on `st` (no host wait); added to
// `c` once `st` is done.
void prepare_ensemble_counts(Workspace& ws, int b, std::uint64_t sub);
void enqueue_ensemble_counts(Workspace& ws, int b, cudaStream_t st, const double* d_metrics, std::uint64_t n);
void drain_ensemble_counts(Workspace& ws, int b, EnsembleCounts& c);

// The affine-only kernel is compiled where it pays: FP32 models with memory.
template <class M, class T>
constexpr bool kHasAffineKernel = sizeof(T) == 4 && M::kDynamic;

template <class M, class T, bool kAffine>
__global__ void __launch_bounds__(DevicePolicy::Ensemble<M, T, kAffine>::kBlock,
                                  DevicePolicy::Ensemble<M, T, kAffine>::kMinBlocks)
    ensemble_kernel(const EnsembleSpec<T> spec, const sweep::SpaceView space, std::uint64_t first, std::uint64_t count,
                    double* values, double* metrics) {
  const std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  double x[sweep::kMaxParams];
  const StickSlipMetrics<T> m = ensemble_point<M, T, kAffine>(spec, space, first + k, x);
  for (int d = 0; d < space.dims; ++d) values[k * space.dims + d] = x[d];
  ensemble_metric_values(m, metrics + k * kEnsembleMetrics);
}

// Copies the measured input tables a spec's profiles point to into the
// workspace (host pointers on entry, device pointers in `b` on return).
// Synchronous on `st`.
template <class T>
void upload_tables(Workspace& ws, BodySystem<T>& b, cudaStream_t st) {
  Profile<T>* profiles[4] = {&b.external_force, &b.normal_force, &b.pressure_a, &b.pressure_b};
  for (int i = 0; i < 4; ++i) {
    Profile<T>& p = *profiles[i];
    if (p.table_n <= 0) continue;
    const std::size_t n = static_cast<std::size_t>(p.table_n);
    T* d = reinterpret_cast<T*>(ws.tables[i].ensure(2 * n * sizeof(T), "cudaMalloc(input table)"));
    check(cudaMemcpyAsync(d, p.table_t, n * sizeof(T), cudaMemcpyHostToDevice, st), "cudaMemcpy(input table)");
    check(cudaMemcpyAsync(d + n, p.table_y, n * sizeof(T), cudaMemcpyHostToDevice, st), "cudaMemcpy(input table)");
    p.table_t = d;
    p.table_y = d + n;
  }
  check(cudaStreamSynchronize(st), "input table upload");
}

template <class M, class T>
void launch_ensemble(const EnsembleSpec<T>& host_spec, const EnsembleRequest& r) {
  if (r.count == 0) return;
  WorkspacePtr local;
  Workspace& ws = workspace_for(r.workspace, local);
  cudaStream_t st0 = ws.streams[0].get();
  sweep::SpaceView space = r.space;
  const int dims = space.dims;
  EnsembleSpec<T> spec = host_spec;
  bool affine = false;
  if constexpr (kHasAffineKernel<M, T>) affine = ensemble_affine(spec, space.dims);
  upload_tables(ws, spec.base, st0);
  space.list_values = nullptr;
  if (r.n_list) {
    double* d = ws.lists.ensure(r.n_list, "cudaMalloc(lists)");
    check(cudaMemcpyAsync(d, r.space.list_values, r.n_list * sizeof(double), cudaMemcpyHostToDevice, st0),
          "cudaMemcpy(lists)");
    check(cudaStreamSynchronize(st0), "list upload");
    space.list_values = d;
  }
  // One row: coordinates then metrics, in one device buffer per stream.
  const std::size_t row = static_cast<std::size_t>(dims) + kEnsembleMetrics;
  const int block = with_policy(ws.arch, [](auto p) { return decltype(p)::template Ensemble<M, T, false>::kBlock; });
  const std::uint64_t sub = sub_chunk_points(row * sizeof(double), r.count, block, kEnsembleChunk);
  double *d_rows[2], *h_rows[2];
  for (int b = 0; b < 2; ++b) {
    d_rows[b] = ws.rows[b].ensure(sub * row, "cudaMalloc(ensemble rows)");
    h_rows[b] = ws.h_rows[b].ensure(sub * row, "cudaMallocHost(ensemble rows)");
    if (r.counts) prepare_ensemble_counts(ws, b, sub);
  }
  double_buffered(
      ws.streams, r.count, sub,
      [&](int b, std::uint64_t off, std::uint64_t n) {
        cudaStream_t st = ws.streams[b].get();
        double* d_values = d_rows[b];
        double* d_metrics = d_rows[b] + sub * dims;
        with_policy(ws.arch, [&](auto p) {
          using P = decltype(p);
          if (affine) {
            if constexpr (kHasAffineKernel<M, T>)
              launch<typename P::template Ensemble<M, T, true>>(&ensemble_kernel<M, T, true>, n, st,
                                                                "ensemble_kernel launch", spec, space, r.first + off, n,
                                                                d_values, d_metrics);
          } else {
            launch<typename P::template Ensemble<M, T, false>>(&ensemble_kernel<M, T, false>, n, st,
                                                               "ensemble_kernel launch", spec, space, r.first + off, n,
                                                               d_values, d_metrics);
          }
        });
        check(cudaMemcpyAsync(h_rows[b], d_values, n * dims * sizeof(double), cudaMemcpyDeviceToHost, st),
              "cudaMemcpy(values)");
        check(cudaMemcpyAsync(h_rows[b] + sub * dims, d_metrics, n * kEnsembleMetrics * sizeof(double),
                              cudaMemcpyDeviceToHost, st),
              "cudaMemcpy(metrics)");
        if (r.counts) enqueue_ensemble_counts(ws, b, st, d_metrics, n);
        return true;
      },
      [&](int b, std::uint64_t off, std::uint64_t n) {
        std::memcpy(r.values + off * dims, h_rows[b], n * dims * sizeof(double));
        std::memcpy(r.metrics + off * kEnsembleMetrics, h_rows[b] + sub * dims, n * kEnsembleMetrics * sizeof(double));
        if (r.counts) drain_ensemble_counts(ws, b, *r.counts);
      });
}

// The entries of every model of a list (entries.hpp).
template <class T, class... M>
constexpr std::array<EnsembleEntry<T>, sizeof...(M)> ensemble_entries(ModelList<M...>) {
  return {&launch_ensemble<M, T>...};
}

}  // namespace stribeck::gpu
