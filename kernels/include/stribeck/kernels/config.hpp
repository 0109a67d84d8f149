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
// host/src/lanes/) inline everything: an out-of-line copy of a shared inline
// function would be merged by the linker with the other builds' copies, and
// AVX-512 code could end up called on a processor without it.
#define STRIBECK_HD
#define STRIBECK_HD_INLINE inline __attribute__((always_inline))
#else
#define STRIBECK_HD
#define STRIBECK_HD_INLINE inline
#endif

// STRIBECK_HD_HOT: inlined on the host too, whatever the build. For the few
// functions every integration step calls through a functor (the body's
// right-hand side and its snapshot), which GCC otherwise leaves out of line
// in the scalar ensemble (46 % of its samples, issue 17): marking them is
// what `flatten` on the whole point did, at a twentieth of its compile time.
#if defined(__CUDACC__)
#define STRIBECK_HD_HOT __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define STRIBECK_HD_HOT inline __attribute__((always_inline))
#else
#define STRIBECK_HD_HOT inline
#endif
