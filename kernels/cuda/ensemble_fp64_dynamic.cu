// The ensemble launches of the dynamic models in fp64 (see ensemble_kernel.cuh).
#include "ensemble_kernel.cuh"

namespace stribeck::gpu {
const std::array<EnsembleEntry<double>, count_models(DynamicModels{})> kEnsembleFp64Dynamic =
    ensemble_entries<double>(DynamicModels{});
}  // namespace stribeck::gpu
