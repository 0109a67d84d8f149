// MATLAB v7.3 .mat files: HDF5 with a 512-byte user block; every variable is
// a dataset (numeric, char, logical) or a group (struct) carrying the
// attribute MATLAB_class. Arrays are stored column-major, so a MATLAB R×C
// matrix appears in HDF5 with dims {C, R}. A struct array is a group whose
// fields are datasets of object references, one per element, pointing to the
// elements' values in the group "#refs#".
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <memory>

#ifdef STRIBECK_HAVE_MATIO
#include <matio.h>
#endif

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data {
namespace {

bool is_numeric_class(const std::string& c) {
  static const char* kNumeric[] = {"double", "single", "int8",   "uint8", "int16",
                                   "uint16", "int32",  "uint32", "int64", "uint64"};
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

// One experiment's variables as found, before finish() checks and maps them.
struct Part {
  std::string name;
  RawColumns raw;
  std::map<std::string, std::string> attributes;
};

// Bytes of values (as stored) the variables of the v7.3 file being read may
// still claim: the file's size times deflate's largest ratio (about 1032:1),
// plus 64 MiB. Each variable passes check_stored_size on its own, but a
// damaged file can make many variables (struct-array references to one
// dataset, say) claim the same stored bytes again and again: found by the
// fuzz_mat campaign as allocations of 4 GB and more from a 5 KB file. Set by
// read_mat_log.
thread_local std::uint64_t g_v73_bytes_left = ~std::uint64_t(0);

// Adds the numeric dataset `ds`, named `var`, as one column (vector), several
// columns (matrix: var_0, var_1, ...) or an attribute (scalar).
// Columns of one matrix read as channels, at most.
constexpr hsize_t kMaxMatrixColumns = 4096;

void add_dataset(const h5::Dataset& ds, const std::string& var, const std::string& where, RawColumns& raw,
                 std::map<std::string, std::string>& attributes) {
  // An empty value of any class holds no samples; an empty struct (array)
  // can be stored as such a dataset of class "struct", no opaque object.
  if (h5::has_attribute(ds.id(), "MATLAB_empty")) return;
  const std::string cls = matlab_class(ds.id(), where);
  if (cls == "char" || cls == "logical" || cls == "cell") return;  // not signals
  if (!cls.empty() && !is_numeric_class(cls)) opaque(where, cls);
  const h5::DatasetInfo info = h5::dataset_info(ds, where);
  if (info.type_class != H5T_FLOAT && info.type_class != H5T_INTEGER)
    throw InputError(where + ": is " + info.type_name() + " (complex or compound data), expected real numbers");
  h5::check_element_size(info, where);
  if (info.dims.size() > 2)
    throw InputError(where + ": has " + std::to_string(info.dims.size()) + " dimensions, expected a vector or matrix");
  hsize_t cols = info.dims.size() == 2 ? info.dims[0] : 1;
  hsize_t rows = info.dims.empty() ? 1 : info.dims.back();
  if (cols != 0 && rows > (hsize_t(1) << 32) / cols) throw InputError(where + ": is too large");
  // Each column of a matrix becomes a channel: a damaged (or transposed)
  // matrix claiming millions of columns would make as many channels. So
  // would an empty one (0 rows: no values to store, found by fuzz_mat).
  if (rows != 1 && cols > kMaxMatrixColumns)
    throw InputError(where + ": a matrix of " + std::to_string(cols) + " columns; at most " +
                     std::to_string(kMaxMatrixColumns) + " are read as channels (one signal per column)");
  const std::uint64_t bytes = rows * cols * info.type_size;
  if (bytes > g_v73_bytes_left)
    throw InputError(where + ": claims " + std::to_string(rows * cols) +
                     " values, more than the file can hold with the variables before it (corrupt file?)");
  std::vector<double> v = h5::allocate_for<double>(ds, rows * cols, where);
  g_v73_bytes_left -= bytes;
  if (!v.empty()) h5::read_all(ds, H5T_NATIVE_DOUBLE, v.data(), where);
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

void add_variable(hid_t loc, const std::string& var, const std::string& where, RawColumns& raw,
                  std::map<std::string, std::string>& attributes) {
  add_dataset(h5::open_dataset(loc, var, where), var, where, raw, attributes);
}

// A struct array's fields are reference datasets without MATLAB_class; a
// scalar struct's fields hold their values (a cell field is a reference
// dataset too, but is marked MATLAB_class "cell").
bool holds_element_references(const h5::Dataset& field, const std::string& where) {
  return h5::dataset_info(field, where).type_class == H5T_REFERENCE && !h5::has_attribute(field.id(), "MATLAB_class");
}

bool is_struct_array(hid_t group, const std::string& where) {
  for (const auto& kid : h5::children(group, where))
    if (kid.kind == h5::Kind::kDataset) {
      const std::string at = where + ": field '" + kid.name + "'";
      if (holds_element_references(h5::open_dataset(group, kid.name, at), at)) return true;
    }
  return false;
}

// The element references of one struct-array field in MATLAB's linear order:
// HDF5 holds the transposed array, whose row-major order is MATLAB's
// column-major one.
std::vector<hobj_ref_t> element_references(hid_t group, const std::string& field, const std::string& where) {
  const h5::Dataset ds = h5::open_dataset(group, field, where);
  if (!holds_element_references(ds, where))
    throw InputError(where +
                     ": holds values, but the other fields of this struct array hold element references "
                     "(corrupt file?)");
  const h5::Datatype type(H5Dget_type(ds.id()));
  if (H5Tequal(type.id(), H5T_STD_REF_OBJ) <= 0)
    throw InputError(where + ": holds region references, expected object references (corrupt file?)");
  const hsize_t n = h5::element_count(ds, where);
  std::vector<hobj_ref_t> refs = h5::allocate_for<hobj_ref_t>(ds, n, where);
  if (n > 0) h5::read_all(ds, H5T_STD_REF_OBJ, refs.data(), where);
  return refs;
}

// Adds the value `ref` points to as variable `field`. A group there is a
// nested struct, which is not a signal (as in a scalar struct).
void add_referenced(hid_t loc, const hobj_ref_t& ref, const std::string& field, const std::string& where,
                    RawColumns& raw, std::map<std::string, std::string>& attributes) {
  const hid_t id = [&] {
    const h5::Watched watch(loc, [&] { return "following a reference of '" + field + "'"; });
    return H5Rdereference2(loc, H5P_DEFAULT, H5R_OBJECT, &ref);
  }();
  if (id < 0) h5::fail(where, "refers to a missing object (corrupt file?)");
  if (H5Iget_type(id) != H5I_DATASET) {
    h5::Object skipped(id);
    return;
  }
  add_dataset(h5::Dataset(id), field, where, raw, attributes);
}

// Each element with numeric vectors is one part, named var_i with i MATLAB's
// 1-based linear index, so the names stay stable when elements are skipped.
std::vector<Part> read_struct_array(hid_t group, const std::string& var, const std::string& path) {
  const std::string where = path + ": variable '" + var + "'";
  std::vector<std::pair<std::string, std::vector<hobj_ref_t>>> fields;
  for (const auto& kid : h5::children(group, where)) {
    h5::check_child(kid, where + ": field '" + kid.name + "'");
    if (kid.kind != h5::Kind::kDataset) continue;
    fields.emplace_back(kid.name, element_references(group, kid.name, where + ": field '" + kid.name + "'"));
    if (fields.back().second.size() != fields.front().second.size())
      throw InputError(where + ": field '" + kid.name + "' has " + std::to_string(fields.back().second.size()) +
                       " elements, field '" + fields.front().first + "' has " +
                       std::to_string(fields.front().second.size()) + " (corrupt file?)");
  }
  std::vector<Part> parts;
  const size_t numel = fields.empty() ? 0 : fields.front().second.size();
  for (size_t e = 0; e < numel; ++e) {
    const std::string i = std::to_string(e + 1);
    Part p{var + "_" + i, {}, {}};
    for (const auto& [field, refs] : fields)
      add_referenced(group, refs[e], field, path + ": variable '" + var + "(" + i + ")': field '" + field + "'", p.raw,
                     p.attributes);
    if (!p.raw.values.empty()) parts.push_back(std::move(p));
  }
  return parts;
}

// A scalar struct gives one part named after the variable, a struct array
// one per element; none for those without numeric vectors.
std::vector<Part> read_struct(hid_t group, const std::string& var, const std::string& path) {
  const std::string where = path + ": variable '" + var + "'";
  if (is_struct_array(group, where)) return read_struct_array(group, var, path);
  Part p{var, {}, {}};
  for (const auto& kid : h5::children(group, where))
    if (h5::check_child(kid, where + ": field '" + kid.name + "'"), kid.kind == h5::Kind::kDataset)
      add_variable(group, kid.name, where + ": field '" + kid.name + "'", p.raw, p.attributes);
  if (p.raw.values.empty()) return {};
  return {std::move(p)};
}

Experiment finish(RawColumns& raw, std::map<std::string, std::string>& attrs, const ReadOptions& o,
                  const std::string& path, const std::string& name) {
  // Variables of different lengths cannot be channels of one experiment.
  for (size_t i = 1; i < raw.values.size(); ++i)
    if (raw.values[i].size() != raw.values[0].size())
      throw InputError(path + ": experiment '" + name + "': variable '" + raw.names[i] + "' has " +
                       std::to_string(raw.values[i].size()) + " samples, '" + raw.names[0] + "' has " +
                       std::to_string(raw.values[0].size()));
  // --columns applies to every experiment that has all its named sources; one
  // that has none of them (e.g. a second struct with channel-named fields) is
  // read by its names instead; a partial match is an error below.
  ReadOptions mine = o;
  if (!o.columns.empty()) {
    size_t found = 0;
    for (const auto& c : o.columns) {
      const bool index = c.source.find_first_not_of("0123456789") == std::string::npos;
      for (const auto& n : raw.names) found += !index && n == c.source;
    }
    if (found == 0) mine.columns.clear();
  }
  Experiment e = columns_to_experiment(raw, mine, path, name);
  for (auto& [k, v] : attrs) e.attributes.emplace(k, v);
  return e;
}

// --name for the experiments of one file (default names: the file stem for
// the root vectors, the variable for a struct, `<var>_<i>` for struct array
// elements): the only experiment takes the name; of several, the root's
// takes it and every other is prefixed with it (`<name>_runs_1`), so files
// with the same variables still import side by side.
void apply_name(std::vector<Experiment>& out, bool has_root, const std::string& name) {
  if (name.empty()) return;
  for (size_t i = 0; i < out.size(); ++i)
    out[i].name = out.size() == 1 || (has_root && i == 0) ? name : name + "_" + out[i].name;
}

}  // namespace

std::vector<Experiment> read_mat_log(const std::string& path, const ReadOptions& o) {
  h5::File f = h5::open_file(path);
  {
    struct stat st {};
    const std::uint64_t size = ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
    g_v73_bytes_left = size * 1100 + (std::uint64_t(64) << 20);
  }
  std::vector<Experiment> out;
  RawColumns root;
  std::map<std::string, std::string> root_attrs;
  std::vector<std::string> structs;
  for (const auto& kid : h5::children(f.id(), path)) {
    const std::string where = path + ": variable '" + kid.name + "'";
    h5::check_child(kid, where);
    if (kid.name.empty() || kid.name[0] == '#') continue;  // #refs#, #subsystem#
    if (kid.kind == h5::Kind::kDataset) {
      add_variable(f.id(), kid.name, where, root, root_attrs);
    } else if (kid.kind == h5::Kind::kGroup) {
      h5::Group g = h5::open_group(f.id(), kid.name, where);
      const std::string cls = matlab_class(g.id(), where);
      if (cls != "struct") opaque(where, cls.empty() ? "unknown" : cls);
      structs.push_back(kid.name);
    }
  }
  if (!root.values.empty()) out.push_back(finish(root, root_attrs, o, path, file_stem(path)));
  for (const auto& s : structs) {
    h5::Group g = h5::open_group(f.id(), s, path + ": variable '" + s + "'");
    for (Part& p : read_struct(g.id(), s, path)) out.push_back(finish(p.raw, p.attributes, o, path, p.name));
  }
  if (out.empty()) throw InputError(path + ": no numeric vectors or structs of vectors in this .mat file");
  apply_name(out, !root.values.empty(), o.name);
  return out;
}

#ifdef STRIBECK_HAVE_MATIO
namespace {

// Copies a real numeric matio variable into doubles (column-major order, as
// MATLAB stores it). False for classes that are not signals.
// The most bytes a variable of the file being read can hold: its size times
// deflate's largest ratio (about 1032:1). libmatio allocates by the sizes a
// header claims, so a damaged 800-byte file could otherwise make Stribeck
// convert billions of values (found by the fuzzer). Set by read_mat5_log.
thread_local std::uint64_t g_v5_max_bytes = ~std::uint64_t(0);

bool v5_doubles(const matvar_t* v, std::vector<double>& out, const std::string& where) {
  size_t n = 1;
  for (int i = 0; i < v->rank; ++i) {
    if (v->dims[i] != 0 && n > (size_t(1) << 32) / v->dims[i]) throw InputError(where + ": is too large");
    n *= v->dims[i];
  }
  out.clear();
  // [] (e.g. a field a struct-array element leaves unset) has no samples, and
  // libmatio may hold no buffer for it (malloc(0) may return null).
  if (n == 0) return true;
  const size_t elem = Mat_SizeOfClass(v->class_type);
  if (elem != 0 && n * elem / 1100 > g_v5_max_bytes / 1100)
    throw InputError(where + ": claims " + std::to_string(n) + " values, more than the file can hold (corrupt file?)");
  if (v->data == nullptr || elem == 0 || v->nbytes < n * elem)
    throw InputError(where + ": data is missing or shorter than its size says (corrupt file?)");
  out.resize(n);
  auto copy = [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(v->data);
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<double>(p[i]);
  };
  switch (v->class_type) {
    case MAT_C_DOUBLE: copy(double{}); return true;
    case MAT_C_SINGLE: copy(float{}); return true;
    case MAT_C_INT8: copy(std::int8_t{}); return true;
    case MAT_C_UINT8: copy(std::uint8_t{}); return true;
    case MAT_C_INT16: copy(std::int16_t{}); return true;
    case MAT_C_UINT16: copy(std::uint16_t{}); return true;
    case MAT_C_INT32: copy(std::int32_t{}); return true;
    case MAT_C_UINT32: copy(std::uint32_t{}); return true;
    case MAT_C_INT64: copy(std::int64_t{}); return true;
    case MAT_C_UINT64: copy(std::uint64_t{}); return true;
    default: return false;
  }
}

void add_v5_variable(const matvar_t* v, const std::string& var, const std::string& where, RawColumns& raw,
                     std::map<std::string, std::string>& attributes) {
  if (v->class_type == MAT_C_OBJECT || v->class_type == MAT_C_OPAQUE || v->class_type == MAT_C_FUNCTION)
    opaque(where, v->class_type == MAT_C_FUNCTION ? "function handle" : "class");
  if (v->isLogical || v->isComplex || v->class_type == MAT_C_CHAR || v->class_type == MAT_C_CELL ||
      v->class_type == MAT_C_SPARSE || v->class_type == MAT_C_STRUCT || v->class_type == MAT_C_EMPTY)
    return;
  if (v->rank > 2)
    throw InputError(where + ": has " + std::to_string(v->rank) + " dimensions, expected a vector or matrix");
  std::vector<double> d;
  if (!v5_doubles(v, d, where) || d.empty()) return;
  const size_t rows = v->dims[0], cols = v->rank > 1 ? v->dims[1] : 1;
  if (d.size() == 1) {
    attributes[var] = format_number(d[0]);
  } else if (rows == 1 || cols == 1) {
    raw.names.push_back(var);
    raw.units.emplace_back();
    raw.values.push_back(std::move(d));
  } else {
    for (size_t c = 0; c < cols; ++c) {
      raw.names.push_back(var + "_" + std::to_string(c));
      raw.units.emplace_back();
      raw.values.emplace_back(d.begin() + static_cast<long>(c * rows), d.begin() + static_cast<long>((c + 1) * rows));
    }
  }
}

// A scalar struct gives one part named after the variable, a struct array
// one per element, named var_i with i MATLAB's 1-based linear index; none for
// those without numeric vectors.
std::vector<Part> read_v5_struct(matvar_t* v, const std::string& var, const std::string& path) {
  const unsigned nf = Mat_VarGetNumberOfFields(v);
  size_t numel = 1;
  for (int i = 0; i < v->rank; ++i)  // saturates: the size check below then fails
    numel = v->dims[i] == 0 || numel <= SIZE_MAX / v->dims[i] ? numel * v->dims[i] : SIZE_MAX;
  if (nf == 0 || numel == 0) return {};
  // Mat_VarGetStructFieldByIndex trusts the data to hold nf field pointers per
  // element; a corrupt file must not make it read past them.
  if (v->data == nullptr || v->nbytes / sizeof(matvar_t*) / nf < numel)
    throw InputError(path + ": variable '" + var +
                     "': struct data is missing or shorter than its size says (corrupt file?)");
  std::vector<Part> parts;
  for (size_t e = 0; e < numel; ++e) {
    const std::string i = std::to_string(e + 1);
    const std::string where = path + ": variable '" + (numel == 1 ? var : var + "(" + i + ")") + "'";
    Part p{numel == 1 ? var : var + "_" + i, {}, {}};
    for (unsigned k = 0; k < nf; ++k) {
      const matvar_t* field = Mat_VarGetStructFieldByIndex(v, k, e);
      if (!field || !field->name) continue;
      add_v5_variable(field, field->name, where + ": field '" + field->name + "'", p.raw, p.attributes);
    }
    if (!p.raw.values.empty()) parts.push_back(std::move(p));
  }
  return parts;
}

std::uint32_t v5_u32(const unsigned char* b, bool swap) {
  return swap ? (std::uint32_t(b[0]) << 24 | std::uint32_t(b[1]) << 16 | std::uint32_t(b[2]) << 8 | b[3])
              : (std::uint32_t(b[3]) << 24 | std::uint32_t(b[2]) << 16 | std::uint32_t(b[1]) << 8 | b[0]);
}

// The name of a variable from the first bytes of its miMATRIX element (tag,
// then the sub-elements array flags, dimensions, name), or "" when they do
// not hold it (damaged, or cut before the name).
std::string v5_variable_name(const unsigned char* b, size_t n, bool swap) {
  if (n < 8 || v5_u32(b, swap) != 14) return "";  // miMATRIX
  size_t p = 8;
  for (int sub = 0; sub < 3; ++sub) {
    if (n - p < 8) return "";
    const std::uint32_t type = v5_u32(b + p, swap);
    const bool small = (type >> 16) != 0;  // tag and up to 4 bytes of data in 8 bytes
    const size_t size = small ? type >> 16 : v5_u32(b + p + 4, swap);
    const size_t data = p + (small ? 4 : 8);
    if (sub == 2) {
      if ((type & 0xFFFF) != 1 || size == 0 || size > 64 || n - data < size) return "";  // miINT8, MATLAB's 63
      std::string name(reinterpret_cast<const char*>(b + data), size);
      for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return "";
      return name;
    }
    p = small ? p + 8 : data + (size + 7) / 8 * 8;
    if (p > n) return "";
  }
  return "";
}

// libmatio inflates a compressed element (miCOMPRESSED, MATLAB's default
// since v7) without looking at zlib's result: a damaged stream, even one
// whose Adler-32 check fails, is imported as wrong numbers (values like
// 2.6e72), or as a misleading complaint about the data. So every compressed
// element is inflated here first, to its end, in fixed buffers (the values
// are not kept), and refused naming the variable when zlib refuses it.
void check_v5_compressed(std::FILE* f, long off, std::uint32_t nbytes, bool swap, size_t index,
                         const std::string& path) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) throw InputError(path + ": cannot start zlib to read variable " + std::to_string(index));
  std::vector<unsigned char> in(1 << 16), out(1 << 16);
  std::string head;  // the first inflated bytes: the variable's name is there
  std::uint32_t left = nbytes;
  int rc = Z_OK;
  std::fseek(f, off, SEEK_SET);
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0) {
      if (left == 0) break;
      const size_t want = std::min<size_t>(left, in.size());
      if (std::fread(in.data(), 1, want, f) != want) break;
      left -= static_cast<std::uint32_t>(want);
      z.next_in = in.data();
      z.avail_in = static_cast<uInt>(want);
    }
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    rc = inflate(&z, Z_NO_FLUSH);
    const size_t produced = out.size() - z.avail_out;
    if (head.size() < 4096)
      head.append(reinterpret_cast<const char*>(out.data()), std::min(produced, 4096 - head.size()));
    if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && z.avail_in == 0)) break;
  }
  std::string why = rc == Z_STREAM_END                ? ""
                    : rc == Z_OK || rc == Z_BUF_ERROR ? "the stream ends early"
                                                      : std::string("zlib: ") + (z.msg ? z.msg : zError(rc));
  // An intact stream of too few bytes (cut before it was compressed): the
  // variable's tag claims more, and libmatio would fill the rest of its
  // values from whatever its buffer held before.
  const std::uint64_t inflated = z.total_out;
  inflateEnd(&z);
  if (why.empty() && head.size() >= 8 && v5_u32(reinterpret_cast<const unsigned char*>(head.data()), swap) == 14) {
    const std::uint64_t claimed =
        8 + std::uint64_t(v5_u32(reinterpret_cast<const unsigned char*>(head.data()) + 4, swap));
    if (inflated < claimed)
      why = "it inflates to " + std::to_string(inflated) + " bytes, its tag claims " + std::to_string(claimed);
  }
  if (why.empty()) return;
  const std::string name = v5_variable_name(reinterpret_cast<const unsigned char*>(head.data()), head.size(), swap);
  throw InputError(path + ": variable " + (name.empty() ? std::to_string(index) : "'" + name + "'") +
                   ": its compressed data is damaged (" + why + "); the values cannot be trusted");
}

