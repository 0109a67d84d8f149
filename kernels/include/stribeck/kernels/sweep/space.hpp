#pragma once
// The parameter space of a sweep and the mapping index -> parameter set.
//
// The space is never materialised: space_point(view, i, out) computes point i
// from the axes and the design on whichever thread needs it (CPU or GPU), so a
// 1e9-point sweep costs no memory for its points, and any contiguous index
// range (a chunk, a shard, a resumed tail) is computed identically.
//
// Point values are computed in double on every path; the model then converts
// them to its scalar (float or double) in prepare(). List, fixed and linear
// axes give the same bits on the CPU and the GPU (lerp below is never fused
// into an FMA); log and normal axes go through the device's exp/log/erfc,
// which may round the last bit differently from the C library's.
#include <cmath>
#include <cstdint>

#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/sweep/inverse_normal.hpp"
#include "stribeck/kernels/sweep/rng.hpp"
#include "stribeck/kernels/sweep/sobol.hpp"

namespace stribeck::sweep {

constexpr int kMaxParams = 16;

// How one parameter varies.
enum class AxisKind : int {
  kFixed,       // one value: a
  kList,        // explicit values: list[offset .. offset+count)
  kLinear,      // grid: count values evenly spaced over [a, b]; other designs: uniform on [a, b]
  kLog,         // grid: count values evenly spaced in log over [a, b]; other designs: log-uniform
  kUniform,     // distribution on [a, b] (random designs only)
  kLogUniform,  // distribution with log x uniform on [a, b] (random designs only)
  kNormal,      // normal(mean a, sd b) truncated to [lo, hi] (random designs only)
  // Component `count` of the space's multivariate normal (SpaceView::joint),
  // drawn in internal coordinates and mapped by `a` (a JointTransform code);
  // an excess is added to the value of axis `b` (random designs only).
  kJointNormal,
};

// How a joint-normal component maps to the parameter: identification's
// internal coordinates, in which a fit's covariance is normal.
enum JointTransform : int {
  kJointIdentity = 0,  // value = y
  kJointLog = 1,       // value = exp(y): a positive parameter
  kJointExcess = 2,    // value = value of axis b + y: an ordering (F_S >= F_C)
};

enum class Design : int {
  kGrid,            // Cartesian product; the first parameter varies slowest
  kRandom,          // independent uniform draws per (seed, index, dimension)
  kLatinHypercube,  // one point per stratum of each dimension, strata permuted per dimension
  kSobol,           // Sobol' sequence (Gray-code order), optionally Owen-scrambled
};

struct Axis {
  AxisKind kind = AxisKind::kFixed;
  std::uint64_t count = 1;               // grid levels (fixed: 1; list: its length; linear/log: count)
  double a = 0, b = 0;                   // see AxisKind
  double lo = -HUGE_VAL, hi = HUGE_VAL;  // truncation of a normal
  std::uint64_t offset = 0;              // kList: first value in SpaceView::list_values
};

// Everything a thread needs to compute point i. Trivially copyable: passed by
// value as a kernel argument; list_values points into device memory there.
struct SpaceView {
  Design design = Design::kGrid;
  int dims = 0;              // number of model parameters
  std::uint64_t points = 0;  // total points of the space
  std::uint64_t seed = 0;
  bool scramble = true;  // Sobol' only
  Axis axis[kMaxParams];
  const double* list_values = nullptr;
  // A multivariate normal over the kJointNormal axes (none when joint == 0):
  // list_values[joint_offset ..] holds its mean (joint values) and then the
  // lower Cholesky factor of its covariance, row by row (joint x joint).
  int joint = 0;
  std::uint64_t joint_offset = 0;
  // A split normal per component instead (a fit's asymmetric intervals,
  // from_fit_draw = "profile-intervals"): the factor is then the Cholesky
  // factor of the correlation, and the list goes on with each component's
  // lower and upper scale and the bounds its value is held in (joint x 4).
  bool joint_split = false;
};

// a + u (b - a) rounded step by step on every compiler: nvcc would otherwise
// contract it into one FMA on the GPU, and a host compiler may too where the
// target has FMA (-march=native, aarch64), so points would differ between
// devices. The volatile keeps the host product a separate rounding; points are
// computed once per parameter set, off the hot path.
STRIBECK_HD_INLINE double lerp(double a, double b, double u) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, __dmul_rn(u, __dsub_rn(b, a)));
#else
  const volatile double step = u * (b - a);
  return a + step;
