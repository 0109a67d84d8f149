// Attributes shared by every group the toolkit writes (group_attributes.hpp).
#include "group_attributes.hpp"

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"

namespace stribeck::detail {
namespace {
// Names of the experiment attributes, stored by write_log as one attribute so
// that reading never has to list an object's attributes: libhdf5 1.10
// segfaults (H5A__close in H5A__attr_release_table) when listing a corrupted
// attribute table, while opening attributes by name takes another path. In
// files from other writers only the schema's attribute names are looked up.
constexpr const char* kAttributeIndex = "stribeck_attribute_names";

}  // namespace

bool is_results_group(hid_t g) {
  if (!h5::has_attribute(g, "kind")) return false;
  try {
    return h5::read_string_attribute(g, "kind", "") == "results";
  } catch (const InputError&) {
    return false;
  }
}

// Writes free-form string attributes plus the index read_attributes reads
// them back by (names may not contain the index's separator, '\n').
void write_attributes(hid_t obj, const std::map<std::string, std::string>& attributes, const std::string& where) {
  std::string index;
  for (const auto& [k, v] : attributes) {
    if (k == kAttributeIndex || k.find('\n') != std::string::npos)
      throw InputError(where + ": invalid attribute name '" + k + "'");
    h5::write_string_attribute(obj, k, v, where);
    index += (index.empty() ? "" : "\n") + k;
  }
  h5::write_string_attribute(obj, kAttributeIndex, index, where);
}

void read_attributes(hid_t obj, std::map<std::string, std::string>& out, const std::string& where) {
  std::vector<std::string> names;
  if (h5::has_attribute(obj, kAttributeIndex)) {
    const std::string index = h5::read_string_attribute(obj, kAttributeIndex, where);
    size_t pos = 0;
    while (pos < index.size()) {
      size_t end = index.find('\n', pos);
      if (end == std::string::npos) end = index.size();
      if (end > pos) names.push_back(index.substr(pos, end - pos));
      pos = end + 1;
    }
  } else {
    // Files not written by Stribeck: the schema's attributes, by name.
    names = {"description",      "rig",         "specimen", "seal_id", "date", "motion", "pressure_reference",
             "ambient_pressure", "source_file", "operator"};
  }
  for (const auto& a : names) {
    if (a == kAttributeIndex || !h5::has_attribute(obj, a)) continue;
    try {
      out[a] = h5::read_string_attribute(obj, a, where);
    } catch (const InputError&) {
      // Free-form metadata that is not a single string or number (arrays,
      // references) is not part of the schema; it is left in the file.
    }
  }
}

void write_provenance(hid_t obj, const Provenance& p, const std::string& where) {
  h5::write_string_attribute(obj, "toolkit_version", p.toolkit_version.empty() ? STRIBECK_VERSION : p.toolkit_version,
                             where);
  h5::write_string_attribute(obj, "command_line", p.command_line, where);
  h5::write_string_attribute(obj, "config", p.config, where);
  h5::write_string_attribute(obj, "date", p.date.empty() ? utc_now() : p.date, where);
  h5::write_string_attribute(obj, "device", p.device.empty() ? "cpu" : p.device, where);
}

}  // namespace stribeck::detail
