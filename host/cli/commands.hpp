#pragma once
// Each subcommand registers itself on the top-level app. The callbacks throw
// InputError for bad input; main() turns that into one line and exit code 2.
#include <CLI/CLI.hpp>

#include "stribeck/data/log.hpp"

namespace stribeck::cli {

void add_models_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_identify_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_merge_command(CLI::App& app);
void add_map_command(CLI::App& app);
void add_import_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_generate_command(CLI::App& app);

// Numeric flags must be positive integers, so 0 below means "not given"
// (and an explicit 0 or negative value is an error, not silently ignored).
inline const CLI::Validator kPositive(
    [](std::string& s) {
      const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
      return digits && s.find_first_not_of('0') != std::string::npos ? std::string()
                                                                     : "must be a positive integer, not '" + s + "'";
    },
    "POSITIVE");

// Provenance of this run (version, command line, date, device "cpu") for the
// files a command writes; main() records argv before parsing.
Provenance cli_provenance();

}  // namespace stribeck::cli
