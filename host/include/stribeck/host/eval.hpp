#pragma once
// `stribeck eval`: one model, one parameter set, evaluated along every sample
// of an input file.
#include <optional>
#include <string>
#include <vector>

namespace stribeck {

struct EvalOptions {
  std::string model;                // model id (required)
  std::vector<std::string> params;  // "NAME=VALUE" overrides of the defaults
  std::string input;                // CSV with a header row of channel names (required)
  std::string output;               // CSV written atomically (required)
  // Dynamic models only: internal state at the first sample (LuGre family:
  // bristle deflection z [m]; Dahl: friction force [N]). Unset: 0, i.e. the
  // contact starts relaxed.
  std::optional<double> initial_state;
  // Experiment to evaluate when the input is an HDF5 log or .mat file with
  // several (empty: the only one).
  std::string experiment;
};

struct EvalSummary {
  long samples = 0;
  std::vector<std::string> columns;  // output columns, model_force (then model_state) last
  std::vector<std::string> warnings; // parameter warnings (e.g. LuGre passivity), one line each
};

// Streams the input through the model in blocks (constant memory) and writes
// the input columns plus `model_force`. Dynamic models also need a `time`
// column (strictly increasing, seconds): the state is integrated from sample
// to sample with the velocity linear in between, and its value is written as
// `model_state`. Throws InputError on bad input; the
// output file then does not exist (or keeps its previous content).
// An HDF5 log or MATLAB file as input, or an output ending in .h5, goes
// through evaluate_log() instead (eval_log.cpp).
EvalSummary evaluate_file(const EvalOptions& options);

// Reads one experiment of any log (read_any_log), evaluates it like a CSV
// and writes CSV, or for an .h5 output: the experiment's measured channels
// plus a results group "eval/<model>" holding model_force (and model_state)
// with the model, parameters and provenance as attributes. Atomic.
EvalSummary evaluate_log(const EvalOptions& options);
// True when `options` needs evaluate_log (HDF5/.mat input or .h5 output).
bool eval_needs_log_path(const EvalOptions& options);

}  // namespace stribeck
