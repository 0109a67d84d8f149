// `stribeck merge`: combine shard files of one sweep into one file.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "stribeck/host/sweep_output.hpp"

namespace stribeck::cli {

void add_merge_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("merge", "Merge the shard files of one sweep (--shard i/N) into one file");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  cmd->add_option("inputs", *inputs, "Shard files (any order)")->required();
  cmd->add_option("--output,-o", *output, "Merged HDF5 file")->required();
  cmd->callback([inputs, output] {
    merge_sweep_files(*inputs, *output);
    std::printf("stribeck merge: %zu shards -> %s\n", inputs->size(), output->c_str());
  });
}

}  // namespace stribeck::cli
