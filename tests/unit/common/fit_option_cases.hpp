#pragma once
// Every rule of FitOptions::IsValid broken alone, with its message written
// out here (not taken from the code under test) and, where the CLI has them,
// the same options as `stribeck identify` flags: the library's check
// (tests/unit/identification/test_fit_options.cpp) and the CLI's
// (tests/unit/cli/test_fit_options.cpp) read the same cases.
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "stribeck/identification/fit.hpp"

namespace stribeck::test {

using ident::FitOptions;

struct Invalid {
  std::string model;
  std::function<void(FitOptions&)> set;
  std::string message;
  std::string flags;  // the same options as `stribeck identify` flags ("": the CLI has none for them)
};

inline const std::string kTranslationalNames =
    "(parameters: F_brk, v_brk, F_C, f_v, and mass, offset for the force balance)";
inline const std::string kRule = "(breakaway friction must not be below Coulomb friction)";
inline const double kNaN = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();

// Every rule, each broken alone; the messages written out here, not taken
// from the code under test.
inline std::vector<Invalid> invalid_options() {
  const std::string st = "simscape-translational";
  return {
      {st, [](FitOptions& o) { o.starts = -1; }, "--starts must be >= 0 (0 = automatic)", ""},
      {st, [](FitOptions& o) { o.starts_per_round = 0; }, "FitOptions::starts_per_round must be >= 1", ""},
      {st, [](FitOptions& o) { o.max_starts = 0; }, "FitOptions::max_starts must be >= 1", ""},
      {st, [](FitOptions& o) { o.max_profile_restarts = -1; }, "FitOptions::max_profile_restarts must be >= 0", ""},
      {st, [](FitOptions& o) { o.agree_tolerance = kNaN; }, "FitOptions::agree_tolerance must be a finite number >= 0",
       ""},
      {st, [](FitOptions& o) { o.coarse_points = -1; }, "--coarse-points must be >= 0 (0 = automatic)", ""},
      {st, [](FitOptions& o) { o.max_iterations = 0; }, "--max-iterations must be >= 1", ""},
      {st, [](FitOptions& o) { o.function_tolerance = -1; },
       "FitOptions::function_tolerance must be a finite number >= 0", ""},
      {st, [](FitOptions& o) { o.gradient_tolerance = kInf; },
       "FitOptions::gradient_tolerance must be a finite number >= 0", ""},
      {st, [](FitOptions& o) { o.parameter_tolerance = kNaN; },
       "FitOptions::parameter_tolerance must be a finite number >= 0", ""},
      {st, [](FitOptions& o) { o.area_b = kNaN; }, "--area-a/--area-b must be finite", ""},
      // A mass is checked whether or not inertia is on (Python's mass= does not imply it).
      {st, [](FitOptions& o) { o.mass = -1; }, "--mass must be >= 0", ""},
      {st, [](FitOptions& o) { o.inertia = true, o.mass = kInf; },
       "--mass must be a finite mass >= 0 [kg] (NaN: estimated)", ""},
      {st, [](FitOptions& o) { o.cutoff_hz = -5; }, "--cutoff must be a frequency > 0 [Hz] (0: sample rate / 20)", ""},
      {st, [](FitOptions& o) { o.decimation = -1; }, "--decimate must be >= 0 (0: automatic, 1: every sample)", ""},
      {st, [](FitOptions& o) { o.loss = "huber"; }, "--loss 'huber': expected huber:D or cauchy:D with D > 0 (in N)",
       "--loss huber"},
      {st, [](FitOptions& o) { o.loss = "cauchy:-1"; },
       "--loss 'cauchy:-1': expected huber:D or cauchy:D with D > 0 (in N)", "--loss cauchy:-1"},
      {st, [](FitOptions& o) { o.loss = "tukey:2"; }, "--loss 'tukey:2': unknown loss 'tukey' (huber or cauchy)",
       "--loss tukey:2"},
      {st,
       [](FitOptions& o) {
         o.free = {"F_C", "F_X"};
       },
       "--free: model simscape-translational has no parameter 'F_X' " + kTranslationalNames, "--free F_C,F_X"},
      {st, [](FitOptions& o) { o.per_experiment = {"nope"}; },
       "--per-experiment: model simscape-translational has no parameter 'nope' " + kTranslationalNames,
       "--per-experiment nope"},
      {st, [](FitOptions& o) { o.fix = {"F_C"}; }, "--fix 'F_C': expected NAME=VALUE", "--fix F_C"},
      {st, [](FitOptions& o) { o.fix = {"F_Y=1"}; },
       "--fix: model simscape-translational has no parameter 'F_Y' " + kTranslationalNames, "--fix F_Y=1"},
      {st, [](FitOptions& o) { o.fix = {"F_C=abc"}; }, "--fix 'F_C=abc': value is not a finite number",
       "--fix F_C=abc"},
      {st, [](FitOptions& o) { o.fix = {"F_C=-1"}; }, "--fix F_C: parameter F_C = -1 must be >= 0", "--fix F_C=-1"},
      {st,
       [](FitOptions& o) {
         o.fix = {"F_C=1", "F_C=2"};
       },
       "--fix: parameter F_C given twice", "--fix F_C=1 --fix F_C=2"},
      {st, [](FitOptions& o) { o.fix = {"F_C=1"}, o.free = {"F_C"}; },
       "--fix and --free both name F_C: hold it fixed or fit it, not both", "--fix F_C=1 --free F_C"},
      {st, [](FitOptions& o) { o.initial = {"F_C=x"}; }, "--init 'F_C=x': expected NAME=VALUE with a finite VALUE",
       "--init F_C=x"},
      {st, [](FitOptions& o) { o.initial = {"nope=1"}; },
       "--init: model simscape-translational has no parameter 'nope' " + kTranslationalNames, "--init nope=1"},
      {st, [](FitOptions& o) { o.initial = {"v_brk=1e-310"}; },
       "--init v_brk: parameter v_brk = 1e-310 is subnormal (below 2.2e-308): divisions by it overflow (valid range "
       "(0, inf), normal numbers only)",
       "--init v_brk=1e-310"},
      {st, [](FitOptions& o) { o.bounds = {"F_C"}; }, "--bounds 'F_C': expected NAME=LO:HI", "--bounds F_C"},
      {st, [](FitOptions& o) { o.bounds = {"F_C=a:1"}; }, "--bounds 'F_C=a:1': 'a' is not a number",
       "--bounds F_C=a:1"},
      {st, [](FitOptions& o) { o.bounds = {"F_C=2:1"}; }, "--bounds 'F_C=2:1': LO must be below HI",
       "--bounds F_C=2:1"},
      {st, [](FitOptions& o) { o.bounds = {"nope=1:2"}; },
       "--bounds: model simscape-translational has no parameter 'nope' " + kTranslationalNames, "--bounds nope=1:2"},
      {st, [](FitOptions& o) { o.bounds = {"F_C=-2:-1"}; }, "--bounds for F_C do not overlap the model's range of it",
       "--bounds F_C=-2:-1"},
      // The estimated mass is >= 0; a given --mass has no bounds to meet.
      {st, [](FitOptions& o) { o.inertia = true, o.bounds = {"mass=-2:-1"}; },
       "--bounds for mass do not overlap the model's range of it", "--inertia --bounds mass=-2:-1"},
      // Held values against the rule F_brk >= F_C: both --fix, or held by
      // --free (F_brk at its default 25) with F_C started (and so held) at 30.
      {st,
       [](FitOptions& o) {
         o.fix = {"F_brk=10", "F_C=20"};
       },
       "--fix: F_brk must be >= F_C " + kRule, "--fix F_brk=10 --fix F_C=20"},
      {st,
       [](FitOptions& o) {
         o.fix = {"F_brk=10", "F_C=20"}, o.asymmetric = true;
       },
       "--fix: F_brk+ must be >= F_C+ " + kRule, "--fix F_brk=10 --fix F_C=20 --asymmetric"},
      {st, [](FitOptions& o) { o.free = {"f_v"}, o.initial = {"F_C=30"}; }, "--fix: F_brk must be >= F_C " + kRule,
       "--free f_v --init F_C=30"},
      {"lugre", [](FitOptions& o) { o.asymmetric = true; },
       "model lugre is dynamic; with --asymmetric identification fits the static models only", "--asymmetric"},
      {"stribeck-asymmetric", [](FitOptions& o) { o.asymmetric = true; },
       "model stribeck-asymmetric has a parameter set per direction already; fit it without --asymmetric (or "
       "stribeck-delta with it)",
       "--asymmetric"},
      {"dahl", [](FitOptions& o) { o.inertia = true; },
       "--inertia is not supported for dahl yet (the state needs the velocity)", "--inertia"},
      {"20sim-lugre", [](FitOptions& o) { o.per_experiment = {"mu_c"}; },
       "--per-experiment is not supported for 20sim-lugre yet", "--per-experiment mu_c"},
      // Stage 2 simulates the dynamic parameters from their start.
      {"lugre", [](FitOptions& o) { o.initial = {"sigma0=-1"}; }, "--init sigma0: parameter sigma0 = -1 must be > 0",
       "--init sigma0=-1"},
      {"lugre", [](FitOptions& o) { o.fix = {"sigma1=-1"}; }, "--fix sigma1: parameter sigma1 = -1 must be >= 0",
       "--fix sigma1=-1"},
  };
}

}  // namespace stribeck::test
