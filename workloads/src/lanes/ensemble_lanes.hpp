#pragma once
// The CPU ensemble's SIMD lanes (kernels/systems/ensemble_lanes.hpp), built
// once per instruction-set level by workloads/CMakeLists.txt beside the sweep's
// (sweep_lanes.hpp); ensemble.cpp picks the level the sweep picks
// (cpu_vector_level: the best this processor runs, or STRIBECK_CPU_ISA).
#include <cstdint>

#include "stribeck/kernels/systems/ensemble.hpp"

namespace stribeck::workloads::lanes {

// Points [first, first + count) of the space (count <= the kernel's width):
// those the lanes run (valid, smooth form, affine inputs, ODE integrable)
// get their coordinates in values[j * dims], their metrics in out[j] and
// ran[j] = 1; the others ran[j] = 0, for the caller to run one at a time
// (ensemble_point). out[j] equals ensemble_point's result but for the vector
// exp (docs/dynamics.md).
template <class T>
using EnsembleGroupFn = void (*)(const EnsembleSpec<T>& e, const sweep::SpaceView& space, std::uint64_t first,
                                 int count, double* values, StickSlipMetrics<T>* out, unsigned char* ran);

struct EnsembleKernels {
  EnsembleGroupFn<double> fp64 = nullptr;
  EnsembleGroupFn<float> fp32 = nullptr;
  int width64 = 0, width32 = 0;  // points per group
};

#define STRIBECK_DECLARE_ENSEMBLE_LANES(ns)               \
  namespace ns {                                          \
  EnsembleKernels ensemble_kernels(const char* model_id); \
  }
STRIBECK_DECLARE_ENSEMBLE_LANES(generic)
#if STRIBECK_LANES_HAVE_x86_64_v3
STRIBECK_DECLARE_ENSEMBLE_LANES(x86_64_v3)
#endif
#if STRIBECK_LANES_HAVE_x86_64_v4
STRIBECK_DECLARE_ENSEMBLE_LANES(x86_64_v4)
#endif
#undef STRIBECK_DECLARE_ENSEMBLE_LANES

}  // namespace stribeck::workloads::lanes
