#pragma once
// The model's parameter ranges and relations in a plain struct a device thread
// can check per point (the host fills it from the model metadata; the host's
// validate_params gives the readable messages for the examples it reports).
#include <cmath>

#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/sweep/space.hpp"

namespace stribeck::sweep {

constexpr int kMaxRelations = 8;

struct ParamRules {
  int n = 0;
  double lo[kMaxParams] = {}, hi[kMaxParams] = {};
  bool lo_open[kMaxParams] = {}, hi_open[kMaxParams] = {};
  int n_relations = 0;
  int rel_a[kMaxRelations] = {}, rel_b[kMaxRelations] = {};  // p[a] >= p[b]
};

STRIBECK_HD_INLINE bool params_valid(const ParamRules& r, const double* p) {
  for (int i = 0; i < r.n; ++i) {
    const double x = p[i];
    if (!std::isfinite(x)) return false;
    if (r.lo_open[i] ? !(x > r.lo[i]) : !(x >= r.lo[i])) return false;
    if (r.hi_open[i] ? !(x < r.hi[i]) : !(x <= r.hi[i])) return false;
  }
  for (int k = 0; k < r.n_relations; ++k)
    if (!(p[r.rel_a[k]] >= p[r.rel_b[k]])) return false;
  return true;
}

}  // namespace stribeck::sweep
