#pragma once
// `stribeck eval`: one model, one parameter set, evaluated along every sample
// of an input file.
#include <string>
#include <vector>

namespace stribeck {

struct EvalOptions {
  std::string model;                // model id (required)
  std::vector<std::string> params;  // "NAME=VALUE" overrides of the defaults
  std::string input;                // CSV with a header row of channel names (required)
  std::string output;               // CSV written atomically (required)
};

struct EvalSummary {
  long samples = 0;
  std::vector<std::string> columns;  // output columns, model_force last
};

// Streams the input through the model in blocks (constant memory) and writes
// the input columns plus `model_force`. Throws InputError on bad input; the
// output file then does not exist (or keeps its previous content).
EvalSummary evaluate_file(const EvalOptions& options);

}  // namespace stribeck
