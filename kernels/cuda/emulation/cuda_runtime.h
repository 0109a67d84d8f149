#pragma once
// The GPU block emulator (a test build, never shipped): what kernels/cuda/*.cu
// need of CUDA, for the host C++ compiler. It stands in for <cuda_runtime.h>
// when the .cu files are compiled as C++ with -DSTRIBECK_GPU_EMULATION and
// this directory first on the include path (tests/gpu/CMakeLists: the
// stribeck_gpu_emu_tests binary, under AddressSanitizer and UBSan).
//
// - Kernels: each launch runs its blocks one after another; the threads of a
//   block are real threads (blockDim of them) meeting at a barrier, so shared
//   tiles and block votes behave as on a GPU. `__shared__` variables are
//   function statics: one copy, used by one block at a time (launches are
//   serialised). A barrier one thread of a block skips (or exits before)
//   while another reaches it fails the launch with the block, the threads and
//   the barrier named; a barrier nobody completes fails after a time-out
//   (STRIBECK_GPU_EMU_BARRIER_TIMEOUT_S, 20 s).
// - Memory: cudaMalloc is malloc (so AddressSanitizer sees every access past
//   an allocation) filled with 0xff bytes (NaN doubles: a value never written
//   shows), recorded with its size; copies and memsets check their ranges
//   against the records. The device holds STRIBECK_GPU_EMU_MEMORY bytes
//   (suffix K, M or G; 256M by default): cudaMemGetInfo reports what is left,
//   so the launch code's chunking by free memory is exercised.
// - Streams: work on a stream (kernels, copies, memsets) runs when the host
//   waits for it (stream, event or device synchronisation), never before: a
//   result read before its stream is waited for is not there. Work on the
//   legacy stream (stream 0) runs at once.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <tuple>
#include <utility>

// ---- qualifiers and built-in variables -------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
using uint3 = dim3;
extern thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;

// ---- runtime types ---------------------------------------------------------
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
  cudaErrorNoDevice = 100,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorLaunchFailure = 719,
};
using cudaError = cudaError_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
constexpr unsigned cudaStreamDefault = 0, cudaStreamNonBlocking = 1;
struct StribeckEmuStream;
struct StribeckEmuEvent;
using cudaStream_t = StribeckEmuStream*;
using cudaEvent_t = StribeckEmuEvent*;
struct cudaDeviceProp {
  char name[256];
  int major, minor, multiProcessorCount, maxThreadsPerBlock, warpSize;
  std::size_t totalGlobalMem, sharedMemPerBlock;
};
struct cudaFuncAttributes {
  int binaryVersion, ptxVersion, maxThreadsPerBlock, numRegs;
  std::size_t sharedSizeBytes;
};

// ---- runtime calls ---------------------------------------------------------
cudaError_t cudaGetDeviceCount(int* n);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t e);
cudaError_t cudaMalloc(void** p, std::size_t bytes);
template <class T>
cudaError_t cudaMalloc(T** p, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}
cudaError_t cudaFree(void* p);
cudaError_t cudaMallocHost(void** p, std::size_t bytes);
cudaError_t cudaFreeHost(void* p);
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* dst, int value, std::size_t bytes);
cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t stream = nullptr);
cudaError_t cudaStreamCreate(cudaStream_t* s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);
cudaError_t cudaEventCreate(cudaEvent_t* e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
// Every kernel runs as sm_90 code (the device is compute capability 9.0), so
// the launch code picks Policy900 as on an H100 or H200.
template <class... Params>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, void (*)(Params...)) {
  *a = cudaFuncAttributes{};
  a->binaryVersion = a->ptxVersion = 90;
  a->maxThreadsPerBlock = 1024;
  return cudaSuccess;
}

// ---- device functions ------------------------------------------------------
// The call site (file, line) names the barrier in a report.
void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE());
int __syncthreads_count(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE());
int __syncthreads_or(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE());
int __syncthreads_and(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE());
template <class T>
T atomicAdd(T* address, T value) {
  return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
}
template <class T>
T atomicMax(T* address, T value) {
  T old = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (old < value && !__atomic_compare_exchange_n(address, &old, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  return old;
}

namespace stribeck::gpu {
using std::isnan;
}

// ---- launches --------------------------------------------------------------
namespace stribeck_emu {

// Runs (or queues on `stream`) a launch: `body` is called once per thread of
// every block with the built-in variables set.
void enqueue_launch(dim3 grid, dim3 block, cudaStream_t stream, std::function<void()> body);

// For the emulated libraries (emulation/cub/): queues `work` on `stream` as
// device work (run when the host waits, as a launch); checks that
// [p, p + bytes) is device memory, failing with cudaErrorInvalidValue and a
// message naming `call` otherwise; fails a call with cudaErrorInvalidValue.
void enqueue_device_work(cudaStream_t stream, std::function<void()> work);
cudaError_t check_device_range(const char* call, const void* p, std::size_t bytes);
cudaError_t invalid_value(const char* message);

// What the process has asked of the runtime so far, for tests that a run
// allocates its workspace once however many chunks it has and waits for the
// device a bounded number of times: allocations (device, pinned host),
// streams created, kernel launches, and host synchronisations: every call
// that blocks the host until device work is done (stream, event and device
// synchronisation, cudaEventQuery, a cudaMemcpy to the host, and a
// cudaMemcpyAsync to pageable host memory, which returns only once the copy
// is done). cudaFree's implicit synchronisation is not counted: a run frees
// only what it allocated, so the allocation counts bound it.
struct RuntimeCounts {
  long device_allocations = 0, host_allocations = 0, streams_created = 0, launches = 0, host_syncs = 0;
};
RuntimeCounts runtime_counts();

template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, Args&&... args) {
  // Arguments by value, as a launch copies them.
  std::tuple<std::decay_t<Params>...> values(std::forward<Args>(args)...);
  enqueue_launch(grid, block, stream, [kernel, values] { std::apply(kernel, values); });
}

}  // namespace stribeck_emu
