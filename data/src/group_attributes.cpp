// Attributes shared by every group the toolkit writes (group_attributes.hpp).
#include "group_attributes.hpp"

#include <optional>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"

namespace stribeck::data::detail {
namespace {
// Names of the experiment attributes, stored by write_log as one attribute so
// that reading never has to list an object's attributes: libhdf5 1.10
// segfaults (H5A__close in H5A__attr_release_table) when listing a corrupted
// attribute table, while opening attributes by name takes another path. In
// files from other writers only the schema's attribute names are looked up.
constexpr const char* kAttributeIndex = "stribeck_attribute_names";

// "0", "42", "-7": what std::to_string writes for an integer, and reads back
// from an int64 attribute as the same text.
bool canonical_integer(const std::string& v) {
  const size_t digits = v.size() - (!v.empty() && v[0] == '-');
  if (digits == 0 || digits > 18) return false;
  const size_t first = v.size() - digits;
  if (v[first] == '0' && (digits > 1 || first > 0)) return false;  // "007", "-0"
  for (size_t i = first; i < v.size(); ++i)
    if (v[i] < '0' || v[i] > '9') return false;
  return true;
}

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
void write_attributes(hid_t obj, const std::map<std::string, std::string>& attributes, const std::string& where,
                      bool typed_integers) {
  std::string index;
  for (const auto& [k, v] : attributes) {
    if (k == kAttributeIndex || k.find('\n') != std::string::npos)
      throw InputError(where + ": invalid attribute name '" + k + "'");
    if (typed_integers && canonical_integer(v)) h5::write_int_attribute(obj, k, std::stoll(v), where);
    else h5::write_string_attribute(obj, k, v, where);
    index += (index.empty() ? "" : "\n") + k;
  }
  h5::write_string_attribute(obj, kAttributeIndex, index, where);
}

void write_attributes(hid_t obj, const std::map<std::string, std::string>& attributes,
                      const std::map<std::string, double>& numbers, const std::map<std::string, bool>& flags,
                      const std::string& where) {
  std::string index;
  auto name = [&](const std::string& k) {
    if (k == kAttributeIndex || k.find('\n') != std::string::npos ||
        attributes.count(k) + numbers.count(k) + flags.count(k) > 1)
      throw InputError(where + ": invalid attribute name '" + k + "'");
    index += (index.empty() ? "" : "\n") + k;
  };
  for (const auto& [k, v] : attributes) name(k), h5::write_string_attribute(obj, k, v, where);
  for (const auto& [k, v] : numbers) name(k), h5::write_double_attribute(obj, k, v, where);
  for (const auto& [k, v] : flags) name(k), h5::write_flag_attribute(obj, k, v, where);
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

void name_result_dimensions(hid_t g, const std::vector<std::string>& names, const std::string& where) {
  std::map<hsize_t, h5::Dataset> samples;  // bare `sample` dimensions by length
  std::optional<hsize_t> time_rows;
  if (h5::has_child(g, "time")) {
    const h5::Dataset t = h5::open_dataset(g, "time", where);
    if (const auto info = h5::dataset_info(t, where); info.dims.size() == 1) time_rows = info.dims[0];
  }
  for (const auto& name : names) {
    const std::string at = where + ": dataset '" + name + "'";
    const h5::Dataset ds = h5::open_dataset(g, name, at);
    if (h5::has_attribute(ds.id(), "description") && !h5::has_attribute(ds.id(), "long_name"))
      h5::write_string_attribute(ds.id(), "long_name", h5::read_string_attribute(ds.id(), "description", at), at);
    if (name == "time") continue;
    const auto dims = h5::dataset_info(ds, at).dims;
    if (dims.size() == 1 && time_rows == dims[0]) {
      h5::attach_scale(ds, h5::open_dataset(g, "time", at), "time", at);
    } else if (dims.size() == 1) {
      auto it = samples.find(dims[0]);
      if (it == samples.end()) {
        std::string dim = samples.empty() ? "sample" : "sample_" + std::to_string(dims[0]);
        while (h5::has_child(g, dim)) dim += "_";  // a result of that name
        it = samples.emplace(dims[0], h5::create_bare_dimension(g, dim, dims[0], at)).first;
      }
      h5::attach_scale(ds, it->second, "", at);
    } else {
      for (unsigned k = 0; k < dims.size(); ++k)
        h5::attach_scale(ds, h5::create_bare_dimension(g, name + "_dim" + std::to_string(k), dims[k], at), "", at, k);
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

}  // namespace stribeck::data::detail
