#pragma once
// The launch tuning of every kernel, per GPU architecture, in one place (as
// CUB's Policy350 ... Policy900 chains): a PolicyNNN struct names each
// kernel's launch policy (threads per block, blocks per SM the register
// allocation must allow) for architectures from sm_NN on. Every kernel here
// handles one point per thread, so a policy has no items-per-thread field.
//
// Both sides of a launch pick the same struct. A kernel's __launch_bounds__
// take DevicePolicy, the policy of the architecture nvcc's device pass
// compiles (__CUDA_ARCH__); the host launches with policy_for(arch), where
// arch is that of the code the device runs (gpu::Workspace::arch, the
// kernels' PTX version as CUB reads it): sm_90 code, or compute_90 PTX the
// driver compiles for a newer device, is launched with Policy900.
#include <cstdint>
#include <type_traits>

#include "stribeck/kernels/models/lugre.hpp"

namespace stribeck::gpu {

// Launch policy of one kernel: threads per block and the blocks per SM the
// register allocation must allow (__launch_bounds__).
template <int kBlockThreads, int kMinBlocksPerSm = 1>
struct Policy {
  static constexpr int kBlock = kBlockThreads;
  static constexpr int kMinBlocks = kMinBlocksPerSm;
  static unsigned blocks(std::uint64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }
};

// sm_90 (H100, H200) and later: the values measured on an H200.
struct Policy900 {
  static constexpr int kArch = 900;
  // The sweep kernel: a tile of kTraceTile samples is loaded in two passes
  // of 128 threads; the compiler keeps its own register choice (no minimum
  // of blocks per SM).
  using Sweep = Policy<128>;
  // The top-K selection's key, histogram and gather passes: memory-bound,
  // one point per thread.
  using TopK = Policy<256>;
  // Ensembles, blocks of 128 threads. Blocks per SM the register allocation
  // must allow: FP32 models with memory (the LuGre family, Dahl: the
  // stick-slip ensembles) fit in 128 registers without spilling when asked
  // (ptxas -v: LuGre 130 -> 128, no spill), which lets 4 blocks share an SM
  // instead of 3. With affine inputs only (kAffine: no general profile
  // evaluation compiled in) they need far fewer, and more warps per SM hide
  // more of the latency of each RK4 stage's dependent chain: LuGre fits 80
  // registers (6 blocks, 24 warps), 20sim-lugre and Dahl 102 (5 blocks; at
  // 80 they spill 10 and 68 bytes). ptxas -v, no spill at these bounds. The
  // others keep the compiler's choice: capped, the static laws' stiction path
  // spills ~100 bytes in FP32, and FP64 spills heavily.
  template <class M, class T, bool kAffine>
  using Ensemble =
      Policy<128, (sizeof(T) == 4 && M::kDynamic) ? (kAffine ? (std::is_same_v<M, LuGre> ? 6 : 5) : 4) : 1>;
};

// Any other architecture: the same block sizes, and no register bounds (the
// ensemble bounds above were measured with ptxas for sm_90; forced on
// another register file they could spill, so the compiler chooses).
struct PolicyGeneric {
  static constexpr int kArch = 0;
  using Sweep = Policy<128>;
  using TopK = Policy<256>;
  template <class M, class T, bool kAffine>
  using Ensemble = Policy<128>;
};

template <int kArch>
using PolicyFor = std::conditional_t<(kArch >= Policy900::kArch), Policy900, PolicyGeneric>;

#if defined(__CUDA_ARCH__)
using DevicePolicy = PolicyFor<__CUDA_ARCH__>;
#else
// nvcc's host pass and the block emulator: launch bounds are not applied.
using DevicePolicy = PolicyGeneric;
#endif

// Calls f(PolicyNNN{}) with the policy of the code architecture `arch`
// (as __CUDA_ARCH__: 900 for sm_90).
template <class F>
decltype(auto) with_policy(int arch, F&& f) {
  if (arch >= Policy900::kArch) return f(Policy900{});
  return f(PolicyGeneric{});
}

}  // namespace stribeck::gpu
