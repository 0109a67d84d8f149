#pragma once
// Rotational logs (attribute motion=rotational: torque in N*m, velocity in
// rad/s): which laws a fit accepts on them, and the units of what the fit
// reports (docs/identification.md, "Rotational logs").
#include <string>
#include <vector>

#include "stribeck/data/log.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/stream_fit.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident::detail {

// Whether one experiment is rotational (attribute motion, or else its units).
bool is_rotational(const data::Experiment& e);

// Whether the experiments are a rotational log. Throws InputError naming the
// model and the log's units for a translational-only law (one reading chamber
// pressures or a normal force) on a rotational log, and for experiments of
// both kinds in one fit.
bool rotational_log(const std::vector<data::Experiment>& experiments, const ModelInfo& model);
// The same for a streamed fit's logs, from their headers.
bool rotational_log(const std::vector<LogStream>& logs, const ModelInfo& model);

// A summary of a fit to a rotational log in rotational units: its parameters
// (a generic law's by dimension: N -> N*m, m -> rad, so sigma0 N/m ->
// N*m/rad), offset, noise, RMSE, the units in its warnings, and a note
// where a translational block has a rotational variant.
void rotational_summary(FitSummary& S, const ModelInfo& model);

// The unit of a parameter of `model` (or of the offset or mass a fit adds)
// fitted to a rotational log.
std::string rotational_parameter_unit(const ModelInfo& model, const std::string& unit);

}  // namespace stribeck::ident::detail
