#pragma once
// Fit results into HDF5, next to the measured data (which is never touched).
#include <string>

#include "stribeck/data/log.hpp"
#include "stribeck/identification/fit.hpp"

namespace stribeck::ident {

// Writes one results group per fitted experiment, "<prefix>/<experiment>",
// holding `fitted_force` and `residual` [N] and the attributes model,
// experiment, status, converged, rmse, held_out and `fit` (the JSON of the
// whole summary). The prefix is "identify_<model>", or "identify_<model>_2",
// "_3", ... when an earlier run took it. Creates the file when absent.
// Returns the prefix used.
std::string write_fit_results(const std::string& path, const FitSummary& s, const Provenance& provenance);

}  // namespace stribeck::ident
