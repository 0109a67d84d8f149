// `stribeck export LOG --format csv -o OUT`: the way back to text.
#include <sys/stat.h>

#include <cstdio>

#include "commands.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/text_export.hpp"

namespace stribeck::cli {
namespace {

struct ExportArgs {
  std::string input, output, format = "csv", experiment;
};

void run(const ExportArgs& a) {
  char delim = ',';
  if (a.format == "tsv") delim = '\t';
  else if (a.format != "csv") throw InputError("--format '" + a.format + "': choose csv or tsv");
  const auto exps = read_any_log(a.input);
  if (!a.experiment.empty() || exps.size() == 1) {
    if (a.output != "-") check_output(a.output, {a.input});
    const Experiment& e = select_experiment(exps, a.experiment, a.input);
    write_csv(a.output, e, delim);
    if (a.output != "-") std::fprintf(stderr, "stribeck export: '%s', %zu samples -> %s\n", one_line(e.name).c_str(), e.size(), a.output.c_str());
    return;
  }
  // Several experiments: OUTPUT is a directory with one file per experiment.
  if (a.output == "-") throw InputError(a.input + ": holds several experiments; give a directory with -o or pick one with --experiment");
  ::mkdir(a.output.c_str(), 0777);
  struct stat st {};
  if (::stat(a.output.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(a.output + ": not a directory (the log holds several experiments)");
  for (const auto& e : exps) {
    std::string file = e.name;
    for (char& c : file)
      if (c == '/') c = '_';
    const std::string path = a.output + "/" + file + (delim == ',' ? ".csv" : ".tsv");
    write_csv(path, e, delim);
    std::fprintf(stderr, "stribeck export: '%s', %zu samples -> %s\n", one_line(e.name).c_str(), e.size(), path.c_str());
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
  cmd->add_option("--format,-f", a->format, "csv (default) or tsv");
  cmd->add_option("--experiment,-e", a->experiment, "Export only this experiment");
  cmd->callback([a] { run(*a); });
}

}  // namespace stribeck::cli
