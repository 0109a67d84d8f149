// The sweep launches of every model in fp64 (see sweep_launch.cuh).
#include "sweep_launch.cuh"

namespace stribeck::gpu {
const std::array<SweepEntry, count_models(AllModels{})> kSweepFp64 = sweep_entries<double>(AllModels{});
}  // namespace stribeck::gpu
