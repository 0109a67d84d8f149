#pragma once
// Experiment design (`stribeck design`, docs/identification.md "Experiment
// design"): the rig test, within the rig's limits, whose static fit by
// `identify` determines the parameters best.
//
// The information of a test is that of identify's own least-squares problem
// (the same layout, free parameters and internal coordinates, the same
// residual) on the test's NOISELESS generated log at the prior:
//   F = J_u^T J_u / sigma^2,  cov_x = sigma^2 G (J_u^T J_u)^-1 G^T,
// J_u the Jacobian of the residuals in the internal coordinates, G = dx/du,
// sigma the rig's force noise. For a static law this is exact to first
// order: the standard errors identify would report at the truth. The
// information of several experiments adds.
//
// Criteria (each to be minimised) are of the covariance of the RELATIVE
// parameters x_i / s_i (s_i = |prior value|, 1 where it is 0), so they do not
// depend on units: D = log det, A = trace, E = largest eigenvalue (the
// smallest eigenvalue of the information), worst-rse = the largest relative
// standard error. A force offset is a nuisance: reported, not in a criterion.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "stribeck/data/experiment.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/workloads/design_file.hpp"

namespace stribeck::ident {

enum class DesignCriterion { kD, kA, kE, kWorstRse };
// "d", "a", "e", "worst-rse"; false for anything else.
bool parse_design_criterion(const std::string& text, DesignCriterion* out);
const char* criterion_name(DesignCriterion c);

struct PredictedParameter {
  std::string name, unit;
  double value = 0;
  double std_error = std::numeric_limits<double>::quiet_NaN();  // NaN: the test does not determine it
  double relative = std::numeric_limits<double>::quiet_NaN();   // std_error / |value|; NaN for offset or value 0
};

// The predicted uncertainty of a fit of `logs`.
struct Prediction {
  std::vector<PredictedParameter> parameters;                  // the free ones, in identify's order
  std::vector<double> cov;                                     // k x k covariance of the external values, row-major
  bool determined = true;                                      // every free parameter determined
  double criterion = std::numeric_limits<double>::infinity();  // inf when not determined
  double worst_rse = std::numeric_limits<double>::infinity();
};

struct DesignRequest {
  std::string model;
  std::vector<double> prior;  // every model parameter (defaults, guesses or a fit)
  // The fit identify will run: `fix` (NAME=VALUE) and `offset` are used;
  // every other parameter is free as identify frees it.
  FitOptions fit;
  workloads::RigLimits rig;
  std::vector<std::string> profiles;  // candidate families (generator profiles)
  DesignCriterion criterion = DesignCriterion::kWorstRse;
  int experiments = 1;
  int candidates = 256;
  std::uint64_t seed = 1;
};

// The information of the fit of `logs` (noiseless) at the prior, with
// force noise `sigma`. Throws InputError for logs identify would refuse.
Prediction predict(const DesignRequest& r, const std::vector<data::Experiment>& logs, double sigma);

struct DesignEvaluation {
  std::vector<workloads::DesignedExperiment> experiments;
  bool feasible = false;
  std::string infeasible;  // why not, when not
  Prediction prediction;
};

// The trajectories of `experiments` (checked against the rig's stroke,
// acceleration and speed; stroke_used and a_peak filled in) and their
// prediction.
DesignEvaluation evaluate_design(const DesignRequest& r, std::vector<workloads::DesignedExperiment> experiments);

// The reference test: the generator's `plateaus` profile (12 log-spaced
// levels from v/1000 to v, each in both directions), one experiment per
// rig pressure (the levels, or pressure_min and pressure_max of a range; one
// at pressure 0 for a model without pressure), the total duration split
// equally, v the largest speed <= v_max whose trajectories meet the stroke
// and acceleration limits.
DesignEvaluation reference_design(const DesignRequest& r);

// The best any test of the rig's duration can do (docs/identification.md,
// "The best test of the duration"): for a static law each sample's
// information depends only on its (v, p), so the worst relative variance is
// convex in the shares of time over (v, p); its minimum over every share the
// rig allows (|v| <= v_max on a grid of speeds, the rig's pressures, at most
// the stroke's share of time above each speed) is found by Frank-Wolfe and
// certified by the duality gap on a grid ten times finer. No test of that
// duration, rate and noise has a smaller worst relative standard error (to
// first order); whatever the criterion, this bound is of the worst relative
// standard error.
struct DesignBound {
  bool computed = false;
  std::string why_not;                                            // one line, when not computed
  double worst_rse = std::numeric_limits<double>::quiet_NaN();    // the certified lower bound
  double measure_rse = std::numeric_limits<double>::quiet_NaN();  // the optimal measure's (>= the bound)
  int grid_speeds = 0;                                            // speeds per pressure of the certificate's grid
  double seconds = 0;                                             // time it took
};

// The bound for the request's rig and law, with the free parameters of `at`
// (a prediction of the request's fit). Not computed (why_not) for a law with
// memory, a law that reads the normal force, a pressure range the law is not
// affine in, or a support that cannot determine every parameter.
DesignBound design_bound(const DesignRequest& r, const Prediction& at);

// One line: the bound and how far the design's worst relative standard error
// is from it, or why there is none.
std::string design_bound_line(const DesignBound& b, double design_worst_rse);

struct DesignResult {
  DesignEvaluation design, reference;
  DesignBound bound;
  int evaluated = 0;  // candidate designs evaluated (search and refinement)
  int feasible = 0;   // of those, within the limits
  int threads = 1;
};

// Random candidates over the profile families' free settings, the best few
// refined by coordinate search; candidates evaluated on a thread pool
// (OpenMP, job_threads()). Throws InputError for a bad request or when no
// candidate satisfies the limits.
DesignResult design_experiment(const DesignRequest& r);

// Above this predicted relative standard error the first-order (Fisher)
// prediction is not trusted: the Monte Carlo validation (bench/design_mc.sh)
// matched it within 3 % at relative standard errors <= 8.5 %, and saw a 12x
// larger spread and biased fits (up to 9 standard errors of the mean of
// 1,000) at 30-80 %, where the fit is nonlinear over the noise. 10 % is
// just above the verified regime.
constexpr double kLinearRegimeMaxRse = 0.10;

// False where the parameter's predicted relative standard error exceeds
// kLinearRegimeMaxRse (or it is undetermined); true for a parameter without
// one (an offset) otherwise.
bool linear_regime(const PredictedParameter& p);

// The printed table of predicted standard errors, design against reference;
// a '*' marks each beyond the linear regime, with a warning line under it.
std::string design_table(const DesignResult& d);

// JSON of the result (docs/identification.md).
std::string design_json(const DesignRequest& r, const DesignResult& d);

}  // namespace stribeck::ident
