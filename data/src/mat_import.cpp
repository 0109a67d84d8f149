// MATLAB v7.3 .mat files: HDF5 with a 512-byte user block; every variable is
// a dataset (numeric, char, logical) or a group (struct) carrying the
// attribute MATLAB_class. Arrays are stored column-major, so a MATLAB R×C
// matrix appears in HDF5 with dims {C, R}.
#include <cstring>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck {
namespace {

bool is_numeric_class(const std::string& c) {
  static const char* kNumeric[] = {"double", "single", "int8",  "uint8",  "int16", "uint16",
                                   "int32",  "uint32", "int64", "uint64"};
  for (const char* n : kNumeric)
    if (c == n) return true;
  return false;
}

std::string matlab_class(hid_t obj, const std::string& where) {
  if (!h5::has_attribute(obj, "MATLAB_class")) return "";
  return h5::read_string_attribute(obj, "MATLAB_class", where);
}

[[noreturn]] void opaque(const std::string& where, const std::string& cls) {
  throw InputError(where + ": is a MATLAB " + cls +
                   " object, which cannot be read outside MATLAB; save plain arrays instead, e.g. "
                   "ts = logsout.get('force').Values; force = ts.Data; time = ts.Time; "
                   "save(FILE, 'time', 'force', '-v7.3')");
}

// Adds the numeric variable `ds` as one column (vector), several columns
// (matrix: name_0, name_1, ...) or an attribute (scalar).
void add_variable(hid_t loc, const std::string& var, const std::string& where, RawColumns& raw,
                  std::map<std::string, std::string>& attributes) {
  h5::Dataset ds = h5::open_dataset(loc, var, where);
  const std::string cls = matlab_class(ds.id(), where);
  if (cls == "char" || cls == "logical" || cls == "cell") return;  // not signals
  if (!cls.empty() && !is_numeric_class(cls)) opaque(where, cls);
  if (h5::has_attribute(ds.id(), "MATLAB_empty")) return;
  const h5::DatasetInfo info = h5::dataset_info(ds, where);
  if (info.type_class != H5T_FLOAT && info.type_class != H5T_INTEGER)
    throw InputError(where + ": is " + info.type_name() + " (complex or compound data), expected real numbers");
  if (info.dims.size() > 2) throw InputError(where + ": has " + std::to_string(info.dims.size()) + " dimensions, expected a vector or matrix");
  hsize_t cols = info.dims.size() == 2 ? info.dims[0] : 1;
  hsize_t rows = info.dims.empty() ? 1 : info.dims.back();
  if (cols != 0 && rows > (hsize_t(1) << 32) / cols) throw InputError(where + ": is too large");
  std::vector<double> v(static_cast<size_t>(rows * cols));
  if (!v.empty() && H5Dread(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
    h5::fail(where, "cannot read data (truncated or corrupt file?)");
  if (rows * cols == 1) {
    attributes[var] = format_number(v[0]);
    return;
  }
  if (rows == 1 || cols == 1) {  // row or column vector
    raw.names.push_back(var);
    raw.units.emplace_back();
    raw.values.push_back(std::move(v));
    return;
  }
  for (hsize_t c = 0; c < cols; ++c) {
    raw.names.push_back(var + "_" + std::to_string(c));
    raw.units.emplace_back();
    raw.values.emplace_back(v.begin() + static_cast<long>(c * rows), v.begin() + static_cast<long>((c + 1) * rows));
  }
}

Experiment finish(RawColumns& raw, std::map<std::string, std::string>& attrs, const ReadOptions& o,
                  const std::string& path, const std::string& name) {
  // Variables of different lengths cannot be channels of one experiment.
  for (size_t i = 1; i < raw.values.size(); ++i)
    if (raw.values[i].size() != raw.values[0].size())
      throw InputError(path + ": experiment '" + name + "': variable '" + raw.names[i] + "' has " +
                       std::to_string(raw.values[i].size()) + " samples, '" + raw.names[0] + "' has " +
                       std::to_string(raw.values[0].size()));
  Experiment e = columns_to_experiment(raw, o, path, name);
  for (auto& [k, v] : attrs) e.attributes.emplace(k, v);
  return e;
}

}  // namespace

std::vector<Experiment> read_mat_log(const std::string& path, const ReadOptions& o) {
  h5::File f = h5::open_file(path);
  std::vector<Experiment> out;
  RawColumns root;
  std::map<std::string, std::string> root_attrs;
  std::vector<std::string> structs;
  for (const auto& kid : h5::children(f.id())) {
    if (kid.name.empty() || kid.name[0] == '#') continue;  // #refs#, #subsystem#
    const std::string where = path + ": variable '" + kid.name + "'";
    if (kid.kind == h5::Kind::kDataset) {
      add_variable(f.id(), kid.name, where, root, root_attrs);
    } else if (kid.kind == h5::Kind::kGroup) {
      h5::Group g = h5::open_group(f.id(), kid.name, where);
      const std::string cls = matlab_class(g.id(), where);
      if (cls != "struct") opaque(where, cls.empty() ? "unknown" : cls);
      structs.push_back(kid.name);
    }
  }
  const bool single = structs.empty() || root.values.empty();
  auto name_of = [&](const std::string& n) { return single && !o.name.empty() ? o.name : n; };
  if (!root.values.empty()) out.push_back(finish(root, root_attrs, o, path, name_of(file_stem(path))));
  for (const auto& s : structs) {
    const std::string where = path + ": variable '" + s + "'";
    h5::Group g = h5::open_group(f.id(), s, where);
    RawColumns raw;
    std::map<std::string, std::string> attrs;
    for (const auto& kid : h5::children(g.id()))
      if (kid.kind == h5::Kind::kDataset)
        add_variable(g.id(), kid.name, where + ": field '" + kid.name + "'", raw, attrs);
    if (raw.values.empty()) continue;
    out.push_back(finish(raw, attrs, o, path, structs.size() == 1 ? name_of(s) : s));
  }
  if (out.empty()) throw InputError(path + ": no numeric vectors or structs of vectors in this .mat file");
  return out;
}

}  // namespace stribeck
