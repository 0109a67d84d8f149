// `stribeck eval`: evaluate one model along the samples of an input file.
#include <cstdio>

#include "commands.hpp"
#include "stribeck/host/eval.hpp"

namespace stribeck::cli {

void add_eval_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("eval", "Evaluate a friction model along the samples of an input file");
  auto o = std::make_shared<EvalOptions>();
  cmd->add_option("--model,-m", o->model, "Model id (see `stribeck models`)")->required();
  cmd->add_option("--param,-p", o->params, "Parameter override NAME=VALUE (repeatable; defaults otherwise)");
  cmd->add_option("--experiment,-e", o->experiment,
                  "The input may also be an HDF5 log or .mat file (output .h5: channels plus a results "
                  "group eval/<model>); pick this experiment when it holds several");
  cmd->add_option("--input,-i", o->input,
                  "CSV with a header row naming channels among time, velocity, pressure_a, pressure_b, "
                  "normal_force (SI units); other columns are carried through")
      ->required();
  cmd->add_option("--output,-o", o->output,
                  "CSV to write: the input columns plus model_force (dynamic models: and model_state)")
      ->required();
  cmd->add_option_function<double>(
      "--initial-state,-z", [o](const double& z0) { o->initial_state = z0; },
                  "Dynamic models: internal state at the first sample (lugre, 20sim-lugre: bristle "
                  "deflection z [m]; dahl: friction force [N]); default 0");
  cmd->add_flag("--vector-math", o->vector_math,
                "Static laws: vector exp/tanh (libmvec, within 4 ulp of the scalar ones) across samples; faster, "
                "results may differ from the default in the last bits");
  add_verbosity_flags(cmd);
  cmd->callback([o] {
    check_output(o->output, {o->input});
    const EvalSummary s = evaluate_file(*o);
    for (const auto& w : s.warnings) warn(w);
    summary("stribeck eval: %s, %ld samples -> %s", o->model.c_str(), s.samples, o->output.c_str());
  });
}

}  // namespace stribeck::cli
