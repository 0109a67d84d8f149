#include "stribeck/data/hdf5.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <H5DSpublic.h>
#include <zlib.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <mutex>

#include "stribeck/data/hdf5_watchdog.hpp"
#include "stribeck/data/interrupt.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data::h5 {
namespace {

// Larger than any log we expect, small enough that a corrupt header claiming
// 10^18 samples is refused instead of attempting the allocation.
constexpr hsize_t kMaxElements = hsize_t(1) << 32;
// Datasets of at least this many elements are chunked and compressed.
constexpr hsize_t kCompressFrom = 1024;
constexpr hsize_t kChunkElements = 65536;  // 512 KiB of float64 per chunk

// The operating-system error under an HDF5 failure (a write that hit a full
// disk, say): libhdf5's file drivers put "errno = N" in the innermost
// description. Set by last_error(), read by os_error().
thread_local int g_os_errno = 0;
thread_local bool g_os_write = false;

struct StackSummary {
  std::string first;
  int os_errno = 0;
  bool write = false;
};

herr_t first_error(unsigned n, const H5E_error2_t* e, void* data) {
  auto* sum = static_cast<StackSummary*>(data);
  auto* out = &sum->first;
  if (e && e->desc && sum->os_errno == 0) {
    if (const char* p = std::strstr(e->desc, "errno = ")) {
      sum->os_errno = std::atoi(p + 8);
      sum->write = std::strstr(e->desc, "write") != nullptr;
    }
  }
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

// Members come in strictly increasing name order (H5_INDEX_NAME, ITER_INC);
// a name that does not increase means a damaged member index that libhdf5
// may walk round again and again (a cycle in a symbol-table B-tree): the
// iteration is stopped and children() refuses the group. (A cycle that
// libhdf5 follows without returning a member cannot be stopped from here:
// docs/reliability.md, "Fuzzing".)
constexpr size_t kMaxChildren = size_t(1) << 20;
thread_local bool g_cycle = false;

herr_t collect_child(hid_t group, const char* name, const H5L_info_t* link, void* data) {
  auto* out = static_cast<std::vector<Child>*>(data);
  if ((!out->empty() && !(out->back().name < name)) || out->size() >= kMaxChildren) {
    g_cycle = true;
    return -1;
  }
  Child child{name, Kind::kOther, ""};
  if (link && link->type == H5L_TYPE_EXTERNAL && !external_data_allowed()) {
    // Not followed: opening it would make libhdf5 open another file.
    child.kind = Kind::kExternal;
    out->push_back(std::move(child));
    return 0;
  }
  const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
  if (obj >= 0) {
    const H5I_type_t t = H5Iget_type(obj);
    child.kind = t == H5I_GROUP ? Kind::kGroup : t == H5I_DATASET ? Kind::kDataset : Kind::kOther;
    H5Oclose(obj);
  } else {
    // A damaged object header, or a soft or external link to nothing.
    child.kind = Kind::kBroken;
    child.reason = last_error();
    if (link && link->type == H5L_TYPE_SOFT && child.reason.empty()) child.reason = "dangling soft link";
  }
  out->push_back(std::move(child));
  return 0;
}

// Opens attribute `name` and checks it holds exactly one value; `space`
// receives its dataspace. Errors are prefixed with `at`.
Attribute open_single_attribute(hid_t obj, const std::string& name, const std::string& at, Dataspace& space) {
  silence_errors();
  Attribute attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT));
  if (!attr.valid()) fail(at, "cannot open");
  space = Dataspace(H5Aget_space(attr.id()));
  if (!space.valid()) fail(at, "cannot read dataspace");
  const hssize_t npoints = H5Sget_simple_extent_npoints(space.id());
  if (npoints != 1) throw InputError(at + ": expected a single value, found " + std::to_string(npoints));
  return attr;
}

herr_t collect_attr(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->push_back(name);
  return 0;
}

}  // namespace

int Watched::arm(hid_t loc, const std::string& what) {
  char file[4096];
  const ssize_t n = H5Fget_name(loc, file, sizeof file);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof file) {
    H5Eclear2(H5E_DEFAULT);
    return -1;
  }
  return watch_library_call(file, what);
}
Watched::Watched(const std::string& path, const char* what) {
  if (library_calls_watched()) slot_ = watch_library_call(path.c_str(), what);
}
Watched::~Watched() { unwatch_library_call(slot_); }

std::string object_name(hid_t obj) {
  char name[1024];
  const ssize_t n = H5Iget_name(obj, name, sizeof name);
  if (n <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return "?";
  }
  return std::string(name, std::min(static_cast<size_t>(n), sizeof name - 1));
}

namespace {

// libhdf5 1.10 leaves a file id half-closed when H5Fclose fails (its last
// flush hit a full disk): closing it again, or the library's own atexit
// handler closing it, segfaults. Every handle is closed by its owner
// (Handle), so the library's atexit clean-up has nothing to do: it is turned
// off before the library initialises (static initialisation of this file,
// which every HDF5 user in Stribeck links).
const bool g_no_atexit = [] {
  H5dont_atexit();
  return true;
}();

}  // namespace

namespace {
// Replaces libhdf5's external-link class: traversing one fails, so no path
// opened by name (open_group(f, "a/b"), H5Oopen) can leave the file either.
hid_t refuse_external_link(const char*, hid_t, const void*, size_t, hid_t, hid_t) { return -1; }
}  // namespace

void silence_errors() {
  // Debian's libhdf5 is built thread-safe: the automatic printing is a
  // setting of each thread's error stack (the ensemble writes from a worker
  // thread), so it is turned off once per thread.
  thread_local bool silenced = false;
  if (!silenced) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    silenced = true;
  }
  static std::once_flag once;
  std::call_once(once, [] {
    (void)g_no_atexit;
    if (!external_data_allowed()) {
      static const H5L_class_t refuse = {H5L_LINK_CLASS_T_VERS,
                                         H5L_TYPE_EXTERNAL,
                                         "stribeck: external links refused",
                                         nullptr,
                                         nullptr,
                                         nullptr,
                                         &refuse_external_link,
                                         nullptr,
                                         nullptr};
      if (H5Lregister(&refuse) < 0) H5Eclear2(H5E_DEFAULT);
    }
  });
}

