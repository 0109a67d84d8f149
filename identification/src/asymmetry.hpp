#pragma once
// Private to identification/: the likelihood-ratio test of an asymmetric fit
// (--asymmetric) against the symmetric fit of the same data.
#include "stribeck/identification/fit.hpp"

namespace stribeck::ident::detail {

// Survival function of the chi-square distribution with k degrees of freedom.
double chi2_sf(double x, int k);

// The options of the symmetric fit an asymmetric one is tested against (its
// signals are not kept).
FitOptions symmetric_options(const FitOptions& o);

// S.asymmetry from the asymmetric fit S and the symmetric fit `symmetric`
// of the same samples (only its rmse and free parameters are read).
void asymmetry_test(FitSummary& S, const FitSummary& symmetric);

}  // namespace stribeck::ident::detail
