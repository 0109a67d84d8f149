#pragma once
// Each subcommand registers itself on the top-level app. The callbacks throw
// InputError for bad input; main() turns that into one line and exit code 2.
#include <CLI/CLI.hpp>
#include <nlohmann/json_fwd.hpp>

#include "stribeck/data/log.hpp"
#include "stribeck/identification/export_params.hpp"

namespace stribeck::workloads {
struct SimulateConfig;
struct EnsembleResult;
}  // namespace stribeck::workloads

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
void add_design_command(CLI::App& app);
void add_export_params_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_plot_command(CLI::App& app);

// --report FILE of identify, sweep and simulate (cmd_report.cpp): checked
// before the run like an output (an .html, none of the inputs), and written
// after the result from the result file (`group`: identify's results group,
// "" = the first; `log`: the measured log when the result is another file).
void check_report_output(const std::string& report, const std::vector<std::string>& inputs);
void write_report(const std::string& result, const std::string& html, const std::string& group = "",
                  const std::string& log = "");

// A parameter set read from a file (a fit report or `export-params --to
// json`), shared by export-params and `eval --params`: identification's.
using ident::ParamFile;
using ident::read_param_file;

// Whole-number flags: digits only (no sign, no space: "-1" is not read as
// 2^64 - 1) and at most 18 of them, so a value is never clamped to what the
// type holds. `kind` names what the flag takes in the message.
inline CLI::Validator digits_validator(const std::string& kind, bool zero_ok, const std::string& name) {
  return CLI::Validator(
      [kind, zero_ok](std::string& s) {
        const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
        const size_t lead = s.find_first_not_of('0');
        if (!digits || (!zero_ok && lead == std::string::npos)) return "must be " + kind + ", not '" + s + "'";
        return lead != std::string::npos && s.size() - lead > 18 ? "must be below 1e18, not '" + s + "'"
                                                                 : std::string();
      },
      name);
}
// Counts (0 below means "not given", so an explicit 0 is an error, not ignored).
inline const CLI::Validator kPositive = digits_validator("a positive integer", false, "POSITIVE");
// Seeds.
inline const CLI::Validator kWhole = digits_validator("a whole number >= 0", true, "WHOLE");
// 0-based point indices (--point).
inline const CLI::Validator kIndex = digits_validator("a point index (0, 1, 2, ...)", true, "INDEX");

// A value that must not be empty when the flag is given (--shard '').
inline const CLI::Validator kNonEmpty(
    [](std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); }, "TEXT");

// `--shard auto`: this Slurm array task's shard, i/N with i its place in the
// array (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) and N its tasks
// (SLURM_ARRAY_TASK_COUNT), so one job script serves every task. Read only
// when asked for: a command whose range changed by itself under Slurm would
// surprise. Any other value is returned as given (engine::split_range checks
// it); InputError outside an array task or for an array with gaps or a step.
std::string resolve_shard(const std::string& shard);

// Checks, before any work, that `output` can take the result
// (check_output_path: not empty, a directory or a device; not "-") and is
// none of the files the run reads: -o CONFIG.toml would replace the config
// by the result, -o LOG.h5 the log.
void check_output(const std::string& output, const std::vector<std::string>& inputs);
// The part of check_output that probes the output's directory: one this
// process cannot write (read-only file system, no permission, immutable, a
// path under a file, missing) is refused before any work, with the message
// AtomicFile would give after it ("OUT: cannot create output file: CAUSE").
void check_output_directory(const std::string& output);

// `text` made fit for one line of a message: control characters (a newline
// in an experiment name, a NUL, a carriage return) are written as escapes
// (\n, \x00), and every quoted stretch ('...') longer than 80 characters,
// which is echoed input, is cut to its first 77 and "..."; a message that
// is still longer than 2,000 characters keeps its first 1,000 and its last
// 500. A 1e6-character CSV cell thus never makes a 1 MB line.
std::string one_line(const std::string& text);

// The conventions every command shares (cli_output.cpp):
// - results and summaries go to stdout, diagnostics (progress, notes,
//   warnings, errors) to stderr;
// - -q/--quiet drops summaries, progress and notes (results, warnings and
//   errors stay); -v/--verbose adds notes (threads, wall time);
// - --json FILE writes the command's report as JSON, atomically; --json -
//   writes it to stdout, which then holds only the JSON.
void add_verbosity_flags(CLI::App* cmd);
bool quiet();
bool verbose();
// --json FILE|- on `cmd`, bound to `path` ("" when not given).
CLI::Option* add_json_option(CLI::App* cmd, std::string& path, const std::string& what);
// Before the run: a --json path other than "-" is checked like an output
// (not an input of the run, not a directory); "-" reserves stdout for the
// JSON, so summary() prints nothing there.
void check_json_output(const std::string& path, const std::vector<std::string>& inputs);
// Writes `text` (a JSON document) to stdout ("-") or atomically to `path`;
// nothing for "".
void write_json_text(const std::string& path, const std::string& text);
void write_json(const std::string& path, const nlohmann::json& report);
// A number for JSON: null where it is not finite (JSON has no NaN).
nlohmann::json json_number(double x);
// True when stdout is reserved for JSON (--json -).
bool stdout_is_json();
// A summary line (printf format, newline added) on stdout, unless --json -
// (-q keeps it: it says what was written).
void summary(const char* format, ...) __attribute__((format(printf, 1, 2)));
// Text for stdout (a report, a table), unless --json - (-q keeps results).
void result(const std::string& text);
// Flushes stdout; false when it cannot be written (the first cause is kept
// for finish_stdout).
bool flush_stdout();
// At the end of every run (main): stdout flushed and checked. A result that
// did not reach stdout is an error: "stribeck: error: writing standard
// output: no space left on device", exit 2, unless the run already failed
// (`status` != 0 is returned as it is). A pipe whose reader has gone ends
// quietly with 141, the status of SIGPIPE (ignored by main, so that a
// closed pipe never ends a run halfway through writing a file).
int finish_stdout(int status);
// True when a write to stdout has failed because the reader of its pipe has
// gone (main then ends an error quietly with 141 too).
bool stdout_reader_gone();
// A diagnostic note "stribeck: ..." on stderr, unless -q; note_verbose only
// with -v.
void note(const char* format, ...) __attribute__((format(printf, 1, 2)));
void note_verbose(const char* format, ...) __attribute__((format(printf, 1, 2)));
// A warning "stribeck: warning: ..." on stderr (kept under -q).
void warn(const std::string& text);

// Provenance of this run (version, command line, date, device "cpu") for the
// files a command writes; main() records argv before parsing.
data::Provenance cli_provenance();

// simulate from_fit: prints the probability of stick-slip and the quantiles
// of the draws (fit_draws_output.cpp) and returns them for --json (null
// when the ensemble is not drawn from a fit).
nlohmann::json report_fit_draws(const workloads::SimulateConfig& c, const workloads::EnsembleResult& r,
                                const std::string& output);

}  // namespace stribeck::cli
