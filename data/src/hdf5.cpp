#include "stribeck/data/hdf5.hpp"

#include <H5DSpublic.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>

#include "stribeck/data/error.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::h5 {
namespace {

// Larger than any log we expect, small enough that a corrupt header claiming
// 10^18 samples is refused instead of attempting the allocation.
constexpr hsize_t kMaxElements = hsize_t(1) << 32;
// Datasets of at least this many elements are chunked and compressed.
constexpr hsize_t kCompressFrom = 1024;
constexpr hsize_t kChunkElements = 65536;  // 512 KiB of float64 per chunk

herr_t first_error(unsigned n, const H5E_error2_t* e, void* data) {
  auto* out = static_cast<std::string*>(data);
  if (n == 0 && e) {
    if (e->desc && *e->desc) *out = e->desc;
    char minor[256] = {0};
    if (H5Eget_msg(e->min_num, nullptr, minor, sizeof minor) > 0 && *minor) {
      if (out->empty()) *out = minor;
      else if (out->find(minor) == std::string::npos) *out += std::string(" (") + minor + ")";
    }
  }
  return 0;
}

Datatype utf8_string_type() {
  Datatype t(H5Tcopy(H5T_C_S1));
  H5Tset_size(t.id(), H5T_VARIABLE);
  H5Tset_cset(t.id(), H5T_CSET_UTF8);
  return t;
}

herr_t collect_child(hid_t group, const char* name, const H5L_info_t*, void* data) {
  auto* out = static_cast<std::vector<Child>*>(data);
  Kind kind = Kind::kOther;
  const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
  if (obj >= 0) {
    const H5I_type_t t = H5Iget_type(obj);
    kind = t == H5I_GROUP ? Kind::kGroup : t == H5I_DATASET ? Kind::kDataset : Kind::kOther;
    H5Oclose(obj);
  } else {
    H5Eclear2(H5E_DEFAULT);  // dangling link: listed as kOther
  }
  out->push_back({name, kind});
  return 0;
}

herr_t collect_attr(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->push_back(name);
  return 0;
}

}  // namespace

void silence_errors() {
  static std::once_flag once;
  std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
}

std::string last_error() {
  std::string out;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, &first_error, &out);
  H5Eclear2(H5E_DEFAULT);
  return out;
}

void fail(const std::string& where, const std::string& what) {
  const std::string reason = last_error();
  throw InputError(where + ": " + what + (reason.empty() ? "" : ": " + reason));
}

