#pragma once
// The identification battery (issue 23, item 2): seeded cases for every static
// model of the kernels' list, each a generate_log()ged rig log in memory with
// true parameters drawn across the model's ranges (degenerate values
// included), fitted with ident::fit's DEFAULT options (only the sign-smoothing
// parameter held at the truth, as users do), and judged against an oracle
// that is independent of the fit under test.
//
// The oracle decides which parameters the log can determine from the model
// alone: the Jacobian of the noiseless model force at the truth, by central
// differences in long double on the generated samples, and for each free
// parameter the part of its column orthogonal to all the others (Householder
// QR in long double); a flat direction followed to a bound where another
// parameter stops acting makes that one undetermined too. See analyse() and
// docs/identification.md, "Battery".
//
// Used by tests/unit/identification/test_identification_battery.cpp (the CTest subset) and
// bench/identify_battery.cpp (the large run). Everything is a function of
// (seed, kind, index): any case is replayed by those three numbers.
#include <cstdint>
#include <string>
#include <vector>

#include "stribeck/data/experiment.hpp"
#include "stribeck/identification/fit.hpp"

namespace stribeck::battery {

// Size of the logs: total samples of a case (over its experiments) is drawn
// log-uniformly in [min_samples, max_samples]; the rate in [1, 20] kHz, the
// duration follows.
struct Scale {
  double min_samples = 1500;
  double max_samples = 4000;
};

struct Case {
  std::uint64_t seed = 0;
  long index = 0;
  bool noisy = false;
  std::string model;
  std::vector<std::string> names;  // parameter names, model order
  std::vector<double> truth;       // full parameter vector (valid for the model)
  std::vector<bool> smoothing;     // held at the truth (v_th, v_eps, slope)
  std::string profile;
  double rate_hz = 0, duration = 0, v_max = 0;
  // Pressure levels p_a [Pa] (cylinder laws) or normal forces [N] (20-sim
  // laws), one experiment each; a single experiment otherwise.
  std::vector<double> levels;
  bool normal_force_levels = false;
  double pressure_b = 0;                // [Pa], all experiments
  double noise_rel = 0;                 // force noise std / RMS of the true friction force (0: noiseless)
  std::vector<std::string> degenerate;  // which degenerate values were drawn ("K_brk=1", ...)
  Scale scale;                          // the log sizes the case was drawn for (part of its identity)

