// CUDA ensembles of body simulations: one thread per trajectory, the state,
// the coefficients and the metric accumulators in registers; the space point
// is computed on the thread (nothing per point is read from memory), results
// are written once at the end.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "stribeck/kernels/cuda/ensemble_cuda.hpp"
#include "stribeck/kernels/model_list.hpp"

namespace stribeck::cuda {
namespace {

constexpr int kEnsembleBlock = 128;
constexpr std::uint64_t kEnsembleChunk = 1u << 20;  // points per launch

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

// Blocks per SM the register allocation must allow. FP32 models with memory
// (the LuGre family, Dahl: the stick-slip ensembles) fit in 128 registers
// without spilling when asked (ptxas -v: LuGre 130 -> 128, no spill), which
// lets 4 blocks of 128 threads share an SM instead of 3. With affine inputs
// only (kAffine: no general profile evaluation compiled in) they need far
// fewer, and more warps per SM hide more of the latency of each RK4 stage's
// dependent chain: LuGre fits 80 registers (6 blocks, 24 warps), 20sim-lugre
// and Dahl 102 (5 blocks; at 80 they spill 10 and 68 bytes). ptxas -v, no
// spill at these bounds. The others keep the compiler's choice: capped, the
// static laws' stiction path spills ~100 bytes in FP32, and FP64 spills
// heavily.
template <class M, class T, bool kAffine>
constexpr int kEnsembleMinBlocks =
    (sizeof(T) == 4 && M::kDynamic) ? (kAffine ? (std::is_same_v<M, LuGre> ? 6 : 5) : 4) : 1;

// The affine-only kernel is compiled where it pays: FP32 models with memory.
template <class M, class T>
constexpr bool kHasAffineKernel = sizeof(T) == 4 && M::kDynamic;

template <class M, class T, bool kAffine>
__global__ void __launch_bounds__(kEnsembleBlock, kEnsembleMinBlocks<M, T, kAffine>)
    ensemble_kernel(const EnsembleSpec<T> spec, const sweep::SpaceView space, std::uint64_t first,
                    std::uint64_t count, double* values, double* metrics) {
  const std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  double x[sweep::kMaxParams];
  const StickSlipMetrics<T> m = ensemble_point<M, T, kAffine>(spec, space, first + k, x);
  for (int d = 0; d < space.dims; ++d) values[k * space.dims + d] = x[d];
  ensemble_metric_values(m, metrics + k * kEnsembleMetrics);
}

// Device copies of the measured input tables a spec's profiles point to
// (host pointers on entry, device pointers in `spec` on return).
template <class T>
struct DeviceTables {
  T* mem[4] = {nullptr, nullptr, nullptr, nullptr};
  void upload(BodySystem<T>& b) {
    Profile<T>* profiles[4] = {&b.external_force, &b.normal_force, &b.pressure_a, &b.pressure_b};
    for (int i = 0; i < 4; ++i) {
      Profile<T>& p = *profiles[i];
      if (p.table_n <= 0) continue;
      const std::size_t n = static_cast<std::size_t>(p.table_n);
      check(cudaMalloc(&mem[i], 2 * n * sizeof(T)), "cudaMalloc(input table)");
      check(cudaMemcpy(mem[i], p.table_t, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy(input table)");
      check(cudaMemcpy(mem[i] + n, p.table_y, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy(input table)");
      p.table_t = mem[i];
      p.table_y = mem[i] + n;
    }
  }
  ~DeviceTables() {
    for (T* m : mem) cudaFree(m);
  }
};

template <class M, class T>
void launch(const EnsembleSpec<T>& host_spec, const EnsembleRequest& r) {
  sweep::SpaceView space = r.space;
  double* d_list = nullptr;
  double *d_values = nullptr, *d_metrics = nullptr;
  const std::uint64_t chunk = r.count < kEnsembleChunk ? r.count : kEnsembleChunk;
  const int dims = space.dims > 0 ? space.dims : 1;
  EnsembleSpec<T> spec = host_spec;
  bool affine = false;
  if constexpr (kHasAffineKernel<M, T>) affine = ensemble_affine(spec, space.dims);
  DeviceTables<T> tables;
  try {
    tables.upload(spec.base);
    if (r.n_list) {
      check(cudaMalloc(&d_list, r.n_list * sizeof(double)), "cudaMalloc(lists)");
      check(cudaMemcpy(d_list, r.space.list_values, r.n_list * sizeof(double), cudaMemcpyHostToDevice),
            "cudaMemcpy(lists)");
    }
    space.list_values = d_list;
    check(cudaMalloc(&d_values, chunk * dims * sizeof(double)), "cudaMalloc(values)");
    check(cudaMalloc(&d_metrics, chunk * kEnsembleMetrics * sizeof(double)), "cudaMalloc(metrics)");
    for (std::uint64_t off = 0; off < r.count; off += chunk) {
      const std::uint64_t n = r.count - off < chunk ? r.count - off : chunk;
      const unsigned blocks = static_cast<unsigned>((n + kEnsembleBlock - 1) / kEnsembleBlock);
      if (affine) {
        if constexpr (kHasAffineKernel<M, T>)
          ensemble_kernel<M, T, true><<<blocks, kEnsembleBlock>>>(spec, space, r.first + off, n, d_values, d_metrics);
      } else {
        ensemble_kernel<M, T, false><<<blocks, kEnsembleBlock>>>(spec, space, r.first + off, n, d_values, d_metrics);
      }
      check(cudaGetLastError(), "ensemble_kernel launch");
      check(cudaMemcpy(r.values + off * space.dims, d_values, n * space.dims * sizeof(double),
                       cudaMemcpyDeviceToHost),
            "cudaMemcpy(values)");
      check(cudaMemcpy(r.metrics + off * kEnsembleMetrics, d_metrics, n * kEnsembleMetrics * sizeof(double),
                       cudaMemcpyDeviceToHost),
            "cudaMemcpy(metrics)");
    }
  } catch (...) {
    cudaFree(d_list);
    cudaFree(d_values);
    cudaFree(d_metrics);
    throw;
  }
  cudaFree(d_list);
  cudaFree(d_values);
  cudaFree(d_metrics);
}

}  // namespace

void run_ensemble(const EnsembleRequest& r) {
  const bool found = visit_model(r.model_id, [&](auto tag) {
    using M = typename decltype(tag)::type;
    if (r.fp32) launch<M, float>(r.spec32, r);
    else launch<M, double>(r.spec64, r);
  });
  if (!found) throw std::runtime_error(std::string("run_ensemble: unknown model ") + r.model_id);
}

}  // namespace stribeck::cuda
