#pragma once
// Fit results into HDF5, next to the measured data (which is never touched).
#include <string>

#include "stribeck/data/log.hpp"
#include "stribeck/identification/fit.hpp"

namespace stribeck::ident {

// The summary of experiment `e`'s results group: string attributes model,
// experiment, status and `fit` (the JSON of the whole summary, `fit_json`),
// rmse as a float64 attribute, converged and held_out as int8 0/1 flags, and
// per parameter the scalar datasets `param_<name>` (the estimate),
// `param_<name>_std_error`, `param_<name>_ci95_lo` and `_ci95_hi` (NaN where
// fixed or undetermined), each with the parameter's units.
data::Results fit_group_summary(const FitSummary& s, const ExperimentFit& e, const std::string& fit_json);

// Writes one results group per fitted experiment, "<prefix>/<experiment>",
// holding `fitted_force` and `residual` [N] and fit_group_summary. The prefix is "identify_<model>", or "identify_<model>_2",
// "_3", ... when an earlier run took it. Creates the file when absent.
// Returns the prefix used.
std::string write_fit_results(const std::string& path, const FitSummary& s, const data::Provenance& provenance);

}  // namespace stribeck::ident
