// The ensemble launches of the static models in fp64 (see ensemble_kernel.cuh).
#include "ensemble_kernel.cuh"

namespace stribeck::gpu {
const std::array<EnsembleEntry<double>, count_models(StaticModels{})> kEnsembleFp64Static =
    ensemble_entries<double>(StaticModels{});
}  // namespace stribeck::gpu