// libmatio stops quietly at a damaged variable, which would drop the rest of
// the file unnoticed; so walk the v5 element tags first (128-byte header, then
// elements of an 8-byte tag + data, padded to 8 bytes unless compressed) and
// require the chain to end at the end of the file.
size_t count_v5_elements(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot open");
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  unsigned char head[128];
  std::fseek(f, 0, SEEK_SET);
  if (size < 128 || std::fread(head, 1, 128, f) != 128) {
    std::fclose(f);
    throw InputError(path + ": MATLAB v5 header is truncated");
  }
  const bool swap = head[126] == 'M' && head[127] == 'I';
  // Without the endian indicator the file is not v5, and libmatio would try
  // it as a v4 file, allocating whatever its first bytes claim (found by the
  // fuzzer: 1.3 GB for 144 bytes).
  if (!swap && !(head[126] == 'I' && head[127] == 'M')) {
    std::fclose(f);
    throw InputError(path + ": not a MATLAB v5 file (no endian indicator 'IM' in its 128-byte header)");
  }
  auto u32 = [&](const unsigned char* b) { return v5_u32(b, swap); };
  size_t count = 0;
  long off = 128;
  while (size - off >= 8) {
    unsigned char tag[8];
    std::fseek(f, off, SEEK_SET);
    if (std::fread(tag, 1, 8, f) != 8) break;
    const std::uint32_t type = u32(tag), nbytes = u32(tag + 4);
    long next;
    if (type >> 16) next = off + 8;  // small data element: tag and data in 8 bytes
    else next = off + 8 + (type == 15 ? long(nbytes) : (long(nbytes) + 7) / 8 * 8);
    if (next > size) {
      std::fclose(f);
      throw InputError(path + ": variable " + std::to_string(count + 1) +
                       " runs past the end of the file (truncated?)");
    }
    if (type == 15) {
      try {
        check_v5_compressed(f, off + 8, nbytes, swap, count + 1, path);
      } catch (...) {
        std::fclose(f);
        throw;
      }
    }
    off = next;
    ++count;
  }
  std::fclose(f);
  // Fewer than 8 bytes after the last whole element: the file was cut inside
  // the next variable's tag (MATLAB writes nothing after its last variable).
  if (off != size)
    throw InputError(path + ": truncated inside the tag of variable " + std::to_string(count + 1) + " (" +
                     std::to_string(size - off) + " of its 8 bytes; the file was cut short?)");
  return count;
}

}  // namespace