  std::string describe() const;  // one line: model, profile, rate, duration, levels, noise, truth
  std::string replay() const;    // arguments of bench/identify_battery that rerun this case
};

// The names of the static models the battery cycles through (the nine
// reference-tool laws; identification_battery.cpp says why not the newer ones).
std::vector<std::string> static_model_ids();

// Case `index` of kind noiseless/noisy for `seed`. The model cycles through
// static_model_ids() with the index, the profile through generator_profiles()
// with index / (number of models), so any run of consecutive indices is
// balanced over models and profiles. Throws std::logic_error for a static
// model the battery has no parameter ranges for (add them in the .cpp).
Case make_case(std::uint64_t seed, long index, bool noisy, const Scale& scale = Scale{});

// The case's log, from data's generate_log (in memory). The force noise std
// [N] is noise_rel times the RMS of the noiseless friction force; `noise_sd`
// receives it.
std::vector<data::Experiment> make_log(const Case& c, double* noise_sd = nullptr);

// Default FitOptions plus "--fix NAME=TRUTH" for the sign-smoothing parameters.
ident::FitOptions fit_options(const Case& c);

enum class Identifiability { kDetermined, kUndetermined, kWeak };
const char* identifiability_name(Identifiability k);

// What the oracle says about each free parameter (model order, smoothing
// parameters left out).
struct Oracle {
  std::vector<std::string> names;
  std::vector<double> truth;
  std::vector<Identifiability> kind;
  // Relative sensitivity s = kappa * ||J_i|| * scale / ||F||: kappa is the
  // norm of column i orthogonal to the other columns over the norm of column
  // i, ||F|| the norm of the true friction force. s >= kDeterminedAbove:
  // determinable; s <= kUndeterminedBelow: not determinable; between: weak
  // (not scored, counted).
  std::vector<double> sensitivity;
  // |truth|, or for a zero truth the value whose force effect equals ||F||
  // (||F|| / ||J_i||): the unit of "relative" for recovery and intervals.
  std::vector<double> scale;
  // Standard error the truth's Jacobian predicts for force noise `noise_sd`
  // (sigma / (kappa ||J_i||)); NaN when noise_sd = 0 or not determinable.
  std::vector<double> predicted_se;
  double force_rms = 0;  // RMS of the true friction force over all samples
};
constexpr double kDeterminedAbove = 1e-4;
constexpr double kUndeterminedBelow = 1e-11;

Oracle analyse(const Case& c, const std::vector<data::Experiment>& log, double noise_sd = 0);

// The truth in the form the fit's convention reports (docs/identification.md,
// "A breakaway no sample sees"): in a log with a slow range, a truth whose
// breakaway acts on no sample is the law without one (level at none, the
// Stribeck velocity at the slowest sample) when that form gives the same
// force to 1e-11; otherwise c.truth unchanged.
std::vector<double> canonical_hidden_truth(const Case& c, const std::vector<data::Experiment>& log);

// The verdict on one noiseless case.
struct NoiselessResult {
  bool pass = false;
  // Failure classes (empty when pass): "exception", "failed" (the fit's
  // status is kFailed: no usable solution), "wrong-basin" (RMSE far
  // above zero: a local optimum), "not-converged", "imprecise" (at the
  // optimum, but a determinable parameter is off by more than 1e-6),
  // "bound" (imprecise, and the truth lies on a bound), "undetermined-reported"
  // (a parameter the log cannot determine reported as determined),
  // "determinable-flagged" (a determinable parameter reported as undetermined).
  std::vector<std::string> classes;
  int determinable = 0, undetermined = 0, weak = 0;
  double rmse_rel = 0;   // fit RMSE / RMS of the friction force
  double worst_rel = 0;  // worst |est - truth| / scale over determinable parameters
  std::string detail;    // per failing parameter: name, truth, estimate, flags
};
NoiselessResult judge_noiseless(const Case& c, const Oracle& o, const ident::FitSummary& s);

// The coverage of one noisy case's 95 % intervals, per parameter.
struct NoisyParam {
  std::string name;
  bool included = false;              // oracle: determinable and predicted SE / scale <= kMaxRelativeSe
  bool covered = false;               // reported determined and ci95_lo <= truth <= ci95_hi
  bool flagged_undetermined = false;  // reported determined == false (counts as not covered)
  bool truth_on_bound = false;
  std::string interval;  // the fit's ParameterEstimate::interval
};
constexpr double kMaxRelativeSe = 0.25;
struct NoisyResult {
  bool exception = false;
  std::vector<NoisyParam> params;
  int wrong_flags = 0;  // oracle-undetermined parameters reported as determined
  std::string detail;   // the parameters not covered
};
NoisyResult judge_noisy(const Case& c, const Oracle& o, const ident::FitSummary& s);

// Runs one case end to end (log, oracle, fit, verdict). Exceptions from the
// fit are caught and reported as the "exception" class.
struct CaseRun {
  Case c;
  Oracle oracle;
  double noise_sd = 0;
  double seconds = 0;         // fit only
  std::string report;         // the fit's report() (empty after an exception)
  std::string error;          // the exception's message
  NoiselessResult noiseless;  // when !c.noisy
  NoisyResult noisy;          // when c.noisy
};
CaseRun run_case(std::uint64_t seed, long index, bool noisy, const Scale& scale = Scale{});

// Two-sided acceptance band for a coverage count: [lo, hi] of the number of
// covered out of n when the true rate is p, at normal quantile z (binomial
// sd, continuity-corrected).
void binomial_band(long n, double p, double z, long* lo, long* hi);

}  // namespace stribeck::battery
