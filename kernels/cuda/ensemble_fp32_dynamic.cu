// The ensemble launches of the dynamic models in fp32 (see ensemble_kernel.cuh).
#include "ensemble_kernel.cuh"

namespace stribeck::gpu {
const std::array<EnsembleEntry<float>, count_models(DynamicModels{})> kEnsembleFp32Dynamic =
    ensemble_entries<float>(DynamicModels{});
}  // namespace stribeck::gpu
