#pragma once
// The list of every friction model, and dispatch from a runtime model id to the
// model type. Adding a model means adding it here; everything that iterates
// models (CLI, registry, sweeps, tests) picks it up.
#include <cstring>
#include <utility>

#include "stribeck/kernels/models/coulomb_viscous.hpp"
#include "stribeck/kernels/models/dahl.hpp"
#include "stribeck/kernels/models/elastoplastic.hpp"
#include "stribeck/kernels/models/gms.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/models/simscape_cylinder.hpp"
#include "stribeck/kernels/models/simscape_cylinder_il.hpp"
#include "stribeck/kernels/models/simscape_rotational.hpp"
#include "stribeck/kernels/models/simscape_translational.hpp"
#include "stribeck/kernels/models/stribeck_asymmetric.hpp"
#include "stribeck/kernels/models/stribeck_delta.hpp"
#include "stribeck/kernels/models/twentysim.hpp"
#include "stribeck/kernels/models/twentysim_lugre.hpp"

namespace stribeck {

template <class... M>
struct ModelList {};

template <class M>
struct ModelTag {
  using type = M;
};

using StaticModels =
    ModelList<SimscapeTranslational, SimscapeRotational, SimscapeCylinder, SimscapeCylinderIL, TwentySimC, TwentySimV,
              TwentySimCV, TwentySimSCVS, CoulombViscous, StribeckDelta, StribeckAsymmetric>;
// Models with memory: they implement the ODE form (dzdt, output, relax_rate, ode_ok,
// stiffness, damping; GMS rates() for its several states) and the trace form
// step(c, sample, state, dt).
using DynamicModels = ModelList<LuGre, TwentySimLuGre, Dahl, ElastoPlastic, Gms1, Gms2, Gms3, Gms4>;

template <class A, class B>
struct ConcatModels;
template <class... A, class... B>
struct ConcatModels<ModelList<A...>, ModelList<B...>> {
  using type = ModelList<A..., B...>;
};
// Every model: static laws first, in the order `stribeck models` lists them.
using AllModels = ConcatModels<StaticModels, DynamicModels>::type;

// Calls f(ModelTag<M>{}) for every model of the list, in order.
template <class F, class... M>
void for_each_model(ModelList<M...>, F&& f) {
  (f(ModelTag<M>{}), ...);
}
template <class F>
void for_each_model(F&& f) {
  for_each_model(AllModels{}, std::forward<F>(f));
}

// Calls f(ModelTag<M>{}) for the model of `list` whose id is `id`; returns
// false when no model of the list has that id. Pass StaticModels{} where only
// memoryless laws make sense, so f is never instantiated for a dynamic model.
template <class List, class F>
bool visit_model(List list, const char* id, F&& f) {
  bool found = false;
  for_each_model(list, [&](auto tag) {
    using M = typename decltype(tag)::type;
    if (!found && std::strcmp(M::kId, id) == 0) {
      found = true;
      f(tag);
    }
  });
  return found;
}
template <class F>
bool visit_model(const char* id, F&& f) {
  return visit_model(AllModels{}, id, std::forward<F>(f));
}

}  // namespace stribeck
