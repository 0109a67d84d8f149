#pragma once
// The block emulator's cub::DeviceReduce (a test build, never shipped): Sum
// as the launch code calls it, with CUB's contract, run as device work on the
// stream (cuda_runtime.h beside it): the first call with no temporary storage
// says how much it needs; the second queues the sum, which runs when the host
// waits for the stream. The sum here is sequential and CUB's is a tree, so
// only sums whose order does not matter are equal on both: the emulated Sum
// takes integers only, which keeps the launch code to what a GPU reproduces.
#include <cuda_runtime.h>

#include <cstddef>
#include <iterator>
#include <type_traits>

namespace cub {

struct DeviceReduce {
  // *d_out = the sum of d_in[0, num_items) (0 for no items).
  template <class InputIteratorT, class OutputIteratorT, class NumItemsT>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0) {
    using T = typename std::iterator_traits<InputIteratorT>::value_type;
    static_assert(std::is_integral_v<T>,
                  "the launch code sums integers only: a sum of doubles in CUB's order differs from the CPU's");
    const std::size_t needed = 256;
    if (!d_temp_storage) {
      temp_storage_bytes = needed;
      return cudaSuccess;
    }
    if (temp_storage_bytes < needed || static_cast<long long>(num_items) < 0)
      return stribeck_emu::invalid_value("cub::DeviceReduce::Sum: too little temporary storage or a negative count");
    const std::size_t n = static_cast<std::size_t>(num_items);
    cudaError_t e = stribeck_emu::check_device_range("cub::DeviceReduce::Sum", d_temp_storage, temp_storage_bytes);
    if constexpr (std::is_pointer_v<OutputIteratorT>)
      if (e == cudaSuccess) e = stribeck_emu::check_device_range("cub::DeviceReduce::Sum", d_out, sizeof(*d_out));
    // Items read through an iterator (a Column) are checked by ASan as they are read.
    if constexpr (std::is_pointer_v<InputIteratorT>)
      if (e == cudaSuccess) e = stribeck_emu::check_device_range("cub::DeviceReduce::Sum", d_in, n * sizeof(T));
    if (e != cudaSuccess) return e;
    stribeck_emu::enqueue_device_work(stream, [=] {
      T sum = T(0);
      for (std::size_t i = 0; i < n; ++i) sum += d_in[static_cast<std::ptrdiff_t>(i)];
      *d_out = sum;
    });
    return cudaSuccess;
  }
};

}  // namespace cub
