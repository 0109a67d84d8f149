// The CUDA sweep's entry points: device discovery, the caller's workspace,
// the top-K selection (top_k.cuh: CUB's histogram and radix sort) and the dispatch by model id to run_sweep_typed
// (sweep_launch.cuh, instantiated in sweep_fp32.cu and sweep_fp64.cu).
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "entries.hpp"
#include "gpu_layer.cuh"
#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/sweep/rng.hpp"
#include "top_k.cuh"
#include "workspace.cuh"

namespace stribeck::gpu {

// Launched once by probe_device: a device whose architecture this build holds
// no code for (CMAKE_CUDA_ARCHITECTURES) fails here, not in the first sweep.
// Its attributes say which code the device runs (code_arch).
__global__ void probe_kernel() {}

// The architecture of the code the current device runs, as __CUDA_ARCH__
// (900 for sm_90 code or compute_90 PTX): the PTX version of a kernel of
// this build, as CUB reads it to pick its policies.
int code_arch() {
  cudaFuncAttributes a;
  check(cudaFuncGetAttributes(&a, probe_kernel), "cudaFuncGetAttributes");
  return a.ptxVersion * 10;
}

void WorkspaceDeleter::operator()(Workspace* w) const { delete w; }
WorkspacePtr make_workspace() {
  WorkspacePtr w(new Workspace);
  w->arch = code_arch();
  return w;
}

std::uint64_t trace_key(const SweepRequest& r) {
  std::uint64_t h = sweep::mix64(r.fp32 ? 1 : 2) ^ static_cast<std::uint64_t>(r.n_exp);
  auto add = [&](const double* p, std::int64_t n) {
    h = sweep::mix64(h ^ (p ? static_cast<std::uint64_t>(n) : 0x9e37ull));
    if (!p) return;
    for (std::int64_t k = 0; k < n; ++k) {
      std::uint64_t bits;
      std::memcpy(&bits, p + k, sizeof bits);
      h = (h ^ bits) * 0x100000001b3ull;
    }
  };
  for (int e = 0; e < r.n_exp; ++e) {
    const HostTrace& t = r.traces[e];
    for (const double* p : {t.v, t.p_a, t.p_b, t.f_n, t.dt, t.f_meas, t.w_pos, t.w_neg, t.w_energy, t.w_loop})
      add(p, t.n);
  }
  return sweep::mix64(h);
}

std::size_t top_k_bytes_per_point() { return kTopKBytesPerPoint; }

// The picked rows of a sub-chunk: k = min(top_k, sub-chunk size) at most.
static std::uint64_t top_k_rows(const SweepRequest& r, std::uint64_t n) {
  return std::min<std::uint64_t>(static_cast<std::uint64_t>(std::max(r.top_k, 0)), n);
}

void prepare_top_k(Workspace& ws, int b, const SweepRequest& r, std::uint64_t sub) {
  const std::uint64_t k = top_k_rows(r, sub);
  const std::size_t width = static_cast<std::size_t>(r.space.dims) + sweep::kNumMetrics;
  ws.top_keys[b].ensure(2 * sub, "cudaMalloc(top-K keys)");
  ws.top_index[b].ensure(2 * sub, "cudaMalloc(top-K indices)");
  ws.top_class[b].ensure(sub, "cudaMalloc(top-K classes)");
  ws.top_out[b].ensure(kTopKHead + k, "cudaMalloc(top-K)");
  ws.h_top_out[b].ensure(kTopKHead + k, "cudaMallocHost(top-K)");
  // One temporary storage for the stream's two CUB calls (they run one
  // after the other on it): the larger of their needs.
  std::size_t hist = 0, sort = 0;
  check(cub::DeviceHistogram::HistogramEven(nullptr, hist, static_cast<const std::uint8_t*>(nullptr),
                                            static_cast<unsigned long long*>(nullptr), kTopKClasses + 1, 0,
                                            kTopKClasses, static_cast<int>(sub)),
        "cub::DeviceHistogram::HistogramEven (temporary storage)");
  if (k > 0)
    check(cub::DeviceRadixSort::SortPairs(
              nullptr, sort, static_cast<const unsigned long long*>(nullptr), static_cast<unsigned long long*>(nullptr),
              static_cast<const unsigned*>(nullptr), static_cast<unsigned*>(nullptr), static_cast<int>(sub)),
          "cub::DeviceRadixSort::SortPairs (temporary storage)");
  ws.cub_temp[b].ensure(std::max(hist, sort), "cudaMalloc(top-K CUB storage)");
  if (k == 0) return;
  ws.top_rows[b].ensure(k * width, "cudaMalloc(top-K rows)");
  ws.h_top_rows[b].ensure(k * width, "cudaMallocHost(top-K rows)");
}

void enqueue_top_k(Workspace& ws, int b, const SweepRequest& r, cudaStream_t st, std::uint64_t n,
                   const double* d_params, const double* d_metrics, const std::uint8_t* d_status) {
  const std::uint64_t k = top_k_rows(r, n);
  const std::size_t width = static_cast<std::size_t>(r.space.dims) + sweep::kNumMetrics;
  unsigned long long* keys = ws.top_keys[b].get();
  unsigned* index = ws.top_index[b].get();
  std::uint8_t* point_class = ws.top_class[b].get();
  unsigned long long* out = ws.top_out[b].get();
  // Each pass over `threads` points with the TopK policy of the device's code.
  auto launch_top_k = [&](std::uint64_t threads, auto kernel, const char* what, const auto&... args) {
    with_policy(ws.arch, [&](auto p) { launch<typename decltype(p)::TopK>(kernel, threads, st, what, args...); });
  };
  launch_top_k(n, &top_k_keys, "top-K keys", d_metrics, d_status, r.objective, r.maximize ? -1.0 : 1.0, n, keys, index,
               point_class);
  // The points of each class, written over the head of `out` (CUB zeroes the bins).
  std::size_t temp = ws.cub_temp[b].size();
  check(cub::DeviceHistogram::HistogramEven(ws.cub_temp[b].get(), temp, static_cast<const std::uint8_t*>(point_class),
                                            out, kTopKClasses + 1, 0, kTopKClasses, static_cast<int>(n), st),
        "top-K counts");
  if (k > 0) {
    // Sorted pairs in the second half of the key and index buffers.
    temp = ws.cub_temp[b].size();
    check(cub::DeviceRadixSort::SortPairs(ws.cub_temp[b].get(), temp, keys, keys + n, index, index + n,
                                          static_cast<int>(n), 0, 64, st),
          "top-K sort");
    launch_top_k(k, &top_k_gather, "top-K gather", keys + n, index + n, k, d_params, d_metrics, r.space.dims, out,
                 ws.top_rows[b].get());
    check(cudaMemcpyAsync(ws.h_top_rows[b].get(), ws.top_rows[b].get(), k * width * sizeof(double),
                          cudaMemcpyDeviceToHost, st),
          "copy top-K rows");
  }
  check(cudaMemcpyAsync(ws.h_top_out[b].get(), out, (kTopKHead + k) * sizeof(unsigned long long),
                        cudaMemcpyDeviceToHost, st),
        "copy top-K");
}

void drain_top_k(Workspace& ws, int b, const SweepRequest& r, std::uint64_t first) {
  TopKOutput& top = *r.top;
  const unsigned long long* h = ws.h_top_out[b].get();
  top.invalid += h[kSimInvalid];
  top.nonfinite += h[kSimNonFinite];
  // The ranked points form a prefix of the sorted ones: the gather picked
  // the first min(K, ranked).
  const std::uint64_t picked = std::min<std::uint64_t>(h[kSimOk], static_cast<std::uint64_t>(std::max(r.top_k, 0)));
  const int dims = r.space.dims;
  const std::size_t width = static_cast<std::size_t>(dims) + sweep::kNumMetrics;
  for (std::uint64_t t = 0; t < picked; ++t) {
    top.index.push_back(first + h[kTopKHead + t]);
    const double* row = ws.h_top_rows[b].get() + t * width;
    top.params.insert(top.params.end(), row, row + dims);
    top.metrics.insert(top.metrics.end(), row + dims, row + width);
  }
}

bool probe_device(std::string& name, std::string& reason) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    reason = cudaGetErrorString(e);
    cudaGetLastError();  // clear the sticky error
    return false;
  }
  if (n == 0) {
    reason = "no CUDA device";
    return false;
  }
  cudaDeviceProp prop;
  e = cudaGetDeviceProperties(&prop, 0);
  if (e == cudaSuccess) e = cudaFree(nullptr);  // creates the context: catches unusable devices
  if (e != cudaSuccess) {
    reason = cudaGetErrorString(e);
    cudaGetLastError();
    return false;
  }
  std::string failed;
  try {
    launch<Policy<1>>(&probe_kernel, 1, nullptr, "probe kernel");
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess) failed = cudaGetErrorString(e);
  } catch (const std::runtime_error& x) {
    failed = x.what();
  }
  if (!failed.empty()) {
    reason = failed + " on " + prop.name + " (compute capability " + std::to_string(prop.major) + "." +
             std::to_string(prop.minor) + "; this build has code for " + STRIBECK_CUDA_ARCHS +
             ": rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(prop.major) + std::to_string(prop.minor) +
             ")";
    cudaGetLastError();
    return false;
  }
  name = prop.name;
  return true;
}

void use_device_for_rank(int local_rank) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    cudaGetLastError();
    return;
  }
  if (cudaSetDevice(local_rank % n) != cudaSuccess) cudaGetLastError();
}

void run_sweep(const SweepRequest& r) {
  if (r.count == 0) return;
  const int k = model_position(AllModels{}, r.model_id);
  if (k < 0) throw std::runtime_error(std::string("unknown model ") + r.model_id);
  (r.fp32 ? kSweepFp32 : kSweepFp64)[static_cast<std::size_t>(k)](r);
}

}  // namespace stribeck::gpu
