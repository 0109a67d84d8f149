// Host side of the CUDA sweep: device discovery, trace upload, chunking by
// free device memory, two streams so the copy of one sub-chunk's results
// overlaps the next sub-chunk's kernel.
#include <cuda_runtime.h>
#include <thrust/device_vector.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "sweep_kernel.cuh"

namespace stribeck::cuda {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

// Pinned host staging buffer (page-locked, so copies are truly asynchronous).
struct Pinned {
  void* p = nullptr;
  explicit Pinned(std::size_t bytes) { check(cudaMallocHost(&p, bytes ? bytes : 1), "cudaMallocHost"); }
  ~Pinned() { cudaFreeHost(p); }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

template <class M, class T>
void run_typed(const SweepRequest& r) {
  if (r.n_exp > kMaxExperiments)
    throw std::runtime_error("the GPU path takes at most " + std::to_string(kMaxExperiments) + " experiments");
  // Traces, converted once to the working scalar.
  std::vector<thrust::device_vector<T>> store;
  store.reserve(static_cast<std::size_t>(r.n_exp) * 7);
  DeviceTraces<T> dt;
  dt.n_exp = r.n_exp;
  auto upload = [&](const double* src, std::int64_t n) -> const T* {
    if (!src) return nullptr;
    std::vector<T> host(src, src + n);
    store.emplace_back(host.begin(), host.end());
    return thrust::raw_pointer_cast(store.back().data());
  };
  for (int e = 0; e < r.n_exp; ++e) {
    const HostTrace& h = r.traces[e];
    sweep::TraceView<T>& v = dt.view[e];
    v.v = upload(h.v, h.n);
    v.p_a = upload(h.p_a, h.n);
    v.p_b = upload(h.p_b, h.n);
    v.f_n = upload(h.f_n, h.n);
    v.f_meas = upload(h.f_meas, h.n);
    v.dt = upload(h.dt, h.n);
    v.dx = upload(h.dx, h.n);
    v.n = h.n;
    dt.counts[e] = h.counts;
  }
  thrust::device_vector<double> lists(r.space.list_values, r.space.list_values + r.n_list);
  sweep::SpaceView space = r.space;
  space.list_values = r.n_list ? thrust::raw_pointer_cast(lists.data()) : nullptr;

  // Sub-chunk size from free device memory (half of it, for two buffers).
  const int dims = space.dims;
  const std::size_t exp_row = r.per_experiment ? static_cast<std::size_t>(r.n_exp) * sweep::kNumMetrics : 0;
  const std::size_t row_doubles = static_cast<std::size_t>(dims) + sweep::kNumMetrics + exp_row;
  const std::size_t row_bytes = row_doubles * sizeof(double) + 1;
  std::size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  std::uint64_t sub = std::max<std::uint64_t>(kSweepBlock, free_b / 4 / row_bytes);
  sub = std::min<std::uint64_t>(sub, std::uint64_t(1) << 22);
  sub = std::min<std::uint64_t>(sub, std::max<std::uint64_t>(r.count, 1));

  Stream streams[2];
  thrust::device_vector<double> d_rows[2];
  thrust::device_vector<std::uint8_t> d_status[2];
  std::vector<std::unique_ptr<Pinned>> h_rows, h_status;
  for (int b = 0; b < 2; ++b) {
    d_rows[b].resize(sub * row_doubles);
    d_status[b].resize(sub);
    h_rows.emplace_back(new Pinned(sub * row_doubles * sizeof(double)));
    h_status.emplace_back(new Pinned(sub));
  }
  struct Pending {
    bool busy = false;
    std::uint64_t offset = 0, n = 0;
  } pending[2];
  // Unpacks a finished sub-chunk from its pinned buffer into the caller's arrays.
  auto drain = [&](int b) {
    if (!pending[b].busy) return;
    check(cudaStreamSynchronize(streams[b].s), "sweep kernel");
    const std::uint64_t off = pending[b].offset, n = pending[b].n;
    const double* rows = static_cast<const double*>(h_rows[b]->p);
    std::memcpy(r.params + off * dims, rows, n * dims * sizeof(double));
    std::memcpy(r.metrics + off * sweep::kNumMetrics, rows + sub * dims, n * sweep::kNumMetrics * sizeof(double));
    if (r.per_experiment)
      std::memcpy(r.exp_metrics + off * exp_row, rows + sub * (dims + sweep::kNumMetrics), n * exp_row * sizeof(double));
    std::memcpy(r.status + off, h_status[b]->p, n);
    pending[b].busy = false;
  };
  int b = 0;
  for (std::uint64_t off = 0; off < r.count; off += sub, b ^= 1) {
    drain(b);
    const std::uint64_t n = std::min<std::uint64_t>(sub, r.count - off);
    double* rows = thrust::raw_pointer_cast(d_rows[b].data());
    double* d_params = rows;
    double* d_metrics = rows + sub * dims;
    double* d_exp = r.per_experiment ? rows + sub * (dims + sweep::kNumMetrics) : nullptr;
    const unsigned blocks = static_cast<unsigned>((n + kSweepBlock - 1) / kSweepBlock);
    sweep_kernel<M, T><<<blocks, kSweepBlock, 0, streams[b].s>>>(space, r.rules, dt, r.first + off, n, d_params,
                                                                   d_metrics, thrust::raw_pointer_cast(d_status[b].data()),
                                                                   d_exp);
    check(cudaGetLastError(), "sweep kernel launch");
    // Only the n rows written are copied, from each section of the buffer.
    auto* h = static_cast<double*>(h_rows[b]->p);
    check(cudaMemcpyAsync(h, d_params, n * dims * sizeof(double), cudaMemcpyDeviceToHost, streams[b].s), "copy params");
    check(cudaMemcpyAsync(h + sub * dims, d_metrics, n * sweep::kNumMetrics * sizeof(double), cudaMemcpyDeviceToHost,
                          streams[b].s), "copy metrics");
    if (d_exp)
      check(cudaMemcpyAsync(h + sub * (dims + sweep::kNumMetrics), d_exp, n * exp_row * sizeof(double),
                            cudaMemcpyDeviceToHost, streams[b].s), "copy per-experiment metrics");
    check(cudaMemcpyAsync(h_status[b]->p, thrust::raw_pointer_cast(d_status[b].data()), n, cudaMemcpyDeviceToHost,
                          streams[b].s), "copy status");
    pending[b] = Pending{true, off, n};
  }
  drain(0);
  drain(1);
}

}  // namespace

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
  name = prop.name;
  return true;
}

void run_sweep(const SweepRequest& r) {
  if (r.count == 0) return;
  const bool found = visit_model(r.model_id, [&](auto tag) {
    using M = typename decltype(tag)::type;
    if (r.fp32) run_typed<M, float>(r);
    else run_typed<M, double>(r);
  });
  if (!found) throw std::runtime_error(std::string("unknown model ") + r.model_id);
}

}  // namespace stribeck::cuda
