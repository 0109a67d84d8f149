#pragma once
// Private to identification/: what a static fit says in plain language after
// its estimates: parameters the data cannot determine (identifiability),
// canonical values of those, a lower cost a profile found, too few filtered
// samples, the force-balance term the user left out (missing_terms.hpp) and
// a parameter held at a default that does not suit the rig.
#include <ceres/ceres.h>

#include <string>
#include <vector>

#include "fit_data.hpp"
#include "fit_problem.hpp"
#include "missing_terms.hpp"
#include "multistart.hpp"
#include "problem.hpp"
#include "uncertainty.hpp"

namespace stribeck::ident::detail {

// A number as the warnings print it (%.4g).
std::string fmt(double x);

// One warning for every profile that found a lower cost (`names`, the lowest
// `least`), where the two costs differ in the printed rmse; `significant`:
// below the optimum by more than z^2 s^2 (the fit continues from there while
// FitOptions::max_profile_restarts allows). It never advises the automatic
// search where that already ran.
void lower_cost_warning(FitSummary& S, const FitData& D, const FitOptions& o, const std::string& names, double least,
                        double ssr_min, bool significant);

// ---------------------------------------------------------------------------
// Phase: warnings, in plain language.
void fit_warnings(FitSummary& S, const Layout& L, const std::vector<int>& free, const FitData& D, const Uncertainty& U,
                  const SearchResult& R, const FitOptions& o);

// Canonical values of what the data do not determine. An undetermined
// parameter is wherever its flat direction left it, and the law carries it
// beyond the data: K_brk = 415 with c_v = 801 fitted a stroke none of whose
// samples is slow enough to see the Stribeck term, and predicted a 6.5 kN
// breakaway at v = 0 wherever the reported law was evaluated or exported.
// So each undetermined breakaway level goes to none (a ratio at its lower
// bound, a level at the Coulomb level), then each undetermined Stribeck
// velocity (rate) into the data, at the slowest moving sample; by roles,
// never by names. A move stays only where the SSR stays the fit's (to
// rounding): on the data the law is the one fitted. Returns whether a value
// moved; the caller computes the quality again.
bool canonical_values(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D);

// Canonical values (canonical_values), with the quality computed again at
// them (quality() fills the fit-quality fields and per-experiment signals).
void canonical_form(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D,
                    const QualityPhase& quality);

// Each warning once: the phases that run again after a restart, and the
// quality phase per experiment, may add the same sentence twice.
void unique_warnings(FitSummary& S);

// ---------------------------------------------------------------------------
// Few filtered samples. Parallel filtering leaves out the samples whose
// filter support reaches a reversal or an end, and keeps every D-th of the
// rest: a short stroke with many reversals can keep a few dozen of 800. Under
// about ten kept samples per free parameter the estimates rest on too few
// points; a higher cut-off (a shorter support, a smaller D) keeps more, as
// long as the motion's band stays below it (docs/identification.md).
void few_filtered_samples(FitSummary& S, const std::vector<data::Experiment>& experiments, const ModelInfo& model,
                          const FitOptions& o, const FitData& D, int k);

// ---------------------------------------------------------------------------
// Missing terms (missing_terms.hpp): the force-balance term the user left
// out, scored against the residual of every training sample.
template <class M>
void missing_terms(FitSummary& S, const Layout& L, const FitData& D, const FitOptions& o, const ModelInfo& model) {
  // A good fit is not scored: no pass over the samples (their acceleration
  // derived and filtered) for advice that would not be given.
  if (!MissingTermGram::wanted(S, D.scale.force_rms, D.scale.noise)) return;
  MissingTermGram gram;
  for (int e : D.train) {
    const std::vector<double>& kept = S.experiments[e].residual;
    gram.add(D.data[e], acceleration_of(D.data[e], o), kept.empty() ? raw_residuals<M>(L, D.data[e], e) : kept);
  }
  gram.advise(S, o, model.needs(kChannelNormalForce), D.scale.force_rms, D.scale.noise);
}

// Whether a converged fit stops well above the noise estimated from the data
// (half as much again: the estimate itself is uncertain).
bool misfit(const FitSummary& S, const FitData& D, const SearchResult& R);

// Phase: fixed parameters. A misfit far above the noise is often a parameter
// held at a default that does not suit this rig (the linear zone v_th of a
// cylinder, a smoothing width): each parameter fixed by default (not by
// --fix) is freed alone from the optimum, and one that lowers the SSR by
// more than z^2 sigma^2 and the rmse by a fifth is named, with the value it
// goes to. The reported fit is unchanged; the optimum is restored.
void check_fixed_parameters(FitSummary& S, ceres::Problem& P, Layout& L, const FitData& D,
                            const ceres::Solver::Options& so, const FitOptions& o);

}  // namespace stribeck::ident::detail
