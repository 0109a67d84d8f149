#pragma once
// The sweep engine's side of the sweep file (data/sweep_file.hpp): what goes
// into its metadata, and merging shard files.
#include <string>
#include <vector>

#include "stribeck/data/sweep_file.hpp"
#include "stribeck/host/sweep.hpp"

namespace stribeck {

SweepMeta make_sweep_meta(const SweepPlan& plan, const SweepConfig& config, const std::string& device,
                          Precision precision);

// `stribeck merge`: shard files of one sweep -> one file equal to a single run.
void merge_sweep_files(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace stribeck
