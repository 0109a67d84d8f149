#pragma once
// Identification of friction-model parameters from rig experiments: one
// least-squares problem over any number of experiments, solved with Ceres,
// with uncertainty (covariance), fit quality and plain-language warnings.
//
//   FitOptions o;                      // every default documented below
//   o.offset = true;                   // allow a force offset
//   FitSummary s = fit(experiments, "simscape-cylinder", o);
//   std::puts(s.report().c_str());
//
// The residual of every sample is
//   r = force - (F_model(v, p_a, p_b, F_n) + m*a + A_a*p_a - A_b*p_b + offset)
// where the terms after F_model are the optional force balance of a raw rig.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "stribeck/data/experiment.hpp"

namespace stribeck::ident {

// Gpufit-like status of one fit. kConverged is the only "good" value.
enum class FitStatus : int {
  kConverged = 0,      // a Ceres convergence criterion was met and the problem is regular
  kMaxIterations = 1,  // stopped at FitOptions::max_iterations
  kSingular = 2,       // converged, but the data cannot determine every free parameter
  kFailed = 3,         // the solver failed (non-finite cost, no valid step)
};
const char* status_name(FitStatus s);

// What a fit is doing now, for progress displays.
struct FitProgress {
  std::string phase;                                       // "check data", "coarse search", "refine", "intervals", ...
  int start = 0;                                           // refinement k (1-based) of `starts` (0 outside "refine")
  int starts = 0;                                          // refinements planned so far (grows in automatic mode)
  int iteration = 0;                                       // solver iteration within the refinement
  double cost = std::numeric_limits<double>::quiet_NaN();  // current cost of the refinement
  double best_cost = std::numeric_limits<double>::quiet_NaN();  // best finished refinement so far
};

struct FitOptions {
  // --- Which parameters are estimated -------------------------------------
  // Names of the model parameters to estimate; empty = every parameter except
  // the sign-smoothing ones (v_eps, slope, v_th), which stay at their defaults
  // because rig data almost never determines them. Names may also be "mass"
  // and "offset" (those are controlled by the force-balance options below).
  std::vector<std::string> free;
  // "NAME=VALUE": hold NAME at VALUE (overrides `free`). Default: none.
  std::vector<std::string> fix;
  // "NAME=VALUE": initial value instead of the data-driven guess. Default: none.
  std::vector<std::string> initial;
  // "NAME=LO:HI": bounds on top of the model's own ranges (either side may be
  // empty or inf). Default: none; the box of the global search uses them.
  std::vector<std::string> bounds;
  // Model parameters fitted separately for every experiment instead of shared
  // across experiments (e.g. "F_pr"). Default: none, all shared.
  std::vector<std::string> per_experiment;
  // Separate model parameters for v > 0 and v < 0 (names get "+" / "-"),
  // plus a likelihood-ratio test against the symmetric fit. Default: false.
  bool asymmetric = false;

  // --- Force balance (raw rig data) ---------------------------------------
  // Estimate one additive force offset [N]. Default: false.
  bool offset = false;
  // With `offset`: one offset per experiment instead of one shared. Default: false.
  bool offset_per_experiment = false;
  // Include the inertial term m*a. Default: false. The acceleration comes from
  // the `acceleration` channel, or is derived from velocity/position.
  bool inertia = false;
  // Moving mass [kg] for the inertial term; NaN (default) = estimate it.
  double mass = std::numeric_limits<double>::quiet_NaN();
  // Piston areas [m^2] of the pressure force A_a*p_a - A_b*p_b, given (not
  // estimated). Default: 0, no pressure force.
  double area_a = 0.0;
  double area_b = 0.0;
  // Derived kinematics. A log without a velocity channel (or, with `inertia`,
  // without an acceleration channel) has them derived from position (or
  // velocity) through a zero-phase low-pass of -3 dB cut-off `cutoff_hz` [Hz];
  // 0 (default) = sample rate / 20.
  double cutoff_hz = 0.0;
  // With derived kinematics, apply the same low-pass to the force and every
  // other channel and decimate (parallel filtering, docs/identification.md),
  // for static models. Default: true. false: the force stays unfiltered and
  // the kinematics come from Savitzky-Golay derivatives at `cutoff_hz`, as
  // before. Logs that need no derived channel are never filtered.
  bool parallel_filter = true;
  // Parallel filtering keeps every D-th sample; 0 (default) = automatic
  // (about 0.5 x the sample rate / cut-off), 1 = every sample.
  int decimation = 0;

  // --- Robust loss ----------------------------------------------------------
  // "" (default: plain least squares), "huber:D" or "cauchy:D" with D in N.
  std::string loss;

