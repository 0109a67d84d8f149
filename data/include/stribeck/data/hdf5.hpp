#pragma once
// A thin RAII layer over the HDF5 C API. Every hid_t lives in an owner that
// closes it with the matching H5?close on every path (normal return or
// exception), so no handle leaks when a read fails halfway. HDF5's automatic
// error printing is switched off the first time this layer is used; every
// failure becomes an InputError that names the file and object and carries
// HDF5's own innermost reason.
//
// Debian's libhdf5 is built without thread safety: call this layer (and
// read_log/write_log) from one thread at a time.
//
// Only what the log schema and the sweep file need is wrapped: groups, 1-D/2-D
// float datasets (chunked, shuffled, deflated), extendible 1-D and 2-D columns
// that grow by appending (and are read back a block of rows at a time), plain 1-D arrays of any native type, string and number
// attributes, dimension scales. Reach for the C API through id() for anything
// else.
#include <hdf5.h>

#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5_watchdog.hpp"

namespace stribeck::data::h5 {

// Owner of one hid_t. Move-only; closes the id with `close` unless it is
// negative (invalid) or released.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  // A close that fails here (an exception is unwinding, say) leaves nothing
  // on HDF5's error stack for the next failure to misreport.
  ~Handle() {
    if (!reset()) H5Eclear2(H5E_DEFAULT);
  }
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      close_ = o.close_;
      o.id_ = -1;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t id() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now; returns false if HDF5 reported a failure (e.g. a flush on
  // file close). Used where a close error must not go unnoticed.
  bool reset() {
    bool ok = true;
    if (id_ >= 0 && close_) ok = close_(id_) >= 0;
    id_ = -1;
    return ok;
  }

 private:
  hid_t id_ = -1;
  Closer close_ = nullptr;
};

// Typed owners: same mechanics, distinct types so a group cannot be passed
// where a dataspace is meant. (`Name` is a class name: it cannot be
// parenthesised, which clang-tidy's macro check asks of every argument.)
// NOLINTBEGIN(bugprone-macro-parentheses)
#define STRIBECK_H5_OWNER(Name, closer)                 \
  class Name : public Handle {                          \
   public:                                              \
    Name() = default;                                   \
    explicit Name(hid_t id) : Handle(id, &(closer)) {}  \
    Name(hid_t id, Closer close) : Handle(id, close) {} \
  };
// NOLINTEND(bugprone-macro-parentheses)
STRIBECK_H5_OWNER(File, H5Fclose)
STRIBECK_H5_OWNER(Group, H5Gclose)
STRIBECK_H5_OWNER(Dataset, H5Dclose)
STRIBECK_H5_OWNER(Dataspace, H5Sclose)
STRIBECK_H5_OWNER(Datatype, H5Tclose)
STRIBECK_H5_OWNER(Attribute, H5Aclose)
STRIBECK_H5_OWNER(PropList, H5Pclose)
STRIBECK_H5_OWNER(Object, H5Oclose)
#undef STRIBECK_H5_OWNER

// Turns off HDF5's printing of error stacks to stderr for the calling thread
// (libhdf5 keeps that setting per thread; idempotent; every function below
// calls it).
void silence_errors();
// HDF5's innermost error description for the failure just seen (empty if
// none), e.g. "file signature not found".
std::string last_error();
// Throws InputError("<where>: <what>: <HDF5 reason>"). When the failure
// comes from the operating system (a full disk: libhdf5 reports its errno),
// the reason is that error's text ("no space left on device") and
// os_error() returns it until clear_os_error().
[[noreturn]] void fail(const std::string& where, const std::string& what);
int os_error();
void clear_os_error();
// strerror(err) starting in lower case, as it reads inside a message.
std::string os_error_text(int err);

// Runs `write` (code that writes `target` or its temporary); an InputError
// caused by the operating system (a full disk, a file size limit, an I/O
// error) is replaced by the one line "writing <target>: <cause>" plus `note`
// (e.g. what was kept), others pass unchanged. Handles the writer owns are
// closed by their owners while the exception unwinds.
// `os_failed`, when given, is set to true on such a failure.
template <class F>
void guard_write(const std::string& target, F&& write, const std::string& note = "", bool* os_failed = nullptr) {
  silence_errors();
  clear_os_error();
  try {
    write();
  } catch (const InputError&) {
    const int err = os_error();
    if (err == 0) throw;
    clear_os_error();
    if (os_failed) *os_failed = true;
    throw InputError("writing " + target + ": " + os_error_text(err) + note);
  }
}

// True if `path` starts with (or carries after a user block, as MATLAB v7.3
// files do) the HDF5 signature. False for missing or unreadable files.
bool is_hdf5(const std::string& path);

// Opens an existing file read-only (write=false) or read-write. Errors name
// the path: missing file, not HDF5, truncated/corrupt superblock.
// While the file is open, the CLI's crash handler knows it as an input being
// read (register_input, interrupt.hpp): libhdf5 1.10 can crash on damaged
// files where it does not check, and such a crash then ends the command with
// one line naming the file instead of a core dump. `fapl`: the file access
// property list (a checkpointed file's driver, results_stream.cpp).
File open_file(const std::string& path, bool write = false, hid_t fapl = H5P_DEFAULT);

// A libhdf5 call that reads only metadata (opening an object, listing a
// group, reading an attribute) of a registered input, watched while this
// object lives: the CLI ends a call that does not return in time (libhdf5
// 1.10 loops for ever on some damaged files) with one line, exit 2
// (watch_library_call, hdf5_watchdog.hpp). `loc`: any object of the file;
// `what` (a callable returning the description, "opening group 'x'") is
// called only when calls are watched. Never around reads of raw data.
class Watched {
 public:
  template <class What>
  Watched(hid_t loc, What&& what) {
    if (library_calls_watched()) slot_ = arm(loc, what());
  }
  Watched(const std::string& path, const char* what);
  ~Watched();
  Watched(const Watched&) = delete;
  Watched& operator=(const Watched&) = delete;

