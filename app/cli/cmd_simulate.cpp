// `stribeck simulate CONFIG.toml -o OUT.h5`: one body system with friction.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "progress.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/simulate.hpp"
#include "stribeck/engine/mpi.hpp"
#include "stribeck/kernels/integrators/status.hpp"

namespace stribeck::cli {

void add_simulate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "simulate", "Simulate a body with friction (stick-slip rig, force-driven body, hydraulic cylinder)");
  auto config = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto json = std::make_shared<std::string>();
  auto device = std::make_shared<std::string>();
  auto precision = std::make_shared<std::string>();
  auto shard = std::make_shared<std::string>();
  auto resume = std::make_shared<bool>(false);
  auto chunk = std::make_shared<std::uint64_t>(0);
  auto max_chunks = std::make_shared<std::uint64_t>(0);
  auto mpi = std::make_shared<bool>(false);
  auto allow_large = std::make_shared<bool>(false);
  auto point = std::make_shared<std::int64_t>(-1);
  auto report = std::make_shared<std::string>();
  cmd->add_option("config", *config, "TOML system description (see docs/dynamics.md)")->type_name("FILE")->required();
  cmd->add_option("--output,-o", *output, "Time series to write: HDF5, or CSV when the name ends in .csv")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--device", *device, "Ensembles: where to run (overrides [ensemble] device)")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
  cmd->add_option("--precision", *precision, "Ensembles: floating-point precision (overrides [ensemble] precision)")
      ->check(CLI::IsMember({"fp64", "fp32"}));
  cmd->add_option(
         "--shard", *shard,
         "Ensembles: i/N: run only the i-th of N equal parts (0-based; auto: this Slurm array task's); join them "
         "with stribeck merge")
      ->type_name("I/N")
      ->check(kNonEmpty);
  cmd->add_flag("--resume", *resume, "Ensembles: continue OUT.h5.partial from its last checkpoint");
  cmd->add_option("--chunk", *chunk,
                  "Ensembles: points per chunk, written with a checkpoint (default 1048576 on a GPU, 16384 on the CPU)")
      ->type_name("N")
      ->check(kPositive);
  cmd->add_option("--max-chunks", *max_chunks,
                  "Ensembles: stop after this many chunks, leaving a resumable OUT.h5.partial")
      ->type_name("N")
      ->check(kPositive);
  cmd->add_flag("--mpi", *mpi,
                "Ensembles: split the space over MPI ranks (mpirun -np N stribeck simulate ... --mpi -o OUT.h5)");
  cmd->add_option("--point", *point,
                  "Ensembles: simulate only point K (0-based) as a single simulation and write its time series")
      ->type_name("INDEX")
      ->check(kIndex);
  cmd->add_flag("--allow-large-output", *allow_large,
                "Ensembles: run even when the estimated output exceeds the free space of its file system");
  add_json_option(cmd, *json, "The summary (metrics; an ensemble's counts)");
  cmd->add_option("--report", *report, "Also write an HTML report of the result (stribeck report; HDF5 output only)")
      ->type_name("FILE");
  add_verbosity_flags(cmd);
  cmd->callback([config, output, json, device, precision, shard, resume, chunk, max_chunks, mpi, point, allow_large,
                 report] {
    *shard = resolve_shard(*shard);
    workloads::SimulateConfig c = workloads::read_simulate_config(*config);
    check_output(*output, {*config});
    check_report_output(*report, {*config, *output});
    if (!report->empty() && output->size() >= 4 && output->compare(output->size() - 4, 4, ".csv") == 0)
      throw data::InputError("--report reads the HDF5 result; name the output .h5, not " + *output);
    check_json_output(*json, {*config});
    if (*json == *output) throw data::InputError(*json + ": given to both --output and --json");
    if (*point >= 0) {
      if (!c.ensemble)
        throw data::InputError(
            "--point applies to ensembles (an [ensemble] table); this config is a single simulation");
      if (!shard->empty() || *resume || *chunk || *max_chunks || *mpi || !device->empty() || !precision->empty())
        throw data::InputError(
            "--point runs one simulation (on the CPU, in fp64): drop --shard, --resume, --chunk, "
            "--max-chunks, --mpi, --device and --precision");
      c = workloads::ensemble_point_config(c, static_cast<std::uint64_t>(*point));
    }
    if (!shard->empty() && !c.ensemble)
      throw data::InputError("--shard applies to ensembles (an [ensemble] table); a single simulation is not split");
    if (!shard->empty() && output->size() >= 4 && output->compare(output->size() - 4, 4, ".csv") == 0)
      throw data::InputError(
          "--shard: shard files are HDF5 (stribeck merge reads their metadata); name the output .h5, not " + *output);
    if ((!device->empty() || !precision->empty()) && !c.ensemble)
      throw data::InputError(
          std::string(device->empty() ? "--precision" : "--device") +
          " applies to ensembles (an [ensemble] table); a single simulation runs on the CPU in fp64");
    if ((*resume || *chunk || *max_chunks || *mpi) && !c.ensemble)
      throw data::InputError(std::string(*resume       ? "--resume"
                                         : *chunk      ? "--chunk"
                                         : *max_chunks ? "--max-chunks"
                                                       : "--mpi") +
                             " applies to ensembles (an [ensemble] table); a single simulation is written in one go");
    if (!device->empty()) {
      if (*device != "auto" && *device != "gpu" && *device != "cpu")
        throw data::InputError("--device " + *device + ": expected auto, gpu or cpu");
      c.device = *device;
    }
    if (!precision->empty()) {
      if (*precision != "fp64" && *precision != "fp32")
        throw data::InputError("--precision " + *precision + ": expected fp64 or fp32");
      c.fp32 = *precision == "fp32";
    }
    // Warnings go out once the run is known to start, so an error found
    // later stays the only line.
    auto warn_all = [&c] {
      for (const auto& w : c.warnings) warn(w);
    };
    const std::string command_line = cli_provenance().command_line;
    if (c.ensemble) {
      workloads::EnsembleRunOptions o;
      o.start = warn_all;
      o.note = [](const std::string& text) { note("%s", text.c_str()); };
      if (!quiet()) o.progress = progress_printer("points");
      o.shard = *shard;
      o.output = *output;
      o.resume = *resume;
      o.allow_large_output = *allow_large;
      o.chunk = *chunk;
      o.max_chunks = *max_chunks;
      o.command_line = command_line;
      workloads::EnsembleResult r;
      if (!*mpi) r = workloads::run_ensemble(c, o);
      else if (!engine::run_mpi_command([&](int* rank) { r = workloads::run_ensemble_mpi(c, o, rank); }))
        return;  // rank 0 reports
      summary(
          "%s",
          workloads::ensemble_report(r, *shard, c.fp32, r.finished ? *output : data::partial_path(*output)).c_str());
      for (const auto& e : r.totals.invalid_examples) summary("  invalid: %s", one_line(e).c_str());
      if (!r.finished)
        summary("  stopped after %llu of %llu points; continue with --resume",
                static_cast<unsigned long long>(r.totals.completed), static_cast<unsigned long long>(r.count));
      const auto& n = r.totals.status_counts;
      const nlohmann::json drawn = report_fit_draws(c, r, r.finished ? *output : std::string());
      write_json(*json, {{"kind", "ensemble"},
                         {"points", r.points},
                         {"first", r.first},
                         {"count", r.count},
                         {"shard", shard->empty() ? nlohmann::json(nullptr) : nlohmann::json(*shard)},
                         {"completed", r.totals.completed},
                         {"finished", r.finished},
                         {"precision", c.fp32 ? "fp32" : "fp64"},
                         {"device", r.device},
                         {"evaluated", r.evaluated},
                         {"seconds", r.seconds},
                         {"rk4_steps", r.rk4_steps},
                         {"stick_slip", r.totals.stick_slip},
                         {"status",
                          {{"ok", n[0]},
                           {"non_finite", n[1]},
                           {"step_limit", n[2]},
                           {"event_limit", n[3]},
                           {"invalid_parameters", n[4]}}},
                         {"invalid_examples", r.totals.invalid_examples},
                         {"from_fit", drawn},
                         {"output", r.finished ? *output : data::partial_path(*output)}});
      if (!report->empty() && r.finished) write_report(*output, *report);
      return;
    }
    const workloads::SimulateSummary s = workloads::run_simulation(c, *output, command_line);
    warn_all();
    const auto& r = s.metrics;
    summary(
        "stribeck simulate: %s, %ld samples -> %s\n"
        "  status %s; stick-slip %s (stick fraction %.3g, period %.6g s), spring force amplitude "
        "%.6g, velocity amplitude %.6g, peak velocity %.6g, breakaway force %.6g, dissipated %.6g J",
        c.model.c_str(), s.samples, output->c_str(), sim_status_name(r.status), r.stick_slip ? "yes" : "no",
        r.stick_fraction, r.period, r.amp_spring_force, r.amp_velocity, r.peak_velocity, r.breakaway_force,
        r.dissipated);
    if (*point >= 0) summary("  point %s", workloads::ensemble_point_label(c).c_str());  // which cell of the map
    if (r.status != kSimOk)
      warn(std::string("the simulation stopped early (") + sim_status_name(r.status) + "); the output ends there");
    write_json(*json, {{"kind", "simulation"},
                       {"model", c.model},
                       {"samples", s.samples},
                       {"output", *output},
                       {"status", sim_status_name(r.status)},
                       {"stick_slip", static_cast<bool>(r.stick_slip)},
                       {"stick_fraction", json_number(r.stick_fraction)},
                       {"period", json_number(r.period)},
                       {"amp_spring_force", json_number(r.amp_spring_force)},
                       {"amp_velocity", json_number(r.amp_velocity)},
                       {"peak_velocity", json_number(r.peak_velocity)},
                       {"breakaway_force", json_number(r.breakaway_force)},
                       {"dissipated", json_number(r.dissipated)}});
    if (!report->empty()) write_report(*output, *report);
  });
}

}  // namespace stribeck::cli
