// `stribeck export LOG --format csv -o OUT`: the way back to text.
#include <sys/stat.h>

#include <cstdio>

#include "commands.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/text_export.hpp"

namespace stribeck::cli {
namespace {

struct ExportArgs {
  std::string input, output, format = "csv", experiment;
};

void make_output_dir(const std::string& dir) {
  ::mkdir(dir.c_str(), 0777);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(dir + ": not a directory (the log holds several experiments)");
}

std::string experiment_path(const std::string& dir, std::string name, char delim) {
  for (char& c : name)
    if (c == '/') c = '_';
  return dir + "/" + name + (delim == ',' ? ".csv" : ".tsv");
}

void run(const ExportArgs& a) {
  const char delim = a.format == "tsv" ? '\t' : ',';  // --format is checked by IsMember
  if (is_hdf5_log(a.input)) {
    // HDF5 logs stream: one block of rows in memory whatever their length.
    const auto names = list_log_experiments(a.input);
    if (!a.experiment.empty() || names.size() == 1) {
      if (a.output != "-") check_output(a.output, {a.input});
      const LogBlockReader log(a.input, a.experiment);
      write_csv(a.output, log, delim);
      if (a.output != "-")
        summary("stribeck export: %s, %zu samples -> %s", one_line("'" + log.experiment() + "'").c_str(), log.length(),
                a.output.c_str());
      return;
    }
    if (a.output == "-")
      throw InputError(a.input + ": holds several experiments; give a directory with -o or pick one with --experiment");
    make_output_dir(a.output);
    for (const auto& name : names) {
      const LogBlockReader log(a.input, name);
      const std::string path = experiment_path(a.output, name, delim);
      write_csv(path, log, delim);
      summary("stribeck export: %s, %zu samples -> %s", one_line("'" + name + "'").c_str(), log.length(), path.c_str());
    }
    return;
  }
  const auto exps = read_any_log(a.input);
  if (!a.experiment.empty() || exps.size() == 1) {
    if (a.output != "-") check_output(a.output, {a.input});
    const Experiment& e = select_experiment(exps, a.experiment, a.input);
    write_csv(a.output, e, delim);
    if (a.output != "-")
      summary("stribeck export: %s, %zu samples -> %s", one_line("'" + e.name + "'").c_str(), e.size(),
              a.output.c_str());
    return;
  }
  // Several experiments: OUTPUT is a directory with one file per experiment.
  if (a.output == "-")
    throw InputError(a.input + ": holds several experiments; give a directory with -o or pick one with --experiment");
  make_output_dir(a.output);
  for (const auto& e : exps) {
    const std::string path = experiment_path(a.output, e.name, delim);
    write_csv(path, e, delim);
    summary("stribeck export: %s, %zu samples -> %s", one_line("'" + e.name + "'").c_str(), e.size(), path.c_str());
  }
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "Write the experiments of a log as CSV (header: channel [unit], SI values)");
  auto a = std::make_shared<ExportArgs>();
  cmd->add_option("log", a->input, "Log to read (HDF5, or anything `import` reads)")->required();
  cmd->add_option("--output,-o", a->output,
                  "CSV file ('-' for stdout); a directory when the log holds several experiments")
      ->required();
  cmd->add_option("--format,-f", a->format, "csv (default) or tsv")->check(CLI::IsMember({"csv", "tsv"}));
  cmd->add_option("--experiment,-e", a->experiment, "Export only this experiment");
  add_verbosity_flags(cmd);
  cmd->callback([a] { run(*a); });
}

}  // namespace stribeck::cli
