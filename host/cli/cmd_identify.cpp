// `stribeck identify`: fit friction-model parameters to rig logs.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "commands.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/host/version.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/results_io.hpp"

namespace stribeck::cli {
namespace {

struct IdentifyArgs {
  std::vector<std::string> logs, experiments;
  std::string model, compare, json, output, table, columns;
  std::vector<std::string> free;
  bool batch = false;
  int threads = 0;
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

void write_text(const std::string& path, const std::string& text) {
  AtomicFile f(path);
  f.write(text);
  f.commit();
}

// Experiments of every log, filtered by --experiment; names made unique
// across logs by prefixing the file stem where they clash.
std::vector<std::vector<Experiment>> load(const IdentifyArgs& a) {
  ReadOptions ro;
  if (!a.columns.empty()) ro.columns = parse_column_specs(a.columns);
  std::vector<std::vector<Experiment>> per_log;
  std::set<std::string> found;
  for (const auto& path : a.logs) {
    std::vector<Experiment> all = read_any_log(path, ro), kept;
    for (auto& e : all)
      if (a.experiments.empty() ||
          std::find(a.experiments.begin(), a.experiments.end(), e.name) != a.experiments.end()) {
        found.insert(e.name);
        kept.push_back(std::move(e));
      }
    per_log.push_back(std::move(kept));
  }
  for (const auto& n : a.experiments)
    if (!found.count(n)) throw InputError("--experiment: no experiment named '" + n + "' in the given log(s)");
  std::map<std::string, int> count;
  for (const auto& l : per_log)
    for (const auto& e : l) ++count[e.name];
  for (size_t i = 0; i < per_log.size(); ++i)
    for (auto& e : per_log[i])
      if (count[e.name] > 1) {
        std::string stem = a.logs[i].substr(a.logs[i].find_last_of('/') + 1);
        stem = stem.substr(0, stem.find_last_of('.'));
        e.name = stem + ":" + e.name;
      }
  return per_log;
}

std::string table_csv(const std::vector<std::pair<std::string, ident::FitSummary>>& fits) {
  std::vector<std::string> pnames;
  for (const auto& [label, s] : fits)
    for (const auto& p : s.parameters)
      if (std::find(pnames.begin(), pnames.end(), p.name) == pnames.end()) pnames.push_back(p.name);
  std::string out = "fit,model,status,converged,samples,rmse,r_squared";
  for (const auto& n : pnames) out += "," + n + "," + n + "_std_error";
  out += ",warnings\n";
  for (const auto& [label, s] : fits) {
    char buf[128];
    std::snprintf(buf, sizeof buf, ",%s,%s,%ld,%.6g,%.6g", ident::status_name(s.status),
                  s.converged ? "true" : "false", s.samples, s.rmse, s.r_squared);
    out += label + "," + s.model + buf;
    for (const auto& n : pnames) {
      const auto it = std::find_if(s.parameters.begin(), s.parameters.end(),
                                   [&](const ident::ParameterEstimate& p) { return p.name == n; });
      if (it == s.parameters.end()) out += ",,";
      else {
        std::snprintf(buf, sizeof buf, ",%.10g,%.4g", it->value, it->std_error);
        out += buf;
      }
    }
    out += "," + std::to_string(s.warnings.size()) + "\n";
  }
  return out;
}

void run(const IdentifyArgs& a) {
  if (a.model.empty() == a.compare.empty())
    throw InputError("give exactly one of --model ID or --compare ID,ID,...");
  if (a.batch && !a.compare.empty()) throw InputError("--batch fits one --model; use --compare without --batch");
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
    check_output(*out, taken);
    for (const auto& t : taken)
      if (*out == t) throw InputError(*out + ": is named twice among the logs and outputs of this run");
    if (*out == a.output) throw InputError(*out + ": given to both --output and " + (out == &a.json ? "--json" : "--table"));
    taken.push_back(*out);
  }
  if (!a.output.empty()) check_output_path(a.output);
  const auto per_log = load(a);
  const Provenance prov = cli_provenance();

  if (a.batch) {
    // One independent fit per experiment of every log, in parallel.
    std::vector<std::pair<std::string, const Experiment*>> jobs;
    for (size_t i = 0; i < per_log.size(); ++i)
      for (const auto& e : per_log[i]) jobs.push_back({a.logs[i] + ":" + e.name, &e});
    if (jobs.empty()) throw InputError("no experiments to fit");
    std::vector<std::pair<std::string, ident::FitSummary>> fits(jobs.size());
    std::vector<std::string> errors(jobs.size());
    o.num_threads = 1;
    std::atomic<size_t> next{0};
    const unsigned nt = a.threads > 0 ? a.threads : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < std::min<size_t>(nt, jobs.size()); ++t)
      pool.emplace_back([&] {
        for (size_t j; (j = next++) < jobs.size();) {
          fits[j].first = jobs[j].first;
          try {
            fits[j].second = ident::fit({*jobs[j].second}, a.model, o);
          } catch (const InputError& e) {
            errors[j] = e.what();
          }
        }
      });
    for (auto& t : pool) t.join();
    for (size_t j = 0; j < jobs.size(); ++j)
      if (!errors[j].empty()) throw InputError(jobs[j].first + ": " + errors[j]);
    const std::string csv = table_csv(fits);
    if (!a.table.empty()) write_text(a.table, csv);
    else std::fputs(csv.c_str(), stdout);
    if (!a.json.empty()) {
      std::string j = "{\"fits\": [";
      for (size_t i = 0; i < fits.size(); ++i) j += (i ? ", " : "") + ident::to_json(fits[i].second, -1);
      write_text(a.json, j + "]}\n");
    }
    return;
  }

