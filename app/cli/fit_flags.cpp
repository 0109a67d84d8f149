// The flags of a fit's options (fit_flags.hpp).
#include "fit_flags.hpp"

#include <memory>

#include "commands.hpp"
#include "stribeck/kernels/text_number.hpp"  // parse_double

namespace stribeck::cli {

std::function<void()> add_fit_flags(CLI::App* cmd, ident::FitOptions& fit) {
  auto no_parallel = std::make_shared<bool>(false);
  cmd->add_option("--free", fit.free,
                  "Parameters to estimate (comma-separated); the others stay at their defaults or --fix values")
      ->type_name("NAME,...")
      ->delimiter(',');
  cmd->add_option("--fix", fit.fix, "Hold NAME=VALUE fixed (repeatable)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--init", fit.initial, "Initial value NAME=VALUE instead of the data-driven guess (repeatable)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--bounds", fit.bounds, "Bounds NAME=LO:HI on top of the model's ranges (repeatable)")
      ->type_name("NAME=LO:HI")
      ->allow_extra_args(false);
  cmd->add_option("--per-experiment", fit.per_experiment,
                  "Model parameters fitted separately per experiment (comma-separated)")
      ->type_name("NAME,...")
      ->delimiter(',');
  cmd->add_flag("--asymmetric", fit.asymmetric,
                "Separate parameters for v > 0 and v < 0, with a likelihood-ratio test of the asymmetry");
  cmd->add_flag("--offset", fit.offset, "Estimate an additive force offset");
  cmd->add_flag("--offset-per-experiment", fit.offset_per_experiment, "One offset per experiment (implies --offset)");
  cmd->add_flag("--inertia", fit.inertia,
                "Include m*a in the force balance (acceleration channel or derived from position)");
  auto* mass = cmd->add_option("--mass", fit.mass,
                               "Moving mass [kg] of the inertial term (implies --inertia; default: estimated)")
                   ->type_name("KG")
                   ->check(CLI::Validator(
                       [](std::string& s) {
                         double x;
                         return parse_double(s, x) && x >= 0 ? std::string()
                                                             : "must be a finite mass >= 0 [kg], not '" + s + "'";
                       },
                       "MASS"));
  cmd->add_option("--area-a", fit.area_a, "Piston area A_a [m^2]: A_a*p_a is part of the measured force")
      ->type_name("M^2");
  cmd->add_option("--area-b", fit.area_b, "Piston area A_b [m^2]: -A_b*p_b is part of the measured force")
      ->type_name("M^2");
  cmd->add_option("--cutoff", fit.cutoff_hz,
                  "Cut-off [Hz] of the low-pass for derived velocity/acceleration (default: sample rate / 20)")
      ->type_name("HZ")
      ->check(CLI::Validator(
          [](std::string& s) {
            double x;
            return parse_double(s, x) && x > 0 ? std::string() : "must be a frequency > 0 [Hz], not '" + s + "'";
          },
          "HZ"));
  cmd->add_flag("--no-parallel-filter", *no_parallel,
                "With derived kinematics: leave the force unfiltered and keep every sample (default: filter the force "
                "and every channel like the kinematics, then decimate)");
  cmd->add_option("--decimate", fit.decimation,
                  "Parallel filtering keeps every Nth sample (default 0: automatic, ~0.5 x rate / cut-off)")
      ->type_name("N")
      ->check(kWhole);
  cmd->add_option("--loss", fit.loss, "Robust loss huber:D or cauchy:D (D in N; default: least squares)")
      ->type_name("KIND:D");
  cmd->add_option("--starts", fit.starts,
                  "Ceres refinements: 0 = automatic, until the two best agree at the noise floor (default); "
                  "N = the data-driven guess and the best N-1 points of a coarse search")
      ->type_name("N")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--max-starts", fit.max_starts, "Most refinements of the automatic search (default 32)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--coarse-points", fit.coarse_points,
                  "Points of the coarse search (default 0 = 512 per free parameter, at least 1024)")
      ->type_name("N")
      ->check(CLI::Range(0, 1000000000));
  cmd->add_option("--seed", fit.seed, "Seed of the coarse search (default 1)")->type_name("N");
  cmd->add_option("--validate", fit.validate, "Hold this experiment out and report its error (repeatable)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--max-iterations", fit.max_iterations, "Solver iterations per start (default 200)")
      ->type_name("N")
      ->check(CLI::Range(1, 100000000));
  return [&fit, mass, no_parallel] {
    if (fit.offset_per_experiment) fit.offset = true;
    fit.parallel_filter = !*no_parallel;
    if (mass->count() > 0) fit.inertia = true;
  };
}

}  // namespace stribeck::cli