  // --- Global search --------------------------------------------------------
  // Number of Ceres refinements. 0 (default) = automatic: the data-driven
  // guess and the best distinct points of a coarse evaluation over the box
  // are refined in rounds of `starts_per_round` until the two best agree
  // (same cost to `agree_tolerance`) and the best fit's residual is
  // consistent with the noise estimate, or `max_starts` have run.
  // N > 0 = exactly N refinements (the guess plus the best N-1 points).
  int starts = 0;
  // Automatic search: refinements per round, and the most it may run.
  int starts_per_round = 4;  // default 4
  int max_starts = 32;       // default 32
  // Two refinements reached the same optimum when their costs agree to this
  // relative tolerance (plus the noise floor's share). Default 1e-6.
  double agree_tolerance = 1e-6;
  // Continuations from a cost lower than the optimum's that a profile-likelihood
  // interval finds (holding one parameter elsewhere), each followed by the
  // quality, covariance and intervals again; 0 keeps the search's optimum.
  int max_profile_restarts = 3;  // default 3
  // Points of the coarse evaluation: a scrambled Sobol' design on the sweep
  // engine (GPU when usable), or the same Sobol' points on the fit's own
  // residuals (CPU) for asymmetric / per-experiment layouts. 0 (default) =
  // 512 per free parameter (at least 1024).
  int coarse_points = 0;
  // Seed of the coarse evaluation's scrambling. Default: 1.
  std::uint64_t seed = 1;

  // --- Hold-out validation --------------------------------------------------
  // Experiments left out of the fit; the summary reports the error on them.
  std::vector<std::string> validate;

  // --- Solver ---------------------------------------------------------------
  int max_iterations = 200;            // Ceres max_num_iterations
  double function_tolerance = 1e-10;   // Ceres function_tolerance
  double gradient_tolerance = 1e-12;   // Ceres gradient_tolerance
  double parameter_tolerance = 1e-10;  // Ceres parameter_tolerance
  int block_size = 2048;               // samples per residual block (vectorised Jacobians)
  int num_threads = 0;                 // Ceres threads; 0 = all hardware threads
  bool keep_signals = true;            // fill ExperimentFit::fitted / residual
  // Called at each phase change and after every solver iteration (from the
  // fitting thread); the CLI prints it as a progress line. Default: none.
  std::function<void(const FitProgress&)> progress;

  // --- Warnings -------------------------------------------------------------
  double max_relative_std_error = 0.5;  // warn when std_error / |value| exceeds this
  double max_abs_correlation = 0.99;    // warn when |correlation| of two parameters exceeds this

  // Whether these options can fit `model_id`, as Ceres'
  // Solver::Options::IsValid: every rule on the values above and their
  // combinations (ranges, --fix/--init/--bounds names and values against
  // the model, mass, cut-off, loss, what a dynamic model cannot do), without
  // any data. False puts a one-line message in *error, naming the option as
  // `stribeck identify` spells it (Python's messages rename the flags).
  // The model is an argument, not a member: one FitOptions serves several
  // models (compare, --compare) and fit() takes the model beside it.
  bool IsValid(const std::string& model_id, std::string* error) const;
};

struct ParameterEstimate {
  std::string name;  // model name, with "+"/"-" (asymmetric) and "@EXPERIMENT" (per experiment)
  std::string unit;
  double value = 0.0;
  double std_error = std::numeric_limits<double>::quiet_NaN();  // NaN when fixed or undetermined
  double ci95_lo = std::numeric_limits<double>::quiet_NaN();
  double ci95_hi = std::numeric_limits<double>::quiet_NaN();
  bool fixed = false;
  bool at_bound = false;
  // False when the data cannot determine this parameter (a flat direction of
  // the cost, a degenerate truth that switches it off, e.g. c_v when
  // K_brk = 1): std_error and the interval are then NaN, never finite and tight.
  bool determined = true;
  // How ci95 was obtained: "wald" (linearised covariance), "profile" (profile
  // likelihood: near a bound or where the cost is strongly nonlinear),
  // "one-sided" (at or near a bound without a profile: the Wald interval
  // kept inside the range, one end at the bound), or "none" (fixed or not
  // determined).
  std::string interval = "none";
};

// What parallel filtering did to one experiment (docs/identification.md).
struct FilterReport {
  bool filtered = false;  // false: every sample of the log was fitted as it is
  double rate_hz = 0.0;   // mean sample rate
  double cutoff_hz = 0.0;
  double half_width_s = 0.0;  // the kernel's half support T
  int decimation = 1;
  long samples_in = 0;     // the log's samples (after resampling, when `resampled`)
  long kept = 0;           // fitted
  long near_reversal = 0;  // of the decimation grid, left out: the support reaches a velocity reversal
  long near_end = 0;       // ... or an end of the log
  bool resampled = false;  // non-uniform time stamps, resampled linearly first
  long decimated() const { return samples_in - kept - near_reversal - near_end; }
};

struct ExperimentFit {
  std::string name;
  long samples = 0;
  double rmse = 0.0;
  bool held_out = false;         // validation experiment, not used by the fit
  std::vector<double> fitted;    // modelled force per sample (with force-balance terms)
  std::vector<double> residual;  // measured - fitted
  // With `fitted`, for a filtered fit only (otherwise sample i is row i of
  // the log): per fitted sample, its time [s] (empty without a time
  // channel), the log's row, and the filtered velocity the fit used.
  std::vector<double> time, velocity;
  std::vector<std::size_t> rows;
  FilterReport filter;
};

struct AsymmetryTest {
  double statistic = 0.0;    // likelihood ratio N*ln(SSR_sym / SSR_asym)
  int dof = 0;               // extra parameters of the asymmetric fit
  double p_value = 1.0;      // chi-square survival function
  bool significant = false;  // p < 0.05
  double rmse_symmetric = 0.0;
};

struct FitSummary {
  std::string model;
  FitStatus status = FitStatus::kFailed;
  bool converged = false;  // status == kConverged
  std::vector<ParameterEstimate> parameters;
  std::vector<std::string> free_names;           // order of `correlation`
  std::vector<std::vector<double>> correlation;  // of the free parameters
  // Per free parameter, the internal coordinate its covariance is normal in
  // (the fit's J^T J is of these): "identity", "log" or "excess:BASE".
  // `simulate` draws ensembles from a fit in them (docs/dynamics.md).
  std::vector<std::string> free_transforms;