  std::vector<Experiment> all;
  for (const auto& l : per_log) all.insert(all.end(), l.begin(), l.end());
  o.num_threads = a.threads;
  std::vector<ident::FitSummary> fits;
  if (!a.compare.empty()) fits = ident::compare(all, split(a.compare), o);
  else fits.push_back(ident::fit(all, a.model, o));

  for (size_t i = 0; i < fits.size(); ++i) {
    if (fits.size() > 1) std::printf("#%zu by AIC: ", i + 1);
    std::fputs(fits[i].report().c_str(), stdout);
  }
  if (!a.json.empty()) {
    if (fits.size() == 1) write_text(a.json, ident::to_json(fits[0]) + "\n");
    else {
      std::string j = "{\"ranking\": [";
      for (size_t i = 0; i < fits.size(); ++i) j += (i ? ", " : "") + ident::to_json(fits[i], -1);
      write_text(a.json, j + "]}\n");
    }
  }
  if (!a.table.empty()) {
    std::vector<std::pair<std::string, ident::FitSummary>> rows;
    for (const auto& f : fits) rows.push_back({"joint", f});
    write_text(a.table, table_csv(rows));
  }
  if (!a.output.empty()) {
    const std::string group = ident::write_fit_results(a.output, fits[0], prov);
    std::fprintf(stderr, "stribeck identify: fitted force and residuals -> %s:/%s\n", a.output.c_str(),
                 group.c_str());
  }
}

}  // namespace

void add_identify_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("identify", "Fit friction-model parameters to rig logs (Ceres least squares)");
  auto a = std::make_shared<IdentifyArgs>();
  cmd->add_option("logs", a->logs, "Rig log(s): HDF5, MATLAB v7.3 or delimited text")->required();
  cmd->add_option("--experiment,-e", a->experiments, "Fit only this experiment (repeatable; default: all)")
      ->allow_extra_args(false);
  cmd->add_option("--model,-m", a->model, "Model id (see `stribeck models`)");
  cmd->add_option("--compare", a->compare, "Fit each of these model ids and rank them by AIC");
  cmd->add_option("--free", a->free,
                  "Parameters to estimate (comma-separated); the others stay at their defaults or --fix values")
      ->delimiter(',');
  cmd->add_option("--fix", a->fit.fix, "Hold NAME=VALUE fixed (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--init", a->fit.initial, "Initial value NAME=VALUE instead of the data-driven guess (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--bounds", a->fit.bounds, "Bounds NAME=LO:HI on top of the model's ranges (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--per-experiment", a->fit.per_experiment,
                  "Model parameters fitted separately per experiment (comma-separated)")
      ->delimiter(',');
  cmd->add_flag("--asymmetric", a->fit.asymmetric,
                "Separate parameters for v > 0 and v < 0, with a likelihood-ratio test of the asymmetry");
  cmd->add_flag("--offset", a->fit.offset, "Estimate an additive force offset");
  cmd->add_flag("--offset-per-experiment", a->fit.offset_per_experiment,
                "One offset per experiment (implies --offset)");
  cmd->add_flag("--inertia", a->fit.inertia, "Include m*a in the force balance (acceleration channel or derived from position)");
  auto* mass = cmd->add_option("--mass", a->fit.mass, "Moving mass [kg] of the inertial term (implies --inertia; default: estimated)")
                   ->check(CLI::Validator(
                       [](std::string& s) {
                         double x;
                         return parse_double(s, x) && x >= 0 ? std::string()
                                                              : "must be a finite mass >= 0 [kg], not '" + s + "'";
                       },
                       "MASS"));
  cmd->add_option("--area-a", a->fit.area_a, "Piston area A_a [m^2]: A_a*p_a is part of the measured force");
  cmd->add_option("--area-b", a->fit.area_b, "Piston area A_b [m^2]: -A_b*p_b is part of the measured force");
  cmd->add_option("--loss", a->fit.loss, "Robust loss huber:D or cauchy:D (D in N; default: least squares)");
  cmd->add_option("--starts", a->fit.starts, "Ceres refinements from the best points of a coarse search (default 1)");
  cmd->add_option("--coarse-points", a->fit.coarse_points, "Points of the coarse search (default 256)");
  cmd->add_option("--seed", a->fit.seed, "Seed of the coarse search (default 1)");
  cmd->add_option("--validate", a->fit.validate, "Hold this experiment out and report its error (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--max-iterations", a->fit.max_iterations, "Solver iterations per start (default 200)");
  cmd->add_option("--threads", a->threads, "Threads (default: all)");
  cmd->add_flag("--batch", a->batch, "Fit every experiment of every log independently, in parallel, into one table");
  cmd->add_option("--columns", a->columns, "Column mapping for text logs, e.g. time=0:ms,position=4:mm,force=6");
  cmd->add_option("--json", a->json, "Write the fit(s) as JSON (docs/identification.md)");
  cmd->add_option("--table", a->table, "Write one CSV row per fit");
  cmd->add_option("--output,-o", a->output, "HDF5 file for the fitted force and residuals (may be the log itself)");
  cmd->callback([a, mass] {
    if (a->fit.offset_per_experiment) a->fit.offset = true;
    if (mass->count() > 0) a->fit.inertia = true;
    run(*a);
  });
}

}  // namespace stribeck::cli
