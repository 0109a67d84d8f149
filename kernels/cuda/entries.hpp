#pragma once
// The launch functions of every model, by position in its model list: one
// table per precision (and, for ensembles, per model group), each defined in
// its own translation unit (sweep_fp32.cu, ensemble_fp32_static.cu, ...) so
// the build compiles them on every core. The dispatchers (sweep_launch.cu,
// ensemble_launch.cu) find a model's position and call its entry; a table is
// an object with external linkage, so every entry it names is emitted.
#include <array>
#include <cstddef>
#include <cstring>

#include "stribeck/kernels/cuda/ensemble_cuda.hpp"
#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#include "stribeck/kernels/model_list.hpp"

namespace stribeck::gpu {

template <class... M>
constexpr std::size_t count_models(ModelList<M...>) {
  return sizeof...(M);
}
// Position of the model `id` in `list`, or -1.
template <class List>
int model_position(List list, const char* id) {
  int k = 0, found = -1;
  for_each_model(list, [&](auto tag) {
    if (found < 0 && std::strcmp(decltype(tag)::type::kId, id) == 0) found = k;
    ++k;
  });
  return found;
}

using SweepEntry = void (*)(const SweepRequest&);
template <class T>
using EnsembleEntry = void (*)(const EnsembleSpec<T>&, const EnsembleRequest&);

extern const std::array<SweepEntry, count_models(AllModels{})> kSweepFp32, kSweepFp64;
extern const std::array<EnsembleEntry<float>, count_models(StaticModels{})> kEnsembleFp32Static;
extern const std::array<EnsembleEntry<float>, count_models(DynamicModels{})> kEnsembleFp32Dynamic;
extern const std::array<EnsembleEntry<double>, count_models(StaticModels{})> kEnsembleFp64Static;
extern const std::array<EnsembleEntry<double>, count_models(DynamicModels{})> kEnsembleFp64Dynamic;

}  // namespace stribeck::gpu