  long samples = 0;  // used by the fit
  int free_parameters = 0;
  double cost = 0.0;  // 0.5 * sum of squared (robustified) residuals
  double rmse = 0.0;
  double r_squared = 0.0;
  double max_abs_error = 0.0;
  double autocorrelation_lag1 = 0.0;                                  // of the residuals, within experiments
  double aic = 0.0;                                                   // N ln(SSR/N) + 2k
  double bic = 0.0;                                                   // N ln(SSR/N) + k ln N
  double validation_rmse = std::numeric_limits<double>::quiet_NaN();  // over held-out experiments

  int iterations = 0;
  int starts = 0;          // Ceres refinements run
  int starts_at_best = 0;  // of those, how many reached the best optimum
  int best_start = 0;      // 0 = the data-driven guess
  // Times a profile-likelihood interval, holding one parameter elsewhere, found
  // a lower cost than the search's best, and the fit continued from there.
  int profile_restarts = 0;
  double noise_estimate = std::numeric_limits<double>::quiet_NaN();  // force noise std [N] from the data alone
  // Units of the log's force and velocity, in which noise, RMSE and the
  // residuals are given: N*m and rad/s for a rotational log.
  std::string force_unit = "N", velocity_unit = "m/s";
  // Seconds spent in each phase of the fit, in order (name, seconds).
  std::vector<std::pair<std::string, double>> phase_seconds;
  std::string search_device;    // where the coarse search ran ("" without one)
  double seconds = 0.0;         // whole fit: data checks, guesses, search, solves, covariance, report
  double solver_seconds = 0.0;  // inside ceres::Solve, summed over starts
  std::string solver_message;

  std::vector<ExperimentFit> experiments;
  bool has_asymmetry_test = false;
  AsymmetryTest asymmetry;
  std::vector<std::string> warnings;

  // The value of a parameter by name (throws std::out_of_range when absent).
  const ParameterEstimate& param(const std::string& name) const;
  // A readable multi-line report (parameters, quality, warnings).
  std::string report() const;
};

// Fits `model` to the experiments. Throws InputError for unusable input (no
// samples, missing channels, unknown parameter names, malformed options);
// everything the data merely does not support is a warning in the summary.
FitSummary fit(const std::vector<data::Experiment>& experiments, const std::string& model, const FitOptions& options);

// FitOptions::IsValid as an InputError with its message: fit() and
// fit_streamed() make this check before they look at any data. A batch
// makes it once, so that what fit() then throws for one experiment is
// about that experiment's data.
void check_fit_options(const std::string& model_id, const FitOptions& options);

// Fits each model with the same options; returns the summaries best first
// (lowest AIC).
std::vector<FitSummary> compare(const std::vector<data::Experiment>& experiments,
                                const std::vector<std::string>& models, const FitOptions& options);

// JSON text of a summary (documented in docs/identification.md).
std::string to_json(const FitSummary& s, int indent = 2);

}  // namespace stribeck::ident
