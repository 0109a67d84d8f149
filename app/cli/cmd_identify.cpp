// `stribeck identify`: fit friction-model parameters to rig logs.
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "fit_flags.hpp"
#include "progress.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/engine/mpi.hpp"
#include "stribeck/identification/fit_outputs.hpp"
#include "stribeck/identification/identify_run.hpp"

namespace stribeck::cli {
namespace {

// The request, and what only the CLI does with it: --json (FILE or "-",
// stdout) and --stream as given.
struct IdentifyArgs {
  ident::IdentifyRequest r;
  std::string json, stream = "auto";
};

void write_text(const std::string& path, const std::string& text) {
  data::AtomicFile f(path);
  f.write(text);
  f.commit();
}

// --json: a JSON document already made by ident::to_json, pretty-printed
// like every other --json of the CLI.
void write_fit_json(const std::string& path, const std::string& text) {
  if (path == "-") write_json(path, nlohmann::json::parse(text));
  else write_text(path, text);
}

// The measured log of the report: none when -o is a log (the results sit
// next to the measured channels), else the one log of the run.
std::string report_log(const ident::IdentifyRequest& r) {
  for (const auto& l : r.logs)
    if (l == r.output) return "";
  return r.logs.size() == 1 ? r.logs[0] : "";
}

// `identify --batch`: one independent fit per experiment of every log, as a
// workload of the engine (identification/batch_fit.hpp): shards, chunks
// with checkpoints and --resume, MPI ranks; an HDF5 results file with -o,
// else the CSV table (--table or stdout) and --json as before.
void run_batch(const IdentifyArgs& a) {
  const ident::IdentifyRequest& r = a.r;
  const auto src = ident::log_experiments(r.logs, r.experiments, ident::identify_read_options(r));
  ident::BatchFitOptions o = ident::identify_batch_options(r);
  o.provenance = cli_provenance();
  if (!quiet()) o.progress = progress_printer("fits");
  ident::BatchFitResult b;
  if (!r.mpi) b = ident::run_batch_fit(*src, o);
  else if (!engine::run_mpi_command([&](int* rank) { b = ident::run_batch_fit_mpi(*src, o, rank); }))
    return;  // rank 0 reports
  const std::string where = r.output.empty() ? std::string(r.table.empty() ? "stdout" : r.table)
                            : b.finished     ? r.output
                                             : data::partial_path(r.output);
  const bool table_on_stdout = r.output.empty() && r.table.empty() && !stdout_is_json();
  auto say = [&](const std::string& line) {
    if (table_on_stdout) note("%s", line.substr(line.rfind("stribeck ", 0) == 0 ? 9 : 0).c_str());
    else summary("%s", line.c_str());
  };
  if (r.output.empty()) {
    const std::string csv = ident::batch_table_csv(b, *src);
    if (!r.table.empty()) write_text(r.table, csv);
    else if (!stdout_is_json()) result(csv);
  }
  say(ident::batch_fit_report(b, r.shard, where));
  for (const auto& e : b.totals.invalid_examples) say("  bad data: " + one_line(e));
  if (!b.finished)
    say("  stopped after " + std::to_string(b.totals.completed) + " of " + std::to_string(b.count) +
        " fits; continue with --resume");
  if (a.json.empty()) return;
  if (r.output.empty()) write_fit_json(a.json, ident::batch_rows_json(b, *src));
  else write_json(a.json, nlohmann::json::parse(ident::batch_summary_json(b, r.shard, where)));
}

// Outputs are checked before the fit, not after it: --json and --table must
// not name a log or each other; -o may be the log of a joint fit (results
// are appended to it), but not a directory or device.
void check_outputs(const IdentifyArgs& a) {
  const ident::IdentifyRequest& r = a.r;
  std::vector<std::string> taken = r.logs;
  for (const std::string* out : {&a.json, &r.table}) {
    if (out->empty()) continue;
    if (out == &a.json) check_json_output(*out, taken);  // "-": stdout
    else check_output(*out, taken);
    for (const auto& t : taken)
      if (*out == t) throw data::InputError(*out + ": is named twice among the logs and outputs of this run");
    if (*out == r.output)
      throw data::InputError(*out + ": given to both --output and " + (out == &a.json ? "--json" : "--table"));
    taken.push_back(*out);
  }
  if (r.batch && !r.output.empty()) check_output(r.output, r.logs);
  else if (!r.output.empty()) {
    data::check_output_path(r.output);
    check_output_directory(r.output);  // before the fit, not after printing it
  }
  taken.push_back(r.output);
  check_report_output(r.report, taken);
}

void run(IdentifyArgs& a) {
  ident::IdentifyRequest& r = a.r;
  r.stream = a.stream == "always"  ? ident::StreamMode::kAlways
             : a.stream == "never" ? ident::StreamMode::kNever
                                   : ident::StreamMode::kAuto;
  ident::check_identify_request(r);
  check_outputs(a);
  const ident::StreamPlan plan = ident::plan_identify(r);
  if (plan.logs.empty() && r.batch) return run_batch(a);
  if (!quiet()) r.fit.progress = fit_progress(r.model.empty() ? r.compare : r.model);
  const ident::JointFit j = ident::fit_joint(r, plan, cli_provenance(), [] {
    if (!quiet()) end_progress();
  });
  // --json, --table and the report on stdout, in that order: a file that
  // cannot be written fails the run before anything of the fit is printed.
  if (!a.json.empty()) write_fit_json(a.json, ident::fits_json(j.fits));
  if (!r.table.empty()) {
    std::vector<std::pair<std::string, ident::FitSummary>> rows;
    for (const auto& f : j.fits) rows.push_back({"joint", f});
    write_text(r.table, ident::fits_table_csv(rows));
  }
  for (size_t i = 0; i < j.fits.size(); ++i)
    result((j.fits.size() > 1 ? "#" + std::to_string(i + 1) + " by AIC: " : std::string()) + j.fits[i].report());
  if (j.group.empty()) return;
  summary("stribeck identify: fitted force and residuals -> %s:/%s%s", r.output.c_str(), j.group.c_str(),
          j.streamed ? " (streamed)" : "");
  if (!r.report.empty()) write_report(r.output, r.report, j.group, report_log(r));
}

}  // namespace

void add_identify_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("identify", "Fit friction-model parameters to rig logs (Ceres least squares)");
  auto a = std::make_shared<IdentifyArgs>();
  cmd->add_option("logs", a->r.logs, "Rig log(s): HDF5, MATLAB v7.3 or delimited text")->type_name("FILE")->required();
  cmd->add_option("--experiment,-e", a->r.experiments, "Fit only this experiment (repeatable; default: all)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--model,-m", a->r.model, "Model id (see `stribeck models`)")->type_name("MODEL");
  cmd->add_option("--compare", a->r.compare, "Fit each of these model ids and rank them by AIC (comma-separated)")
      ->type_name("MODEL,...");
  const auto fit_implied = add_fit_flags(cmd, a->r.fit);
  cmd->add_option("--threads", a->r.threads,
                  "Threads (default: OpenMP's count: the CPUs this job may use, or OMP_NUM_THREADS)")
      ->type_name("N")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--stream", a->stream,
                  "auto (default): HDF5 logs over 1e6 samples are fitted streamed, in bounded memory; always; never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  add_verbosity_flags(cmd);
  cmd->add_flag("--batch", a->r.batch,
                "Fit every experiment of every log independently, one fit per thread: a CSV table, or with -o an HDF5 "
                "results file (one row per fit) with shards, checkpoints and --resume");
  cmd->add_option(
         "--shard", a->r.shard,
         "--batch -o: fit only shard i/N of the experiments (0-based; auto: this Slurm array task's), then merge")
      ->type_name("I/N");
  cmd->add_flag("--resume", a->r.resume, "--batch -o: continue OUT.h5.partial from its last checkpoint");
  cmd->add_option("--chunk", a->r.chunk,
                  "--batch -o: fits per chunk, written with a checkpoint (default 16 per thread)")
      ->type_name("N")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1000000)));
  cmd->add_option("--max-chunks", a->r.max_chunks,
                  "--batch -o: stop after this many chunks, leaving a resumable OUT.h5.partial")
      ->type_name("N")
      ->check(kWhole);
  cmd->add_flag(
      "--mpi", a->r.mpi,
      "--batch -o: split the experiments over MPI ranks (mpirun -np N stribeck identify --batch ... --mpi -o OUT.h5)");
  cmd->add_option("--columns", a->r.columns, "Column mapping for text logs, e.g. time=0:ms,position=4:mm,force=6")
      ->type_name("CHANNEL=COLUMN,...");
  cmd->add_option("--gain", a->r.gains,
                  "Scale a channel of a text or MATLAB log, CHANNEL=GAIN[UNIT[/RAW]][,OFFSET[UNIT]] (repeatable), "
                  "as for import, e.g. force=35.15N/V")
      ->type_name("CHANNEL=GAIN");
  add_json_option(cmd, a->json, "The fit(s) (docs/identification.md)");
  cmd->add_option("--table", a->r.table, "Write one CSV row per fit")->type_name("FILE");
  cmd->add_option("--output,-o", a->r.output,
                  "HDF5 file for the fitted force and residuals (may be the log itself); with --batch the results file")
      ->type_name("FILE");
  cmd->add_option("--report", a->r.report, "Also write an HTML report of the fit from --output (stribeck report)")
      ->type_name("FILE");
  cmd->callback([a, fit_implied] {
    fit_implied();
    a->r.shard = resolve_shard(a->r.shard);
    run(*a);
  });
}

}  // namespace stribeck::cli
