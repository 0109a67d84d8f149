#pragma once
// Top-K of a sweep sub-chunk on the device, queued on the sub-chunk's stream
// with nothing to wait for on the host: each point gets a 64-bit key, its
// objective mapped to an order-preserving integer (kInvalidKey, above every
// other, for invalid, non-finite or NaN points), beside its index in the
// sub-chunk, and a class byte (its status, or kTopKUnranked). CUB does the
// device-wide steps: cub::DeviceHistogram counts the classes (the invalid and
// non-finite points, and the points ranked), cub::DeviceRadixSort sorts the
// (key, index) pairs; the sort is stable and the indices go in ascending, so
// the order is the former stable sort's: objective, ties by the smaller
// index. A gather pass copies the first K ranked rows in that order and their
// indices into the sub-chunk's buffers, which come back with its results
// (sweep_launch.cu); the rows picked are min(K, ranked).
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cstdint>
#include <cstring>

#include "gpu_layer.cuh"
#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/kernels/sweep/trace.hpp"

namespace stribeck::gpu {

constexpr unsigned long long kInvalidKey = ~0ull;

// The class of a point in the counts: its SimStatus, or kTopKUnranked for a
// point whose status is ok but whose objective is NaN (it is not ranked).
constexpr int kTopKUnranked = kSimInvalid + 1;
// The head of a sub-chunk's top-K output (unsigned long long words): the
// points of each class (cub::DeviceHistogram's bins: out[kSimOk] ranked,
// out[kSimInvalid] invalid, out[kSimNonFinite] non-finite); the picked
// indices follow.
constexpr int kTopKClasses = kTopKUnranked + 1, kTopKHead = kTopKClasses;

// Device bytes per point of the selection's scratch: keys and indices, in
// and sorted, CUB's alternate buffers of both, and the class byte.
constexpr std::size_t kTopKBytesPerPoint = 3 * (sizeof(unsigned long long) + sizeof(unsigned)) + 1;

// Order-preserving bits of a double key (-0 and +0 equal, as the comparison is).
STRIBECK_HD_INLINE unsigned long long orderable(double x) {
  if (x == 0.0) x = 0.0;
  unsigned long long u;
  memcpy(&u, &x, sizeof u);
  return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

// Keys, indices and classes of the n points.
__global__ void __launch_bounds__(DevicePolicy::TopK::kBlock)
    top_k_keys(const double* metrics, const std::uint8_t* status, int objective, double sign, std::uint64_t n,
               unsigned long long* keys, unsigned* index, std::uint8_t* point_class) {
  const std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const std::uint8_t s = status[j];
  const double v = metrics[j * sweep::kNumMetrics + objective];
  const bool ranked = s == kSimOk && !isnan(v);
  keys[j] = ranked ? orderable(sign * v) : kInvalidKey;
  index[j] = static_cast<unsigned>(j);
  point_class[j] = static_cast<std::uint8_t>(s == kSimOk && !ranked ? kTopKUnranked : s);
}

// The first k sorted points that are ranked (a prefix: unranked keys sort
// last): their index (after the head of `out`) and their row (params, then
// metrics).
__global__ void __launch_bounds__(DevicePolicy::TopK::kBlock)
    top_k_gather(const unsigned long long* sorted_keys, const unsigned* sorted_index, std::uint64_t k,
                 const double* params, const double* metrics, int dims, unsigned long long* out, double* picked_rows) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= k || sorted_keys[t] == kInvalidKey) return;
  const std::uint64_t j = sorted_index[t];
  out[kTopKHead + t] = j;
  double* row = picked_rows + t * (dims + sweep::kNumMetrics);
  for (int d = 0; d < dims; ++d) row[d] = params[j * dims + d];
  for (int m = 0; m < sweep::kNumMetrics; ++m) row[dims + m] = metrics[j * sweep::kNumMetrics + m];
}

}  // namespace stribeck::gpu
