#pragma once
// The block emulator's cub::DeviceRadixSort (a test build, never shipped):
// the CUB interface the launch code calls, with the same contract, run as
// device work on the stream (cuda_runtime.h beside it): the first call with
// no temporary storage says how much it needs; the second queues the sort,
// which runs when the host waits for the stream, on device memory whose
// ranges are checked as a copy's. Emulated kernels cannot run CUB's own
// (warp-level PTX), so the sort is a stable sort on the host: the order
// CUB's LSD radix sort gives, equal keys in input order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

namespace cub {

struct DeviceRadixSort {
  // Sorts num_items (key, value) pairs by bits [begin_bit, end_bit) of the
  // keys, ascending and stable.
  template <class KeyT, class ValueT, class NumItemsT>
  static cudaError_t SortPairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const KeyT* d_keys_in,
                               KeyT* d_keys_out, const ValueT* d_values_in, ValueT* d_values_out, NumItemsT num_items,
                               int begin_bit = 0, int end_bit = static_cast<int>(sizeof(KeyT) * 8),
                               cudaStream_t stream = 0) {
    static_assert(std::is_unsigned_v<KeyT>, "the emulated sort takes unsigned keys");
    const std::size_t n = static_cast<std::size_t>(num_items);
    // As CUB: room for the alternate key and value buffers, and a little more.
    const std::size_t needed = n * (sizeof(KeyT) + sizeof(ValueT)) + 256;
    if (!d_temp_storage) {
      temp_storage_bytes = needed;
      return cudaSuccess;
    }
    if (temp_storage_bytes < needed || begin_bit < 0 || end_bit > static_cast<int>(sizeof(KeyT) * 8) ||
        begin_bit >= end_bit)
      return stribeck_emu::invalid_value("cub::DeviceRadixSort::SortPairs: too little temporary storage or bad bits");
    const std::pair<const void*, std::size_t> ranges[] = {{d_temp_storage, temp_storage_bytes},
                                                          {d_keys_in, n * sizeof(KeyT)},
                                                          {d_keys_out, n * sizeof(KeyT)},
                                                          {d_values_in, n * sizeof(ValueT)},
                                                          {d_values_out, n * sizeof(ValueT)}};
    for (const auto& [p, bytes] : ranges) {
      const cudaError_t e = stribeck_emu::check_device_range("cub::DeviceRadixSort::SortPairs", p, bytes);
      if (e != cudaSuccess) return e;
    }
    stribeck_emu::enqueue_device_work(stream, [=] {
      const int width = end_bit - begin_bit;
      const KeyT mask = width >= static_cast<int>(sizeof(KeyT) * 8) ? ~KeyT(0) : ((KeyT(1) << width) - 1);
      auto bits = [&](KeyT k) { return static_cast<KeyT>((k >> begin_bit) & mask); };
      std::vector<std::size_t> order(n);
      std::iota(order.begin(), order.end(), std::size_t(0));
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return bits(d_keys_in[a]) < bits(d_keys_in[b]); });
      std::vector<KeyT> keys(n);
      std::vector<ValueT> values(n);
      for (std::size_t i = 0; i < n; ++i) {
        keys[i] = d_keys_in[order[i]];
        values[i] = d_values_in[order[i]];
      }
      std::copy(keys.begin(), keys.end(), d_keys_out);
      std::copy(values.begin(), values.end(), d_values_out);
    });
    return cudaSuccess;
  }
};

}  // namespace cub
