#pragma once
// Private to identification/: the phase "check data" of a static fit: the
// samples a fit holds and the statistics of its training samples (count,
// speeds, force scale, noise), with the errors for data that cannot work and
// the warnings for weak data.
#include <limits>
#include <vector>

#include "multistart.hpp"
#include "problem.hpp"
#include "stribeck/identification/fit.hpp"

namespace stribeck::ident::detail {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The samples of a fit and what the checks found in its training samples.
struct FitData {
  std::vector<Prepared> data;
  std::vector<int> train, held;
  long n = 0;               // training samples
  double vslow = kInf;      // slowest moving |v| of the training samples
  double vfast = 0.0;       // fastest |v| of the training samples
  bool lacks_slow = false;  // the log has no slow range relative to its own speeds
  SearchScale scale;
};

// What the velocity range says: errors for no motion (and --asymmetric
// without both directions), warnings for one direction or constant velocity.
void motion_checks(const FitOptions& o, long npos, long nneg, double vmin, double vmax, FitSummary& S);

// The checks of the samples of D.data's training experiments (D.train set):
// D.n, vslow, lacks_slow, scale, noise.
void check_samples(FitData& D, const FitOptions& o, FitSummary& S);

// The experiments prepared for the fit (prepare_data), split into training
// and held-out ones (--validate), and checked (check_samples).
FitData check_data(const std::vector<data::Experiment>& experiments, const ModelInfo& model, const FitOptions& o,
                   FitSummary& S);

// Every `stride`-th sample of each experiment.
std::vector<Prepared> subsample(const std::vector<Prepared>& data, size_t stride);

}  // namespace stribeck::ident::detail