#endif
}

// Whether axis d draws a coordinate (everything but fixed values in
// non-grid designs). Sobol'/LHS dimensions are numbered over varying axes only,
// so adding a fixed parameter does not change the other columns.
STRIBECK_HD_INLINE bool axis_varies(const Axis& ax) { return ax.kind != AxisKind::kFixed; }

// Value of axis `ax` for a coordinate u in [0, 1) (non-grid designs).
STRIBECK_HD_INLINE double axis_value_at(const Axis& ax, const double* list, double u) {
  switch (ax.kind) {
    case AxisKind::kFixed: return ax.a;
    case AxisKind::kList: {
      std::uint64_t k = static_cast<std::uint64_t>(u * static_cast<double>(ax.count));
      if (k >= ax.count) k = ax.count - 1;
      return list[ax.offset + k];
    }
    case AxisKind::kLinear:
    case AxisKind::kUniform: return lerp(ax.a, ax.b, u);
    case AxisKind::kLog:
    case AxisKind::kLogUniform: return ax.a * std::exp(u * std::log(ax.b / ax.a));
    case AxisKind::kNormal: {
      // Inversion in the lower tail only (Phi loses precision near 1): an
      // interval above the mean is mirrored, keeping the value increasing in u.
      double zlo = (ax.lo - ax.a) / ax.b, zhi = (ax.hi - ax.a) / ax.b, z;
      if (zlo > 0) {
        const double plo = normal_cdf(-zhi), phi = normal_cdf(-zlo);
        z = -normal_quantile(plo + (1.0 - u) * (phi - plo));
      } else {
        const double plo = normal_cdf(zlo), phi = normal_cdf(zhi);
        z = normal_quantile(plo + u * (phi - plo));
      }
      double x = ax.a + ax.b * z;
      if (x < ax.lo) x = ax.lo;  // rounding at the truncation bounds
      if (x > ax.hi) x = ax.hi;
      return x;
    }
    case AxisKind::kJointNormal: break;  // drawn jointly (joint_values), never one at a time
  }
  return ax.a;
}

// Level k of a grid axis.
STRIBECK_HD_INLINE double axis_level(const Axis& ax, const double* list, std::uint64_t k) {
  switch (ax.kind) {
    case AxisKind::kList: return list[ax.offset + k];
    case AxisKind::kLinear:
      if (ax.count == 1) return ax.a;
      if (k + 1 == ax.count) return ax.b;  // exact end point
      return lerp(ax.a, ax.b, static_cast<double>(k) / static_cast<double>(ax.count - 1));
    case AxisKind::kLog:
      if (ax.count == 1) return ax.a;
      if (k + 1 == ax.count) return ax.b;
      return ax.a * std::exp(std::log(ax.b / ax.a) * (static_cast<double>(k) / static_cast<double>(ax.count - 1)));
    default: return ax.a;
  }
}

// Parameter set of index i (0 <= i < view.points) into out[0 .. dims).
// Point i of the Owen-scrambled Sobol' sequence in dimension `coord`, in
// [0, 1): the sweep's Sobol' design, and the identification's coarse search
// on the CPU, draw from this one function.
STRIBECK_HD_INLINE double sobol_unit(std::uint64_t i, int coord, std::uint64_t seed) {
  const std::uint32_t bits = owen_scramble(
      sobol_bits(i, coord), static_cast<std::uint32_t>(hash3(seed, 0x50b0ull, static_cast<std::uint64_t>(coord))));
  return static_cast<double>(bits) * 0x1.0p-32;
}

