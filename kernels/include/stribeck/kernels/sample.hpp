#pragma once
// The per-sample inputs a friction law may read.
#include "stribeck/kernels/config.hpp"

namespace stribeck {

// Input channels, as bit flags so a model can state which ones it needs.
enum Channel : unsigned {
  kChannelVelocity = 1u << 0,     // relative velocity [m/s] (rotational: [rad/s])
  kChannelPressureA = 1u << 1,    // chamber A gauge pressure [Pa]
  kChannelPressureB = 1u << 2,    // chamber B gauge pressure [Pa]
  kChannelNormalForce = 1u << 3,  // normal force F_n [N]
};

// One sample of the inputs. Channels a model does not need are ignored; the
// caller fills them with zero.
template <class T>
struct Sample {
  T v;    // relative velocity
  T p_a;  // chamber A gauge pressure
  T p_b;  // chamber B gauge pressure
  T f_n;  // normal force
};

template <class T>
STRIBECK_HD_INLINE Sample<T> velocity_sample(const T& v) {
  return Sample<T>{v, T(0), T(0), T(0)};
}

}  // namespace stribeck