std::vector<Experiment> read_mat5_log(const std::string& path, const ReadOptions& o) {
  const size_t elements = count_v5_elements(path);
  struct stat st {};
  g_v5_max_bytes = ::stat(path.c_str(), &st) == 0 ? std::uint64_t(st.st_size) * 1100 : ~std::uint64_t(0);
  size_t read = 0;
  std::unique_ptr<mat_t, int (*)(mat_t*)> mat(Mat_Open(path.c_str(), MAT_ACC_RDONLY), &Mat_Close);
  if (!mat) throw InputError(path + ": cannot open as a MATLAB v5 file (truncated or corrupt?)");
  using Var = std::unique_ptr<matvar_t, void (*)(matvar_t*)>;
  RawColumns root;
  std::map<std::string, std::string> root_attrs;
  std::vector<Part> structs;
  for (;;) {
    Var v(Mat_VarReadNext(mat.get()), &Mat_VarFree);
    if (!v) break;
    ++read;
    const std::string name = v->name ? v->name : "";
    if (v->class_type == MAT_C_STRUCT) {
      for (Part& p : read_v5_struct(v.get(), name, path)) structs.push_back(std::move(p));
    } else {
      add_v5_variable(v.get(), name, path + ": variable '" + name + "'", root, root_attrs);
    }
  }
  if (read != elements)
    throw InputError(path + ": variable " + std::to_string(read + 1) + " of " + std::to_string(elements) +
                     " cannot be read (corrupt file?)");
  std::vector<Experiment> out;
  if (!root.values.empty()) out.push_back(finish(root, root_attrs, o, path, file_stem(path)));
  for (Part& p : structs) out.push_back(finish(p.raw, p.attributes, o, path, p.name));
  if (out.empty()) throw InputError(path + ": no numeric vectors or structs of vectors in this .mat file");
  apply_name(out, !root.values.empty(), o.name);
  return out;
}
#endif  // STRIBECK_HAVE_MATIO

}  // namespace stribeck::data

namespace stribeck::data {
#ifdef STRIBECK_HAVE_MATIO
bool have_mat5_support() { return true; }
#else
bool have_mat5_support() { return false; }
std::vector<Experiment> read_mat5_log(const std::string& path, const ReadOptions&) {
  throw InputError(path + ": MATLAB v5/v7 .mat files need libmatio, which this build lacks");
}
#endif
}  // namespace stribeck::data
