// `stribeck simulate CONFIG.toml -o OUT.h5`: one body system with friction.
#include <cstdio>

#include "commands.hpp"
#include "progress.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/host/ensemble.hpp"
#include "stribeck/host/simulate.hpp"
#include "stribeck/kernels/integrators/status.hpp"

namespace stribeck::cli {

void add_simulate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "simulate", "Simulate a body with friction (stick-slip rig, force-driven body, hydraulic cylinder)");
  auto config = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  auto device = std::make_shared<std::string>();
  auto precision = std::make_shared<std::string>();
  auto shard = std::make_shared<std::string>();
  cmd->add_option("config", *config, "TOML system description (see docs/dynamics.md)")->required();
  cmd->add_option("--output,-o", *output, "Time series to write: HDF5, or CSV when the name ends in .csv")
      ->required();
  cmd->add_option("--device", *device, "Ensembles: auto | gpu | cpu (overrides [ensemble] device)");
  cmd->add_option("--precision", *precision, "Ensembles: fp64 | fp32 (overrides [ensemble] precision)");
  cmd->add_option("--shard", *shard,
                  "Ensembles: i/N: run only the i-th of N equal parts (0-based); join them with stribeck merge");
  cmd->add_flag("--quiet,-q", *quiet, "No progress lines (ensembles)");
  cmd->callback([config, output, quiet, device, precision, shard] {
    SimulateConfig c = read_simulate_config(*config);
    if (!shard->empty() && !c.ensemble)
      throw InputError("--shard applies to ensembles (an [ensemble] table); a single simulation is not split");
    if (!shard->empty() && output->size() >= 4 && output->compare(output->size() - 4, 4, ".csv") == 0)
      throw InputError("--shard: shard files are HDF5 (stribeck merge reads their metadata); name the output .h5, not " +
                       *output);
    if ((!device->empty() || !precision->empty()) && !c.ensemble)
      throw InputError(std::string(device->empty() ? "--precision" : "--device") +
                       " applies to ensembles (an [ensemble] table); a single simulation runs on the CPU in fp64");
    if (!device->empty()) {
      if (*device != "auto" && *device != "gpu" && *device != "cpu")
        throw InputError("--device " + *device + ": expected auto, gpu or cpu");
      c.device = *device;
    }
    if (!precision->empty()) {
      if (*precision != "fp64" && *precision != "fp32")
        throw InputError("--precision " + *precision + ": expected fp64 or fp32");
      c.fp32 = *precision == "fp32";
    }
    // Warnings go out once the run is known to start, so an error found
    // later stays the only line.
    auto warn = [&c] {
      for (const auto& w : c.warnings) std::fprintf(stderr, "stribeck: warning: %s\n", w.c_str());
    };
    const std::string command_line = cli_provenance().command_line;
    if (c.ensemble) {
      EnsembleRunOptions o;
      o.start = warn;
      o.note = [](const std::string& note) { std::fprintf(stderr, "stribeck: %s\n", note.c_str()); };
      if (!*quiet) o.progress = progress_printer("points");
      o.shard = *shard;
      const EnsembleResult r = run_ensemble(c, o);
      write_ensemble(*output, r, c, command_line);
      long counts[5] = {0, 0, 0, 0, 0}, ss = 0;
      for (const auto& m : r.metrics) {
        ++counts[m.status >= 0 && m.status < 5 ? m.status : 4];
        ss += m.stick_slip;
      }
      std::fprintf(stderr,
                   "stribeck simulate: ensemble of %zu points%s (%s, %s) in %.3g s, %.3g RK4 steps/s -> %s\n"
                   "  stick-slip in %ld; status ok %ld, non-finite %ld, step-limit %ld, event-limit %ld, "
                   "invalid-parameters %ld\n",
                   r.metrics.size(),
                   r.shard_count > 1 ? (", shard " + *shard + " of " + std::to_string(r.points)).c_str() : "", c.fp32 ? "fp32" : "fp64", r.device.c_str(), r.seconds,
                   r.seconds > 0 ? double(r.rk4_steps) / r.seconds : 0.0, output->c_str(), ss,
                   counts[0], counts[1], counts[2], counts[3], counts[4]);
      for (const auto& e : r.invalid_examples) std::fprintf(stderr, "  invalid: %s\n", e.c_str());
      return;
    }
    const SimulateSummary s = run_simulation(c, *output, command_line);
    warn();
    const auto& r = s.metrics;
    std::fprintf(stderr,
                 "stribeck simulate: %s, %ld samples -> %s\n"
                 "  status %s; stick-slip %s (stick fraction %.3g, period %.6g s), spring force amplitude "
                 "%.6g, velocity amplitude %.6g, peak velocity %.6g, breakaway force %.6g, dissipated %.6g J\n",
                 c.model.c_str(), s.samples, output->c_str(), sim_status_name(r.status),
                 r.stick_slip ? "yes" : "no", r.stick_fraction, r.period, r.amp_spring_force, r.amp_velocity,
                 r.peak_velocity, r.breakaway_force, r.dissipated);
    if (r.status != kSimOk)
      std::fprintf(stderr, "stribeck: warning: the simulation stopped early (%s); the output ends there\n",
                   sim_status_name(r.status));
  });
}

}  // namespace stribeck::cli