std::string last_error() {
  StackSummary sum;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, &first_error, &sum);
  H5Eclear2(H5E_DEFAULT);
  if (sum.os_errno != 0) {
    g_os_errno = sum.os_errno;
    g_os_write = sum.write;
  }
  // The sec2 driver's description is a multi-line dump (time, buffer
  // address, sizes); the errno text says it all.
  if (sum.os_errno != 0) return os_error_text(sum.os_errno);
  return sum.first;
}

std::string os_error_text(int err) {
  std::string s = std::strerror(err);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

int os_error() { return g_os_errno; }
void clear_os_error() {
  g_os_errno = 0;
  g_os_write = false;
}

void fail(const std::string& where, const std::string& what) {
  const std::string reason = last_error();
  throw InputError(where + ": " + what + (reason.empty() ? "" : ": " + reason));
}

bool external_data_allowed() {
  const char* v = std::getenv("STRIBECK_ALLOW_EXTERNAL_DATA");
  return v && *v && std::strcmp(v, "0") != 0;
}

bool is_hdf5(const std::string& path) {
  silence_errors();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;  // opening a FIFO would block
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::fclose(f);
  const htri_t r = H5Fis_hdf5(path.c_str());
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

namespace {
// Open files registered as inputs being read, by id (close_input_file
// unregisters them). Never touched by a signal handler.
std::mutex g_inputs_mutex;
std::map<hid_t, int> g_input_slots;

herr_t close_input_file(hid_t id) {
  const herr_t r = H5Fclose(id);
  int slot = -1;
  {
    std::lock_guard<std::mutex> lock(g_inputs_mutex);
    if (auto it = g_input_slots.find(id); it != g_input_slots.end()) {
      slot = it->second;
      g_input_slots.erase(it);
    }
  }
  unregister_input(slot);
  return r;
}
}  // namespace

File open_file(const std::string& path, bool write, hid_t fapl) {
  silence_errors();
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot open: " + std::strerror(errno));
  std::fclose(f);
  if (!is_hdf5(path)) throw InputError(path + ": not an HDF5 file (no HDF5 signature)");
  clear_os_error();
  // Registered before H5Fopen, which parses the superblock.
  const int slot = register_input(path);
  File file(
      [&] {
        const Watched watch(path, "opening the file");
        return H5Fopen(path.c_str(), write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
      }(),
      &close_input_file);
  if (file.valid()) {
    std::lock_guard<std::mutex> lock(g_inputs_mutex);
    g_input_slots[file.id()] = slot;
  } else {
    unregister_input(slot);
  }
  if (!file.valid()) {
    const std::string reason = last_error();
    const int err = os_error();
    clear_os_error();
    // libhdf5 1.10 locks a file it opens (flock): a lock it could not take
    // (its own error code, or a lock we cannot take now either) is another
    // process's, not damage.
    bool locked = err == EAGAIN || err == EWOULDBLOCK || err == ENOLCK;
    if (!locked) {
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      locked = fd >= 0 && ::flock(fd, (write ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 && errno == EWOULDBLOCK;
      if (fd >= 0) ::close(fd);
    }
    if (locked)
      throw InputError(path +
                       ": locked by another process (HDF5 file locking); wait until it closes the file, or "
                       "set HDF5_USE_FILE_LOCKING=FALSE where locks are stale or not supported");
    throw InputError(path + ": cannot open HDF5 file (truncated or corrupt?)" + (reason.empty() ? "" : ": " + reason));
  }
  return file;
}

// Object headers of version 1 (libhdf5's default) hold attributes only
// inline, at most 64 KiB each, while a config of up to 16 MiB is stored as
// the `config` attribute, and an input log's metadata copied into a log (an
// experiment's description, a channel's scaling) can be megabytes. Tracking
// the attributes' creation order gives the root group, every group and
// every dataset the version 2 header, whose attributes move to dense storage
// (a heap beside the header) when one is too large for it; small attributes
// stay inline, and readers open them by name either way.
void large_attributes(hid_t ocpl) { H5Pset_attr_creation_order(ocpl, H5P_CRT_ORDER_TRACKED); }

File create_file(const std::string& path, hid_t fapl) {
  silence_errors();
  PropList fcpl(H5Pcreate(H5P_FILE_CREATE));
  large_attributes(fcpl.id());
  File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.id(), fapl));
  if (!file.valid()) fail(path, "cannot create HDF5 file");
  return file;
}

void close_file(File& file, const std::string& path) {
  if (!file.valid()) return;
  if (H5Fflush(file.id(), H5F_SCOPE_LOCAL) < 0) fail(path, "cannot flush");
  if (!file.reset()) fail(path, "cannot close");
}

std::vector<Child> children(hid_t group, const std::string& where) {
  silence_errors();
  std::vector<Child> out;
  hsize_t idx = 0;
  // A damaged link table stops the iteration part way: what was listed
  // would silently miss members, so it is an error.
  g_cycle = false;
  herr_t listed = 0;
  {
    const Watched watch(group, [&] { return "listing the members of group '" + object_name(group) + "'"; });
    listed = H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &idx, &collect_child, &out);
  }
  if (listed < 0) {
    const std::string at = where.empty() ? std::string("HDF5 group") : where;
    if (g_cycle) {
      H5Eclear2(H5E_DEFAULT);
      throw InputError(at + ": damaged member index (member names repeat or do not end; corrupt file?)");
    }
    fail(at, "cannot list its members (after " + std::to_string(out.size()) + ")");
  }
  return out;
}

void check_child(const Child& c, const std::string& where) {
  if (c.kind == Kind::kExternal)
    throw InputError(where +
                     ": is an external link to another file; Stribeck does not follow links out of "
                     "an input (set STRIBECK_ALLOW_EXTERNAL_DATA=1 to allow it)");
  if (c.kind == Kind::kBroken)
    throw InputError(where + ": cannot open" + (c.reason.empty() ? "" : " (" + c.reason + ")"));
}

bool has_child(hid_t group, const std::string& name) {
  silence_errors();
  const Watched watch(group, [&] { return "looking up '" + name + "'"; });
  const htri_t r = H5Lexists(group, name.c_str(), H5P_DEFAULT);
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

Group open_group(hid_t loc, const std::string& name, const std::string& where) {
  silence_errors();
  const Watched watch(loc, [&] { return "opening group '" + name + "'"; });
  Group g(H5Gopen2(loc, name.c_str(), H5P_DEFAULT));
  if (!g.valid()) fail(where, "cannot open group '" + name + "'");
  return g;
}

Group create_group(hid_t loc, const std::string& name, const std::string& where) {
  silence_errors();
  PropList lcpl(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(lcpl.id(), 1);
  PropList gcpl(H5Pcreate(H5P_GROUP_CREATE));
  large_attributes(gcpl.id());
  Group g(H5Gcreate2(loc, name.c_str(), lcpl.id(), gcpl.id(), H5P_DEFAULT));
  if (!g.valid()) fail(where, "cannot create group '" + name + "'");
  return g;
}

Group open_or_create_group(hid_t loc, const std::string& name, const std::string& where) {
  return has_child(loc, name) ? open_group(loc, name, where) : create_group(loc, name, where);
}

Dataset open_dataset(hid_t loc, const std::string& name, const std::string& where) {
  silence_errors();
  const Watched watch(loc, [&] { return "opening dataset '" + name + "'"; });
  Dataset d(H5Dopen2(loc, name.c_str(), H5P_DEFAULT));
  if (!d.valid()) fail(where, "cannot open dataset '" + name + "'");
  check_storage(d, where + (where.find("'" + name + "'") == std::string::npos ? ": dataset '" + name + "'" : ""));
  return d;
}

void check_storage(const Dataset& ds, const std::string& where) {
  if (external_data_allowed()) return;
  PropList dcpl(H5Dget_create_plist(ds.id()));
  if (!dcpl.valid()) fail(where, "cannot read the storage layout");
  // Raw data kept in other files (external storage) or assembled from them
  // (virtual datasets): reading it would read files the user did not name.
  const int external = H5Pget_external_count(dcpl.id());
  if (external < 0) fail(where, "cannot read the storage layout");
  const H5D_layout_t layout = H5Pget_layout(dcpl.id());
  if (layout < 0) fail(where, "cannot read the storage layout");
  if (external > 0 || layout == H5D_VIRTUAL)
    throw InputError(
        where + ": stores its data in other files (" + (external > 0 ? "external storage" : "a virtual dataset") +
        "); Stribeck does not read files an input points to (set STRIBECK_ALLOW_EXTERNAL_DATA=1 to allow it)");
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
  const Watched watch(ds.id(), [&] { return "reading the shape and type of dataset '" + object_name(ds.id()) + "'"; });
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

void check_element_size(const DatasetInfo& info, const std::string& where) {
  // Numbers are at most 16 bytes; a corrupt type size would make libhdf5
  // allocate a conversion buffer of that size per element.
  if (info.type_size == 0 || info.type_size > 16)
    throw InputError(where + ": dataset has a " + std::to_string(info.type_size) +
                     "-byte element type (corrupt file?)");
}

void check_stored_size(const Dataset& ds, hsize_t n, const std::string& where) {
  // A corrupt header can claim billions of values. Real data is stored: even
  // deflate of constant samples keeps more than 1 byte in ~1030, and all of
  // it lies inside the file. The bytes claimed are those of the stored type
  // (a uint8 status column claims one byte a value); the allocation is of
  // up to 8 bytes a value.
  size_t elem = 8;
  {
    Datatype type(H5Dget_type(ds.id()));
    const size_t s = type.valid() ? H5Tget_size(type.id()) : 0;
    if (s > 0) elem = s;
    else H5Eclear2(H5E_DEFAULT);
  }
  const hsize_t kMax = ~hsize_t(0);
  const hsize_t claimed = n > kMax / elem ? kMax : n * elem;
  const hsize_t memory = n > kMax / 8 ? kMax : n * 8;
  if (std::max(claimed, memory) <= (hsize_t(64) << 20)) return;
  const Watched watch(ds.id(), [&] { return "reading the storage size of dataset '" + object_name(ds.id()) + "'"; });
  const hsize_t stored = H5Dget_storage_size(ds.id());
  hsize_t file_size = 0;
  {
    File f(H5Iget_file_id(ds.id()));
    if (!f.valid() || H5Fget_filesize(f.id(), &file_size) < 0) H5Eclear2(H5E_DEFAULT);
  }
  if (claimed / 1100 > stored || (file_size > 0 && stored > file_size))
    throw InputError(where + ": dataset claims " + std::to_string(n) + " values but stores " + std::to_string(stored) +
                     " bytes (truncated or corrupt file?)");
}

namespace {
// Filters by their registered ids (https://github.com/HDFGroup/hdf5_plugins),
// for the message of one this libhdf5 lacks; the name the file stores is
// taken when the id is not here.
const char* known_filter_name(H5Z_filter_t id) {
  switch (id) {
    case H5Z_FILTER_DEFLATE: return "deflate";
    case H5Z_FILTER_SHUFFLE: return "shuffle";
    case H5Z_FILTER_FLETCHER32: return "Fletcher-32";
    case H5Z_FILTER_SZIP: return "szip";
    case H5Z_FILTER_NBIT: return "n-bit";
    case H5Z_FILTER_SCALEOFFSET: return "scale-offset";
    case 307: return "bzip2";
    case 32000: return "LZF";
    case 32001: return "Blosc";
    case 32004: return "LZ4";
    case 32008: return "bitshuffle";
    case 32013: return "ZFP";
    case 32015: return "Zstandard";
    case 32026: return "Blosc2";
    default: return nullptr;
  }
}

// After a failed read: a filter of the dataset's pipeline that this
// libhdf5 cannot load (LZF, which h5py writes with compression='lzf', is
// not part of libhdf5) makes every read fail, and libhdf5's own error ("can't
// open directory" of its plugin path) would read as a damaged file. Throws
// naming the first such filter; returns when every filter is available.
void check_filters_available(const Dataset& ds, const std::string& where) {
  PropList dcpl(H5Dget_create_plist(ds.id()));
  const int nf = dcpl.valid() ? H5Pget_nfilters(dcpl.id()) : -1;
  for (int i = 0; i < nf; ++i) {
    unsigned flags = 0, cd[8] = {};
    size_t ncd = 8;
    char stored[64] = {0};
    const H5Z_filter_t id =
        H5Pget_filter2(dcpl.id(), static_cast<unsigned>(i), &flags, &ncd, cd, sizeof stored, stored, nullptr);
    if (id < 0 || H5Zfilter_avail(id) > 0) continue;
    H5Eclear2(H5E_DEFAULT);
    const char* known = known_filter_name(id);
    const std::string name = known ? known : *stored ? std::string(stored) : "unknown";
    throw InputError(where + ": is compressed with the HDF5 filter " + name + " (" + std::to_string(id) +
                     "), which is not available in this libhdf5 (no plugin for it in HDF5_PLUGIN_PATH); "
                     "save the file with gzip compression instead, or install the filter's plugin");
  }
  H5Eclear2(H5E_DEFAULT);
}

// libhdf5's deflate filter takes an intact zlib stream that inflates to
// fewer bytes than its chunk holds (a writer that stopped early, a misused
// H5Dwrite_chunk) and leaves the rest of the chunk as whatever its buffer
// held; more bytes are cut, or after shuffle un-shuffled as another length.
// h5py reads such chunks as wrong numbers too. So after a read, the chunks
// it covered of a dataset stored (shuffled and) deflated are inflated once
// more, in fixed buffers, and must give exactly the chunk's size. Rows
// [first, end) of dimension 0.
void check_inflated_chunks(const Dataset& ds, hsize_t first, hsize_t end, const std::string& where) {
  PropList dcpl(H5Dget_create_plist(ds.id()));
  Dataspace space(H5Dget_space(ds.id()));
  Datatype type(H5Dget_type(ds.id()));
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.id()) : -1;
  if (!dcpl.valid() || !type.valid() || rank < 1 || rank > 8 || H5Pget_layout(dcpl.id()) != H5D_CHUNKED) {
    H5Eclear2(H5E_DEFAULT);
    return;
  }
  hsize_t dims[8] = {0}, chunk[8] = {0};
  if (H5Sget_simple_extent_dims(space.id(), dims, nullptr) != rank || H5Pget_chunk(dcpl.id(), rank, chunk) != rank) {
    H5Eclear2(H5E_DEFAULT);
    return;
  }
  const int nf = H5Pget_nfilters(dcpl.id());
  int deflate = -1;
  for (int i = 0; i < nf; ++i) {
    unsigned flags = 0, cd[8] = {};
    size_t ncd = 8;
    const H5Z_filter_t f = H5Pget_filter2(dcpl.id(), static_cast<unsigned>(i), &flags, &ncd, cd, 0, nullptr, nullptr);
    if (f == H5Z_FILTER_DEFLATE && i == nf - 1) deflate = i;
    else if (f != H5Z_FILTER_SHUFFLE) deflate = nf;  // another filter may change the size: not checked
  }
  H5Eclear2(H5E_DEFAULT);
  if (deflate < 0 || deflate == nf) return;
  std::uint64_t expected = H5Tget_size(type.id());
  for (int d = 0; d < rank; ++d) {
    if (chunk[d] == 0) return;
    expected *= chunk[d];
  }
  end = std::min(end, dims[0]);
  hsize_t offset[8] = {0};
  offset[0] = first / chunk[0] * chunk[0];
  std::vector<unsigned char> stored, out(1 << 16);
  while (offset[0] < end) {
    hsize_t size = 0;
    std::uint32_t mask = 0;
    if (H5Dget_chunk_storage_size(ds.id(), offset, &size) >= 0 && size > 0) {
      stored.resize(static_cast<size_t>(size));
      if (H5Dread_chunk(ds.id(), H5P_DEFAULT, offset, &mask, stored.data()) >= 0 && !((mask >> deflate) & 1u)) {
        z_stream z{};
        int rc = inflateInit(&z);
        z.next_in = stored.data();
        z.avail_in = static_cast<uInt>(stored.size());
        while (rc == Z_OK) {
          z.next_out = out.data();
          z.avail_out = static_cast<uInt>(out.size());
          rc = inflate(&z, Z_NO_FLUSH);
        }
        const std::uint64_t got = z.total_out;
        inflateEnd(&z);
        // A stream zlib refuses failed the read already; only the size is new.
        if (rc == Z_STREAM_END && got != expected) {
          const hsize_t last = std::min(offset[0] + chunk[0], dims[0]) - 1;
          throw InputError(where + ": chunk " + std::to_string(offset[0] / chunk[0]) + " (rows " +
                           std::to_string(offset[0]) + ".." + std::to_string(last) + ") is damaged (it inflates to " +
                           std::to_string(got) + " bytes, " + std::to_string(expected) + " expected)");
        }
      }
    }
    H5Eclear2(H5E_DEFAULT);
    // The next chunk of the grid, the last dimension fastest.
    int d = rank - 1;
    for (; d > 0; --d) {
      offset[d] += chunk[d];
      if (offset[d] < dims[d]) break;
      offset[d] = 0;
    }
    if (d == 0) offset[0] += chunk[0];
  }
}
}  // namespace

std::vector<double> read_doubles(const Dataset& ds, const std::string& where) {
  const DatasetInfo info = dataset_info(ds, where);
  if (info.type_class != H5T_FLOAT) throw InputError(where + ": dataset is " + info.type_name() + ", expected float64");
  check_element_size(info, where);
  hsize_t n = 1;
  for (hsize_t d : info.dims) {
    if (d != 0 && n > kMaxElements / d) throw InputError(where + ": dataset is too large to read");
    n *= d;
  }
  std::vector<double> out = allocate_for<double>(ds, n, where);
  if (n > 0 && H5Dread(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) {
    const std::string reason = last_error();
    check_filters_available(ds, where);
    throw InputError(where + ": cannot read data (truncated or corrupt file?)" + (reason.empty() ? "" : ": " + reason));
  }
  if (!info.dims.empty()) check_inflated_chunks(ds, 0, info.dims[0], where);
  return out;
}

Dataset write_doubles(hid_t loc, const std::string& name, const std::vector<hsize_t>& dims, const double* data,
                      const std::string& where) {
  silence_errors();
  Dataspace space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  if (!space.valid()) fail(where, "cannot create dataspace for '" + name + "'");
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  PropList dcpl(H5Pcreate(H5P_DATASET_CREATE));
  large_attributes(dcpl.id());
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
    if (H5Pset_chunk(dcpl.id(), static_cast<int>(chunk.size()), chunk.data()) < 0 || H5Pset_shuffle(dcpl.id()) < 0 ||
        H5Pset_deflate(dcpl.id(), 4) < 0)
      fail(where, "cannot set up compression for '" + name + "'");
  }
  Dataset ds(H5Dcreate2(loc, name.c_str(), H5T_IEEE_F64LE, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT));
  if (!ds.valid()) fail(where, "cannot create dataset '" + name + "'");
  if (n > 0 && H5Dwrite(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    fail(where, "cannot write dataset '" + name + "'");
  return ds;
}

namespace {
// Rank (1 or 2) and extent of a column; rank 1 reports width 1 (one value per row).
int column_extent(hid_t ds, hsize_t& rows, hsize_t& width, const std::string& where) {
  Dataspace space(H5Dget_space(ds));
  hsize_t dims[2] = {0, 1};
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.id()) : -1;
  if (rank < 1 || rank > 2 || H5Sget_simple_extent_dims(space.id(), dims, nullptr) != rank)
    fail(where, "not a 1-D or 2-D dataset");
  rows = dims[0];
  width = rank == 2 ? dims[1] : 1;
  return rank;
}
}  // namespace

Dataset create_column(hid_t loc, const std::string& name, hid_t type, hsize_t chunk_rows, const std::string& where,
                      hsize_t width) {
  silence_errors();
  const int rank = width == 0 ? 1 : 2;
  const hsize_t dims[2] = {0, width}, maxdims[2] = {H5S_UNLIMITED, width}, chunk[2] = {chunk_rows, width};
  Dataspace space(H5Screate_simple(rank, dims, maxdims));
  if (!space.valid()) fail(where, "cannot create dataspace for '" + name + "'");
  PropList dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (H5Pset_chunk(dcpl.id(), rank, chunk) < 0) fail(where, "cannot set up chunks for '" + name + "'");
  // A Fletcher-32 checksum per chunk: a damaged chunk of a checkpoint or
  // partial result fails to read (verify_rows) instead of flowing into the
  // results.
  if (H5Pset_fletcher32(dcpl.id()) < 0) fail(where, "cannot set up checksums for '" + name + "'");
  Dataset ds(H5Dcreate2(loc, name.c_str(), type, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT));
  if (!ds.valid()) fail(where, "cannot create dataset '" + name + "'");
  return ds;
}

void append_column(const Dataset& column, hid_t type, const void* data, hsize_t n, const std::string& where) {
  if (n == 0) return;
  silence_errors();
  hsize_t cur = 0, width = 1;
  const int rank = column_extent(column.id(), cur, width, where);
  const hsize_t total[2] = {cur + n, width}, start[2] = {cur, 0}, count[2] = {n, width};
  if (H5Dset_extent(column.id(), total) < 0) fail(where, "cannot extend a column");
  Dataspace file_space(H5Dget_space(column.id()));
  if (!file_space.valid() || H5Sselect_hyperslab(file_space.id(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0)
    fail(where, "cannot select the appended rows");
  Dataspace mem_space(H5Screate_simple(rank, count, nullptr));
  if (H5Dwrite(column.id(), type, mem_space.id(), file_space.id(), H5P_DEFAULT, data) < 0)
    fail(where, "cannot write a column");
}

std::uint64_t append_bytes(const Dataset& column, hsize_t n) {
  silence_errors();
  hsize_t cur = 0, width = 1;
  try {
    column_extent(column.id(), cur, width, "");
  } catch (const InputError&) {
    return 0;
  }
  const PropList dcpl(H5Dget_create_plist(column.id()));
  const Datatype type(H5Dget_type(column.id()));
  hsize_t chunk[2] = {0, 0};
  if (!dcpl.valid() || !type.valid() || H5Pget_chunk(dcpl.id(), 2, chunk) < 1 || chunk[0] == 0)
    return static_cast<std::uint64_t>(n) * width * 8;
  const std::uint64_t rows = chunk[0], chunks = (cur + n + rows - 1) / rows - (cur + rows - 1) / rows;
  return chunks * rows * width * H5Tget_size(type.id());
}

void resize_column(hid_t loc, const std::string& name, hsize_t n, const std::string& where) {
  const Dataset ds = open_dataset(loc, name, where);
  hsize_t rows = 0, width = 1;
  column_extent(ds.id(), rows, width, where + ": " + name);
  const hsize_t extent[2] = {n, width};
  if (H5Dset_extent(ds.id(), extent) < 0) fail(where, "cannot resize '" + name + "'");
}

void read_rows(const Dataset& ds, hid_t type, hsize_t first, hsize_t n, void* out, const std::string& where) {
  silence_errors();
  hsize_t rows = 0, width = 1;
  const int rank = column_extent(ds.id(), rows, width, where);
  if (first > rows || n > rows - first)
    throw InputError(where + ": rows [" + std::to_string(first) + ", " + std::to_string(first + n) + ") are past its " +
                     std::to_string(rows) + " rows");
  if (n == 0) return;
  const hsize_t start[2] = {first, 0}, count[2] = {n, width};
  Dataspace file_space(H5Dget_space(ds.id()));
  if (!file_space.valid() || H5Sselect_hyperslab(file_space.id(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0)
    fail(where, "cannot select rows");
  Dataspace mem_space(H5Screate_simple(rank, count, nullptr));
  if (H5Dread(ds.id(), type, mem_space.id(), file_space.id(), H5P_DEFAULT, out) < 0) {
    H5Eclear2(H5E_DEFAULT);
    check_filters_available(ds, where);
    verify_rows(ds, first + n, where);  // names the damaged chunk
    fail(where, "cannot read data (truncated or corrupt file?)");
  }
  check_inflated_chunks(ds, first, first + n, where);
}

namespace {
// After a failed read of a chunked 1-D or 2-D column: throws verify_rows'
// error naming the damaged chunk, or returns (other layouts, or no chunk
// fails on its own).
void name_damaged_chunk(const Dataset& ds, const std::string& where) {
  PropList dcpl(H5Dget_create_plist(ds.id()));
  Dataspace space(H5Dget_space(ds.id()));
  const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.id()) : -1;
  hsize_t dims[2] = {0, 0};
  if (!dcpl.valid() || H5Pget_layout(dcpl.id()) != H5D_CHUNKED || rank < 1 || rank > 2 ||
      H5Sget_simple_extent_dims(space.id(), dims, nullptr) != rank) {
    H5Eclear2(H5E_DEFAULT);
    return;
  }
  verify_rows(ds, dims[0], where);
}
}  // namespace

void verify_rows(const Dataset& ds, hsize_t rows, const std::string& where) {
  silence_errors();
  hsize_t have = 0, width = 1;
  const int rank = column_extent(ds.id(), have, width, where);
  if (rows > have)
    throw InputError(where + ": holds " + std::to_string(have) + " rows, expected " + std::to_string(rows));
  hsize_t chunk[2] = {0, 0};
  PropList dcpl(H5Dget_create_plist(ds.id()));
  if (!dcpl.valid() || H5Pget_layout(dcpl.id()) != H5D_CHUNKED || H5Pget_chunk(dcpl.id(), rank, chunk) < 0 ||
      chunk[0] == 0) {
    H5Eclear2(H5E_DEFAULT);
    chunk[0] = 65536;
  }
  // One chunk at a time: a checksum failure names the chunk.
  std::vector<unsigned char> buf;
  for (hsize_t first = 0; first < rows; first += chunk[0]) {
    const hsize_t n = std::min(chunk[0], rows - first);
    buf.resize(static_cast<size_t>(n * width * 8));
    const hsize_t start[2] = {first, 0}, count[2] = {n, width};
    Dataspace file_space(H5Dget_space(ds.id()));
    Dataspace mem_space(H5Screate_simple(rank, count, nullptr));
    if (!file_space.valid() || !mem_space.valid() ||
        H5Sselect_hyperslab(file_space.id(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
        H5Dread(ds.id(), H5T_NATIVE_DOUBLE, mem_space.id(), file_space.id(), H5P_DEFAULT, buf.data()) < 0) {
      const std::string reason = last_error();
      check_filters_available(ds, where);
      throw InputError(where + ": chunk " + std::to_string(first / chunk[0]) + " (rows " + std::to_string(first) +
                       ".." + std::to_string(first + n - 1) + ") is damaged" +
                       (reason.empty() ? "" : " (" + reason + ")"));
    }
  }
}

void write_array(hid_t loc, const std::string& name, hid_t type, const void* data, hsize_t n,
                 const std::string& where) {
  silence_errors();
  if (has_child(loc, name) && H5Ldelete(loc, name.c_str(), H5P_DEFAULT) < 0)
    fail(where, "cannot replace '" + name + "'");
  Dataspace space(H5Screate_simple(1, &n, nullptr));
  if (!space.valid()) fail(where, "cannot create dataspace for '" + name + "'");
  Dataset ds(H5Dcreate2(loc, name.c_str(), type, space.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!ds.valid()) fail(where, "cannot create dataset '" + name + "'");
  if (n > 0 && H5Dwrite(ds.id(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    fail(where, "cannot write dataset '" + name + "'");
}

hsize_t element_count(const Dataset& ds, const std::string& where) {
  hsize_t n = 1;
  for (hsize_t d : dataset_info(ds, where).dims) {
    if (d != 0 && n > kMaxElements / d) throw InputError(where + ": dataset is too large to read");
    n *= d;
  }
  return n;
}

void read_all(const Dataset& ds, hid_t type, void* out, const std::string& where) {
  silence_errors();
  if (H5Dread(ds.id(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) {
    const std::string reason = last_error();
    check_filters_available(ds, where);
    name_damaged_chunk(ds, where);
    throw InputError(where + ": cannot read data (truncated or corrupt file?)" + (reason.empty() ? "" : ": " + reason));
  }
  check_inflated_chunks(ds, 0, ~hsize_t(0), where);
}

bool has_attribute(hid_t obj, const std::string& name) {
  silence_errors();
  const Watched watch(obj, [&] { return "looking up attribute '" + name + "'"; });
  const htri_t r = H5Aexists(obj, name.c_str());
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

std::vector<std::string> attribute_names(hid_t obj) {
  silence_errors();
  const Watched watch(obj, [&] { return "listing the attributes of '" + object_name(obj) + "'"; });
  std::vector<std::string> out;
  hsize_t idx = 0;
  if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, &collect_attr, &out) < 0) H5Eclear2(H5E_DEFAULT);
  return out;
}

std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& where) {
  silence_errors();
  const Watched watch(obj, [&] { return "reading attribute '" + name + "'"; });
  const std::string at = where + ": attribute '" + name + "'";
  Dataspace space;
  const Attribute attr = open_single_attribute(obj, name, at, space);
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
      // Only the padding is stripped: spaces for space-padded (Fortran-style)
      // strings, NULs otherwise, so a value ending in a space round-trips.
      const bool space_padded = H5Tget_strpad(type.id()) == H5T_STR_SPACEPAD;
      while (!s.empty() && (s.back() == '\0' || (space_padded && s.back() == ' '))) s.pop_back();
      return s;
    }
    case H5T_INTEGER:
    case H5T_FLOAT: {
      const size_t size = H5Tget_size(type.id());
      if (size == 0 || size > 16)
        throw InputError(at + ": has a " + std::to_string(size) + "-byte number type (corrupt file?)");
      if (H5Tget_class(type.id()) == H5T_INTEGER && size <= 8) {  // every digit, not a double's 17
        if (H5Tget_sign(type.id()) == H5T_SGN_NONE) {
          std::uint64_t u = 0;
          if (H5Aread(attr.id(), H5T_NATIVE_UINT64, &u) < 0) fail(at, "cannot read");
          return std::to_string(u);
        }
        std::int64_t i = 0;
        if (H5Aread(attr.id(), H5T_NATIVE_INT64, &i) < 0) fail(at, "cannot read");
        return std::to_string(i);
      }
      double v = 0;
      if (H5Aread(attr.id(), H5T_NATIVE_DOUBLE, &v) < 0) fail(at, "cannot read");
      return format_number(v);
    }
    default: throw InputError(at + ": expected a string or number");
  }
}

void write_string_attribute(hid_t obj, const std::string& name, const std::string& value, const std::string& where) {
  silence_errors();
  if (has_attribute(obj, name) && H5Adelete(obj, name.c_str()) < 0)
    fail(where, "cannot replace attribute '" + name + "'");
  // Fixed-length, not variable-length: variable-length strings live in the
  // file's global heap, and libhdf5 1.10 crashes (H5HG_read) on a corrupted
  // global heap; fixed-length ones are stored in the attribute itself.
  Datatype type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.id(), std::max<size_t>(value.size(), 1));
  H5Tset_strpad(type.id(), H5T_STR_NULLPAD);
  H5Tset_cset(type.id(), H5T_CSET_UTF8);
  Dataspace space(H5Screate(H5S_SCALAR));
  Attribute attr(H5Acreate2(obj, name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attr.valid()) fail(where, "cannot create attribute '" + name + "'");
  std::string padded = value;
  padded.resize(std::max<size_t>(value.size(), 1), '\0');
  if (H5Awrite(attr.id(), type.id(), padded.data()) < 0) fail(where, "cannot write attribute '" + name + "'");
}

namespace {

void write_scalar_attribute(hid_t obj, const std::string& name, hid_t file_type, hid_t mem_type, const void* value,
                            const std::string& where) {
  silence_errors();
  if (has_attribute(obj, name) && H5Adelete(obj, name.c_str()) < 0)
    fail(where, "cannot replace attribute '" + name + "'");
  Dataspace space(H5Screate(H5S_SCALAR));
  Attribute attr(H5Acreate2(obj, name.c_str(), file_type, space.id(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attr.valid()) fail(where, "cannot create attribute '" + name + "'");
  if (H5Awrite(attr.id(), mem_type, value) < 0) fail(where, "cannot write attribute '" + name + "'");
}

void read_scalar_attribute(hid_t obj, const std::string& name, hid_t mem_type, void* value, const std::string& where) {
  silence_errors();
  const Watched watch(obj, [&] { return "reading attribute '" + name + "'"; });
  const std::string at = where + ": attribute '" + name + "'";
  Dataspace space;
  const Attribute attr = open_single_attribute(obj, name, at, space);
  // Type class and size are checked before reading: a damaged datatype
  // message can claim any size, and libhdf5 1.10 sizes its conversion buffer
  // by it.
  Datatype type(H5Aget_type(attr.id()));
  if (!type.valid()) fail(at, "cannot read datatype");
  const H5T_class_t cls = H5Tget_class(type.id());
  const size_t size = H5Tget_size(type.id());
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) throw InputError(at + ": expected a number");
  if (size == 0 || size > 16)
    throw InputError(at + ": has a " + std::to_string(size) + "-byte number type (corrupt file?)");
  if (H5Aread(attr.id(), mem_type, value) < 0) fail(at, "cannot read");
}

}  // namespace

void write_int_attribute(hid_t obj, const std::string& name, std::int64_t value, const std::string& where) {
  write_scalar_attribute(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, where);
}

void write_uint_attribute(hid_t obj, const std::string& name, std::uint64_t value, const std::string& where) {
  write_scalar_attribute(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value, where);
}

void write_flag_attribute(hid_t obj, const std::string& name, bool value, const std::string& where) {
  const std::int8_t v = value ? 1 : 0;
  write_scalar_attribute(obj, name, H5T_STD_I8LE, H5T_NATIVE_INT8, &v, where);
}

double read_double_attribute(hid_t obj, const std::string& name, const std::string& where) {
  double v = 0;
  read_scalar_attribute(obj, name, H5T_NATIVE_DOUBLE, &v, where);
  return v;
}

std::int64_t read_int_attribute(hid_t obj, const std::string& name, const std::string& where) {
  std::int64_t v = 0;
  read_scalar_attribute(obj, name, H5T_NATIVE_INT64, &v, where);
  return v;
}

void write_double_attribute(hid_t obj, const std::string& name, double value, const std::string& where) {
  write_scalar_attribute(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, where);
}

std::uint64_t read_uint_attribute(hid_t obj, const std::string& name, const std::string& where) {
  std::uint64_t v = 0;
  read_scalar_attribute(obj, name, H5T_NATIVE_UINT64, &v, where);
  return v;
}

void attach_scale(const Dataset& dataset, const Dataset& scale, const std::string& label, const std::string& where,
                  unsigned dim) {
  silence_errors();
  if (H5DSis_scale(scale.id()) <= 0 && H5DSset_scale(scale.id(), label.c_str()) < 0)
    fail(where, "cannot make '" + label + "' a dimension scale");
  if (H5DSattach_scale(dataset.id(), scale.id(), dim) < 0) fail(where, "cannot attach dimension scale '" + label + "'");
}

Dataset create_bare_dimension(hid_t loc, const std::string& name, hsize_t n, const std::string& where) {
  silence_errors();
  const hsize_t dims[1] = {n};
  Dataspace space(H5Screate_simple(1, dims, nullptr));
  if (!space.valid()) fail(where, "cannot create dataspace for dimension '" + name + "'");
  // Contiguous with late allocation (the default): nothing is ever written,
  // so the file holds only the object header.
  Dataset ds(H5Dcreate2(loc, name.c_str(), H5T_IEEE_F32LE, space.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!ds.valid()) fail(where, "cannot create dimension '" + name + "'");
  char label[96];
  std::snprintf(label, sizeof label, "This is a netCDF dimension but not a netCDF variable. %10llu",
                static_cast<unsigned long long>(n));
  if (H5DSset_scale(ds.id(), label) < 0) fail(where, "cannot make '" + name + "' a dimension");
  return ds;
}

bool is_dimension_scale(hid_t loc, const std::string& name, const std::string& where) {
  const Dataset ds = open_dataset(loc, name, where);
  silence_errors();
  const Watched watch(loc, [&] { return "reading the dimension-scale marks of '" + name + "'"; });
  return H5DSis_scale(ds.id()) > 0;
}

namespace {
// Fixed-length UTF-8 strings of the longest value's size (at least 1): the
// values, NUL-padded, one after another.
std::string fixed_strings(const std::vector<std::string>& values, size_t& size) {
  size = 1;
  for (const auto& v : values) size = std::max(size, v.size());
  std::string buf(values.size() * size, '\0');
  for (size_t i = 0; i < values.size(); ++i) std::copy(values[i].begin(), values[i].end(), buf.begin() + i * size);
  return buf;
}
Datatype fixed_string_type(size_t size) {
  Datatype type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.id(), size);
  H5Tset_strpad(type.id(), H5T_STR_NULLPAD);
  H5Tset_cset(type.id(), H5T_CSET_UTF8);
  return type;
}
}  // namespace

void write_string_list_attribute(hid_t obj, const std::string& name, const std::vector<std::string>& values,
                                 const std::string& where) {
  silence_errors();
  if (has_attribute(obj, name) && H5Adelete(obj, name.c_str()) < 0)
    fail(where, "cannot replace attribute '" + name + "'");
  size_t size = 1;
  const std::string buf = fixed_strings(values, size);
  const Datatype type = fixed_string_type(size);
  const hsize_t n = values.size();
  Dataspace space(H5Screate_simple(1, &n, nullptr));
  Attribute attr(H5Acreate2(obj, name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attr.valid()) fail(where, "cannot create attribute '" + name + "'");
  if (n > 0 && H5Awrite(attr.id(), type.id(), buf.data()) < 0) fail(where, "cannot write attribute '" + name + "'");
}

std::vector<std::string> read_string_list_attribute(hid_t obj, const std::string& name, char old_separator,
                                                    const std::string& where) {
  silence_errors();
  const Watched watch(obj, [&] { return "reading attribute '" + name + "'"; });
  const std::string at = where + ": attribute '" + name + "'";
  Attribute attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT));
  if (!attr.valid()) fail(at, "cannot open");
  Dataspace space(H5Aget_space(attr.id()));
  if (!space.valid()) fail(at, "cannot read dataspace");
  Datatype type(H5Aget_type(attr.id()));
  if (!type.valid()) fail(at, "cannot read datatype");
  const bool scalar = H5Sget_simple_extent_type(space.id()) == H5S_SCALAR;
  if (scalar || H5Tget_class(type.id()) != H5T_STRING || H5Tis_variable_str(type.id()) > 0) {
    // A file from before name lists were arrays: one string, split.
    attr.reset();
    const std::string text = read_string_attribute(obj, name, where);
    std::vector<std::string> out;
    if (text.empty()) return out;
    size_t b = 0;
    for (;;) {
      const size_t e = text.find(old_separator, b);
      out.push_back(text.substr(b, e == std::string::npos ? std::string::npos : e - b));
      if (e == std::string::npos) return out;
      b = e + 1;
    }
  }
  const hssize_t n = H5Sget_simple_extent_npoints(space.id());
  const size_t size = H5Tget_size(type.id());
  if (n < 0 || n > (1 << 20) || size == 0 || size > (1u << 16)) throw InputError(at + ": implausible string list");
  std::string buf(static_cast<size_t>(n) * size, '\0');
  Datatype mem(H5Tcopy(H5T_C_S1));
  H5Tset_size(mem.id(), size);
  H5Tset_strpad(mem.id(), H5Tget_strpad(type.id()));
  H5Tset_cset(mem.id(), H5Tget_cset(type.id()));
  if (n > 0 && H5Aread(attr.id(), mem.id(), buf.data()) < 0) fail(at, "cannot read");
  std::vector<std::string> out;
  for (hssize_t i = 0; i < n; ++i) {
    std::string v = buf.substr(static_cast<size_t>(i) * size, size);
    while (!v.empty() && v.back() == '\0') v.pop_back();
    out.push_back(v);
  }
  return out;
}

Dataset write_string_array(hid_t loc, const std::string& name, const std::vector<std::string>& values,
                           const std::string& where) {
  silence_errors();
  if (has_child(loc, name) && H5Ldelete(loc, name.c_str(), H5P_DEFAULT) < 0)
    fail(where, "cannot replace '" + name + "'");
  size_t size = 1;
  const std::string buf = fixed_strings(values, size);
  const Datatype type = fixed_string_type(size);
  const hsize_t n = values.size();
  Dataspace space(H5Screate_simple(1, &n, nullptr));
  Dataset ds(H5Dcreate2(loc, name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!ds.valid()) fail(where, "cannot create dataset '" + name + "'");
  if (n > 0 && H5Dwrite(ds.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
    fail(where, "cannot write dataset '" + name + "'");
  return ds;
}

}  // namespace stribeck::data::h5
