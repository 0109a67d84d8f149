#pragma once
// Each subcommand registers itself on the top-level app. The callbacks throw
// InputError for bad input; main() turns that into one line and exit code 2.
#include <CLI/CLI.hpp>

namespace stribeck::cli {

void add_models_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_merge_command(CLI::App& app);

}  // namespace stribeck::cli
