// The sweep launches of every model in fp32 (see sweep_launch.cuh).
#include "sweep_launch.cuh"

namespace stribeck::gpu {
const std::array<SweepEntry, count_models(AllModels{})> kSweepFp32 = sweep_entries<float>(AllModels{});
}  // namespace stribeck::gpu
