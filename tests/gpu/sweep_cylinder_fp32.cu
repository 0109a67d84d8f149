// Compiled to PTX only (tests/gpu/ptx_per_sample.py): the sweep kernel of the
// grid benchmark, simscape-cylinder in FP32, to count the instructions each
// sample costs without a GPU.
#include "stribeck/kernels/models/simscape_cylinder.hpp"
#include "sweep_kernel.cuh"

template __global__ void stribeck::gpu::sweep_kernel<stribeck::SimscapeCylinder, float>(
    stribeck::sweep::SpaceView, stribeck::sweep::ParamRules, stribeck::gpu::DeviceTraces<float>, std::uint64_t,
    std::uint64_t, double*, double*, std::uint8_t*, double*);
