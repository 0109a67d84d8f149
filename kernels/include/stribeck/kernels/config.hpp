#pragma once
// Compilation-target glue shared by every per-sample function.
//
// STRIBECK_HD marks a function as callable from host and device code. Without
// nvcc it expands to nothing, so the same headers build with any C++17 compiler.
#if defined(__CUDACC__)
#define STRIBECK_HD __host__ __device__
#define STRIBECK_HD_INLINE __host__ __device__ __forceinline__
#elif defined(STRIBECK_HOST_ALWAYS_INLINE)
// Translation units built for one instruction set (the CPU sweep's SIMD lanes,
// workloads/src/lanes/) inline everything: an out-of-line copy of a shared inline
// function would be merged by the linker with the other builds' copies, and
// AVX-512 code could end up called on a processor without it.
#define STRIBECK_HD
#define STRIBECK_HD_INLINE inline __attribute__((always_inline))
#else
#define STRIBECK_HD
#define STRIBECK_HD_INLINE inline
#endif

// STRIBECK_HD_HOT: inlined on the host too, whatever the build. For the few
// functions every RK4 stage of a simulation calls (the RK4 step, the body's
// inputs, friction and right-hand side, its snapshot), which GCC otherwise
// leaves out of line in the scalar ensemble (46 % of its samples, issue 17):
// marking them does what `flatten` on the whole point did, at a tenth of its
// compile time (bench/RESULTS.md, 2026-11-25).
#if defined(__CUDACC__)
#define STRIBECK_HD_HOT __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define STRIBECK_HD_HOT inline __attribute__((always_inline))
#else
#define STRIBECK_HD_HOT inline
#endif
