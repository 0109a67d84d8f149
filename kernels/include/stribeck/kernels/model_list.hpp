#pragma once
// The list of every friction model, and dispatch from a runtime model id to the
// model type. Adding a model means adding it here; everything that iterates
// models (CLI, registry, sweeps, tests) picks it up.
#include <cstring>
#include <utility>

#include "stribeck/kernels/models/coulomb_viscous.hpp"
#include "stribeck/kernels/models/simscape_cylinder.hpp"
#include "stribeck/kernels/models/simscape_cylinder_il.hpp"
#include "stribeck/kernels/models/simscape_rotational.hpp"
#include "stribeck/kernels/models/simscape_translational.hpp"
#include "stribeck/kernels/models/twentysim.hpp"

namespace stribeck {

template <class... M>
struct ModelList {};

template <class M>
struct ModelTag {
  using type = M;
};

using StaticModels = ModelList<SimscapeTranslational, SimscapeRotational, SimscapeCylinder,
                               SimscapeCylinderIL, TwentySimC, TwentySimV, TwentySimCV,
                               TwentySimSCVS, CoulombViscous>;
using AllModels = StaticModels;

// Calls f(ModelTag<M>{}) for every model of the list, in order.
template <class F, class... M>
void for_each_model(ModelList<M...>, F&& f) {
  (f(ModelTag<M>{}), ...);
}
template <class F>
void for_each_model(F&& f) {
  for_each_model(AllModels{}, std::forward<F>(f));
}

// Calls f(ModelTag<M>{}) for the model whose id is `id`; returns false when no
// model has that id.
template <class F>
bool visit_model(const char* id, F&& f) {
  bool found = false;
  for_each_model([&](auto tag) {
    using M = typename decltype(tag)::type;
    if (!found && std::strcmp(M::kId, id) == 0) {
      found = true;
      f(tag);
    }
  });
  return found;
}

}  // namespace stribeck
