#pragma once
// Compilation-target glue shared by every per-sample function.
//
// STRIBECK_HD marks a function as callable from host and device code. Without
// nvcc it expands to nothing, so the same headers build with any C++17 compiler.
#if defined(__CUDACC__)
#define STRIBECK_HD __host__ __device__
#define STRIBECK_HD_INLINE __host__ __device__ __forceinline__
#else
#define STRIBECK_HD
#define STRIBECK_HD_INLINE inline
#endif
