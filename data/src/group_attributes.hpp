#pragma once
// What every group the toolkit writes carries: free-form string attributes
// with their index, the provenance, and the marks of a results group. Shared
// by the log writer (log.cpp) and the streamed results writer
// (results_stream.cpp) so both write groups that read_results reads alike.
#include <hdf5.h>

#include <map>
#include <string>
#include <vector>

#include "stribeck/data/log.hpp"

namespace stribeck::data::detail {

// Root attribute `schema` of every file the toolkit creates.
constexpr const char* kSchemaVersion = "stribeck-log/1";

// Whether the group carries kind = "results" (skipped when reading experiments).
bool is_results_group(hid_t g);

// Writes free-form string attributes plus the index read_attributes reads
// them back by (names may not contain the index's separator, '\n').
// `typed_integers`: values written in canonical decimal integer form ("0",
// "42", "-7"; no sign '+', no leading zero, at most 18 digits) are stored
// as int64, as the results format's counts are (docs/data-format.md); they
// read back as the same text. Logs keep their free-form metadata as text.
void write_attributes(hid_t obj, const std::map<std::string, std::string>& attributes, const std::string& where,
                      bool typed_integers = false);
// The same with typed attributes beside the strings: `numbers` as float64,
// `flags` as int8 0/1 (every name once across the three maps); all are in
// the index, so read_attributes returns them as text ("0.795328", "1").
void write_attributes(hid_t obj, const std::map<std::string, std::string>& attributes,
                      const std::map<std::string, double>& numbers, const std::map<std::string, bool>& flags,
                      const std::string& where);
void read_attributes(hid_t obj, std::map<std::string, std::string>& out, const std::string& where);

// Names every axis of the results datasets `names` in group `g`, so that
// netCDF readers (xarray's h5netcdf engine) open the group: a 1-D dataset
// gets the group's own `time` dataset as its scale when that has the same
// length, else the bare dimension `sample` (`sample_<n>` for a second
// length); an axis k of an N-D dataset gets `<dataset>_dim<k>`. Bare
// dimensions hold no data (hdf5.hpp, create_bare_dimension). Every
// dataset also gets `long_name` (CF) from its `description`.
void name_result_dimensions(hid_t g, const std::vector<std::string>& names, const std::string& where);

// toolkit_version, command_line, config, date, device (defaults filled in).
void write_provenance(hid_t obj, const Provenance& p, const std::string& where);

}  // namespace stribeck::data::detail