// Component j of a split-normal draw: w = (L_R z)_j, a standard normal
// correlated through the Gaussian copula, scaled by the lower or the upper
// half's scale, then held in [lo, hi] (an interval end on a bound: the draws
// beyond it are put on it; infinite otherwise).
STRIBECK_HD_INLINE double split_value(const SpaceView& s, double mean, const double* chol, const double* z, int j) {
  double w = 0;
  for (int m = 0; m <= j; ++m) w += chol[j * s.joint + m] * z[m];
  const double* scale_lo = chol + s.joint * s.joint;
  const double* scale_hi = scale_lo + s.joint;
  const double* lo = scale_hi + s.joint;
  const double* hi = lo + s.joint;
  double y = mean + w * (w < 0 ? scale_lo[j] : scale_hi[j]);
  if (y < lo[j]) y = lo[j];
  if (y > hi[j]) y = hi[j];
  return y;
}

// The joint-normal axes' values from their standard normal draws z:
// y = mean + L z, then each component's transform; excesses last, so that
// their base (any axis) has its value.
STRIBECK_HD_INLINE void joint_values(const SpaceView& s, const double* z, double* out) {
  const double* mean = s.list_values + s.joint_offset;
  const double* chol = mean + s.joint;
  for (int pass = 0; pass < 2; ++pass)
    for (int d = 0; d < s.dims; ++d) {
      const Axis& ax = s.axis[d];
      if (ax.kind != AxisKind::kJointNormal || (pass == 1) != (static_cast<int>(ax.a) == kJointExcess)) continue;
      const int j = static_cast<int>(ax.count);
      double y = mean[j];
      if (s.joint_split) {
        y = split_value(s, mean[j], chol, z, j);
      } else {
        for (int m = 0; m <= j; ++m) y += chol[j * s.joint + m] * z[m];
      }
      switch (static_cast<int>(ax.a)) {
        case kJointLog: out[d] = std::exp(y); break;
        case kJointExcess: out[d] = out[static_cast<int>(ax.b)] + y; break;
        default: out[d] = y;
      }
    }
}

STRIBECK_HD_INLINE void space_point(const SpaceView& s, std::uint64_t i, double* out) {
  if (s.design == Design::kGrid) {
    // Mixed radix, last parameter fastest (C order, like numpy.meshgrid(indexing="ij").ravel()).
    std::uint64_t rest = i;
    for (int d = s.dims - 1; d >= 0; --d) {
      const Axis& ax = s.axis[d];
      const std::uint64_t k = rest % ax.count;
      rest /= ax.count;
      out[d] = ax.kind == AxisKind::kFixed ? ax.a : axis_level(ax, s.list_values, k);
    }
    return;
  }
  int coord = 0;              // index among varying axes
  double z[kMaxParams] = {};  // standard normal draws of the joint components
  for (int d = 0; d < s.dims; ++d) {
    const Axis& ax = s.axis[d];
    if (!axis_varies(ax)) {
      out[d] = ax.a;
      continue;
    }
    double u = 0;
    switch (s.design) {
      case Design::kRandom: u = to_unit(hash3(s.seed, i, static_cast<std::uint64_t>(coord))); break;
      case Design::kLatinHypercube: {
        const std::uint64_t key = hash3(s.seed, 0x4c4853ull, static_cast<std::uint64_t>(coord));
        const std::uint64_t stratum = permute_index(i, s.points, key);
        const double jitter = to_unit(hash3(s.seed, i, 0x10000ull + static_cast<std::uint64_t>(coord)));
        u = (static_cast<double>(stratum) + jitter) / static_cast<double>(s.points);
        break;
      }
      case Design::kSobol: u = s.scramble ? sobol_unit(i, coord, s.seed) : sobol_bits(i, coord) * 0x1.0p-32; break;
      default: break;
    }
    if (u >= 1.0) u = 0x1.fffffffffffffp-1;
    if (ax.kind == AxisKind::kJointNormal)
      z[ax.count] = normal_quantile(u > 0x1.0p-60 ? u : 0x1.0p-60);  // an unscrambled Sobol' point 0 is u = 0
    else out[d] = axis_value_at(ax, s.list_values, u);
    ++coord;
  }
  if (s.joint > 0) joint_values(s, z, out);
}

}  // namespace stribeck::sweep
