#pragma once
// One input trace as the per-trajectory code reads it: structure of arrays in
// the working scalar, one entry per sample. Channels a model does not read may
// be null. dt and dx are precomputed per sample (dt_0 = dx_0 = 0) so the
// integrals need no look-back into the previous tile.
#include <cstdint>

#include "stribeck/kernels/config.hpp"

namespace stribeck::sweep {

template <class T>
struct TraceView {
  const T* v = nullptr;       // velocity
  const T* p_a = nullptr;     // chamber A pressure
  const T* p_b = nullptr;     // chamber B pressure
  const T* f_n = nullptr;     // normal force
  const T* f_meas = nullptr;  // measured force (null: cost metrics are NaN)
  const T* dt = nullptr;      // t_k - t_{k-1}
  const T* dx = nullptr;      // x_k - x_{k-1}
  std::int64_t n = 0;
};

// Counts of one experiment that do not depend on the parameters.
struct TraceCounts {
  std::uint64_t samples = 0, n_pos = 0, n_neg = 0;
  bool has_force = false;
};

}  // namespace stribeck::sweep
