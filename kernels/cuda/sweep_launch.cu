// The CUDA sweep's entry points: device discovery, the caller's workspace,
// the top-K selection and the dispatch by model id to run_sweep_typed
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

void select_top_k(Workspace& ws, const SweepRequest& r, cudaStream_t st, std::uint64_t first, std::uint64_t n,
                  const double* d_params, const double* d_metrics, const std::uint8_t* d_status) {
  TopKOutput& out = *r.top;
  unsigned long long* keys = ws.keys.ensure(n, "cudaMalloc(top-K keys)");
  unsigned long long* counts = ws.counts.ensure(2, "cudaMalloc(top-K counts)");
  unsigned* hist = ws.histogram.ensure(256, "cudaMalloc(top-K histogram)");
  // Every pass over the n points with the TopK policy of the device's code.
  auto launch_top_k = [&](auto kernel, const char* what, const auto&... args) {
    with_policy(ws.arch, [&](auto p) { launch<typename decltype(p)::TopK>(kernel, n, st, what, args...); });
  };
  check(cudaMemsetAsync(counts, 0, 2 * sizeof(unsigned long long), st), "top-K counts");
  launch_top_k(&top_k_keys, "top-K keys", d_metrics, d_status, r.objective, r.maximize ? -1.0 : 1.0, n, keys, counts);
  unsigned long long h_counts[2] = {0, 0};
  check(cudaMemcpyAsync(h_counts, counts, sizeof h_counts, cudaMemcpyDeviceToHost, st), "copy top-K counts");
  check(cudaStreamSynchronize(st), "top-K keys");
  out.invalid += h_counts[0];
  out.nonfinite += h_counts[1];
  if (r.top_k <= 0) return;
  const std::uint64_t k = std::min<std::uint64_t>(static_cast<std::uint64_t>(r.top_k), n);
  // The K-th smallest key, 8 bits a pass, unless every point is kept.
  unsigned long long phi = 0;
  unsigned plo = 0;
  int bits = 0;
  std::uint64_t want = k;
  for (int pass = 0; k < n && pass < 12; ++pass) {
    check(cudaMemsetAsync(hist, 0, 256 * sizeof(unsigned), st), "top-K histogram");
    launch_top_k(&top_k_histogram, "top-K histogram", keys, n, phi, plo, pass, hist);
    unsigned h[256];
    check(cudaMemcpyAsync(h, hist, sizeof h, cudaMemcpyDeviceToHost, st), "copy top-K histogram");
    check(cudaStreamSynchronize(st), "top-K histogram");
    unsigned d = 0;
    while (d < 255 && want > h[d]) want -= h[d++];
    if (pass < 8) phi |= static_cast<unsigned long long>(d) << (56 - 8 * pass);
    else plo |= d << (24 - 8 * (pass - 8));
    bits = 8 * (pass + 1);
    if (want == h[d]) break;  // the whole bucket is kept: the prefix decides
  }
  const std::size_t width = static_cast<std::size_t>(r.space.dims) + sweep::kNumMetrics;
  unsigned* picked_n = ws.picked_n.ensure(1, "cudaMalloc(top-K)");
  unsigned* picked_index = ws.picked_index.ensure(k, "cudaMalloc(top-K)");
  unsigned long long* picked_keys = ws.picked_keys.ensure(k, "cudaMalloc(top-K)");
  double* picked_rows = ws.picked_rows.ensure(k * width, "cudaMalloc(top-K)");
  check(cudaMemsetAsync(picked_n, 0, sizeof(unsigned), st), "top-K gather");
  launch_top_k(&top_k_gather, "top-K gather", keys, n, phi, plo, bits, d_params, d_metrics, r.space.dims,
               static_cast<unsigned>(k), picked_n, picked_index, picked_keys, picked_rows);
  unsigned m = 0;
  check(cudaMemcpyAsync(&m, picked_n, sizeof m, cudaMemcpyDeviceToHost, st), "copy top-K");
  check(cudaStreamSynchronize(st), "top-K gather");
  if (m > k) throw std::runtime_error("top-K gather: " + std::to_string(m) + " points for " + std::to_string(k));
  std::vector<unsigned> index(m);
  std::vector<unsigned long long> key(m);
  std::vector<double> rows(m * width);
  check(cudaMemcpyAsync(index.data(), picked_index, m * sizeof(unsigned), cudaMemcpyDeviceToHost, st), "copy top-K");
  check(cudaMemcpyAsync(key.data(), picked_keys, m * sizeof(unsigned long long), cudaMemcpyDeviceToHost, st),
        "copy top-K");
  check(cudaMemcpyAsync(rows.data(), picked_rows, m * width * sizeof(double), cudaMemcpyDeviceToHost, st),
        "copy top-K");
  check(cudaStreamSynchronize(st), "top-K copy");
  // The few picked rows in the stable sort's order: key, then index.
  std::vector<unsigned> order(m);
  for (unsigned t = 0; t < m; ++t) order[t] = t;
  std::sort(order.begin(), order.end(),
            [&](unsigned a, unsigned b) { return key[a] != key[b] ? key[a] < key[b] : index[a] < index[b]; });
  const int dims = r.space.dims;
  for (unsigned t : order) {
    out.index.push_back(first + index[t]);
    const double* row = &rows[t * width];
    out.params.insert(out.params.end(), row, row + dims);
    out.metrics.insert(out.metrics.end(), row + dims, row + width);
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
