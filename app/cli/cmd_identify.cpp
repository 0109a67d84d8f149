// `stribeck identify`: fit friction-model parameters to rig logs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "progress.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/engine/mpi.hpp"
#include "stribeck/identification/batch_fit.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/fit_inputs.hpp"
#include "stribeck/identification/fit_outputs.hpp"
#include "stribeck/identification/results_io.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::cli {
namespace {

struct IdentifyArgs {
  std::vector<std::string> logs, experiments;
  std::string model, compare, json, output, table, columns, report;
  std::string stream = "auto";
  std::vector<std::string> free, gains;
  bool batch = false;
  int threads = 0;
  // --batch as a workload of the engine
  std::string shard;
  bool resume = false, mpi = false;
  std::uint64_t chunk = 0, max_chunks = 0;
  ident::FitOptions fit;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t a = 0;
  while (a <= s.size()) {
    const size_t b = std::min(s.find(',', a), s.size());
    if (b > a) out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

// --columns and --gain, for text and MATLAB logs.
ReadOptions read_options(const IdentifyArgs& a) {
  ReadOptions ro;
  if (!a.columns.empty()) ro.columns = parse_column_specs(a.columns);
  for (const auto& g : a.gains) ro.gains.push_back(parse_channel_gain(g));
  return ro;
}

void write_text(const std::string& path, const std::string& text) {
  AtomicFile f(path);
  f.write(text);
  f.commit();
}

// --json: a JSON document already made by ident::to_json, pretty-printed
// like every other --json of the CLI.
void write_fit_json(const std::string& path, const std::string& text) {
  if (path == "-") write_json(path, nlohmann::json::parse(text));
  else write_text(path, text);
}

void write_outputs(const IdentifyArgs& a, const std::vector<ident::FitSummary>& fits);

// The measured log of the report: none when -o is a log (the results sit
// next to the measured channels), else the one log of the run.
std::string report_log(const IdentifyArgs& a) {
  for (const auto& l : a.logs)
    if (l == a.output) return "";
  return a.logs.size() == 1 ? a.logs[0] : "";
}

// `identify --batch`: one independent fit per experiment of every log, as a
// workload of the engine (identification/batch_fit.hpp): shards, chunks
// with checkpoints and --resume, MPI ranks; an HDF5 results file with -o,
// else the CSV table (--table or stdout) and --json as before.
void run_batch(const IdentifyArgs& a, const ident::FitOptions& fo, const Provenance& prov) {
  if (!a.output.empty()) {
    if (!a.table.empty())
      throw InputError("--table with --batch -o: the fits are rows of " + a.output + " (write one or the other)");
    check_output(a.output, a.logs);
  } else if (!a.shard.empty() || a.resume || a.max_chunks || a.mpi) {
    throw InputError(std::string(!a.shard.empty() ? "--shard"
                                 : a.resume       ? "--resume"
                                 : a.max_chunks   ? "--max-chunks"
                                                  : "--mpi") +
                     " with --batch needs an HDF5 results file (-o OUT.h5)");
  }
  const auto src = ident::log_experiments(a.logs, a.experiments, read_options(a));
  ident::BatchFitOptions o;
  o.model = a.model;
  o.fit = fo;
  o.output = a.output;
  o.shard = a.shard;
  o.resume = a.resume;
  o.chunk = a.chunk;
  o.max_chunks = a.max_chunks;
  o.threads = a.threads;
  o.provenance = prov;
  if (!quiet()) o.progress = progress_printer("fits");
  ident::BatchFitResult r;
  if (!a.mpi) r = ident::run_batch_fit(*src, o);
  else if (!run_mpi_command([&](int* rank) { r = ident::run_batch_fit_mpi(*src, o, rank); })) return;  // rank 0 reports
  const std::string where = a.output.empty() ? std::string(a.table.empty() ? "stdout" : a.table)
                            : r.finished     ? a.output
                                             : partial_path(a.output);
  const bool table_on_stdout = a.output.empty() && a.table.empty() && !stdout_is_json();
  auto say = [&](const std::string& line) {
    if (table_on_stdout) note("%s", line.substr(line.rfind("stribeck ", 0) == 0 ? 9 : 0).c_str());
    else summary("%s", line.c_str());
  };
  if (a.output.empty()) {
    const std::string csv = ident::batch_table_csv(r, *src);
    if (!a.table.empty()) write_text(a.table, csv);
    else if (!stdout_is_json()) result(csv);
  }
  say(ident::batch_fit_report(r, a.shard, where));
  for (const auto& e : r.totals.invalid_examples) say("  bad data: " + one_line(e));
  if (!r.finished)
    say("  stopped after " + std::to_string(r.totals.completed) + " of " + std::to_string(r.count) +
        " fits; continue with --resume");
  if (a.json.empty()) return;
  if (a.output.empty()) write_fit_json(a.json, ident::batch_rows_json(r, *src));
  else write_json(a.json, nlohmann::json::parse(ident::batch_summary_json(r, a.shard, where)));
}

// The fit of long HDF5 logs, streamed (docs/identification.md): nothing is
// held whole; -o writes its fitted force and residual block by block.
void run_streamed(const IdentifyArgs& a, ident::FitOptions o, const std::vector<ident::LogStream>& logs,
                  const Provenance& prov) {
  if (!a.output.empty() && !a.compare.empty())
    throw InputError("--output with --compare: a streamed fit writes the signals of one --model");
  std::unique_ptr<ident::StreamedFitResults> out;
  if (!a.output.empty()) out = std::make_unique<ident::StreamedFitResults>(a.output, logs, a.model, prov);
  o.num_threads = a.threads;
  if (!quiet()) o.progress = fit_progress(a.model.empty() ? a.compare : a.model);
  ident::StreamOptions so;
  if (out) out->connect(so);
  else o.keep_signals = false;
  std::vector<ident::FitSummary> fits;
  for (const auto& m : a.compare.empty() ? std::vector<std::string>{a.model} : split(a.compare))
    fits.push_back(ident::fit_streamed(logs, m, o, so));
  std::stable_sort(fits.begin(), fits.end(),
                   [](const ident::FitSummary& x, const ident::FitSummary& y) { return x.aic < y.aic; });
  if (!quiet()) end_progress();
  const bool results = out && !fits[0].experiments.empty();
  if (results) out->commit(fits[0]);  // before the report: a fit whose -o cannot be written prints nothing
  write_outputs(a, fits);
  if (results) {
    summary("stribeck identify: fitted force and residuals -> %s:/%s (streamed)", a.output.c_str(),
            out->prefix().c_str());
    if (!a.report.empty()) write_report(a.output, a.report, out->prefix(), report_log(a));
  }
}

void run(const IdentifyArgs& a) {
  if (a.model.empty() == a.compare.empty()) throw InputError("give exactly one of --model ID or --compare ID,ID,...");
  if (a.batch && !a.compare.empty()) throw InputError("--batch fits one --model; use --compare without --batch");
  if (!a.batch && (!a.shard.empty() || a.resume || a.chunk || a.max_chunks || a.mpi))
    throw InputError(std::string(!a.shard.empty() ? "--shard"
                                 : a.resume       ? "--resume"
                                 : a.chunk        ? "--chunk"
                                 : a.max_chunks   ? "--max-chunks"
                                                  : "--mpi") +
                     " applies to --batch (one fit per experiment); a joint fit is not split");
  if (!a.compare.empty() && split(a.compare).empty())
    throw InputError("--compare '" + a.compare + "': no model id (give ID,ID,...)");
  ident::FitOptions o = a.fit;
  if (!a.free.empty()) o.free = a.free;
  // Outputs are checked before the fit, not after it: --json and --table
  // must not name a log or each other; -o may be the log (results are
  // appended to it), but not a directory or device.
  std::vector<std::string> taken = a.logs;
  for (const std::string* out : {&a.json, &a.table}) {
    if (out->empty()) continue;
    if (out == &a.json) check_json_output(*out, taken);  // "-": stdout
    else check_output(*out, taken);
    for (const auto& t : taken)
      if (*out == t) throw InputError(*out + ": is named twice among the logs and outputs of this run");
    if (*out == a.output)
      throw InputError(*out + ": given to both --output and " + (out == &a.json ? "--json" : "--table"));
    taken.push_back(*out);
  }
  if (!a.output.empty()) {
    check_output_path(a.output);
    check_output_directory(a.output);  // before the fit, not after printing it
  }
  if (!a.report.empty() && a.batch)
    throw InputError(
        "--report with --batch: a report draws one fit (write it with stribeck report from an -o file of "
        "a single fit)");
  if (!a.report.empty() && a.output.empty())
    throw InputError("--report draws from the fit's HDF5 results: give --output too (it may be the log itself)");
  {
    std::vector<std::string> ins = taken;
    ins.push_back(a.output);
    check_report_output(a.report, ins);
  }
  if (a.stream != "auto" && a.stream != "always" && a.stream != "never")
    throw InputError("--stream '" + a.stream + "': expected auto, always or never");
  const Provenance prov = cli_provenance();
  ident::StreamRequest q;
  q.logs = a.logs;
  q.experiments = a.experiments;
  q.models = a.model.empty() ? split(a.compare) : std::vector<std::string>{a.model};
  q.mode = a.stream == "always"  ? ident::StreamMode::kAlways
           : a.stream == "never" ? ident::StreamMode::kNever
                                 : ident::StreamMode::kAuto;
  q.batch = a.batch;
  q.converted = !a.columns.empty() || !a.gains.empty();
  const ident::StreamPlan plan = ident::plan_stream(q, o);
  if (!plan.logs.empty()) return run_streamed(a, o, plan.logs, prov);
  if (a.stream == "always") throw InputError("--stream always: cannot stream: " + plan.why_not);
  if (a.batch) return run_batch(a, o, prov);
  const std::vector<Experiment> all = ident::load_fit_experiments(a.logs, a.experiments, read_options(a));
  o.num_threads = a.threads;
  if (!quiet()) o.progress = fit_progress(a.model.empty() ? a.compare : a.model);
  std::vector<ident::FitSummary> fits;
  if (!a.compare.empty()) fits = ident::compare(all, split(a.compare), o);
  else fits.push_back(ident::fit(all, a.model, o));
  if (!quiet()) end_progress();
  // The results file first: a fit whose -o cannot be written prints nothing.
  const std::string group = a.output.empty() ? "" : ident::write_fit_results(a.output, fits[0], prov);
  write_outputs(a, fits);
  if (!a.output.empty()) {
    summary("stribeck identify: fitted force and residuals -> %s:/%s", a.output.c_str(), group.c_str());
    if (!a.report.empty()) write_report(a.output, a.report, group, report_log(a));
  }
}

// --json, --table and the report on stdout, in that order: a file that
// cannot be written fails the run before anything of the fit is printed.
void write_outputs(const IdentifyArgs& a, const std::vector<ident::FitSummary>& fits) {
  if (!a.json.empty()) write_fit_json(a.json, ident::fits_json(fits));
  if (!a.table.empty()) {
    std::vector<std::pair<std::string, ident::FitSummary>> rows;
    for (const auto& f : fits) rows.push_back({"joint", f});
    write_text(a.table, ident::fits_table_csv(rows));
  }
  for (size_t i = 0; i < fits.size(); ++i)
    result((fits.size() > 1 ? "#" + std::to_string(i + 1) + " by AIC: " : std::string()) + fits[i].report());
}

}  // namespace

void add_identify_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("identify", "Fit friction-model parameters to rig logs (Ceres least squares)");
  auto a = std::make_shared<IdentifyArgs>();
  auto no_parallel = std::make_shared<bool>(false);
  cmd->add_option("logs", a->logs, "Rig log(s): HDF5, MATLAB v7.3 or delimited text")->type_name("FILE")->required();
  cmd->add_option("--experiment,-e", a->experiments, "Fit only this experiment (repeatable; default: all)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--model,-m", a->model, "Model id (see `stribeck models`)")->type_name("MODEL");
  cmd->add_option("--compare", a->compare, "Fit each of these model ids and rank them by AIC (comma-separated)")
      ->type_name("MODEL,...");
  cmd->add_option("--free", a->free,
                  "Parameters to estimate (comma-separated); the others stay at their defaults or --fix values")
      ->type_name("NAME,...")
      ->delimiter(',');
  cmd->add_option("--fix", a->fit.fix, "Hold NAME=VALUE fixed (repeatable)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--init", a->fit.initial, "Initial value NAME=VALUE instead of the data-driven guess (repeatable)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--bounds", a->fit.bounds, "Bounds NAME=LO:HI on top of the model's ranges (repeatable)")
      ->type_name("NAME=LO:HI")
      ->allow_extra_args(false);
  cmd->add_option("--per-experiment", a->fit.per_experiment,
                  "Model parameters fitted separately per experiment (comma-separated)")
      ->type_name("NAME,...")
      ->delimiter(',');
  cmd->add_flag("--asymmetric", a->fit.asymmetric,
                "Separate parameters for v > 0 and v < 0, with a likelihood-ratio test of the asymmetry");
  cmd->add_flag("--offset", a->fit.offset, "Estimate an additive force offset");
  cmd->add_flag("--offset-per-experiment", a->fit.offset_per_experiment,
                "One offset per experiment (implies --offset)");
  cmd->add_flag("--inertia", a->fit.inertia,
                "Include m*a in the force balance (acceleration channel or derived from position)");
  auto* mass = cmd->add_option("--mass", a->fit.mass,
                               "Moving mass [kg] of the inertial term (implies --inertia; default: estimated)")
                   ->type_name("KG")
                   ->check(CLI::Validator(
                       [](std::string& s) {
                         double x;
                         return parse_double(s, x) && x >= 0 ? std::string()
                                                             : "must be a finite mass >= 0 [kg], not '" + s + "'";
                       },
                       "MASS"));
  cmd->add_option("--area-a", a->fit.area_a, "Piston area A_a [m^2]: A_a*p_a is part of the measured force")
      ->type_name("M^2");
  cmd->add_option("--area-b", a->fit.area_b, "Piston area A_b [m^2]: -A_b*p_b is part of the measured force")
      ->type_name("M^2");
  cmd->add_option("--cutoff", a->fit.cutoff_hz,
                  "Cut-off [Hz] of the low-pass for derived velocity/acceleration (default: sample rate / 20)")
      ->type_name("HZ")
      ->check(CLI::Validator(
          [](std::string& s) {
            double x;
            return parse_double(s, x) && x > 0 ? std::string() : "must be a frequency > 0 [Hz], not '" + s + "'";
          },
          "HZ"));
  cmd->add_flag("--no-parallel-filter", *no_parallel,
                "With derived kinematics: leave the force unfiltered and keep every sample (default: filter the force "
                "and every channel like the kinematics, then decimate)");
  cmd->add_option("--decimate", a->fit.decimation,
                  "Parallel filtering keeps every Nth sample (default 0: automatic, ~0.5 x rate / cut-off)")
      ->type_name("N")
      ->check(kWhole);
  cmd->add_option("--loss", a->fit.loss, "Robust loss huber:D or cauchy:D (D in N; default: least squares)")
      ->type_name("KIND:D");
  cmd->add_option("--starts", a->fit.starts,
                  "Ceres refinements: 0 = automatic, until the two best agree at the noise floor (default); "
                  "N = the data-driven guess and the best N-1 points of a coarse search")
      ->type_name("N")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--max-starts", a->fit.max_starts, "Most refinements of the automatic search (default 32)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--coarse-points", a->fit.coarse_points,
                  "Points of the coarse search (default 0 = 512 per free parameter, at least 1024)")
      ->type_name("N")
      ->check(CLI::Range(0, 1000000000));
  cmd->add_option("--seed", a->fit.seed, "Seed of the coarse search (default 1)")->type_name("N");
  cmd->add_option("--validate", a->fit.validate, "Hold this experiment out and report its error (repeatable)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--max-iterations", a->fit.max_iterations, "Solver iterations per start (default 200)")
      ->type_name("N")
      ->check(CLI::Range(1, 100000000));
  cmd->add_option("--threads", a->threads,
                  "Threads (default: OpenMP's count: the CPUs this job may use, or OMP_NUM_THREADS)")
      ->type_name("N")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--stream", a->stream,
                  "auto (default): HDF5 logs over 1e6 samples are fitted streamed, in bounded memory; always; never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  add_verbosity_flags(cmd);
  cmd->add_flag("--batch", a->batch,
                "Fit every experiment of every log independently, one fit per thread: a CSV table, or with -o an HDF5 "
                "results file (one row per fit) with shards, checkpoints and --resume");
  cmd->add_option(
         "--shard", a->shard,
         "--batch -o: fit only shard i/N of the experiments (0-based; auto: this Slurm array task's), then merge")
      ->type_name("I/N");
  cmd->add_flag("--resume", a->resume, "--batch -o: continue OUT.h5.partial from its last checkpoint");
  cmd->add_option("--chunk", a->chunk, "--batch -o: fits per chunk, written with a checkpoint (default 16 per thread)")
      ->type_name("N")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1000000)));
  cmd->add_option("--max-chunks", a->max_chunks,
                  "--batch -o: stop after this many chunks, leaving a resumable OUT.h5.partial")
      ->type_name("N")
      ->check(kWhole);
  cmd->add_flag(
      "--mpi", a->mpi,
      "--batch -o: split the experiments over MPI ranks (mpirun -np N stribeck identify --batch ... --mpi -o OUT.h5)");
  cmd->add_option("--columns", a->columns, "Column mapping for text logs, e.g. time=0:ms,position=4:mm,force=6")
      ->type_name("CHANNEL=COLUMN,...");
  cmd->add_option("--gain", a->gains,
                  "Scale a channel of a text or MATLAB log, CHANNEL=GAIN[UNIT[/RAW]][,OFFSET[UNIT]] (repeatable), "
                  "as for import, e.g. force=35.15N/V")
      ->type_name("CHANNEL=GAIN");
  add_json_option(cmd, a->json, "The fit(s) (docs/identification.md)");
  cmd->add_option("--table", a->table, "Write one CSV row per fit")->type_name("FILE");
  cmd->add_option("--output,-o", a->output,
                  "HDF5 file for the fitted force and residuals (may be the log itself); with --batch the results file")
      ->type_name("FILE");
  cmd->add_option("--report", a->report, "Also write an HTML report of the fit from --output (stribeck report)")
      ->type_name("FILE");
  cmd->callback([a, mass, no_parallel] {
    if (a->fit.offset_per_experiment) a->fit.offset = true;
    a->fit.parallel_filter = !*no_parallel;
    if (mass->count() > 0) a->fit.inertia = true;
    a->shard = resolve_shard(a->shard);
    run(*a);
  });
}

}  // namespace stribeck::cli