bool is_hdf5(const std::string& path) {
  silence_errors();
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::fclose(f);
  const htri_t r = H5Fis_hdf5(path.c_str());
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

File open_file(const std::string& path, bool write) {
  silence_errors();
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot open: " + std::strerror(errno));
  std::fclose(f);
  if (!is_hdf5(path)) throw InputError(path + ": not an HDF5 file (no HDF5 signature)");
  File file(H5Fopen(path.c_str(), write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file.valid()) fail(path, "cannot open HDF5 file (truncated or corrupt?)");
  return file;
}

File create_file(const std::string& path) {
  silence_errors();
  File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  if (!file.valid()) fail(path, "cannot create HDF5 file");
  return file;
}

void close_file(File& file, const std::string& path) {
  if (!file.valid()) return;
  if (H5Fflush(file.id(), H5F_SCOPE_LOCAL) < 0) fail(path, "cannot flush");
  if (!file.reset()) fail(path, "cannot close");
}

std::vector<Child> children(hid_t group) {
  silence_errors();
  std::vector<Child> out;
  hsize_t idx = 0;
  if (H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &idx, &collect_child, &out) < 0) {
    // Fall back to creation order being absent etc.: report what we have.
    H5Eclear2(H5E_DEFAULT);
  }
  return out;
}

bool has_child(hid_t group, const std::string& name) {
  silence_errors();
  const htri_t r = H5Lexists(group, name.c_str(), H5P_DEFAULT);
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

Group open_group(hid_t loc, const std::string& name, const std::string& where) {
  silence_errors();
  Group g(H5Gopen2(loc, name.c_str(), H5P_DEFAULT));
  if (!g.valid()) fail(where, "cannot open group '" + name + "'");
  return g;
}

Group create_group(hid_t loc, const std::string& name, const std::string& where) {
  silence_errors();
  PropList lcpl(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(lcpl.id(), 1);
  Group g(H5Gcreate2(loc, name.c_str(), lcpl.id(), H5P_DEFAULT, H5P_DEFAULT));
  if (!g.valid()) fail(where, "cannot create group '" + name + "'");
  return g;
}

Dataset open_dataset(hid_t loc, const std::string& name, const std::string& where) {
  silence_errors();
  Dataset d(H5Dopen2(loc, name.c_str(), H5P_DEFAULT));
  if (!d.valid()) fail(where, "cannot open dataset '" + name + "'");
  return d;
}

std::string DatasetInfo::type_name() const {
  switch (type_class) {
    case H5T_FLOAT: return "float" + std::to_string(8 * type_size);
    case H5T_INTEGER: return "int" + std::to_string(8 * type_size);
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_REFERENCE: return "reference";
    case H5T_ARRAY: return "array";
    case H5T_VLEN: return "variable-length";
    case H5T_OPAQUE: return "opaque";
    case H5T_BITFIELD: return "bitfield";
    default: return "unknown type";
  }
}

DatasetInfo dataset_info(const Dataset& ds, const std::string& where) {
  DatasetInfo info;
  Dataspace space(H5Dget_space(ds.id()));
  if (!space.valid()) fail(where, "cannot read dataspace");
  const int rank = H5Sget_simple_extent_ndims(space.id());
  if (rank < 0) fail(where, "cannot read dataspace");
  info.dims.resize(static_cast<size_t>(rank));
  if (rank > 0 && H5Sget_simple_extent_dims(space.id(), info.dims.data(), nullptr) < 0)
    fail(where, "cannot read dataspace");
  Datatype type(H5Dget_type(ds.id()));
  if (!type.valid()) fail(where, "cannot read datatype");
  info.type_class = H5Tget_class(type.id());
  info.type_size = H5Tget_size(type.id());
  return info;
}

std::vector<double> read_doubles(const Dataset& ds, const std::string& where) {
  const DatasetInfo info = dataset_info(ds, where);
  if (info.type_class != H5T_FLOAT)
    throw InputError(where + ": dataset is " + info.type_name() + ", expected float64");
  hsize_t n = 1;
  for (hsize_t d : info.dims) {
    if (d != 0 && n > kMaxElements / d) throw InputError(where + ": dataset is too large to read");
    n *= d;
  }
  std::vector<double> out;
  try {
    out.resize(static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
    throw InputError(where + ": dataset is too large to read (" + std::to_string(n) + " values)");
  }
  if (n > 0 && H5Dread(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    fail(where, "cannot read data (truncated or corrupt file?)");
  return out;
}

Dataset write_doubles(hid_t loc, const std::string& name, const std::vector<hsize_t>& dims,
                      const double* data, const std::string& where) {
  silence_errors();
  Dataspace space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  if (!space.valid()) fail(where, "cannot create dataspace for '" + name + "'");
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  PropList dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (n >= kCompressFrom) {
    // Chunks span whole rows of 2-D data (a trajectory per row) and about
    // kChunkElements values.
    std::vector<hsize_t> chunk = dims;
    if (dims.size() == 1) {
      chunk[0] = std::min(dims[0], kChunkElements);
    } else {
      hsize_t row = 1;
      for (size_t i = 1; i < dims.size(); ++i) row *= dims[i];
      chunk[0] = std::max<hsize_t>(1, std::min(dims[0], kChunkElements / std::max<hsize_t>(row, 1)));
      for (size_t i = 1; i < dims.size(); ++i) chunk[i] = std::max<hsize_t>(1, dims[i]);
    }
    if (H5Pset_chunk(dcpl.id(), static_cast<int>(chunk.size()), chunk.data()) < 0 ||
        H5Pset_shuffle(dcpl.id()) < 0 || H5Pset_deflate(dcpl.id(), 4) < 0)
      fail(where, "cannot set up compression for '" + name + "'");
  }
  Dataset ds(H5Dcreate2(loc, name.c_str(), H5T_IEEE_F64LE, space.id(), H5P_DEFAULT, dcpl.id(),
                        H5P_DEFAULT));
  if (!ds.valid()) fail(where, "cannot create dataset '" + name + "'");
  if (n > 0 && H5Dwrite(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    fail(where, "cannot write dataset '" + name + "'");
  return ds;
}

bool has_attribute(hid_t obj, const std::string& name) {
  silence_errors();
  const htri_t r = H5Aexists(obj, name.c_str());
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

std::vector<std::string> attribute_names(hid_t obj) {
  silence_errors();
  std::vector<std::string> out;
  hsize_t idx = 0;
  if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, &collect_attr, &out) < 0)
    H5Eclear2(H5E_DEFAULT);
  return out;
}

std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& where) {
  silence_errors();
  const std::string at = where + ": attribute '" + name + "'";
  Attribute attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT));
  if (!attr.valid()) fail(at, "cannot open");
  Dataspace space(H5Aget_space(attr.id()));
  if (!space.valid()) fail(at, "cannot read dataspace");
  const hssize_t npoints = H5Sget_simple_extent_npoints(space.id());
  if (npoints != 1) throw InputError(at + ": expected a single value, found " + std::to_string(npoints));
  Datatype type(H5Aget_type(attr.id()));
  if (!type.valid()) fail(at, "cannot read datatype");
  switch (H5Tget_class(type.id())) {
    case H5T_STRING: {
      if (H5Tis_variable_str(type.id()) > 0) {
        Datatype mem = utf8_string_type();
        H5Tset_cset(mem.id(), H5Tget_cset(type.id()));
        char* value = nullptr;
        if (H5Aread(attr.id(), mem.id(), &value) < 0) fail(at, "cannot read");
        std::string s = value ? value : "";
        H5Dvlen_reclaim(mem.id(), space.id(), H5P_DEFAULT, &value);
        return s;
      }
      const size_t size = H5Tget_size(type.id());
      if (size == 0 || size > (1u << 24)) throw InputError(at + ": implausible string size");
      std::string s(size, '\0');
      Datatype mem(H5Tcopy(H5T_C_S1));
      H5Tset_size(mem.id(), size);
      H5Tset_strpad(mem.id(), H5Tget_strpad(type.id()));
      H5Tset_cset(mem.id(), H5Tget_cset(type.id()));
      if (H5Aread(attr.id(), mem.id(), s.data()) < 0) fail(at, "cannot read");
      while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
      return s;
    }
    case H5T_INTEGER:
    case H5T_FLOAT: {
      double v = 0;
      if (H5Aread(attr.id(), H5T_NATIVE_DOUBLE, &v) < 0) fail(at, "cannot read");
      return format_number(v);
    }
    default:
      throw InputError(at + ": expected a string or number");
  }
}

void write_string_attribute(hid_t obj, const std::string& name, const std::string& value,
                            const std::string& where) {
  silence_errors();
  if (has_attribute(obj, name) && H5Adelete(obj, name.c_str()) < 0)
    fail(where, "cannot replace attribute '" + name + "'");
  Datatype type = utf8_string_type();
  Dataspace space(H5Screate(H5S_SCALAR));
  Attribute attr(H5Acreate2(obj, name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attr.valid()) fail(where, "cannot create attribute '" + name + "'");
  const char* p = value.c_str();
  if (H5Awrite(attr.id(), type.id(), &p) < 0) fail(where, "cannot write attribute '" + name + "'");
}

void write_double_attribute(hid_t obj, const std::string& name, double value,
                            const std::string& where) {
  silence_errors();
  if (has_attribute(obj, name) && H5Adelete(obj, name.c_str()) < 0)
    fail(where, "cannot replace attribute '" + name + "'");
  Dataspace space(H5Screate(H5S_SCALAR));
  Attribute attr(H5Acreate2(obj, name.c_str(), H5T_IEEE_F64LE, space.id(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attr.valid()) fail(where, "cannot create attribute '" + name + "'");
  if (H5Awrite(attr.id(), H5T_NATIVE_DOUBLE, &value) < 0)
    fail(where, "cannot write attribute '" + name + "'");
}

void attach_scale(const Dataset& dataset, const Dataset& scale, const std::string& label,
                  const std::string& where) {
  silence_errors();
  if (H5DSis_scale(scale.id()) <= 0 && H5DSset_scale(scale.id(), label.c_str()) < 0)
    fail(where, "cannot make '" + label + "' a dimension scale");
  if (H5DSattach_scale(dataset.id(), scale.id(), 0) < 0)
    fail(where, "cannot attach dimension scale '" + label + "'");
}

}  // namespace stribeck::h5
