// Compiled only, never run (bench/sass_per_step.sh): the grid benchmark's
// per-sample work, simscape-cylinder in FP32 over a shared-memory tile of
// NS packed samples, the loop fully unrolled so that the kernel's size grows
// by exactly NS samples' machine code.
#include "stribeck/kernels/models/simscape_cylinder.hpp"
#include "sweep_kernel.cuh"

#ifndef NS
#define NS 4
#endif

using namespace stribeck;

__global__ void sweep_samples(const double* p, const gpu::PackedSample<float>* in, sweep::RawMetrics* out) {
  __shared__ gpu::PackedSample<float> tile[NS];
  if (threadIdx.x < NS) tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  sweep::Trajectory<SimscapeCylinder, float> tr;
  tr.prepare(p + threadIdx.x * SimscapeCylinder::kNumParams);
  sweep::RawMetrics raw;
  tr.run(gpu::PackedTile<float>{tile}, 0, NS, raw);
  out[threadIdx.x] = raw;
}
