#pragma once
// A model's parameter ranges and relations as the per-point rules every
// workload checks on its threads (sweep::ParamRules): one place that fills
// them and bounds them (at most sweep::kMaxParams parameters and
// sweep::kMaxRelations relations, else InputError naming the model).
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/sweep/rules.hpp"

namespace stribeck::engine {

sweep::ParamRules model_rules(const ModelInfo& m);

}  // namespace stribeck::engine
