#pragma once
// A prescribed input signal that a GPU thread can evaluate without memory
// traffic: u(t) = offset + slope*t + amplitude*sin(2 pi frequency t).
// Covers the experiments of issue 5: constant drive speed, force ramps for
// breakaway, sines for presliding and pressure ripple.
//
// Optionally a measured signal is added: samples (table_t, table_y) of a log,
// linearly interpolated and held constant outside the logged span (the
// pressures of a rig log driving a cylinder model, for instance).
#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/scalar_math.hpp"

namespace stribeck {

constexpr double kTwoPi = 6.28318530717958647692528676655900577;

template <class T>
struct Profile {
  T offset = T(0);
  T slope = T(0);  // per second
  T amplitude = T(0);
  T frequency = T(0);          // Hz
  const T* table_t = nullptr;  // strictly increasing sample times [s]
  const T* table_y = nullptr;  // sample values
  int table_n = 0;

  // True when the signal is offset + slope*t alone (no sine, no table).
  STRIBECK_HD_INLINE bool affine() const { return amplitude == T(0) && table_n == 0; }
  STRIBECK_HD_INLINE T affine_value(const T& t) const { return offset + slope * t; }

  STRIBECK_HD_INLINE T value(const T& t) const {
    using std::sin;
    T u = affine_value(t) + (amplitude != T(0) ? amplitude * sin(T(kTwoPi) * frequency * t) : T(0));
    if (table_n > 0) {
      const int k = segment(t);
      if (k < 0) u += table_y[0];
      else if (k >= table_n - 1) u += table_y[table_n - 1];
      else u += table_y[k] + (table_y[k + 1] - table_y[k]) * (t - table_t[k]) / (table_t[k + 1] - table_t[k]);
    }
    return u;
  }
  STRIBECK_HD_INLINE T rate(const T& t) const {
    using std::cos;
    const T w = T(kTwoPi) * frequency;
    T r = slope + (amplitude != T(0) ? amplitude * w * cos(w * t) : T(0));
    if (table_n > 1) {
      const int k = segment(t);
      if (k >= 0 && k < table_n - 1) r += (table_y[k + 1] - table_y[k]) / (table_t[k + 1] - table_t[k]);
    }
    return r;
  }

 private:
  // Index k with table_t[k] <= t < table_t[k+1]; -1 before the table,
  // table_n - 1 at or after its end (binary search).
  STRIBECK_HD_INLINE int segment(const T& t) const {
    if (t < table_t[0]) return -1;
    if (!(t < table_t[table_n - 1])) return table_n - 1;
    int lo = 0, hi = table_n - 1;
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (t < table_t[mid]) hi = mid;
      else lo = mid;
    }
    return lo;
  }
};

template <class T>
STRIBECK_HD_INLINE Profile<T> constant_profile(const T& u) {
  Profile<T> p;
  p.offset = u;
  return p;
}

}  // namespace stribeck
