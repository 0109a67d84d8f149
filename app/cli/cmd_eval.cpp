// `stribeck eval`: evaluate one model along the samples of an input file.
#include <cstdio>

#include <memory>
#include <string>

#include "commands.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/eval.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::cli {
namespace {

// --compression none | deflate | deflate=L (L in 1-9): the deflate level, 0
// for none; -1 for anything else.
int deflate_level(const std::string& s) {
  if (s == "none") return 0;
  if (s == "deflate") return 4;
  if (s.size() == 9 && s.compare(0, 8, "deflate=") == 0 && s[8] >= '1' && s[8] <= '9') return s[8] - '0';
  return -1;
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("eval", "Evaluate a friction model along the samples of an input file");
  auto o = std::make_shared<workloads::EvalOptions>();
  auto params_file = std::make_shared<std::string>();
  cmd->add_option("--model,-m", o->model, "Model id (see `stribeck models`); optional with --params")
      ->type_name("MODEL");
  cmd->add_option("--param,-p", o->params, "Parameter override NAME=VALUE (repeatable; defaults otherwise)")
      ->type_name("NAME=VALUE");
  cmd->add_option("--params", *params_file,
                  "Model and parameters from a fit report (identify --json; the first fit of several) or an "
                  "export-params --to json file; --param overrides single values")
      ->type_name("FILE");
  cmd->add_option("--experiment,-e", o->experiment,
                  "The input may also be an HDF5 log or .mat file (output .h5: channels plus a results "
                  "group eval/<model>); pick this experiment when it holds several")
      ->type_name("NAME");
  cmd->add_option("--input,-i", o->input,
                  "CSV with a header row naming channels among time, velocity, pressure_a, pressure_b, "
                  "normal_force (SI units); other columns are carried through")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--output,-o", o->output,
                  "CSV to write: the input columns plus model_force (dynamic models: and model_state)")
      ->type_name("FILE")
      ->required();
  cmd->add_option_function<double>(
         "--initial-state,-z", [o](const double& z0) { o->initial_state = z0; },
         "Dynamic models: internal state at the first sample (lugre, 20sim-lugre, elastoplastic: bristle "
         "deflection z [m]; gms1..gms4: element 1's deflection z_1 [m]; dahl: friction force [N]); default 0")
      ->type_name("STATE");
  cmd->add_flag("--vector-math", o->vector_math,
                "Static laws: vector exp/tanh (within 4 ulp of the scalar ones) across samples; faster, "
                "results may differ from the default in the last bits");
  cmd->add_option_function<std::string>(
         "--compression", [o](const std::string& c) { o->deflate_level = deflate_level(c); },
         "HDF5 output: how model_force (and channels not copied as stored) are written: none (default: "
         "uncompressed, a checksum per chunk; deflate was most of eval's time) or deflate[=L] (shuffle + "
         "deflate, level 1-9, default 4: about a third smaller)")
      ->type_name("{none,deflate[=L]}")
      ->check(CLI::Validator(
          [](std::string& c) {
            return deflate_level(c) >= 0 ? std::string()
                                         : "must be none, deflate or deflate=L with L in 1-9, not '" + c + "'";
          },
          "COMPRESSION"));
  add_verbosity_flags(cmd);
  cmd->callback([o, params_file] {
    o->command_line = cli_provenance().command_line;  // argv as given, --params and -e included
    std::vector<std::string> inputs = {o->input};
    if (!params_file->empty()) inputs.push_back(*params_file);
    check_output(o->output, inputs);
    if (!params_file->empty()) {
      const ParamFile pf = read_param_file(*params_file);
      if (!o->model.empty() && o->model != pf.model)
        throw data::InputError("--model " + o->model + " differs from the model of " + *params_file + " (" + pf.model +
                               ")");
      o->model = pf.model;
      const ModelInfo& m = *find_model(pf.model);
      std::vector<std::string> merged;
      for (size_t i = 0; i < m.params.size(); ++i) {
        bool overridden = false;
        for (const auto& a : o->params) overridden |= a.substr(0, a.find('=')) == m.params[i].name;
        if (!overridden) merged.push_back(std::string(m.params[i].name) + "=" + format_number(pf.values[i]));
      }
      merged.insert(merged.end(), o->params.begin(), o->params.end());
      o->params = merged;
    } else if (o->model.empty()) {
      throw CLI::RequiredError("--model (or --params)");
    }
    const workloads::EvalSummary s = workloads::evaluate_file(*o);
    for (const auto& w : s.warnings) warn(w);
    summary("stribeck eval: %s, %ld samples -> %s", o->model.c_str(), s.samples, o->output.c_str());
  });
}

}  // namespace stribeck::cli
