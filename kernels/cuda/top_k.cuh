#pragma once
// Top-K of a sweep sub-chunk on the device, queued on the sub-chunk's stream
// with nothing to wait for on the host: each point gets a 64-bit key, its
// objective mapped to an order-preserving integer (kInvalidKey, above every
// other, for invalid, non-finite or NaN points), beside its index in the
// sub-chunk. cub::DeviceRadixSort sorts the (key, index) pairs; the sort is
// stable and the indices go in ascending, so the order is the former stable
// sort's: objective, ties by the smaller index. A gather pass copies the
// first K valid rows in that order, their indices and their count into the
// sub-chunk's buffers, which come back with its results (sweep_launch.cu).
#include <cub/device/device_radix_sort.cuh>
#include <cstdint>
#include <cstring>

#include "gpu_layer.cuh"
#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/kernels/sweep/trace.hpp"

namespace stribeck::gpu {

constexpr unsigned long long kInvalidKey = ~0ull;

// The head of a sub-chunk's top-K output (unsigned long long words): points
// invalid (rules violated), non-finite, and the rows picked; their indices
// follow.
enum TopKCount { kTopKInvalid = 0, kTopKNonFinite = 1, kTopKPicked = 2, kTopKHead = 3 };

// Device bytes per point of the selection's scratch: keys and indices, in
// and sorted, and CUB's alternate buffers of both.
constexpr std::size_t kTopKBytesPerPoint = 3 * (sizeof(unsigned long long) + sizeof(unsigned));

// Order-preserving bits of a double key (-0 and +0 equal, as the comparison is).
STRIBECK_HD_INLINE unsigned long long orderable(double x) {
  if (x == 0.0) x = 0.0;
  unsigned long long u;
  memcpy(&u, &x, sizeof u);
  return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

// Keys and indices of the n points; out[kTopKInvalid] += invalid points,
// out[kTopKNonFinite] += non-finite.
__global__ void __launch_bounds__(DevicePolicy::TopK::kBlock)
    top_k_keys(const double* metrics, const std::uint8_t* status, int objective, double sign, std::uint64_t n,
               unsigned long long* keys, unsigned* index, unsigned long long* out) {
  const std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool in = j < n;
  const std::uint8_t s = in ? status[j] : kSimOk;
  // Every thread reaches both counts; one atomic per block.
  const int invalid = __syncthreads_count(in && s == kSimInvalid);
  const int nonfinite = __syncthreads_count(in && s == kSimNonFinite);
  if (threadIdx.x == 0) {
    if (invalid) atomicAdd(&out[kTopKInvalid], static_cast<unsigned long long>(invalid));
    if (nonfinite) atomicAdd(&out[kTopKNonFinite], static_cast<unsigned long long>(nonfinite));
  }
  if (!in) return;
  const double v = metrics[j * sweep::kNumMetrics + objective];
  keys[j] = (s == kSimOk && !isnan(v)) ? orderable(sign * v) : kInvalidKey;
  index[j] = static_cast<unsigned>(j);
}

// The first k sorted points that are valid (a prefix: invalid keys sort
// last): their index (after the head of `out`), their row (params, then
// metrics) and, in out[kTopKPicked], their count.
__global__ void __launch_bounds__(DevicePolicy::TopK::kBlock)
    top_k_gather(const unsigned long long* sorted_keys, const unsigned* sorted_index, std::uint64_t k,
                 const double* params, const double* metrics, int dims, unsigned long long* out, double* picked_rows) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool picked = t < k && sorted_keys[t] != kInvalidKey;
  const int count = __syncthreads_count(picked);
  if (threadIdx.x == 0 && count) atomicAdd(&out[kTopKPicked], static_cast<unsigned long long>(count));
  if (!picked) return;
  const std::uint64_t j = sorted_index[t];
  out[kTopKHead + t] = j;
  double* row = picked_rows + t * (dims + sweep::kNumMetrics);
  for (int d = 0; d < dims; ++d) row[d] = params[j * dims + d];
  for (int m = 0; m < sweep::kNumMetrics; ++m) row[dims + m] = metrics[j * sweep::kNumMetrics + m];
}

}  // namespace stribeck::gpu
