#pragma once
// What every group the toolkit writes carries: free-form string attributes
// with their index, the provenance, and the marks of a results group. Shared
// by the log writer (log.cpp) and the streamed results writer
// (results_stream.cpp) so both write groups that read_results reads alike.
#include <hdf5.h>

#include <map>
#include <string>

#include "stribeck/data/log.hpp"

namespace stribeck::detail {

// Root attribute `schema` of every file the toolkit creates.
constexpr const char* kSchemaVersion = "stribeck-log/1";

// Whether the group carries kind = "results" (skipped when reading experiments).
bool is_results_group(hid_t g);

// Writes free-form string attributes plus the index read_attributes reads
// them back by (names may not contain the index's separator, '\n').
void write_attributes(hid_t obj, const std::map<std::string, std::string>& attributes, const std::string& where);
void read_attributes(hid_t obj, std::map<std::string, std::string>& out, const std::string& where);

// toolkit_version, command_line, config, date, device (defaults filled in).
void write_provenance(hid_t obj, const Provenance& p, const std::string& where);

}  // namespace stribeck::detail
