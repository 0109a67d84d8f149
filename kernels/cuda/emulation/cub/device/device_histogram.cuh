#pragma once
// The block emulator's cub::DeviceHistogram (a test build, never shipped):
// HistogramEven as the launch code calls it, with CUB's contract, run as
// device work on the stream (cuda_runtime.h beside it): the first call with
// no temporary storage says how much it needs; the second queues the count,
// which runs when the host waits for the stream. Every bin is written (CUB
// zeroes the histogram first); samples outside [lower_level, upper_level)
// fall in no bin.
#include <cuda_runtime.h>

#include <cstddef>
#include <iterator>
#include <type_traits>
#include <utility>

namespace cub {

struct DeviceHistogram {
  // num_levels - 1 bins of equal width over [lower_level, upper_level): the
  // bin of a sample is (sample - lower) * bins / (upper - lower), rounded down.
  template <class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t HistogramEven(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                   CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                                   OffsetT num_samples, cudaStream_t stream = 0) {
    // As CUB: a little room for its tile state.
    const std::size_t needed = 256;
    if (!d_temp_storage) {
      temp_storage_bytes = needed;
      return cudaSuccess;
    }
    if (temp_storage_bytes < needed || num_levels < 2 || !(lower_level < upper_level) ||
        static_cast<long long>(num_samples) < 0)
      return stribeck_emu::invalid_value(
          "cub::DeviceHistogram::HistogramEven: too little temporary storage or bad levels");
    const int bins = num_levels - 1;
    const std::size_t n = static_cast<std::size_t>(num_samples);
    cudaError_t e =
        stribeck_emu::check_device_range("cub::DeviceHistogram::HistogramEven", d_temp_storage, temp_storage_bytes);
    if (e == cudaSuccess)
      e = stribeck_emu::check_device_range("cub::DeviceHistogram::HistogramEven", d_histogram, bins * sizeof(CounterT));
    // Samples read through an iterator (a Column) are checked by ASan as they are read.
    if constexpr (std::is_pointer_v<SampleIteratorT>)
      if (e == cudaSuccess)
        e = stribeck_emu::check_device_range("cub::DeviceHistogram::HistogramEven", d_samples, n * sizeof(*d_samples));
    if (e != cudaSuccess) return e;
    stribeck_emu::enqueue_device_work(stream, [=] {
      using SampleT = typename std::iterator_traits<SampleIteratorT>::value_type;
      using CommonT = std::common_type_t<LevelT, SampleT>;
      for (int b = 0; b < bins; ++b) d_histogram[b] = CounterT(0);
      for (std::size_t i = 0; i < n; ++i) {
        const CommonT s = static_cast<CommonT>(d_samples[static_cast<std::ptrdiff_t>(i)]);
        if (!(s >= CommonT(lower_level) && s < CommonT(upper_level))) continue;
        const CommonT lo = CommonT(lower_level), width = CommonT(upper_level) - lo;
        const auto bin = static_cast<long long>((s - lo) * CommonT(bins) / width);
        ++d_histogram[bin < bins ? bin : bins - 1];
      }
    });
    return cudaSuccess;
  }
};

}  // namespace cub
