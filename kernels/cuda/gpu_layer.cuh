#pragma once
// The CUDA layer every launch file uses (CUB-style): one error macro, one RAII
// buffer template for device and pinned memory, streams and events owned by whoever creates them,
// launches by policy (policies.cuh), one sub-chunk sizing rule and one
// double-buffered sub-chunk loop. Nothing here is static: the caller's
// gpu::Workspace (sweep_cuda.hpp) owns the streams and buffers, and frees them
// when it goes.
//
// Compiled by nvcc for the GPU, and by the C++ compiler with the block
// emulator's runtime (kernels/cuda/emulation/) for the sanitizer tests:
// launches go through gpu::launch, never `<<<...>>>` directly.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "policies.cuh"

namespace stribeck::gpu {

// Throws std::runtime_error("CUDA error in WHAT: reason").
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}
#define STRIBECK_CUDA_CHECK(call, what) ::stribeck::gpu::check((call), (what))

// Launches `kernel` over n threads (ceil(n / kBlock) blocks of P::kBlock) on
// `stream`; launch errors are checked here, execution errors at the next
// synchronisation.
template <class P, class... Params, class... Args>
void launch(void (*kernel)(Params...), std::uint64_t n, cudaStream_t stream, const char* what, Args&&... args) {
  if (n == 0) return;
#if defined(STRIBECK_GPU_EMULATION)
  stribeck_emu::launch(kernel, dim3(P::blocks(n)), dim3(P::kBlock), stream, std::forward<Args>(args)...);
#else
  kernel<<<P::blocks(n), P::kBlock, 0, stream>>>(std::forward<Args>(args)...);
#endif
  check(cudaGetLastError(), what);
}

// Where a Buffer's memory lives: the runtime calls that allocate and free it.
struct DeviceMemory {
  static cudaError_t allocate(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
  static cudaError_t release(void* p) { return cudaFree(p); }
};
// Page-locked host memory: copies from and to it are truly asynchronous.
struct PinnedMemory {
  static cudaError_t allocate(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
  static cudaError_t release(void* p) { return cudaFreeHost(p); }
};

// An allocation of n T in `Memory` (DeviceMemory or PinnedMemory); grows on
// ensure(), never shrinks; freed on destruction.
template <class T, class Memory>
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { reset(); }
  T* ensure(std::size_t n, const char* what) {
    if (n <= n_) return p_;
    reset();
    void* p = nullptr;
    check(Memory::allocate(&p, std::max<std::size_t>(n, 1) * sizeof(T)), what);
    p_ = static_cast<T*>(p);
    n_ = n;
    return p_;
  }
  void reset() {
    if (p_) Memory::release(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};
template <class T>
using DeviceBuffer = Buffer<T, DeviceMemory>;
template <class T>
using PinnedBuffer = Buffer<T, PinnedMemory>;

// A non-blocking stream (it does not wait for the legacy default stream).
class Stream {
 public:
  Stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (s_) {
      cudaStreamSynchronize(s_);
      cudaStreamDestroy(s_);
    }
  }
  cudaStream_t get() const { return s_; }
  void sync(const char* what) const { check(cudaStreamSynchronize(s_), what); }

 private:
  cudaStream_t s_ = nullptr;
};

// Points per sub-chunk for rows of `row_bytes` device bytes each: a quarter
// of the free device memory (two buffers, and room for the rest), at most
// `cap`, whole blocks, and at most half of `count` (rounded up to a block) so
// that two sub-chunks overlap on two streams.
inline std::uint64_t sub_chunk_points(std::size_t row_bytes, std::uint64_t count, int block, std::uint64_t cap) {
  std::size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  const std::uint64_t b = static_cast<std::uint64_t>(block);
  std::uint64_t sub = std::max<std::uint64_t>(b, free_b / 4 / row_bytes / b * b);
  sub = std::min<std::uint64_t>(sub, cap);
  const std::uint64_t half = (count + 1) / 2;
  const std::uint64_t half_blocks = (half + b - 1) / b * b;
  return std::min<std::uint64_t>(sub, std::max<std::uint64_t>(b, half_blocks));
}

// The double-buffered sub-chunk loop: sub-chunk i runs on streams[i % 2];
// `enqueue(b, offset, n)` launches its work on streams[b] and queues the
// copies into buffer set b, returning true when there is something to
// drain; `drain(b, offset, n)` unpacks set b once its stream is done. Set b
// is drained before it is reused, so sub-chunk i + 1's kernel overlaps
// sub-chunk i's copies. On an exception both streams are waited for, so no
// work is left in flight on the buffers.
template <class Enqueue, class Drain>
void double_buffered(Stream (&streams)[2], std::uint64_t count, std::uint64_t sub, Enqueue&& enqueue, Drain&& drain) {
  struct Pending {
    bool busy = false;
    std::uint64_t offset = 0, n = 0;
  } pending[2];
  auto finish = [&](int b) {
    if (!pending[b].busy) return;
    pending[b].busy = false;
    streams[b].sync("sub-chunk");
    drain(b, pending[b].offset, pending[b].n);
  };
  try {
    int b = 0;
    for (std::uint64_t off = 0; off < count; off += sub, b ^= 1) {
      finish(b);
      const std::uint64_t n = std::min<std::uint64_t>(sub, count - off);
      if (enqueue(b, off, n)) pending[b] = Pending{true, off, n};
    }
    finish(b);
    finish(b ^ 1);
  } catch (...) {
    cudaStreamSynchronize(streams[0].get());
    cudaStreamSynchronize(streams[1].get());
    throw;
  }
}

}  // namespace stribeck::gpu
