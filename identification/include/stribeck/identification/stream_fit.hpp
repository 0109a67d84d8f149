#pragma once
// A static fit of HDF5 logs of any length in bounded memory: the log is read
// chunk by chunk (LogBlockReader) on every pass, never held.
//
//   LogStream s{"rig.h5", "p40bar", "p40bar"};
//   FitSummary r = fit_streamed({s}, "simscape-cylinder", options);
//
// The passes (docs/identification.md, "Logs of any length"):
//   1. check data: sample counts, velocity range and signs, force sums, the
//      noise estimate (a robust scale of third differences per block of
//      65536 samples, combined by the median over blocks), histograms of |v| and
//      of the load levels;
//   2. a representative subsample of at most `search_samples` held in memory:
//      the slowest moving samples (at most a sixteenth of the budget), and per
//      pressure / normal-force level an equal share taken at a stride;
//   3. start points and the multistart on the subsample; then the polish,
//      the quality figures, the covariance (compressed J^T J) and the
//      profile intervals on every sample, streamed.
// A log of at most `search_samples` samples is held whole as the subsample,
// so the search, the start points and the noise estimate are exactly those
// of fit(); the solves still stream, and the results equal fit()'s up to the
// order of floating-point sums (about 1e-12 relative).
//
// Not streamed (fit() must be used): dynamic models, logs without a velocity
// channel (or without acceleration with `inertia`: derived kinematics need
// the whole-array filters), and `validate`.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "stribeck/identification/fit.hpp"

namespace stribeck::ident {

struct LogStream {
  std::string path;        // HDF5 log
  std::string experiment;  // experiment in it ("" = the only one)
  std::string name;        // reported name ("" = `experiment`, or the one found)
};

struct StreamOptions {
  // Rows read per chunk; rounded up to a multiple of FitOptions::block_size.
  // Default 131072 (1 MiB per channel).
  std::size_t chunk_rows = 131072;
  // Most samples of the in-memory subsample of the search. Default 200000.
  long search_samples = 200000;
  // Called during the quality phase with the fitted force and the residual
  // (measured - fitted) of experiment `e` (index into the logs), rows
  // [begin, begin + n), in order; only when FitOptions::keep_signals (the
  // summary's ExperimentFit::fitted / residual stay empty).
  std::function<void(int e, std::size_t begin, const double* fitted, const double* residual, std::size_t n)> signals;
};

// Why `model` with these options cannot be fitted streamed ("" when it can);
// checks model and options only, not the logs' channels.
std::string streaming_unsupported(const std::string& model, const FitOptions& options);

// Fits `model` to the logs, streamed. Throws InputError as fit() does, and
// for the cases streaming_unsupported() names or a missing channel.
FitSummary fit_streamed(const std::vector<LogStream>& logs, const std::string& model, const FitOptions& options,
                        const StreamOptions& stream = {});

}  // namespace stribeck::ident
