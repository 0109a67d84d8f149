#pragma once
// The CPU sweep's SIMD lanes (kernels/sweep/lanes.hpp), built once per
// instruction-set level by workloads/CMakeLists.txt. Each build lives in its own
// namespace and hands out plain function pointers; sweep_cpu.cpp picks the
// best level the processor runs (or the one STRIBECK_CPU_ISA names).
#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/kernels/sweep/trace.hpp"

namespace stribeck::workloads::lanes {

// Evaluates one batch of `width` points (rows of the model's parameters);
// out[l * n_exp + e] receives point l's raw sums of experiment e.
template <class T>
using BatchFn = void (*)(const double* params, const sweep::TraceView<T>* traces, const sweep::TraceCounts* counts,
                         int n_exp, sweep::RawMetrics* out);

// `stribeck eval --vector-math`: force[i] for samples [0, n) of a static law,
// the loop over samples vectorised with the vector exp/tanh (within 4 ulp of
// the scalar ones). Every input pointer is non-null.
using EvalFn = void (*)(const double* params, long n, const double* v, const double* p_a, const double* p_b,
                        const double* f_n, double* force);

struct Kernels {
  EvalFn eval64 = nullptr;         // null: the model has a state
  BatchFn<double> fp64 = nullptr;  // null: the model is not batched (it has a state)
  BatchFn<float> fp32 = nullptr;
  int width64 = 0, width32 = 0;  // points per batch
};

#define STRIBECK_DECLARE_LANES(ns)       \
  namespace ns {                         \
  Kernels kernels(const char* model_id); \
  }
STRIBECK_DECLARE_LANES(generic)
#if STRIBECK_LANES_HAVE_x86_64_v3
STRIBECK_DECLARE_LANES(x86_64_v3)
#endif
#if STRIBECK_LANES_HAVE_x86_64_v4
STRIBECK_DECLARE_LANES(x86_64_v4)
#endif
#undef STRIBECK_DECLARE_LANES

}  // namespace stribeck::workloads::lanes
