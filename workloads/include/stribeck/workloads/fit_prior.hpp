#pragma once
// A fit's uncertainty as a distribution to simulate: the multivariate normal
// of its free parameters in the internal coordinates the fit's covariance is
// normal in (log for a positive parameter, the excess over another for an
// ordering such as F_S >= F_C), read from `identify --json` output
// (docs/dynamics.md, "Ensembles drawn from a fit").
#include <string>
#include <vector>

#include "stribeck/kernels/registry.hpp"

namespace stribeck::workloads {

struct FitPrior {
  std::string file;                            // the fit's JSON ("" when the ensemble is not drawn from a fit)
  std::vector<std::string> names;              // the free parameters, drawn jointly
  std::vector<int> transform;                  // sweep::JointTransform per free parameter
  std::vector<int> base;                       // kJointExcess: index into `names` of the base
  std::vector<double> mean;                    // internal coordinates of the estimate
  std::vector<double> chol;                    // lower Cholesky factor of their covariance, row-major
  std::vector<std::string> fixed;              // the fit's fixed parameters (their values are set, not drawn)
  std::vector<std::pair<int, double>> values;  // (model parameter index, fitted value) of every parameter
};

// Reads the fit at `path` (`identify --json` output) for model `m`: every
// parameter's value, and the free ones' covariance mapped to internal
// coordinates (C_u = G^-1 C_x G^-T, G = dx/du at the estimate). One-line
// InputError naming `where` and the file when it is not a fit of this
// model, a free parameter has no standard error (undetermined: fix it in
// the fit) or the covariance is not positive definite.
FitPrior read_fit_prior(const std::string& path, const ModelInfo& m, const std::string& where);

}  // namespace stribeck::workloads
