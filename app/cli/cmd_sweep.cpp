// `stribeck sweep`: evaluate a friction model over a parameter space along
// input traces, reduce to metrics, write HDF5 (docs/sweep.md).
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "progress.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/sweep_config.hpp"
#include "stribeck/workloads/sweep_mpi.hpp"
#include "stribeck/workloads/sweep_run.hpp"

namespace stribeck::cli {
namespace {

struct SweepFlags {
  std::string config, output, model, design, device, precision, objective, shard, json, report;
  std::vector<std::string> params, logs, profiles, metrics;
  std::vector<std::uint64_t> trajectories;
  std::uint64_t points = 0, seed = 0, chunk = 0, max_chunks = 0;
  int top_k = 0;
  bool no_scramble = false, maximize = false, per_experiment = false, top_k_only = false, resume = false, mpi = false,
       allow_large_output = false;
};

const char* design_name(sweep::Design d) {
  return d == sweep::Design::kGrid     ? "grid"
         : d == sweep::Design::kRandom ? "random"
         : d == sweep::Design::kSobol  ? "sobol"
                                       : "lhs";
}

// --json: the summary as data (the text report's content).
nlohmann::json sweep_json(const workloads::SweepPlan& plan, const workloads::SweepConfig& c,
                          const workloads::SweepSummary& s, const std::string& shard) {
  nlohmann::json top = nlohmann::json::array();
  for (const data::TopEntry& t : s.top) {
    nlohmann::json params = nlohmann::json::object(), metrics = nlohmann::json::object();
    for (size_t d = 0; d < plan.model->params.size() && d < t.params.size(); ++d)
      params[plan.model->params[d].name] = json_number(t.params[d]);
    for (int m : plan.metrics)
      if (m >= 0 && static_cast<size_t>(m) < t.metrics.size())
        metrics[sweep::kMetricInfo[m].name] = json_number(t.metrics[m]);
    top.push_back(
        {{"index", t.index}, {"objective", json_number(t.objective)}, {"parameters", params}, {"metrics", metrics}});
  }
  return {{"model", plan.model->id},
          {"design", design_name(c.design)},
          {"shard", shard.empty() ? nlohmann::json(nullptr) : nlohmann::json(shard)},
          {"points", s.points},
          {"completed", s.completed},
          {"finished", s.finished},
          {"status", {{"ok", s.ok}, {"invalid", s.invalid}, {"non_finite", s.nonfinite}}},
          {"invalid_examples", s.invalid_examples},
          {"evaluated", s.evaluated},
          {"samples_per_point", s.samples_per_point},
          {"seconds", s.seconds},
          {"device", s.device},
          {"precision", s.precision == workloads::Precision::kFp32 ? "fp32" : "fp64"},
          {"objective", sweep::kMetricInfo[plan.objective].name},
          {"maximize", plan.maximize},
          {"top", top},
          {"output", s.output.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.output)}};
}

void run(const SweepFlags& f) {
  workloads::SweepConfig c = f.config.empty() ? workloads::SweepConfig{} : workloads::read_sweep_config(f.config);
  if (!f.model.empty()) c.model = f.model;
  if (!f.design.empty()) c.design = workloads::parse_design(f.design, "--design");
  if (f.points) c.points = f.points;
  if (f.seed) c.seed = f.seed;
  if (f.no_scramble) c.scramble = false;
  for (const auto& p : f.params) workloads::apply_param_flag(c, p);
  for (const auto& path : f.logs) {
    workloads::TraceSource t;
    t.kind = workloads::TraceSource::kFile;
    t.path = path;
    t.where = "--trace " + path;
    c.traces.push_back(t);
  }
  for (const auto& p : f.profiles) workloads::apply_profile_flag(c, p);
  if (!f.metrics.empty()) c.metrics = f.metrics;
  if (!f.objective.empty()) c.objective = f.objective;
  if (f.maximize) c.maximize = true;
  if (f.top_k) c.top_k = f.top_k;
  if (f.per_experiment) c.per_experiment = true;
  if (!f.device.empty()) c.device = f.device;
  if (!f.precision.empty()) c.precision = f.precision;
  if (f.chunk) c.chunk = f.chunk;
  if (!f.output.empty()) c.output = f.output;
  if (f.top_k_only) c.keep_top_k_only = true;
  if (!f.trajectories.empty()) c.trajectories = f.trajectories;
  if (c.precision != "fp64" && c.precision != "fp32")
    throw data::InputError("precision '" + c.precision + "': expected fp64 or fp32");

  if (f.mpi && !f.shard.empty()) throw data::InputError("--mpi splits the space itself; drop --shard");
  if (!c.output.empty()) check_output(c.output, {f.config});
  check_json_output(f.json, {f.config});
  if (!f.json.empty() && f.json == c.output) throw data::InputError(f.json + ": given to both --output and --json");
  if (!f.report.empty() && c.output.empty()) throw data::InputError("--report reads the sweep file: give --output too");
  check_report_output(f.report, {f.config, c.output});
  const workloads::SweepPlan plan = workloads::plan_sweep(c, f.shard);
  workloads::SweepRunOptions o;
  o.device = c.device;
  o.precision = c.precision == "fp32" ? workloads::Precision::kFp32 : workloads::Precision::kFp64;
  o.chunk = c.chunk;
  o.output = c.output;
  o.resume = f.resume;
  o.allow_large_output = f.allow_large_output;
  o.max_chunks = f.max_chunks;
  o.command_line = cli_provenance().command_line;
  if (!quiet()) o.progress = progress_printer("points");
  o.note = [](const std::string& text) { note("%s", text.c_str()); };
  workloads::SweepSummary s;
  if (!f.mpi) s = workloads::run_sweep(plan, c, o);
  else if (!engine::run_mpi_command([&](int* rank) { s = workloads::run_sweep_mpi(c, o, rank); })) return;
  result("stribeck sweep: " + plan.model->id + ", " + design_name(c.design) + " design" +
         (plan.shard_count > 1 ? ", shard " + f.shard : std::string()) + "\n" + s.report(plan));
  write_json(f.json, sweep_json(plan, c, s, plan.shard_count > 1 ? f.shard : std::string()));
  flush_stdout();
  if (!f.report.empty() && s.completed >= plan.count) write_report(c.output, f.report);
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("sweep", "Evaluate a model over a parameter space along input traces (docs/sweep.md)");
  auto f = std::make_shared<SweepFlags>();
  cmd->add_option("config", f->config, "Sweep config (TOML); flags below override it")->type_name("FILE");
  cmd->add_option("--output,-o", f->output, "HDF5 file to write (atomically, via OUT.partial)")
      ->type_name("FILE")
      ->check(kNonEmpty);
  cmd->add_option("--report", f->report, "Also write an HTML report of the finished sweep file (stribeck report)")
      ->type_name("FILE");
  cmd->add_option("--model,-m", f->model, "Model id (see `stribeck models`)")->type_name("MODEL");
  cmd->add_option("--param,-p", f->params,
                  "NAME=SPEC, SPEC: VALUE | list:V1,V2 | linear:LO:HI[:COUNT] | log:LO:HI[:COUNT] | uniform:LO:HI | "
                  "loguniform:LO:HI | normal:MEAN:SD[:LO:HI] (repeatable)")
      ->type_name("NAME=SPEC");
  cmd->add_option("--design", f->design, "Design of the points")
      ->check(CLI::IsMember({"grid", "random", "lhs", "sobol"}));
  cmd->add_option("--points", f->points, "Number of points (random, lhs, sobol)")->type_name("N")->check(kPositive);
  cmd->add_option("--seed", f->seed, "Seed of random, lhs and scrambled sobol designs")
      ->type_name("N")
      ->check(kPositive);
  cmd->add_flag("--no-scramble", f->no_scramble, "Plain (unscrambled) Sobol' points");
  cmd->add_option("--trace", f->logs, "Rig log (HDF5, MATLAB v7.3 or CSV; every experiment of it; repeatable)")
      ->type_name("FILE");
  cmd->add_option("--profile", f->profiles,
                  "Built-in trace: sine[,samples=N,amplitude=A,frequency=F,duration=D,p_a=P,p_b=P,normal_force=F] "
                  "(repeatable)")
      ->type_name("PROFILE");
  cmd->add_option("--metric", f->metrics, "Metrics to keep (comma-separated or repeated; default all)")
      ->type_name("METRIC,...")
      ->delimiter(',');
  cmd->add_option("--objective", f->objective, "Metric ranking the top-K table (default rmse, or energy without force)")
      ->type_name("METRIC");
  cmd->add_flag("--maximize", f->maximize, "Rank the top-K by the largest objective");
  cmd->add_option("--top-k", f->top_k, "Size of the top-K table (default 10)")->type_name("N")->check(kPositive);
  cmd->add_flag("--per-experiment", f->per_experiment, "Also keep metrics per experiment");
  cmd->add_option("--device", f->device, "Where to run (default auto)")->check(CLI::IsMember({"auto", "gpu", "cpu"}));
  cmd->add_option("--precision", f->precision, "Floating-point precision (default fp64)")
      ->check(CLI::IsMember({"fp64", "fp32"}));
  cmd->add_option("--chunk", f->chunk, "Points per chunk (bounds host memory; default 1048576)")
      ->type_name("N")
      ->check(kPositive);
  cmd->add_flag("--top-k-only", f->top_k_only, "Write only the top-K table, not every point");
  cmd->add_option("--trajectory", f->trajectories,
                  "Point indices whose force traces are written (comma-separated or repeated)")
      ->type_name("INDEX,...")
      ->delimiter(',');
  cmd->add_option("--shard", f->shard,
                  "i/N: evaluate only the i-th of N equal parts (0-based); auto: this Slurm array task's part")
      ->type_name("I/N")
      ->check(kNonEmpty);
  cmd->add_flag("--mpi", f->mpi, "Split the space over MPI ranks (mpirun -np N stribeck sweep ... --mpi -o OUT.h5)");
  cmd->add_flag("--resume", f->resume, "Continue OUT.partial from its last checkpoint");
  cmd->add_flag("--allow-large-output", f->allow_large_output,
                "Run even when the estimated output exceeds the free space of its file system");
  cmd->add_option("--max-chunks", f->max_chunks, "Stop after this many chunks, leaving a resumable OUT.partial")
      ->type_name("N")
      ->check(kPositive);
  add_json_option(cmd, f->json, "The summary (points, status counts, time, best points)");
  add_verbosity_flags(cmd);
  cmd->callback([f] {
    f->shard = resolve_shard(f->shard);
    run(*f);
  });
}

}  // namespace stribeck::cli
