#pragma once
// Private to identification/: the two-stage LuGre fit (docs/identification.md).
//
// Stage 1 fits LuGre's steady-state curve F_ss(v) (LuGre::steady_force, the
// kernels' one equation) as a static law to the samples where the bristle
// state has settled; stage 2 fits sigma0 and sigma1 with the static part held,
// simulating the bristle state along each experiment inside the residual.
#include <vector>

#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/model_traits.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident::detail {

// LuGre's steady state as a static law with LuGre's parameters, so the
// static-fit machinery (layout, guesses, vectorised blocks, covariance)
// fits it unchanged. sigma0 and sigma1 do not act on it and are held fixed.
struct LuGreSteadyState : StaticLaw {
  static constexpr int kNumParams = LuGre::kNumParams;
  template <class T>
  using Coeffs = LuGre::Coeffs<T>;
  template <class T>
  static Coeffs<T> prepare(const T* p) {
    return LuGre::prepare(p);
  }
  template <class T>
  static T force(const Coeffs<T>& c, const Sample<T>& s) {
    return LuGre::steady_force(c, s.v);
  }
};

// Stage 1 on the settled samples (run_fit<LuGreSteadyState>, in fit.cpp).
FitSummary fit_lugre_steady_state(const ModelInfo& model, const std::vector<Experiment>& steady,
                                  const FitOptions& o);

// Both stages; the summary reports every LuGre parameter.
FitSummary fit_lugre(const std::vector<Experiment>& experiments, const ModelInfo& model, const FitOptions& o);

}  // namespace stribeck::ident::detail
