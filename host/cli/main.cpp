// The `stribeck` command line: subcommands are defined in cmd_*.cpp.
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/host/version.hpp"

namespace {
int g_argc = 0;
const char* const* g_argv = nullptr;
}  // namespace

stribeck::Provenance stribeck::cli::cli_provenance() { return make_provenance(g_argc, g_argv); }

int main(int argc, char** argv) {
  g_argc = argc;
  g_argv = argv;
  CLI::App app{"Stribeck: friction models, sweeps and identification for hydraulic and mechanical drives"};
  app.set_version_flag("--version", std::string("stribeck ") + stribeck::version());
  app.require_subcommand(1);
  stribeck::cli::add_models_command(app);
  stribeck::cli::add_eval_command(app);
  stribeck::cli::add_identify_command(app);
  stribeck::cli::add_simulate_command(app);
  stribeck::cli::add_sweep_command(app);
  stribeck::cli::add_merge_command(app);
  stribeck::cli::add_map_command(app);
  stribeck::cli::add_import_command(app);
  stribeck::cli::add_export_command(app);
  stribeck::cli::add_generate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here as "errors" with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    // Usage errors: one line like every other error, exit code 1 (CLI11's own
    // codes, 105..., would be one more thing to document).
    std::fprintf(stderr, "stribeck: error: %s (run with --help for usage)\n", e.what());
    return 1;
  } catch (const stribeck::InputError& e) {
    std::fprintf(stderr, "stribeck: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stribeck: internal error: %s\n", e.what());
    return 3;
  }
  return 0;
}
