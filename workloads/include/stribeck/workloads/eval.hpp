#pragma once
// `stribeck eval`: one model, one parameter set, evaluated along every sample
// of an input file.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace stribeck::workloads {

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
  // Static laws: evaluate with the sweep lanes' vector exp/tanh (libmvec's,
  // and poly_exp in FP64 with AVX-512: within 4 ulp of the scalar ones), the
  // loop over samples vectorised. Faster; results may differ from the default
  // in the last bits. Dynamic models ignore it.
  bool vector_math = false;
  // For tests: rows per block (0: the default, 262,144; 65,536 for CSV
  // input) and whether the blocks are read, evaluated and written on three
  // threads at once (the default where the job has two or more threads) or
  // one after another on this thread. Results are the same either way.
  std::size_t block_rows = 0;
  bool overlap = true;
  // HDF5 output: how the columns eval writes are stored (channels copied as
  // stored from an HDF5 input keep the input's storage). 0, the default:
  // uncompressed, a Fletcher-32 checksum per chunk; 1-9: shuffle + deflate at
  // that level (write_log's storage is 4). Deflating model_force took over
  // half of eval's CPU time and shrinks it by about a third.
  int deflate_level = 0;
  // Provenance of an HDF5 output: the command as typed (argv, shell-quoted).
  std::string command_line;
};

struct EvalSummary {
  long samples = 0;
  std::vector<std::string> columns;   // output columns, model_force (then model_state) last
  std::vector<std::string> warnings;  // parameter warnings (e.g. LuGre passivity), one line each
};

// Streams the input through the model in blocks and writes the input
// columns plus `model_force`. Dynamic models also need a `time` column
// (strictly increasing, seconds): the state is integrated from sample to
// sample with the velocity linear in between, and its value is written as
// `model_state`. Throws InputError on bad input; the output file then does
// not exist (or keeps its previous content).
//
// Inputs: CSV (streamed), an HDF5 log (one experiment, read by hyperslabs a
// block at a time), MATLAB files and text whose header carries units or
// aliases (read whole, then evaluated the same way). Output: CSV, or for a
// path ending in .h5/.hdf5 an HDF5 log written block by block: the
// experiment's channels (SI) plus a results group "eval/<model>" holding
// model_force (and model_state) with the model, parameters and provenance as
// attributes. Memory is bounded by the blocks (three of 262,144 rows, of
// 65,536 for CSV input, in flight: one being read, one evaluated, one
// written, each stage on a thread of its own) for CSV and HDF5 inputs
// whatever their length. The parallel
// parts of a block (inflating the input's chunks, the static law, deflating
// the output's) run on a pool of threads that sleep when idle (no OpenMP);
// an error on any thread ends the command as it would sequentially: the
// first error in block order, nothing written.
EvalSummary evaluate_file(const EvalOptions& options);

// True when a text input must go through the converting reader (units or
// aliases in its header), or the output is HDF5.
bool eval_needs_log_path(const EvalOptions& options);

// Samples in memory, structure of arrays; a null pointer reads as zeros
// (channels the model does not use). `time` is needed by dynamic models.
struct EvalInputs {
  std::size_t n = 0;
  const double* velocity = nullptr;
  const double* pressure_a = nullptr;
  const double* pressure_b = nullptr;
  const double* normal_force = nullptr;
  const double* time = nullptr;
  bool vector_math = false;  // as EvalOptions::vector_math
};
// The in-memory form of eval (no checks of the inputs): force[i] for every
// sample, and for dynamic models state[i] (may be null). The model is chosen
// once; static laws run threaded over the samples (OpenMP), dynamic models
// in order. `params` holds every parameter of the model (resolve_params).
void evaluate_samples(const std::string& model, const std::vector<double>& params, const EvalInputs& inputs,
                      double* force, double* state = nullptr, double initial_state = 0.0);

}  // namespace stribeck::workloads
