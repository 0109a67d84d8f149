#pragma once
// What read_log and the block reader (log_blocks.cpp) share, so both find the
// same experiments and convert channels with the same arithmetic.
#include <hdf5.h>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/units.hpp"

namespace stribeck::data::detail {

// Visits every experiment group of a log in read_log's order: the root (if
// it holds datasets; `prefix` "") and every group below that holds datasets
// (prefix: its path without the leading '/'), skipping results groups.
using ExperimentVisitor =
    std::function<void(hid_t group, const std::vector<h5::Child>& kids, const std::string& prefix)>;
void for_each_experiment_group(hid_t root, const std::string& path, const ExperimentVisitor& visit);

// Experiment-level facts the conversion needs, from the group's attributes.
struct PressureReference {
  double ambient = 101325.0;
  bool absolute = false;  // pressure_reference = "absolute"
};
PressureReference pressure_reference(const std::map<std::string, std::string>& attributes, const std::string& where);
// read_log's attributes after conversion (an absolute log reads as gauge).
void mark_gauge(std::map<std::string, std::string>& attributes, const PressureReference& ref);

// How one channel's stored values become SI: x -> factor * x + offset, then
// minus ambient where an absolute log stores a gauge-less pressure unit.
struct ChannelConversion : SiConversion {
  std::string si;  // unit after conversion
};
// Checks the unit against the channel's dimension (InputError naming `at`).
ChannelConversion channel_conversion(const std::string& channel, const std::string& unit, bool rotational,
                                     const PressureReference& ref, const std::string& at);

// The channel attributes a log carries from import (--gain), read back so
// that a re-import, export or eval keeps the provenance (read_log and the
// block reader read them, write_log and the block writer write them).
constexpr const char* kChannelAttributeKeys[] = {"gain", "gain_unit", "offset", "raw_unit", "scaling"};
std::map<std::string, std::string> read_channel_attributes(hid_t dataset, const std::string& at);

// Checks shape (1-D), class (float) and the `units` attribute of a channel
// dataset and returns its unit and length.
std::string check_channel_dataset(const h5::Dataset& ds, const std::string& at, hsize_t& length);

}  // namespace stribeck::data::detail
