#pragma once
// Host side of the CUDA sweep for one model and precision: trace upload,
// sub-chunks sized by free device memory, two streams so the copy of one
// sub-chunk's results overlaps the next sub-chunk's kernel. Instantiated in
// sweep_fp32.cu and sweep_fp64.cu; sweep_launch.cu dispatches by model id.
#include <cstring>
#include <string>
#include <vector>

#include "entries.hpp"
#include "gpu_layer.cuh"
#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "sweep_kernel.cuh"
#include "workspace.cuh"

namespace stribeck::gpu {

// sweep_launch.cu: the content hash of the request's traces (and precision);
// the top-K selection: buffer set b for sub-chunks of `sub` points, the
// selection of a sub-chunk of n points queued on `st` (no host wait), and
// its rows appended to r.top once `st` is done.
std::uint64_t trace_key(const SweepRequest& r);
void prepare_top_k(Workspace& ws, int b, const SweepRequest& r, std::uint64_t sub);
void enqueue_top_k(Workspace& ws, int b, const SweepRequest& r, cudaStream_t st, std::uint64_t n,
                   const double* d_params, const double* d_metrics, const std::uint8_t* d_status);
void drain_top_k(Workspace& ws, int b, const SweepRequest& r, std::uint64_t first);
// Device bytes per point of the top-K selection's scratch (top_k.cuh).
std::size_t top_k_bytes_per_point();

// Rows per sub-chunk at most: 2^18 is still several waves of an H200 at
// this kernel's occupancy (4 blocks of 128 per SM: 67,584 threads a wave),
// and keeps the pinned staging of both streams near 60 MB (pinning costs
// about as much as copying) while a million-point chunk pipelines its copies
// over four sub-chunks instead of two.
constexpr std::uint64_t kSweepSubChunk = std::uint64_t(1) << 18;

template <class M, class T>
void run_sweep_typed(const SweepRequest& r) {
  if (r.n_exp > kMaxExperiments)
    throw std::runtime_error("the GPU path takes at most " + std::to_string(kMaxExperiments) + " experiments");
  WorkspacePtr local;
  Workspace& ws = workspace_for(r.workspace, local);
  cudaStream_t st0 = ws.streams[0].get();
  // Traces, converted to the working scalar, packed into one device buffer.
  std::size_t total = 0;
  for (int e = 0; e < r.n_exp; ++e) total += sweep::kTraceChannels * static_cast<std::size_t>(r.traces[e].n);
  const std::uint64_t key = trace_key(r);
  const bool upload = key != ws.trace_key;
  // Invalid before the buffer may be freed and reallocated: a failed
  // allocation must not leave the old key naming a buffer that is gone.
  if (upload) ws.trace_key = 0;
  T* dev = reinterpret_cast<T*>(ws.traces.ensure(total * sizeof(T), "cudaMalloc(traces)"));
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
  // Uploads go on the kernels' own stream and are waited for (the streams do
  // not wait for the legacy stream a plain cudaMemcpy would use).
  if (upload) {
    check(cudaMemcpyAsync(dev, host.data(), off * sizeof(T), cudaMemcpyHostToDevice, st0), "trace upload");
    check(cudaStreamSynchronize(st0), "trace upload");
    ws.trace_key = key;
  }
  sweep::SpaceView space = r.space;
  space.list_values = nullptr;
  if (r.n_list) {
    double* d = ws.lists.ensure(r.n_list, "cudaMalloc(lists)");
    check(cudaMemcpyAsync(d, r.space.list_values, r.n_list * sizeof(double), cudaMemcpyHostToDevice, st0),
          "list upload");
    check(cudaStreamSynchronize(st0), "list upload");
    space.list_values = d;
  }

  const int dims = space.dims;
  const std::size_t exp_row = r.per_experiment ? static_cast<std::size_t>(r.n_exp) * sweep::kNumMetrics : 0;
  const std::size_t row_doubles = static_cast<std::size_t>(dims) + sweep::kNumMetrics + exp_row;
  const int block = with_policy(ws.arch, [](auto p) { return decltype(p)::Sweep::kBlock; });
  const std::size_t scratch = r.top ? top_k_bytes_per_point() : 0;
  const std::uint64_t sub =
      sub_chunk_points(row_doubles * sizeof(double) + 1 + scratch, r.count, block, kSweepSubChunk);
  double *d_rows[2], *h_rows[2] = {nullptr, nullptr};
  std::uint8_t *d_status[2], *h_status[2] = {nullptr, nullptr};
  for (int b = 0; b < 2; ++b) {
    d_rows[b] = ws.rows[b].ensure(sub * row_doubles, "cudaMalloc(sweep rows)");
    d_status[b] = ws.status[b].ensure(sub, "cudaMalloc(sweep status)");
    // Top-K mode stages only the picked rows.
    if (r.top) {
      prepare_top_k(ws, b, r, sub);
      continue;
    }
    h_rows[b] = ws.h_rows[b].ensure(sub * row_doubles, "cudaMallocHost(sweep rows)");
    h_status[b] = ws.h_status[b].ensure(sub, "cudaMallocHost(sweep status)");
  }
  double_buffered(
      ws.streams, r.count, sub,
      [&](int b, std::uint64_t off, std::uint64_t n) {
        double* d_params = d_rows[b];
        double* d_metrics = d_rows[b] + sub * dims;
        double* d_exp = r.per_experiment ? d_rows[b] + sub * (dims + sweep::kNumMetrics) : nullptr;
        cudaStream_t st = ws.streams[b].get();
        with_policy(ws.arch, [&](auto p) {
          launch<typename decltype(p)::Sweep>(&sweep_kernel<M, T>, n, st, "sweep kernel launch", space, r.rules, dt,
                                              r.first + off, n, d_params, d_metrics, d_status[b], d_exp);
        });
        if (r.top) {
          enqueue_top_k(ws, b, r, st, n, d_params, d_metrics, d_status[b]);
          return true;
        }
        // Only the n rows written are copied, from each section of the buffer.
        double* h = h_rows[b];
        check(cudaMemcpyAsync(h, d_params, n * dims * sizeof(double), cudaMemcpyDeviceToHost, st), "copy params");
        check(cudaMemcpyAsync(h + sub * dims, d_metrics, n * sweep::kNumMetrics * sizeof(double),
                              cudaMemcpyDeviceToHost, st),
              "copy metrics");
        if (d_exp)
          check(cudaMemcpyAsync(h + sub * (dims + sweep::kNumMetrics), d_exp, n * exp_row * sizeof(double),
                                cudaMemcpyDeviceToHost, st),
                "copy per-experiment metrics");
        check(cudaMemcpyAsync(h_status[b], d_status[b], n, cudaMemcpyDeviceToHost, st), "copy status");
        return true;
      },
      [&](int b, std::uint64_t off, std::uint64_t n) {
        if (r.top) {
          drain_top_k(ws, b, r, r.first + off);
          return;
        }
        const double* rows = h_rows[b];
        std::memcpy(r.params + off * dims, rows, n * dims * sizeof(double));
        std::memcpy(r.metrics + off * sweep::kNumMetrics, rows + sub * dims, n * sweep::kNumMetrics * sizeof(double));
        if (r.per_experiment)
          std::memcpy(r.exp_metrics + off * exp_row, rows + sub * (dims + sweep::kNumMetrics),
                      n * exp_row * sizeof(double));
        std::memcpy(r.status + off, h_status[b], n);
      });
}

// The entries of every model of a list (entries.hpp).
template <class T, class... M>
constexpr std::array<SweepEntry, sizeof...(M)> sweep_entries(ModelList<M...>) {
  return {&run_sweep_typed<M, T>...};
}

}  // namespace stribeck::gpu