 private:
  static int arm(hid_t loc, const std::string& what);
  int slot_ = -1;
};
// The path of an object in its file ("/experiments/p40"), "?" if unknown.
std::string object_name(hid_t obj);
// Creates (truncates) a file (`fapl` as open_file's).
File create_file(const std::string& path, hid_t fapl = H5P_DEFAULT);
// Sets up an object creation property list (file, group, dataset) so that
// the object's attributes may be larger than 64 KiB (hdf5.cpp says how).
void large_attributes(hid_t ocpl);
// Flushes and closes, throwing if HDF5 reports a failure.
void close_file(File& file, const std::string& path);

// Children of a group, in name order. kBroken: a member that cannot be
// opened (damaged object header, dangling soft link; `reason` says why);
// kExternal: an external link (to another file), not followed unless
// external_data_allowed(). Throws InputError naming `where` when the group's
// link table cannot be read to the end.
enum class Kind { kGroup, kDataset, kOther, kBroken, kExternal };
struct Child {
  std::string name;
  Kind kind;
  std::string reason;
};
std::vector<Child> children(hid_t group, const std::string& where = "");
// Throws InputError("<where>: cannot open (<reason>)") for a kBroken child and
// a refusal for a kExternal one; does nothing for others. Readers of inputs
// call it for every member they would otherwise skip or read.
void check_child(const Child& c, const std::string& where);
// Inputs must not make Stribeck read other files: external links, external
// raw-data storage and virtual datasets are refused unless the environment
// variable STRIBECK_ALLOW_EXTERNAL_DATA is set (to anything but "0" or "").
bool external_data_allowed();
// Throws InputError when `ds` keeps its data in other files (external
// storage, virtual dataset) and external_data_allowed() is false.
// open_dataset calls it.
bool has_child(hid_t group, const std::string& name);

Group open_group(hid_t loc, const std::string& name, const std::string& where);
// Creates `name` (intermediate groups of a path like "results/fit" too).
Group create_group(hid_t loc, const std::string& name, const std::string& where);
// Opens `name` if it exists, else creates it (for files written in passes).
Group open_or_create_group(hid_t loc, const std::string& name, const std::string& where);
Dataset open_dataset(hid_t loc, const std::string& name, const std::string& where);
void check_storage(const Dataset& ds, const std::string& where);

// Shape, element class and size of a dataset.
struct DatasetInfo {
  std::vector<hsize_t> dims;
  H5T_class_t type_class = H5T_NO_CLASS;
  size_t type_size = 0;
  std::string type_name() const;  // "float64", "int32", "string", ...
};
DatasetInfo dataset_info(const Dataset& ds, const std::string& where);
// Reads a dataset of float class (float32 is widened exactly) into doubles in
// HDF5's row-major order. Throws for non-float data, naming the type found.
std::vector<double> read_doubles(const Dataset& ds, const std::string& where);

// Throws InputError for numeric element sizes outside 1..16 bytes.
void check_element_size(const DatasetInfo& info, const std::string& where);
// Throws InputError when a dataset claims far more values (`n`) than the
// bytes it stores could hold (corrupt sizes), before anything is allocated.
void check_stored_size(const Dataset& ds, hsize_t n, const std::string& where);
// A vector for the `n` values of `ds`, refused with InputError before it is
// allocated when the file cannot hold them (check_stored_size) and when
// memory cannot.
template <class V>
std::vector<V> allocate_for(const Dataset& ds, hsize_t n, const std::string& where) {
  check_stored_size(ds, n, where);  // a damaged extent can claim gigabytes
  std::vector<V> out;
  try {
    out.resize(static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
    throw InputError(where + ": dataset is too large to read (" + std::to_string(n) + " values)");
  }
  return out;
}

// Writes a float64 dataset of the given shape (1-D or 2-D, row-major data),
// chunked, shuffled and deflated when it holds more than a few samples.
Dataset write_doubles(hid_t loc, const std::string& name, const std::vector<hsize_t>& dims, const double* data,
                      const std::string& where);

// Extendible column of `type` (a native type, also the stored type): starts
// with 0 rows, unlimited maximum, chunks of `chunk_rows`, a Fletcher-32
// checksum per chunk and no compression (appending stays cheap and the rows
// are readable while the file is being written).
// `width` 0 makes a 1-D column; width w >= 1 a 2-D table of rows x w.
Dataset create_column(hid_t loc, const std::string& name, hid_t type, hsize_t chunk_rows, const std::string& where,
                      hsize_t width = 0);
// Appends `n` rows (n values; n x w for a table) of `type` at the end of a column from
// create_column.
void append_column(const Dataset& column, hid_t type, const void* data, hsize_t n, const std::string& where);
// Bytes of the chunks that appending `n` rows to a column from
// create_column newly allocates in the file (whole chunks: HDF5 stores
// chunks whole), for reserve_space before a checkpointed write.
std::uint64_t append_bytes(const Dataset& column, hsize_t n);
// Reads rows [0, rows) of a column chunk by chunk, so that every chunk's
// checksum (create_column's Fletcher-32 filter) is verified; throws
// InputError naming the first damaged chunk and its rows.
void verify_rows(const Dataset& column, hsize_t rows, const std::string& where);
// Cuts (or grows) the column at path `name` to `n` rows.
void resize_column(hid_t loc, const std::string& name, hsize_t n, const std::string& where);
// Reads rows [first, first + n) of a 1-D or 2-D dataset (any layout, filters
// included), converted to `type`, into `out` (n values; n x w for a table).
void read_rows(const Dataset& ds, hid_t type, hsize_t first, hsize_t n, void* out, const std::string& where);

// Writes a small contiguous 1-D dataset of `n` values of `type` (a native
// type, also the stored type), replacing any existing `name`.
void write_array(hid_t loc, const std::string& name, hid_t type, const void* data, hsize_t n, const std::string& where);
// Number of elements of a dataset (product of its dimensions).
hsize_t element_count(const Dataset& ds, const std::string& where);
// Reads all of dataset `name` (a path below loc) converted to `type`, a native
// type matching V (H5T_NATIVE_UINT8 for std::uint8_t, ...).
template <class V>
std::vector<V> read_array(hid_t loc, const std::string& name, hid_t type, const std::string& where);

// Attributes: strings are written as fixed-length UTF-8 scalars (kept out of the
// global heap, see hdf5.cpp); reading
// accepts fixed- or variable-length strings and numeric scalars (formatted as
// the shortest round-trip text).
bool has_attribute(hid_t obj, const std::string& name);
// Lists attributes by iteration. Caution: libhdf5 1.10 can segfault here on a
// corrupted attribute table; read_log avoids it (see log.cpp).
std::vector<std::string> attribute_names(hid_t obj);
std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& where);
void write_string_attribute(hid_t obj, const std::string& name, const std::string& value, const std::string& where);
void write_double_attribute(hid_t obj, const std::string& name, double value, const std::string& where);
// Scalar 64-bit integer attributes (stored little-endian int64 / uint64).
void write_int_attribute(hid_t obj, const std::string& name, std::int64_t value, const std::string& where);
void write_uint_attribute(hid_t obj, const std::string& name, std::uint64_t value, const std::string& where);
// A flag as netCDF writes one: a scalar int8 attribute, 0 or 1.
void write_flag_attribute(hid_t obj, const std::string& name, bool value, const std::string& where);
// Read a scalar numeric attribute converted to the C type (HDF5's conversion
// rules: integers to float exactly where representable, and so on).
double read_double_attribute(hid_t obj, const std::string& name, const std::string& where);
std::int64_t read_int_attribute(hid_t obj, const std::string& name, const std::string& where);
std::uint64_t read_uint_attribute(hid_t obj, const std::string& name, const std::string& where);

// Marks `scale` as dimension scale `label` and attaches it to dimension `dim`
// of `dataset` (HDF5 dimension-scale convention, readable by h5py/HDFView,
// and what netCDF-4 / h5netcdf / xarray take as a named dimension).
void attach_scale(const Dataset& dataset, const Dataset& scale, const std::string& label, const std::string& where,
                  unsigned dim = 0);

// A named dimension of `n` rows without coordinate values, as netCDF-4
// writes one: a dimension scale whose NAME says "This is a netCDF dimension
// but not a netCDF variable" and which holds no data (no storage is
// allocated). xarray and h5netcdf read it as dimension `name` without
// coordinates; Stribeck's readers skip it as they skip every scale.
Dataset create_bare_dimension(hid_t loc, const std::string& name, hsize_t n, const std::string& where);

// Whether child `name` of `loc` is a dataset marked as a dimension scale
// (readers of results skip them: they are coordinates, not results).
bool is_dimension_scale(hid_t loc, const std::string& name, const std::string& where);

// A list of names as a 1-D attribute of fixed-length UTF-8 strings (an empty
// list: an attribute of zero elements).
void write_string_list_attribute(hid_t obj, const std::string& name, const std::vector<std::string>& values,
                                 const std::string& where);
// Reads a list written by write_string_list_attribute, or (files written
// before lists were arrays) a scalar string split at `old_separator`.
std::vector<std::string> read_string_list_attribute(hid_t obj, const std::string& name, char old_separator,
                                                    const std::string& where);
// A 1-D dataset of fixed-length UTF-8 strings (a dimension scale of names).
Dataset write_string_array(hid_t loc, const std::string& name, const std::vector<std::string>& values,
                           const std::string& where);

// Untyped core of read_array: `out` must hold element_count(ds) values of `type`.
void read_all(const Dataset& ds, hid_t type, void* out, const std::string& where);

template <class V>
std::vector<V> read_array(hid_t loc, const std::string& name, hid_t type, const std::string& where) {
  const Dataset ds = open_dataset(loc, name, where);
  const std::string at = where + ": " + name;
  std::vector<V> out = allocate_for<V>(ds, element_count(ds, at), at);
  if (!out.empty()) read_all(ds, type, out.data(), at);
  return out;
}

}  // namespace stribeck::data::h5
