// The `stribeck` command line: subcommands are defined in cmd_*.cpp.
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/host/version.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Stribeck: friction models, sweeps and identification for hydraulic and mechanical drives"};
  app.set_version_flag("--version", std::string("stribeck ") + stribeck::version());
  app.require_subcommand(1);
  stribeck::cli::add_models_command(app);
  stribeck::cli::add_eval_command(app);
  stribeck::cli::add_simulate_command(app);
  stribeck::cli::add_sweep_command(app);
  stribeck::cli::add_merge_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const stribeck::InputError& e) {
    std::fprintf(stderr, "stribeck: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stribeck: internal error: %s\n", e.what());
    return 3;
  }
  return 0;
}
