// `stribeck export LOG --format csv -o OUT`: the way back to text.
#include <sys/stat.h>
#include <unistd.h>  // rmdir

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/paths.hpp"
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

// Returns whether it made the directory (removed again when the export fails).
bool make_output_dir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) == 0) return true;
  const int err = errno;
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return false;
  if (err != EEXIST)  // a missing parent, a directory we may not write
    throw data::InputError(dir + ": cannot make the directory for the experiments' files: " + std::strerror(err));
  throw data::InputError(dir + ": not a directory (the log holds several experiments)");
}

std::string experiment_path(const std::string& dir, std::string name, char delim) {
  for (char& c : name)
    if (c == '/') c = '_';
  return dir + "/" + name + (delim == ',' ? ".csv" : ".tsv");
}

// The file of each experiment, before anything is written: two names that
// map to one file ("a/b" and "a_b") are refused.
std::vector<std::string> experiment_paths(const ExportArgs& a, const std::vector<std::string>& names, char delim) {
  std::map<std::string, std::string> owner;  // file -> experiment
  std::vector<std::string> paths;
  for (const auto& name : names) {
    std::string path = experiment_path(a.output, name, delim);
    // A name too long for a file would fail only at the last rename, after
    // the others were written: refused here, before the first write.
    const size_t base = path.size() - a.output.size() - 1;
    if (base > data::kFileNameMax)
      throw data::InputError(a.input + ": experiment " + one_line("'" + name + "'") + " is too long for a file name (" +
                             std::to_string(base) + " bytes, at most " + std::to_string(data::kFileNameMax) +
                             "); export it with --experiment and -o FILE");
    const auto [at, fresh] = owner.emplace(path, name);
    if (!fresh)
      throw data::InputError(a.input + ": experiments " + one_line("'" + at->second + "'") + " and " +
                             one_line("'" + name + "'") + " would both be written to " + path +
                             "; export one of them with --experiment and -o FILE");
    paths.push_back(std::move(path));
  }
  return paths;
}

// Several experiments: OUTPUT is a directory with one file per experiment,
// all or none: each is written to its temporary, and they are renamed only
// when all are complete (a full disk at the last leaves none of them).
template <class Write>
void export_all(const ExportArgs& a, const std::vector<std::string>& names, char delim, const Write& write) {
  if (a.output == "-")
    throw data::InputError(a.input +
                           ": holds several experiments; give a directory with -o or pick one with --experiment");
  const std::vector<std::string> paths = experiment_paths(a, names, delim);
  const bool made = make_output_dir(a.output);
  try {
    for (const auto& path : paths) check_output(path, {a.input});
    // Each CSV with its sidecar (OUT.csv.json): all complete before any is renamed.
    std::vector<std::unique_ptr<data::AtomicFile>> files;
    std::vector<size_t> samples;
    for (size_t i = 0; i < names.size(); ++i) {
      files.push_back(std::make_unique<data::AtomicFile>(paths[i]));
      files.push_back(std::make_unique<data::AtomicFile>(data::csv_sidecar_path(paths[i])));
      samples.push_back(write(*files[files.size() - 2], *files.back(), i));
    }
    for (auto& f : files) f->commit();
    for (size_t i = 0; i < names.size(); ++i)
      summary("stribeck export: %s, %zu samples -> %s", one_line("'" + names[i] + "'").c_str(), samples[i],
              paths[i].c_str());
  } catch (...) {
    if (made) ::rmdir(a.output.c_str());  // empty again: the temporaries are gone
    throw;
  }
}

void run(const ExportArgs& a) {
  const char delim = a.format == "tsv" ? '\t' : ',';               // --format is checked by IsMember
  const std::string command_line = cli_provenance().command_line;  // for the sidecars
  if (data::is_hdf5_log(a.input)) {
    // HDF5 logs stream: one block of rows in memory whatever their length.
    const auto names = data::list_log_experiments(a.input);
    if (!a.experiment.empty() || names.size() == 1) {
      if (a.output != "-") check_output(a.output, {a.input});
      const data::LogBlockReader log(a.input, a.experiment);
      data::write_csv(a.output, log, delim, command_line);
      if (a.output != "-")
        summary("stribeck export: %s, %zu samples -> %s", one_line("'" + log.experiment() + "'").c_str(), log.length(),
                a.output.c_str());
      return;
    }
    export_all(a, names, delim, [&](data::AtomicFile& out, data::AtomicFile& sidecar, size_t i) {
      // Closed before the next is opened: one experiment's reader at a time.
      const data::LogBlockReader log(a.input, names[i]);
      data::write_csv(out, sidecar, log, delim, command_line);
      return log.length();
    });
    return;
  }
  const auto exps = data::read_any_log(a.input);
  if (!a.experiment.empty() || exps.size() == 1) {
    if (a.output != "-") check_output(a.output, {a.input});
    const data::Experiment& e = data::select_experiment(exps, a.experiment, a.input);
    data::write_csv(a.output, e, delim, command_line);
    if (a.output != "-")
      summary("stribeck export: %s, %zu samples -> %s", one_line("'" + e.name + "'").c_str(), e.size(),
              a.output.c_str());
    return;
  }
  std::vector<std::string> names;
  for (const auto& e : exps) names.push_back(e.name);
  export_all(a, names, delim, [&](data::AtomicFile& out, data::AtomicFile& sidecar, size_t i) {
    data::write_csv(out, sidecar, exps[i], delim, command_line);
    return exps[i].size();
  });
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("export", "Write the experiments of a log as CSV (header: channel [unit], SI values)");
  auto a = std::make_shared<ExportArgs>();
  cmd->add_option("log", a->input, "Log to read (HDF5, or anything `import` reads)")->type_name("FILE")->required();
  cmd->add_option("--output,-o", a->output,
                  "CSV file ('-' for stdout); a directory when the log holds several experiments")
      ->type_name("FILE|DIR|-")
      ->required();
  cmd->add_option("--format,-f", a->format, "csv (default) or tsv")->check(CLI::IsMember({"csv", "tsv"}));
  cmd->add_option("--experiment,-e", a->experiment, "Export only this experiment")->type_name("NAME");
  add_verbosity_flags(cmd);
  cmd->callback([a] { run(*a); });
}

}  // namespace stribeck::cli
