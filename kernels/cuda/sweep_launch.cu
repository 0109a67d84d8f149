// Host side of the CUDA sweep: device discovery, trace upload, chunking by
// free device memory, two streams so the copy of one sub-chunk's results
// overlaps the next sub-chunk's kernel. Not thread-safe: one sweep at a time
// per process (the workspace is shared).
#include <cuda_runtime.h>
#include <math_constants.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/sweep/rng.hpp"
#include "sweep_kernel.cuh"

namespace stribeck::cuda {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

// Pinned host staging buffer (page-locked, so copies are truly asynchronous);
// grows on demand and is kept for the next call.
struct Pinned {
  void* p = nullptr;
  std::size_t bytes = 0;
  void ensure(std::size_t b) {
    if (b <= bytes) return;
    if (p) cudaFreeHost(p);
    p = nullptr;
    bytes = 0;
    check(cudaMallocHost(&p, b), "cudaMallocHost");
    bytes = b;
  }
};

// Device buffer that only grows (Thrust storage).
struct DeviceBytes {
  thrust::device_vector<unsigned char> v;
  void* ensure(std::size_t b) {
    if (b > v.size()) {
      v.clear();
      v.shrink_to_fit();
      v.resize(b);
    }
    return thrust::raw_pointer_cast(v.data());
  }
};

// Everything that outlives one call: streams, result buffers and the traces
// uploaded for the current sweep (re-uploaded only when their content, size
// or precision changes). A sweep calls run_sweep once per host chunk, so
// allocation and upload cost once per sweep, not per chunk. Deliberately
// never destroyed: static CUDA objects must not be freed after the runtime
// has shut down at exit.
struct Workspace {
  cudaStream_t streams[2] = {nullptr, nullptr};
  DeviceBytes rows[2], status[2], traces, lists, keys, order, picked;
  Pinned h_rows[2], h_status[2];
  std::uint64_t trace_key = 0;
  Workspace() {
    for (auto& s : streams) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  }
};
Workspace& workspace() {
  static Workspace* w = new Workspace;
  return *w;
}

// Content hash of the traces (and the precision) deciding whether the
// uploaded copy is still current.
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

// Sort key of a point for the top-K: the objective (negated to maximise),
// +inf for points that are invalid, non-finite or have a NaN objective.
struct ObjectiveKey {
  const double* metrics;
  const std::uint8_t* status;
  int objective;
  double sign;
  __device__ double operator()(std::uint64_t j) const {
    const double v = metrics[j * sweep::kNumMetrics + objective];
    return (status[j] == sweep::kStatusOk && !isnan(v)) ? sign * v : CUDART_INF;
  }
};
struct StatusIs {
  std::uint8_t s;
  __device__ bool operator()(std::uint8_t x) const { return x == s; }
};
// Row `order[t / width]` of a row-major table, element t % width.
struct GatherRows {
  const double* table;
  const std::uint32_t* order;
  int width;
  __device__ double operator()(std::uint64_t t) const {
    return table[static_cast<std::uint64_t>(order[t / width]) * width + t % width];
  }
};

// Selects the K best of the n points of one sub-chunk on the device and
// appends them (and the status counts) to r.top. Synchronous on `st`.
void select_top_k(Workspace& ws, const SweepRequest& r, cudaStream_t st, std::uint64_t first, std::uint64_t n,
                  const double* d_params, const double* d_metrics, const std::uint8_t* d_status) {
  auto pol = thrust::cuda::par.on(st);
  TopKOutput& out = *r.top;
  out.invalid += thrust::count_if(pol, d_status, d_status + n, StatusIs{sweep::kStatusInvalidParams});
  out.nonfinite += thrust::count_if(pol, d_status, d_status + n, StatusIs{sweep::kStatusNonFinite});
  if (r.top_k <= 0) return;
  double* keys = static_cast<double*>(ws.keys.ensure(n * sizeof(double)));
  auto* order = static_cast<std::uint32_t*>(ws.order.ensure(n * sizeof(std::uint32_t)));
  thrust::counting_iterator<std::uint64_t> it(0);
  thrust::transform(pol, it, it + n, keys, ObjectiveKey{d_metrics, d_status, r.objective, r.maximize ? -1.0 : 1.0});
  thrust::sequence(pol, order, order + n);
  thrust::stable_sort_by_key(pol, keys, keys + n, order);  // stable: ties keep the smaller index first
  const std::uint64_t k = std::min<std::uint64_t>(static_cast<std::uint64_t>(r.top_k), n);
  const int dims = r.space.dims;
  double* picked = static_cast<double*>(ws.picked.ensure(k * (dims + sweep::kNumMetrics + 1) * sizeof(double)));
  thrust::transform(pol, it, it + k * dims, picked, GatherRows{d_params, order, dims});
  thrust::transform(pol, it, it + k * sweep::kNumMetrics, picked + k * dims,
                    GatherRows{d_metrics, order, sweep::kNumMetrics});
  std::vector<double> h(k * (dims + sweep::kNumMetrics)), hkeys(k);
  std::vector<std::uint32_t> horder(k);
  check(cudaMemcpyAsync(h.data(), picked, h.size() * sizeof(double), cudaMemcpyDeviceToHost, st), "copy top-K rows");
  check(cudaMemcpyAsync(hkeys.data(), keys, k * sizeof(double), cudaMemcpyDeviceToHost, st), "copy top-K keys");
  check(cudaMemcpyAsync(horder.data(), order, k * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, st), "copy top-K order");
  check(cudaStreamSynchronize(st), "top-K selection");
  for (std::uint64_t t = 0; t < k; ++t) {
    if (hkeys[t] == std::numeric_limits<double>::infinity()) break;  // the rest are invalid or NaN
    out.index.push_back(first + horder[t]);
    out.params.insert(out.params.end(), h.begin() + t * dims, h.begin() + (t + 1) * dims);
    out.metrics.insert(out.metrics.end(), h.begin() + k * dims + t * sweep::kNumMetrics,
                       h.begin() + k * dims + (t + 1) * sweep::kNumMetrics);
  }
}

template <class M, class T>
void run_typed(const SweepRequest& r) {
  if (r.n_exp > kMaxExperiments)
    throw std::runtime_error("the GPU path takes at most " + std::to_string(kMaxExperiments) + " experiments");
  Workspace& ws = workspace();
  // Traces, converted to the working scalar, packed into one device buffer.
  std::size_t total = 0;
  for (int e = 0; e < r.n_exp; ++e) total += sweep::kTraceChannels * static_cast<std::size_t>(r.traces[e].n);
  const std::uint64_t key = trace_key(r);
  const bool upload = key != ws.trace_key;
  // Invalid before the buffer may be freed and reallocated: a failed
  // allocation must not leave the old key naming a buffer that is gone.
  if (upload) ws.trace_key = 0;
  T* dev = static_cast<T*>(ws.traces.ensure(total * sizeof(T)));
  std::vector<T> host;
  if (upload) host.resize(total);
  DeviceTraces<T> dt;
  dt.n_exp = r.n_exp;
  std::size_t off = 0;
  auto place = [&](const double* src, std::int64_t n) -> const T* {
    if (!src) return nullptr;
    if (upload)
      for (std::int64_t k = 0; k < n; ++k) host[off + k] = static_cast<T>(src[k]);
    const T* p = dev + off;
    off += static_cast<std::size_t>(n);
    return p;
  };
  for (int e = 0; e < r.n_exp; ++e) {
    const HostTrace& h = r.traces[e];
    sweep::TraceView<T>& v = dt.view[e];
    v.v = place(h.v, h.n);
    v.p_a = place(h.p_a, h.n);
    v.p_b = place(h.p_b, h.n);
    v.f_n = place(h.f_n, h.n);
    v.dt = place(h.dt, h.n);
    v.f_meas = place(h.f_meas, h.n);
    v.w_pos = place(h.w_pos, h.n);
    v.w_neg = place(h.w_neg, h.n);
    v.w_energy = place(h.w_energy, h.n);
    v.w_loop = place(h.w_loop, h.n);
    v.n = h.n;
    dt.counts[e] = h.counts;
  }
  // Uploads go on the kernels' own stream and are waited for: a plain
  // cudaMemcpy from pageable memory runs on the legacy stream, which the
  // non-blocking streams below do not wait for, and may return before its DMA
  // has landed.
  if (upload) {
    check(cudaMemcpyAsync(dev, host.data(), off * sizeof(T), cudaMemcpyHostToDevice, ws.streams[0]), "trace upload");
    check(cudaStreamSynchronize(ws.streams[0]), "trace upload");
    ws.trace_key = key;
  }
  sweep::SpaceView space = r.space;
  if (r.n_list) {
    void* d = ws.lists.ensure(r.n_list * sizeof(double));
    check(cudaMemcpyAsync(d, r.space.list_values, r.n_list * sizeof(double), cudaMemcpyHostToDevice, ws.streams[0]),
          "list upload");
    check(cudaStreamSynchronize(ws.streams[0]), "list upload");
    space.list_values = static_cast<const double*>(d);
  } else {
    space.list_values = nullptr;
  }

  // Sub-chunk size from free device memory (a quarter of it, for two buffers).
  const int dims = space.dims;
  const std::size_t exp_row = r.per_experiment ? static_cast<std::size_t>(r.n_exp) * sweep::kNumMetrics : 0;
  const std::size_t row_doubles = static_cast<std::size_t>(dims) + sweep::kNumMetrics + exp_row;
  const std::size_t row_bytes = row_doubles * sizeof(double) + 1;
  std::size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  std::uint64_t sub = std::max<std::uint64_t>(kSweepBlock, free_b / 4 / row_bytes);
  sub = std::min<std::uint64_t>(sub, std::uint64_t(1) << 22);
  // At least two sub-chunks, so that the two streams overlap: the second
  // kernel runs while the first one's rows are copied back (for the grid
  // benchmark the copy is estimated at a third of the kernel's time).
  const std::uint64_t half = (r.count + 1) / 2;
  const std::uint64_t half_blocks = (half + kSweepBlock - 1) / kSweepBlock * kSweepBlock;
  sub = std::min<std::uint64_t>(sub, std::max<std::uint64_t>(kSweepBlock, half_blocks));

  double* d_rows[2];
  std::uint8_t* d_status[2];
  for (int b = 0; b < 2; ++b) {
    d_rows[b] = static_cast<double*>(ws.rows[b].ensure(sub * row_doubles * sizeof(double)));
    d_status[b] = static_cast<std::uint8_t*>(ws.status[b].ensure(sub));
    ws.h_rows[b].ensure(sub * row_doubles * sizeof(double));
    ws.h_status[b].ensure(sub);
  }
  struct Pending {
    bool busy = false;
    std::uint64_t offset = 0, n = 0;
  } pending[2];
  // Unpacks a finished sub-chunk from its pinned buffer into the caller's arrays.
  auto drain = [&](int b) {
    if (!pending[b].busy) return;
    pending[b].busy = false;
    check(cudaStreamSynchronize(ws.streams[b]), "sweep kernel");
    const std::uint64_t off = pending[b].offset, n = pending[b].n;
    const double* rows = static_cast<const double*>(ws.h_rows[b].p);
    std::memcpy(r.params + off * dims, rows, n * dims * sizeof(double));
    std::memcpy(r.metrics + off * sweep::kNumMetrics, rows + sub * dims, n * sweep::kNumMetrics * sizeof(double));
    if (r.per_experiment)
      std::memcpy(r.exp_metrics + off * exp_row, rows + sub * (dims + sweep::kNumMetrics), n * exp_row * sizeof(double));
    std::memcpy(r.status + off, ws.h_status[b].p, n);
  };
  try {
    int b = 0;
    for (std::uint64_t off = 0; off < r.count; off += sub, b ^= 1) {
      drain(b);
      const std::uint64_t n = std::min<std::uint64_t>(sub, r.count - off);
      double* d_params = d_rows[b];
      double* d_metrics = d_rows[b] + sub * dims;
      double* d_exp = r.per_experiment ? d_rows[b] + sub * (dims + sweep::kNumMetrics) : nullptr;
      const unsigned blocks = static_cast<unsigned>((n + kSweepBlock - 1) / kSweepBlock);
      cudaStream_t st = ws.streams[b];
      sweep_kernel<M, T><<<blocks, kSweepBlock, 0, st>>>(space, r.rules, dt, r.first + off, n, d_params, d_metrics,
                                                           d_status[b], d_exp);
      check(cudaGetLastError(), "sweep kernel launch");
      if (r.top) {
        select_top_k(ws, r, st, r.first + off, n, d_params, d_metrics, d_status[b]);
        continue;
      }
      // Only the n rows written are copied, from each section of the buffer.
      auto* h = static_cast<double*>(ws.h_rows[b].p);
      check(cudaMemcpyAsync(h, d_params, n * dims * sizeof(double), cudaMemcpyDeviceToHost, st), "copy params");
      check(cudaMemcpyAsync(h + sub * dims, d_metrics, n * sweep::kNumMetrics * sizeof(double), cudaMemcpyDeviceToHost, st),
            "copy metrics");
      if (d_exp)
        check(cudaMemcpyAsync(h + sub * (dims + sweep::kNumMetrics), d_exp, n * exp_row * sizeof(double),
                              cudaMemcpyDeviceToHost, st),
              "copy per-experiment metrics");
      check(cudaMemcpyAsync(ws.h_status[b].p, d_status[b], n, cudaMemcpyDeviceToHost, st), "copy status");
      pending[b] = Pending{true, off, n};
    }
    drain(0);
    drain(1);
  } catch (...) {
    // Leave no work in flight on the shared buffers.
    cudaStreamSynchronize(ws.streams[0]);
    cudaStreamSynchronize(ws.streams[1]);
    throw;
  }
}

}  // namespace

// Launched once by probe_device: a device whose architecture this build holds
// no code for (CMAKE_CUDA_ARCHITECTURES) fails here, not in the first sweep.
__global__ void probe_kernel() {}

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
  probe_kernel<<<1, 1>>>();
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    reason = std::string(cudaGetErrorString(e)) + " on " + prop.name + " (compute capability " +
             std::to_string(prop.major) + "." + std::to_string(prop.minor) + "; this build has code for " +
             STRIBECK_CUDA_ARCHS + ": rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(prop.major) +
             std::to_string(prop.minor) + ")";
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
  const bool found = visit_model(r.model_id, [&](auto tag) {
    using M = typename decltype(tag)::type;
    if (r.fp32) run_typed<M, float>(r);
    else run_typed<M, double>(r);
  });
  if (!found) throw std::runtime_error(std::string("unknown model ") + r.model_id);
}

}  // namespace stribeck::cuda
