#pragma once
// One column of a row-major table of doubles in device memory (a value every
// `stride` doubles) as a random-access iterator of `Out`, so CUB's device-wide
// calls (cub::DeviceHistogram, cub::DeviceReduce) read a column of the rows a
// kernel wrote, in place, without a pass that copies it out. Each value is
// converted to `Out` as it is read: the launch code reduces counts and other
// integers this way, whose sums are exact in any order (CUB's order is not a
// sequential sum's).
#include <cstddef>
#include <iterator>

#include "gpu_layer.cuh"

namespace stribeck::gpu {

template <class Out>
struct Column {
  using difference_type = std::ptrdiff_t;
  using value_type = Out;
  using pointer = const Out*;
  using reference = Out;
  using iterator_category = std::random_access_iterator_tag;

  const double* p = nullptr;
  difference_type stride = 1;

  __host__ __device__ Out operator[](difference_type i) const { return static_cast<Out>(p[i * stride]); }
  __host__ __device__ Out operator*() const { return static_cast<Out>(*p); }
  __host__ __device__ Column operator+(difference_type n) const { return {p + n * stride, stride}; }
  __host__ __device__ Column operator-(difference_type n) const { return {p - n * stride, stride}; }
  __host__ __device__ Column& operator+=(difference_type n) {
    p += n * stride;
    return *this;
  }
  __host__ __device__ Column& operator-=(difference_type n) {
    p -= n * stride;
    return *this;
  }
  __host__ __device__ Column& operator++() {
    p += stride;
    return *this;
  }
  __host__ __device__ Column operator++(int) {
    Column c = *this;
    p += stride;
    return c;
  }
  __host__ __device__ difference_type operator-(const Column& o) const { return (p - o.p) / stride; }
  __host__ __device__ bool operator==(const Column& o) const { return p == o.p; }
  __host__ __device__ bool operator!=(const Column& o) const { return p != o.p; }
};

// Column `c` of rows of `width` doubles starting at `rows`.
template <class Out>
Column<Out> column(const double* rows, int width, int c) {
  return Column<Out>{rows + c, width};
}

}  // namespace stribeck::gpu
