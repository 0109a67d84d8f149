// `stribeck merge`: combine the shard files of one sweep, or of one ensemble,
// into one file.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/identification/batch_fit.hpp"
#include "stribeck/workloads/sweep_output.hpp"

namespace stribeck::cli {

void add_merge_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "merge",
      "Merge the shard files (--shard i/N) of one sweep, one simulate ensemble or one identify --batch into one file");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto json = std::make_shared<std::string>();
  cmd->add_option("inputs", *inputs, "Shard files (any order)")->type_name("FILE")->required();
  cmd->add_option("--output,-o", *output, "Merged HDF5 file")->type_name("FILE")->required();
  add_json_option(cmd, *json, "What was merged");
  add_verbosity_flags(cmd);
  cmd->callback([inputs, output, json] {
    // The kind of the first ensemble shard decides; a sweep file among
    // ensemble shards is named as such (other files get the merge's own
    // "not a ... file" message).
    const std::vector<std::string>& in = *inputs;
    for (const auto& f : in) {
      // A FIFO, device or directory is refused before it is opened (opening
      // a FIFO for reading blocks until something writes to it).
      data::check_input_path(f);
      if (::access(f.c_str(), R_OK) != 0) throw data::InputError(f + ": cannot open (no such file, or not readable)");
    }
    check_output(*output, in);
    check_json_output(*json, in);
    if (*json == *output) throw data::InputError(*json + ": given to both --output and --json");
    auto report = [&](const char* kind) {
      write_json(*json, {{"kind", kind}, {"shards", in.size()}, {"inputs", in}, {"output", *output}});
    };
    if (ident::is_batch_fit_file(in[0])) {
      for (const auto& f : in)
        if (!ident::is_batch_fit_file(f))
          throw data::InputError(f + ": not a batch-fit shard file, but " + in[0] +
                                 " is one; merge the shards of one run only");
      ident::merge_batch_fit_files(in, *output, cli_provenance().command_line);
      summary("stribeck merge: %zu batch-fit shards -> %s", in.size(), output->c_str());
      report("batch_fit");
      return;
    }
    size_t ensemble = in.size();
    for (size_t i = 0; i < in.size() && ensemble == in.size(); ++i)
      if (workloads::is_ensemble_file(in[i])) ensemble = i;
    if (ensemble < in.size()) {
      for (const auto& f : in)
        if (data::is_sweep_file(f))
          throw data::InputError(f + ": a sweep file, but " + in[ensemble] +
                                 " is an ensemble shard; merge the shards of one run only");
      workloads::merge_ensemble_files(in, *output, cli_provenance().command_line);
      summary("stribeck merge: %zu ensemble shards -> %s", in.size(), output->c_str());
      report("ensemble");
      return;
    }
    workloads::merge_sweep_files(in, *output, cli_provenance().command_line);
    summary("stribeck merge: %zu shards -> %s", in.size(), output->c_str());
    report("sweep");
  });
}

}  // namespace stribeck::cli
