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
  // The multistart, as identification's: `start` first, then points spread
  // over [range_lo, range_hi] of every free parameter (a scrambled Sobol'
  // sequence; log-spaced where range_lo > 0), refined by Ceres in rounds of
  // `starts_per_round` until, after at least two rounds, two starts reached
  // the best cost (to agree_tolerance), or max_starts have run. A local
  // fit from one start stops in the first valley it finds: a tanh-shaped
  // rise against a falling exponential, say, has several.
  std::vector<double> range_lo, range_hi;  // empty: 0.1x to 10x the start
  int starts_per_round = 8;
  int max_starts = 64;
  double agree_tolerance = 1e-6;
  // Lower bounds in place of the model's (NaN: the model's), for a target
  // tool that admits more than the kernel model it is evaluated as (MSL's
  // F_Stribeck may be negative, i.e. K_brk below 1). Empty: the model's.
  std::vector<double> lower;
};

struct CurveFitResult {
  std::vector<double> params;  // every parameter, the free ones fitted
  double max_abs_error = 0.0;  // over the samples
  double rms_error = 0.0;
  bool converged = false;
  std::string message;   // Ceres' message of the best start
  int starts = 0;        // refinements run
  int at_best = 0;       // of those, reaching the best cost
  bool settled = false;  // two starts agreed on the best cost
};

// Fits the free parameters within the model's ranges (or `lower`) and relations
// (reparameterised: lo + exp(x) for bounded-below parameters, an excess
// exp(x) over the other side of an `a >= b` rule). Throws InputError for an
// unknown or dynamic model id or sizes that do not match.
CurveFitResult fit_curve(const CurveFitProblem& problem);

}  // namespace stribeck::ident
