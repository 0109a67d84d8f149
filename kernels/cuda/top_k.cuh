#pragma once
// Top-K of a sweep sub-chunk on the device by partial selection (radix
// select), not a sort: each point gets a 96-bit key, its objective mapped to
// an order-preserving integer (+inf for invalid, non-finite or NaN points)
// above its index in the sub-chunk. Keys are unique, so the K smallest are
// one exact set: twelve histogram passes of 8 bits fix the K-th key digit by
// digit (fewer when a digit's bucket is taken whole), one pass gathers the
// points at or below it, and only those K rows are sorted, on the host. The
// order is the stable sort's: objective, ties by the smaller index.
#include <cstdint>
#include <cstring>

#include "gpu_layer.cuh"
#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/kernels/sweep/trace.hpp"

namespace stribeck::gpu {

constexpr unsigned long long kInvalidKey = ~0ull;

// Order-preserving bits of a double key (-0 and +0 equal, as the comparison is).
STRIBECK_HD_INLINE unsigned long long orderable(double x) {
  if (x == 0.0) x = 0.0;
  unsigned long long u;
  memcpy(&u, &x, sizeof u);
  return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

// The top `bits` bits (a multiple of 8, 0 to 96) of the key (hi, lo) compared
// with those of the prefix (phi, plo): -1, 0 or 1.
STRIBECK_HD_INLINE int compare_top(unsigned long long hi, unsigned lo, unsigned long long phi, unsigned plo, int bits) {
  if (bits <= 0) return 0;
  const unsigned long long mh = bits >= 64 ? ~0ull : ~0ull << (64 - bits);
  if ((hi & mh) != (phi & mh)) return (hi & mh) < (phi & mh) ? -1 : 1;
  if (bits <= 64) return 0;
  const unsigned ml = bits >= 96 ? ~0u : ~0u << (96 - bits);
  if ((lo & ml) != (plo & ml)) return (lo & ml) < (plo & ml) ? -1 : 1;
  return 0;
}

// Digit `pass` (0 = the top 8 bits) of the key (hi, lo).
STRIBECK_HD_INLINE unsigned digit(unsigned long long hi, unsigned lo, int pass) {
  return pass < 8 ? static_cast<unsigned>(hi >> (56 - 8 * pass)) & 255u : (lo >> (24 - 8 * (pass - 8))) & 255u;
}

// Keys of the n points; counts[0] += invalid points, counts[1] += non-finite.
__global__ void __launch_bounds__(DevicePolicy::TopK::kBlock)
    top_k_keys(const double* metrics, const std::uint8_t* status, int objective, double sign, std::uint64_t n,
               unsigned long long* keys, unsigned long long* counts) {
  const std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool in = j < n;
  const std::uint8_t s = in ? status[j] : kSimOk;
  // Every thread reaches both counts; one atomic per block.
  const int invalid = __syncthreads_count(in && s == kSimInvalid);
  const int nonfinite = __syncthreads_count(in && s == kSimNonFinite);
  if (threadIdx.x == 0) {
    if (invalid) atomicAdd(&counts[0], static_cast<unsigned long long>(invalid));
    if (nonfinite) atomicAdd(&counts[1], static_cast<unsigned long long>(nonfinite));
  }
  if (!in) return;
  const double v = metrics[j * sweep::kNumMetrics + objective];
  keys[j] = (s == kSimOk && !isnan(v)) ? orderable(sign * v) : kInvalidKey;
}

// Histogram of digit `pass` over the keys whose top 8 * pass bits equal the prefix's.
__global__ void __launch_bounds__(DevicePolicy::TopK::kBlock)
    top_k_histogram(const unsigned long long* keys, std::uint64_t n, unsigned long long phi, unsigned plo, int pass,
                    unsigned* histogram) {
  __shared__ unsigned h[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) h[i] = 0;
  __syncthreads();
  const std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n && compare_top(keys[j], static_cast<unsigned>(j), phi, plo, 8 * pass) == 0)
    atomicAdd(&h[digit(keys[j], static_cast<unsigned>(j), pass)], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (h[i]) atomicAdd(&histogram[i], h[i]);
}

// The valid points whose key's top `bits` bits are at most the prefix's: their
// index, key and row (params, then metrics) in arrival order.
__global__ void __launch_bounds__(DevicePolicy::TopK::kBlock)
    top_k_gather(const unsigned long long* keys, std::uint64_t n, unsigned long long phi, unsigned plo, int bits,
                 const double* params, const double* metrics, int dims, unsigned capacity, unsigned* picked_n,
                 unsigned* picked_index, unsigned long long* picked_keys, double* picked_rows) {
  const std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n || keys[j] == kInvalidKey || compare_top(keys[j], static_cast<unsigned>(j), phi, plo, bits) > 0) return;
  const unsigned slot = atomicAdd(picked_n, 1u);
  if (slot >= capacity) return;  // cannot happen: the keys are unique
  picked_index[slot] = static_cast<unsigned>(j);
  picked_keys[slot] = keys[j];
  double* row = picked_rows + static_cast<std::uint64_t>(slot) * (dims + sweep::kNumMetrics);
  for (int d = 0; d < dims; ++d) row[d] = params[j * dims + d];
  for (int m = 0; m < sweep::kNumMetrics; ++m) row[dims + m] = metrics[j * sweep::kNumMetrics + m];
}

}  // namespace stribeck::gpu
