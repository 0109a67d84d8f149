// The ensemble launches of the static models in fp32 (see ensemble_kernel.cuh).
#include "ensemble_kernel.cuh"

namespace stribeck::gpu {
const std::array<EnsembleEntry<float>, count_models(StaticModels{})> kEnsembleFp32Static =
    ensemble_entries<float>(StaticModels{});
}  // namespace stribeck::gpu
