#pragma once
// Least-squares fit of a static friction law's parameters to a given force
// curve: what `stribeck export-params` uses where the target tool's law
// differs from the fitted one (e.g. the Modelica Standard Library's
// exp(-fexp*|v|) against a Gaussian Stribeck term). The law is evaluated
// through the kernels' model (M::prepare / M::force on ceres::Jet), so the
// equation is the one every other part of the toolkit runs.
#include <string>
#include <vector>

namespace stribeck::ident {

struct CurveFitProblem {
  std::string model;          // static model id of the law to fit
  std::vector<double> start;  // every parameter of the model (start values and held values)
  std::vector<bool> free;     // which parameters the fit may change (same size as start)
  // The samples (velocity and the other inputs, fixed) and the force to match.
  std::vector<double> v, p_a, p_b, f_n;
  std::vector<double> target;
  // Extra start points: each multiplies every free parameter of `start` by
  // the factor (1 = start itself). Default: 1, 0.3, 3.
  std::vector<double> start_scales = {1.0, 0.3, 3.0};
};

struct CurveFitResult {
  std::vector<double> params;  // every parameter, the free ones fitted
  double max_abs_error = 0.0;  // over the samples
  double rms_error = 0.0;
  bool converged = false;
  std::string message;  // Ceres' message of the best start
};

// Fits the free parameters within the model's ranges and relations
// (reparameterised: lo + exp(x) for bounded-below parameters, an excess
// exp(x) over the other side of an `a >= b` rule). Throws InputError for an
// unknown or dynamic model id or sizes that do not match.
CurveFitResult fit_curve(const CurveFitProblem& problem);

}  // namespace stribeck::ident
