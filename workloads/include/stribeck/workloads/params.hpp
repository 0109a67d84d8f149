#pragma once
// Turning user-given parameter assignments into a validated parameter vector.
#include <string>
#include <vector>

#include "stribeck/kernels/registry.hpp"

namespace stribeck::workloads {

// Looks up a model by id; throws InputError listing the known ids otherwise.
const ModelInfo& require_model(const std::string& id);

// Starts from the model's defaults and applies "NAME=VALUE" assignments in
// order. Throws InputError for an unknown name, a malformed or non-finite
// value, a name given twice, or a parameter set that breaks a model rule.
std::vector<double> resolve_params(const ModelInfo& model, const std::vector<std::string>& assignments);

}  // namespace stribeck::workloads
