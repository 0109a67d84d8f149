#include "stribeck/data/log_blocks.hpp"

#include <zlib.h>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "group_attributes.hpp"
#include "log_detail.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/interrupt.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data {
namespace {

struct Found {
  std::string prefix;  // group path ("" = root)
  std::string name;    // experiment name (root: the file stem)
};

std::vector<Found> find_experiments(hid_t root, const std::string& path) {
  std::vector<Found> out;
  detail::for_each_experiment_group(root, path, [&](hid_t, const std::vector<h5::Child>&, const std::string& prefix) {
    out.push_back({prefix, prefix.empty() ? file_stem(path) : prefix});
  });
  if (out.empty()) throw InputError(path + ": no experiments (no group holds channel datasets)");
  return out;
}

// Experiment `name` (a group path) looked up directly, where the walk of
// find_experiments would find it under that name: every step a hard link to
// a group that is not a results group, at most as deep as the walk goes, the
// last holding datasets (its members checked as the walk checks them). False
// (walk instead, for its messages) otherwise. Walking every group to open
// one experiment made `export` of E experiments cost E walks of E groups.
bool find_directly(hid_t root, const std::string& path, const std::string& name) {
  if (name.empty() || name == file_stem(path)) return false;  // the root's name: the walk decides
  std::vector<h5::Group> chain;
  hid_t loc = root;
  for (std::size_t b = 0;;) {
    const std::size_t e = std::min(name.find('/', b), name.size());
    const std::string step = name.substr(b, e - b);
    if (step.empty() || step == "." || step == ".." || chain.size() >= 32 || !h5::has_child(loc, step)) return false;
    H5L_info_t link{};
    H5O_info_t object{};
    bool group = false;
    {
      const h5::Watched watch(loc, [&] { return "looking up '" + step + "'"; });
      group = H5Lget_info(loc, step.c_str(), &link, H5P_DEFAULT) >= 0 && link.type == H5L_TYPE_HARD &&
              H5Oget_info_by_name2(loc, step.c_str(), &object, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
              object.type == H5O_TYPE_GROUP;
    }
    if (!group) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    try {
      chain.push_back(h5::open_group(loc, step, path));
    } catch (const InputError&) {
      return false;
    }
    if (detail::is_results_group(chain.back().id())) return false;
    loc = chain.back().id();
    if (e == name.size()) break;
    b = e + 1;
  }
  const auto kids = h5::children(loc, path + ": group '" + name + "'");
  bool data = false;
  for (const auto& k : kids) data |= k.kind == h5::Kind::kDataset;
  if (!data) return false;
  for (const auto& k : kids) h5::check_child(k, path + ": experiment '" + name + "': member '" + k.name + "'");
  return true;
}

// How a channel's chunks can be decoded off HDF5's thread: float64
// little-endian, chunked (1-D), with no filter or shuffle and/or deflate in
// that order, chunks of at most kMaxRawChunkRows rows. Anything else (other
// types, layouts or filters: Fletcher-32, szip, n-bit, ...) reads through
// H5Dread.
struct RawChunks {
  bool ok = false;
  hsize_t rows = 0;  // rows per chunk
  bool shuffle = false, deflate = false;
};
constexpr hsize_t kMaxRawChunkRows = hsize_t(1) << 20;  // 8 MiB a chunk: memory stays bounded
// HDF5 takes about 16 KiB for each open dataset: readers and writers hold
// the datasets of at most this many channels open at once.
constexpr std::size_t kHeldChannels = 1024;

// libhdf5 counts a chunk index node in its metadata cache by its size in the
// file (about 1 KiB) but holds it in memory in about 18 KiB: the default
// 32 MiB cache then keeps half a gigabyte of the nodes of a log of many
// channels. 4 MiB bounds them near 70 MiB and still holds every node of a
// log of a few channels.
void bound_metadata_cache(hid_t file, const std::string& where) {
  H5AC_cache_config_t config{};
  config.version = H5AC__CURR_CACHE_CONFIG_VERSION;
  if (H5Fget_mdc_config(file, &config) < 0) h5::fail(where, "cannot read the metadata cache settings");
  config.max_size = std::size_t(4) << 20;
  config.min_size = std::min(config.min_size, config.max_size);
  config.set_initial_size = true;
  config.initial_size = std::min(config.initial_size, config.max_size);
  if (H5Fset_mdc_config(file, &config) < 0) h5::fail(where, "cannot bound the metadata cache");
}

RawChunks raw_chunks(const h5::Dataset& ds) {
  RawChunks r;
  static_assert(sizeof(double) == 8, "float64 chunks are decoded as double");
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  return r;
#endif
  h5::Datatype type(H5Dget_type(ds.id()));
  h5::PropList dcpl(H5Dget_create_plist(ds.id()));
  hsize_t chunk[2] = {0, 0};
  if (!type.valid() || H5Tequal(type.id(), H5T_IEEE_F64LE) <= 0 || !dcpl.valid() ||
      H5Pget_layout(dcpl.id()) != H5D_CHUNKED || H5Pget_chunk(dcpl.id(), 2, chunk) != 1 || chunk[0] == 0 ||
      chunk[0] > kMaxRawChunkRows) {
    H5Eclear2(H5E_DEFAULT);
    return r;
  }
  const int nf = H5Pget_nfilters(dcpl.id());
  if (nf < 0) {
    H5Eclear2(H5E_DEFAULT);
    return r;
  }
  for (int i = 0; i < nf; ++i) {
    unsigned flags = 0, cd[8] = {};
    size_t ncd = 8;
    char name[64];
    const H5Z_filter_t f =
        H5Pget_filter2(dcpl.id(), static_cast<unsigned>(i), &flags, &ncd, cd, sizeof name, name, nullptr);
    if (f == H5Z_FILTER_SHUFFLE && i == 0 && ncd >= 1 && cd[0] == 8) r.shuffle = true;
    else if (f == H5Z_FILTER_DEFLATE && !r.deflate) r.deflate = true;
    else {
      H5Eclear2(H5E_DEFAULT);
      return r;  // another filter, or shuffle after deflate
    }
  }
  r.rows = chunk[0];
  r.ok = true;
  return r;
}

// One stored chunk of a channel, as read by H5Dread_chunk: decoded on a
// worker thread into rows [row_begin, row_end) of the caller's buffer.
struct ChunkJob {
  std::size_t channel = 0;  // index into the caller's channel list
  hsize_t first = 0;        // first row of the chunk in the dataset
  std::vector<unsigned char> stored;
};

// Inflates (deflate) and un-shuffles (shuffle) one chunk of `rows` float64
// and copies its rows [lo, hi) (chunk-relative) to out. `tmp` is the
// thread's scratch. False when the stored bytes do not decode to the chunk.
bool decode_chunk(const RawChunks& rc, const std::vector<unsigned char>& stored, hsize_t lo, hsize_t hi, double* out,
                  std::vector<unsigned char>& tmp) {
  const std::size_t bytes = static_cast<std::size_t>(rc.rows) * 8;
  const unsigned char* src = stored.data();
  if (rc.deflate) {
    tmp.resize(bytes);
    uLongf got = static_cast<uLongf>(bytes);
    if (uncompress(tmp.data(), &got, stored.data(), static_cast<uLong>(stored.size())) != Z_OK || got != bytes)
      return false;
    src = tmp.data();
  } else if (stored.size() != bytes) {
    return false;
  }
  auto* dst = reinterpret_cast<unsigned char*>(out);
  if (rc.shuffle && rc.rows > 1) {  // byte b of row r is at b * rows + r
    const std::size_t n = static_cast<std::size_t>(rc.rows);
    for (hsize_t r = lo; r < hi; ++r) {
      unsigned char* d = dst + (r - lo) * 8;
      for (std::size_t b = 0; b < 8; ++b) d[b] = src[b * n + r];
    }
  } else {
    std::memcpy(dst, src + lo * 8, (hi - lo) * 8);
  }
  return true;
}

}  // namespace

bool is_hdf5_log(const std::string& path) {
  if (!h5::is_hdf5(path)) return false;
  char head[20] = {0};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  const std::string h(head, std::fread(head, 1, sizeof head, f));
  std::fclose(f);
  return h.rfind("MATLAB 7.3 MAT-file", 0) != 0;
}

std::vector<std::string> list_log_experiments(const std::string& path) {
  h5::File f = h5::open_file(path);
  h5::Group root = h5::open_group(f.id(), "/", path);
  std::vector<std::string> names;
  for (const auto& e : find_experiments(root.id(), path)) names.push_back(e.name);
  return names;
}

// ---------------------------------------------------------------------------
struct LogBlockReader::Impl {
  struct Chan {
    std::string name;
    h5::Dataset ds;  // closed in experiments of more than kHeldChannels
    detail::ChannelConversion conv;
    std::string at;
    std::map<std::string, std::string> attributes;  // import --gain provenance
    RawChunks raw;                                  // chunks decoded on threads (read())
  };
  std::string path, name, where;
  h5::File file;
  h5::Group group;  // the experiment's
  std::vector<std::string> names;
  std::map<std::string, Chan> chans;
  std::map<std::string, std::string> units;
  std::map<std::string, std::string> attributes;
  std::size_t length = 0;
  BlockExecutor* executor = nullptr;
  // Time is checked across blocks read in order: the row after the last time
  // value read, and that value.
  mutable std::size_t time_next = 0;
  mutable double time_last = 0.0;

  const Chan& chan(const std::string& ch) const {
    auto it = chans.find(ch);
    if (it == chans.end()) throw InputError(where + ": has no channel '" + ch + "'");
    return it->second;
  }
  // A channel's dataset: held open, or (a wide experiment) opened into
  // `scratch` for the caller.
  const h5::Dataset& dataset(const Chan& c, h5::Dataset& scratch) const {
    if (c.ds.valid()) return c.ds;
    scratch = h5::open_dataset(group.id(), c.name, c.at);
    return scratch;
  }
};

LogBlockReader::LogBlockReader(const std::string& path, const std::string& experiment) : impl_(new Impl) {
  Impl& m = *impl_;
  m.path = path;
  m.file = h5::open_file(path);
  bound_metadata_cache(m.file.id(), path);
  Found pick;
  if (h5::Group root = h5::open_group(m.file.id(), "/", path); find_directly(root.id(), path, experiment)) {
    pick = {experiment, experiment};
  } else {
    const auto found = find_experiments(root.id(), path);
    std::string names;
    bool ok = false;
    for (const auto& f : found) {
      if (!experiment.empty() && f.name == experiment && !ok) {
        pick = f;
        ok = true;
      }
      names += (names.empty() ? "" : ", ") + f.name;
    }
    if (experiment.empty() && found.size() == 1) {
      pick = found.front();
      ok = true;
    }
    if (!ok && experiment.empty())
      throw InputError(path + ": holds " + std::to_string(found.size()) + " experiments (" + names +
                       "); choose one with --experiment NAME");
    if (!ok) throw InputError(path + ": no experiment '" + experiment + "' (has: " + names + ")");
  }
  m.name = pick.name;
  m.where = path + ": experiment '" + m.name + "'";
  m.group = h5::open_group(m.file.id(), pick.prefix.empty() ? "/" : pick.prefix, m.where);
  const h5::Group& g = m.group;
  detail::read_attributes(g.id(), m.attributes, m.where);
  auto motion = m.attributes.find("motion");
  const bool rotational = motion != m.attributes.end() && motion->second == "rotational";
  const detail::PressureReference ref = detail::pressure_reference(m.attributes, m.where);
  std::map<std::string, hsize_t> lengths;
  const auto kids = h5::children(g.id());
  // The channels of a wide experiment are opened while they are read, not
  // held (kHeldChannels).
  const bool hold = std::count_if(kids.begin(), kids.end(), [](const h5::Child& k) {
                      return k.kind == h5::Kind::kDataset;
                    }) <= static_cast<long>(kHeldChannels);
  for (const auto& kid : kids) {
    if (kid.kind != h5::Kind::kDataset) continue;
    Impl::Chan c;
    c.name = kid.name;
    c.at = m.where + ": channel '" + kid.name + "'";
    c.ds = h5::open_dataset(g.id(), kid.name, c.at);
    hsize_t n = 0;
    const std::string unit = detail::check_channel_dataset(c.ds, c.at, n);
    c.conv = detail::channel_conversion(kid.name, unit, rotational, ref, c.at);
    c.attributes = detail::read_channel_attributes(c.ds.id(), c.at);
    c.raw = raw_chunks(c.ds);
    if (n == 0) throw InputError(c.at + ": is empty");
    if (auto dim = channel_dimension(kid.name, rotational); dim && c.conv.si != si_unit(*dim))
      throw InputError(c.at + ": unit '" + c.conv.si + "', expected SI unit '" + si_unit(*dim) + "'");
    lengths[kid.name] = n;
    m.units[kid.name] = c.conv.si;
    m.names.push_back(kid.name);
    if (!hold) c.ds.reset();
    m.chans.emplace(kid.name, std::move(c));
  }
  if (m.names.empty()) throw InputError(m.where + ": has no channels");
  const std::string ref_ch = lengths.count("time") ? std::string("time") : lengths.begin()->first;
  m.length = static_cast<std::size_t>(lengths.at(ref_ch));
  for (const auto& [ch, n] : lengths)
    if (n != m.length)
      throw InputError(m.where + ": channel '" + ch + "': has " + std::to_string(n) + " samples, channel '" + ref_ch +
                       "' has " + std::to_string(m.length));
  detail::mark_gauge(m.attributes, ref);
}

LogBlockReader::~LogBlockReader() = default;
LogBlockReader::LogBlockReader(LogBlockReader&&) noexcept = default;
LogBlockReader& LogBlockReader::operator=(LogBlockReader&&) noexcept = default;

const std::string& LogBlockReader::path() const { return impl_->path; }
const std::string& LogBlockReader::experiment() const { return impl_->name; }
const std::vector<std::string>& LogBlockReader::channels() const { return impl_->names; }
bool LogBlockReader::has(const std::string& ch) const { return impl_->chans.count(ch) != 0; }
std::size_t LogBlockReader::length() const { return impl_->length; }
const std::string& LogBlockReader::units(const std::string& ch) const {
  impl_->chan(ch);
  return impl_->units.at(ch);
}
const std::map<std::string, std::string>& LogBlockReader::attributes() const { return impl_->attributes; }
const std::map<std::string, std::string>& LogBlockReader::channel_attributes(const std::string& ch) const {
  return impl_->chan(ch).attributes;
}
std::string LogBlockReader::where() const { return impl_->where; }
void LogBlockReader::set_executor(BlockExecutor* executor) { impl_->executor = executor; }

void LogBlockReader::read(const std::string& ch, std::size_t begin, std::size_t end, double* out) const {
  double* const outs[] = {out};
  read(std::vector<std::string>{ch}, begin, end, outs);
}

bool LogBlockReader::copy_stored(const std::string& ch, hid_t dst_group, const std::string& name) const {
  const Impl::Chan& c = impl_->chan(ch);
  if (c.conv.affine || c.conv.minus_ambient) return false;
  h5::Dataset scratch;
  const h5::Dataset& ds = impl_->dataset(c, scratch);
  h5::Datatype type(H5Dget_type(ds.id()));
  if (!type.valid() || H5Tequal(type.id(), H5T_IEEE_F64LE) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  h5::PropList ocpy(H5Pcreate(H5P_OBJECT_COPY));
  if (!ocpy.valid() || H5Pset_copy_object(ocpy.id(), H5O_COPY_WITHOUT_ATTR_FLAG) < 0 ||
      H5Ocopy(ds.id(), ".", dst_group, name.c_str(), ocpy.id(), H5P_DEFAULT) < 0)
    h5::fail(c.at, "cannot copy the dataset");
  return true;
}

std::uint64_t LogBlockReader::stored_bytes(const std::string& ch) const {
  h5::Dataset scratch;
  return H5Dget_storage_size(impl_->dataset(impl_->chan(ch), scratch).id());
}

// Rows [begin, end) of every named channel. Channels whose chunks can be
// decoded off HDF5's thread (raw_chunks) are read as stored
// (H5Dread_chunk, one thread: HDF5 is not thread-safe), then inflated and
// un-shuffled, one job per chunk, by the executor's jobs (set_executor); the rest, and any chunk
// that is missing, skipped a filter or does not decode, go through H5Dread
// (which also names a damaged chunk). Both give the same bits. Then each
// channel is converted to SI and checked as read_log does.
void LogBlockReader::read(const std::vector<std::string>& channels, std::size_t begin, std::size_t end,
                          double* const* out) const {
  const Impl& m = *impl_;
  std::vector<const Impl::Chan*> cs;
  for (const auto& ch : channels) {
    const Impl::Chan& c = m.chan(ch);
    if (begin > end || end > m.length)
      throw InputError(c.at + ": rows [" + std::to_string(begin) + ", " + std::to_string(end) + ") are past its " +
                       std::to_string(m.length) + " samples");
    cs.push_back(&c);
  }
  const std::size_t n = end - begin;
  if (n == 0) return;
  std::vector<ChunkJob> jobs;
  std::vector<char> through_hdf5(cs.size(), 1);
  for (std::size_t k = 0; k < cs.size(); ++k) {
    const RawChunks& rc = cs[k]->raw;
    if (!rc.ok) continue;
    const std::size_t first_job = jobs.size();
    bool ok = true;
    h5::Dataset scratch;
    const h5::Dataset& ds = m.dataset(*cs[k], scratch);
    for (hsize_t c0 = begin / rc.rows * rc.rows; ok && c0 < end; c0 += rc.rows) {
      ChunkJob j;
      j.channel = k;
      j.first = c0;
      hsize_t offset[1] = {c0}, size = 0;
      std::uint32_t mask = 0;
      ok = H5Dget_chunk_storage_size(ds.id(), offset, &size) >= 0 && size > 0;
      if (ok) {
        j.stored.resize(static_cast<std::size_t>(size));
        ok = H5Dread_chunk(ds.id(), H5P_DEFAULT, offset, &mask, j.stored.data()) >= 0 && mask == 0;
      }
      if (ok) jobs.push_back(std::move(j));
    }
    if (!ok) {  // unallocated chunk (fill value), a skipped filter, an error: H5Dread
      H5Eclear2(H5E_DEFAULT);
      jobs.resize(first_job);
    } else {
      through_hdf5[k] = 0;
    }
  }
  std::vector<char> job_bad(jobs.size(), 0), bad(cs.size(), 0);
  auto decode = [&](long i, std::vector<unsigned char>& tmp) {
    const ChunkJob& j = jobs[static_cast<std::size_t>(i)];
    const RawChunks& rc = cs[j.channel]->raw;
    const hsize_t lo = std::max<hsize_t>(begin, j.first), hi = std::min<hsize_t>(end, j.first + rc.rows);
    if (!decode_chunk(rc, j.stored, lo - j.first, hi - j.first, out[j.channel] + (lo - begin), tmp))
      job_bad[static_cast<std::size_t>(i)] = 1;
  };
  const long n_jobs = static_cast<long>(jobs.size());
  if (m.executor && n_jobs > 1) {
    m.executor->run(n_jobs, [&](long i) {
      thread_local std::vector<unsigned char> tmp;  // one chunk's inflated bytes per thread
      decode(i, tmp);
    });
  } else {
    // No OpenMP construct at all: a reader on a thread of its own (a
    // prefetch thread) never gets an OpenMP pool of its own to tear down.
    std::vector<unsigned char> tmp;
    for (long i = 0; i < n_jobs; ++i) decode(i, tmp);
  }
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (job_bad[i]) bad[jobs[i].channel] = 1;
  jobs.clear();
  for (std::size_t k = 0; k < cs.size(); ++k) {
    const Impl::Chan& c = *cs[k];
    double* o = out[k];
    if (through_hdf5[k] || bad[k]) {
      h5::Dataset scratch;
      h5::read_rows(m.dataset(c, scratch), H5T_NATIVE_DOUBLE, begin, n, o, c.at);
    }
    c.conv.apply(o, n);
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isfinite(o[i]))
        throw InputError(c.at + ": value " + (std::isnan(o[i]) ? "NaN" : "Inf") + " at index " +
                         std::to_string(begin + i));
    if (channels[k] != "time") continue;
    auto fail_time = [&](std::size_t i, double prev, double t) {
      throw InputError(m.where + ": channel 'time': " + (t == prev ? "repeats" : "decreases") + " at index " +
                       std::to_string(i) + " (" + format_number(prev) + " s, then " + format_number(t) +
                       " s); time must increase strictly");
    };
    if (begin > 0 && begin == m.time_next && !(o[0] > m.time_last)) fail_time(begin, m.time_last, o[0]);
    for (std::size_t i = 1; i < n; ++i)
      if (!(o[i] > o[i - 1])) fail_time(begin + i, o[i - 1], o[i]);
    m.time_next = end;
    m.time_last = o[n - 1];
  }
}

// ---------------------------------------------------------------------------
namespace {

constexpr hsize_t kChunkRows = 65536;  // as write_log: 512 KiB of float64 per chunk
constexpr hsize_t kMinChunkRows = 16;
// Bytes of one chunk of every column of a group: HDF5 holds the chunk being
// filled of each column it writes, so a group of many columns gets shorter
// chunks instead of 512 KiB per column.
constexpr std::size_t kGroupChunkBytes = std::size_t(16) << 20;
// Groups whose columns stay open (their last chunks cached) at a time: eval
// fills an experiment and its results side by side; import one group after
// another, each closed when the one after the next is opened.
constexpr std::size_t kOpenGroups = 2;
// Channels of an experiment that get `time` attached as their dimension
// scale: HDF5 lists them all in one attribute of `time` (16 bytes each) and
// rewrites that list at every attachment, in time quadratic in the count
// (20,000 channels: 9 s). Above, no channel is attached.
constexpr std::size_t kMaxScaledChannels = 2048;

// Access to a streamed column: a chunk cache of one chunk in a few slots (the
// default, 1 MiB in 521 slots, costs 4 KiB per open column before anything
// is cached, and holds a 512 KiB chunk per column written).
h5::PropList stream_access(hsize_t chunk_rows, const std::string& where) {
  h5::PropList dapl(H5Pcreate(H5P_DATASET_ACCESS));
  if (!dapl.valid() || H5Pset_chunk_cache(dapl.id(), 7, chunk_rows * sizeof(double), 1.0) < 0)
    h5::fail(where, "cannot set up a chunk cache");
  return dapl;
}

h5::Dataset create_stream_column(hid_t loc, const std::string& name, hsize_t chunk_rows, int deflate_level,
                                 const std::string& where) {
  const hsize_t dims[1] = {0}, maxdims[1] = {H5S_UNLIMITED};
  const hsize_t chunk[1] = {chunk_rows};
  h5::Dataspace space(H5Screate_simple(1, dims, maxdims));
  if (!space.valid()) h5::fail(where, "cannot create dataspace for '" + name + "'");
  h5::PropList dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (H5Pset_chunk(dcpl.id(), 1, chunk) < 0 ||
      (deflate_level > 0
           ? H5Pset_shuffle(dcpl.id()) < 0 || H5Pset_deflate(dcpl.id(), static_cast<unsigned>(deflate_level)) < 0
           : H5Pset_fletcher32(dcpl.id()) < 0))
    h5::fail(where, "cannot set up compression for '" + name + "'");
  h5::large_attributes(dcpl.id());  // a channel's scaling copied from the input may be megabytes
  const h5::PropList dapl = stream_access(chunk_rows, where);
  h5::Dataset ds(H5Dcreate2(loc, name.c_str(), H5T_IEEE_F64LE, space.id(), H5P_DEFAULT, dcpl.id(), dapl.id()));
  if (!ds.valid()) h5::fail(where, "cannot create dataset '" + name + "'");
  return ds;
}

// One chunk of float64 as HDF5's shuffle + deflate(level) pipeline stores
// it: the bytes transposed (all first bytes, then all second bytes, ...),
// then a zlib stream. Written with H5Dwrite_chunk, it reads back through the
// ordinary filters. Returns false when zlib fails.
bool encode_chunk(const double* values, hsize_t rows, int level, std::vector<unsigned char>& out,
                  std::vector<unsigned char>& tmp) {
  const size_t bytes = rows * sizeof(double);
  tmp.resize(bytes);
  const auto* in = reinterpret_cast<const unsigned char*>(values);
  for (size_t b = 0; b < sizeof(double); ++b)
    for (size_t i = 0; i < rows; ++i) tmp[b * rows + i] = in[i * sizeof(double) + b];
  uLongf size = compressBound(static_cast<uLong>(bytes));
  out.resize(size);
  if (compress2(out.data(), &size, tmp.data(), static_cast<uLong>(bytes), level) != Z_OK) return false;
  out.resize(size);
  return true;
}

void check_group_path(const std::string& name, const std::string& where) {
  if (name.empty() || name.front() == '/' || name.back() == '/' || name == "." || name.find("//") != std::string::npos)
    throw InputError(where + ": invalid group name '" + name + "'");
}

}  // namespace

std::size_t stream_chunk_rows(std::size_t columns) {
  hsize_t rows = kChunkRows;
  while (rows > kMinChunkRows && rows * sizeof(double) * std::max<std::size_t>(columns, 1) > kGroupChunkBytes)
    rows /= 2;
  return static_cast<std::size_t>(rows);
}

std::size_t stream_block_rows(std::size_t columns) { return 4 * stream_chunk_rows(columns); }

struct LogBlockWriter::Impl {
  struct G {
    h5::Group group;
    bool experiment = true;
    std::vector<BlockColumn> cols;
    hsize_t chunk_rows = kChunkRows;  // of the streamed columns
    int deflate_level = 4;            // of the streamed columns (0: none; set_deflate_level)
    std::vector<h5::Dataset> ds;      // empty while the group is closed (kOpenGroups)
    std::vector<bool> copied;         // column copied whole at creation
    bool aligned = true;              // rows so far fill whole chunks: appends may write chunks directly
    std::size_t copied_rows = 0;
    std::size_t rows = 0;
    std::string where;
    double time_last = 0.0;
  };
  std::string path;
  AtomicFile out;
  h5::File file;
  std::vector<G> groups;
  std::vector<std::size_t> open;  // groups whose columns are open, least recently used first
  std::set<std::string> names;
  BlockExecutor* executor = nullptr;
  int deflate_level = 4;  // of the groups added next
  explicit Impl(const std::string& p) : path(p), out(p) {}

  // Opens the columns of group g (again, when it was closed) and closes those
  // of the least recently used groups beyond kOpenGroups: closing writes a
  // column's cached chunk and frees it, so a log of many experiments costs
  // the memory of the last two. A group of more than kHeldChannels columns is
  // never held: each column is opened while it is written (column()).
  void use(std::size_t g) {
    open.erase(std::remove(open.begin(), open.end(), g), open.end());
    G& grp = groups[g];
    if (grp.cols.size() > kHeldChannels) return;
    open.push_back(g);
    if (grp.ds.empty() && grp.copied.size() == grp.cols.size())
      for (std::size_t k = 0; k < grp.cols.size(); ++k) grp.ds.push_back(open_column(grp, k));
    while (open.size() > kOpenGroups) {
      G& old = groups[open.front()];
      open.erase(open.begin());
      h5::guard_write(path, [&] {
        for (auto& d : old.ds)
          if (!d.reset()) h5::fail(old.where, "cannot write a column");
      });
      old.ds.clear();
    }
  }
  h5::Dataset open_column(const G& g, std::size_t k) {
    const std::string& name = g.cols[k].name;
    if (g.copied[k]) return h5::open_dataset(g.group.id(), name, g.where);
    const h5::PropList dapl = stream_access(g.chunk_rows, g.where);
    h5::Dataset ds(H5Dopen2(g.group.id(), name.c_str(), dapl.id()));
    if (!ds.valid()) h5::fail(g.where, "cannot open dataset '" + name + "'");
    return ds;
  }
  // Column k of group g: its handle where the group is held open, else (a
  // wide group) opened into `scratch` until done() closes it.
  const h5::Dataset& column(G& g, std::size_t k, h5::Dataset& scratch) {
    if (!g.ds.empty()) return g.ds[k];
    scratch = open_column(g, k);
    return scratch;
  }
  // Closing writes the column's cached chunk: a failure (a full disk) is an
  // error, not lost rows.
  void done(const G& g, std::size_t k, h5::Dataset& scratch) {
    h5::guard_write(path, [&] {
      if (scratch.valid() && !scratch.reset()) h5::fail(g.where + ": column '" + g.cols[k].name + "'", "cannot write");
    });
  }

  std::size_t add(const std::string& name, const std::vector<BlockColumn>& cols, bool experiment,
                  const std::string& where) {
    check_group_path(name, path);
    if (names.count(name)) throw InputError(where + ": appears twice");
    if (cols.empty()) throw InputError(where + ": has no columns");
    std::set<std::string> seen;
    for (const auto& c : cols) {
      if (c.name.empty() || c.name.find('/') != std::string::npos)
        throw InputError(where + ": invalid dataset name '" + c.name + "'");
      if (!seen.insert(c.name).second) throw InputError(where + ": column '" + c.name + "' appears twice");
    }
    G g;
    g.experiment = experiment;
    g.where = where;
    g.cols = cols;
    g.chunk_rows = stream_chunk_rows(cols.size());
    g.deflate_level = deflate_level;
    g.group = h5::create_group(file.id(), name, where);
    names.insert(name);
    groups.push_back(std::move(g));
    return groups.size() - 1;
  }
  void create_columns(std::size_t gi, const LogBlockReader* copy_from = nullptr) {
    use(gi);
    G& g = groups[gi];
    if (copy_from) {
      // libhdf5 1.10's H5Ocopy crashes in its clean-up when one of its
      // writes fails (a full disk): the room for the copies is reserved
      // first, so a full disk is an error before H5Ocopy writes anything.
      std::uint64_t bytes = 0;
      for (const auto& c : g.cols)
        if (copy_from->has(c.name)) bytes += copy_from->stored_bytes(c.name);
      if (bytes > 0) reserve_space(out.temp_path(), bytes, path, "");
    }
    // H5Ocopy reads the input while it writes the output: a crash in it is
    // the write's (a full disk the reservation missed), not a damaged input.
    const LibraryWrite writing(copy_from ? path : std::string());
    for (const auto& c : g.cols) {
      const bool copy = copy_from && copy_from->has(c.name) && copy_from->copy_stored(c.name, g.group.id(), c.name);
      g.copied.push_back(copy);
      if (copy) g.copied_rows = copy_from->length();
      h5::Dataset ds = copy ? h5::open_dataset(g.group.id(), c.name, g.where)
                            : create_stream_column(g.group.id(), c.name, g.chunk_rows, g.deflate_level, g.where);
      if (g.experiment || !c.units.empty()) h5::write_string_attribute(ds.id(), "units", c.units, g.where);
      if (!c.description.empty()) h5::write_string_attribute(ds.id(), "description", c.description, g.where);
      for (const auto& [k, v] : c.attributes) h5::write_string_attribute(ds.id(), k, v, g.where);
      if (g.cols.size() <= kHeldChannels) g.ds.push_back(std::move(ds));
      else done(g, g.copied.size() - 1, ds);
    }
  }
};

LogBlockWriter::LogBlockWriter(const std::string& path, const Provenance& provenance) : impl_(new Impl(path)) {
  impl_->file = h5::create_file(impl_->out.temp_path());
  bound_metadata_cache(impl_->file.id(), path);
  h5::write_string_attribute(impl_->file.id(), "schema", detail::kSchemaVersion, path);
  detail::write_provenance(impl_->file.id(), provenance, path);
}

LogBlockWriter::~LogBlockWriter() {
  // Close the file before AtomicFile removes its temporary.
  if (impl_) {
    impl_->groups.clear();
    impl_->file.reset();
  }
}

std::size_t LogBlockWriter::add_experiment(const std::string& name, const std::vector<BlockColumn>& channels,
                                           const std::map<std::string, std::string>& attributes,
                                           const std::string& source, const LogBlockReader* copy_from,
                                           std::size_t rows_at_most) {
  Impl& m = *impl_;
  const std::string where = (source.empty() ? m.path : source) + ": experiment '" + name + "'";
  bool rotational = false;
  if (auto it = attributes.find("motion"); it != attributes.end()) rotational = it->second == "rotational";
  for (const auto& c : channels)
    if (auto dim = channel_dimension(c.name, rotational); dim && c.units != si_unit(*dim))
      throw InputError(where + ": channel '" + c.name + "': unit '" + c.units + "', expected SI unit '" +
                       si_unit(*dim) + "'");
  const std::size_t g = m.add(name, channels, true, where);
  if (rows_at_most > 0) {
    hsize_t rows = kMinChunkRows;
    while (rows < rows_at_most && rows < m.groups[g].chunk_rows) rows *= 2;
    m.groups[g].chunk_rows = std::min<hsize_t>(rows, m.groups[g].chunk_rows);
  }
  m.create_columns(g, copy_from);
  Impl::G& grp = m.groups[g];
  for (std::size_t k = 0; k < channels.size(); ++k)
    if (const std::string ln = channel_long_name(channels[k].name, rotational); !ln.empty()) {
      h5::Dataset scratch;
      const h5::Dataset& ds = m.column(grp, k, scratch);
      if (!h5::has_attribute(ds.id(), "long_name")) h5::write_string_attribute(ds.id(), "long_name", ln, where);
      m.done(grp, k, scratch);
    }
  detail::write_attributes(grp.group.id(), attributes, where);
  return g;
}

std::size_t LogBlockWriter::add_results(const std::string& group, const std::vector<BlockColumn>& datasets,
                                        const std::map<std::string, std::string>& attributes,
                                        const Provenance& provenance) {
  Impl& m = *impl_;
  const std::string where = m.path + ": results group '" + group + "'";
  const std::size_t g = m.add(group, datasets, false, where);
  Impl::G& grp = m.groups[g];
  h5::write_string_attribute(grp.group.id(), "kind", "results", where);
  detail::write_provenance(grp.group.id(), provenance, where);
  detail::write_attributes(grp.group.id(), attributes, where);
  m.create_columns(g);
  return g;
}

void LogBlockWriter::set_attributes(std::size_t g, const std::map<std::string, std::string>& attributes) {
  Impl& m = *impl_;
  if (g >= m.groups.size()) throw std::logic_error("LogBlockWriter::set_attributes: no such group");
  detail::write_attributes(m.groups[g].group.id(), attributes, m.groups[g].where);
}

void LogBlockWriter::set_summary(std::size_t g, const Results& summary) {
  Impl& m = *impl_;
  if (g >= m.groups.size() || m.groups[g].experiment)
    throw std::logic_error("LogBlockWriter::set_summary: no such results group");
  const hid_t grp = m.groups[g].group.id();
  const std::string& where = m.groups[g].where;
  detail::write_attributes(grp, summary.attributes, summary.numbers, summary.flags, where);
  h5::guard_write(m.path, [&] {
    std::vector<std::string> names;
    for (const auto& d : summary.datasets) {
      const std::vector<hsize_t> dims(d.shape.begin(), d.shape.end());
      const h5::Dataset ds = h5::write_doubles(grp, d.name, dims, d.values.data(), where);
      if (!d.units.empty()) h5::write_string_attribute(ds.id(), "units", d.units, where);
      if (!d.description.empty()) h5::write_string_attribute(ds.id(), "description", d.description, where);
      names.push_back(d.name);
    }
    detail::name_result_dimensions(grp, names, where);
  });
}

void LogBlockWriter::append(std::size_t g, const double* const* columns, std::size_t n) {
  Impl& m = *impl_;
  if (g >= m.groups.size()) throw std::logic_error("LogBlockWriter::append: no such group");
  if (n == 0) return;
  m.use(g);
  Impl::G& grp = m.groups[g];
  const std::size_t chunk_rows = grp.chunk_rows;
  for (std::size_t k = 0; k < grp.cols.size(); ++k) {
    if (grp.copied[k]) continue;
    if (grp.experiment)
      for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(columns[k][i]))
          throw InputError(grp.where + ": channel '" + grp.cols[k].name + "': value " +
                           (std::isnan(columns[k][i]) ? "NaN" : "Inf") + " at index " + std::to_string(grp.rows + i));
    if (grp.experiment && grp.cols[k].name == "time") {
      const double* t = columns[k];
      for (std::size_t i = 0; i < n; ++i) {
        const double prev = i ? t[i - 1] : grp.time_last;
        if ((i > 0 || grp.rows > 0) && !(t[i] > prev))
          throw InputError(grp.where + ": channel 'time': " + (t[i] == prev ? "repeats" : "decreases") + " at index " +
                           std::to_string(grp.rows + i) + " (" + format_number(prev) + " s, then " +
                           format_number(t[i]) + " s); time must increase strictly");
      }
      grp.time_last = t[n - 1];
    }
  }
  // A write the operating system refuses (a full disk) is one line naming the file.
  h5::guard_write(m.path, [&] {
    // Whole chunks are encoded here, on every OpenMP thread (deflate is most
    // of a streamed write's time), and written as stored (H5Dwrite_chunk);
    // a rest shorter than a chunk goes through HDF5's own filters, after which
    // the rows no longer end on a chunk boundary and later appends do too.
    // Uncompressed columns go through HDF5's filters whole: their checksum
    // costs little next to deflate.
    const std::size_t direct = grp.aligned && grp.deflate_level > 0 ? n / chunk_rows * chunk_rows : 0;
    if (direct > 0) {
      std::vector<std::size_t> cols;
      for (std::size_t k = 0; k < grp.cols.size(); ++k)
        if (!grp.copied[k]) cols.push_back(k);
      const std::size_t per_col = direct / chunk_rows, jobs = per_col * cols.size();
      std::vector<std::vector<unsigned char>> encoded(jobs);
      auto encode = [&](long j, std::vector<unsigned char>& tmp) {
        const std::size_t k = cols[static_cast<std::size_t>(j) / per_col], c = static_cast<std::size_t>(j) % per_col;
        return encode_chunk(columns[k] + c * chunk_rows, chunk_rows, grp.deflate_level,
                            encoded[static_cast<std::size_t>(j)], tmp);
      };
      int failed = 0;
      if (m.executor) {
        std::atomic<int> bad{0};
        m.executor->run(static_cast<long>(jobs), [&](long j) {
          thread_local std::vector<unsigned char> tmp;  // one chunk's shuffled bytes per thread
          if (!encode(j, tmp)) ++bad;
        });
        failed = bad.load();
      } else {
#pragma omp parallel
        {
          std::vector<unsigned char> tmp;
#pragma omp for schedule(dynamic) reduction(+ : failed)
          for (long j = 0; j < static_cast<long>(jobs); ++j)
            if (!encode(j, tmp)) ++failed;
        }
      }
      if (failed) throw InputError(grp.where + ": cannot compress a chunk (zlib)");
      for (std::size_t i = 0; i < cols.size(); ++i) {
        const std::size_t k = cols[i];
        const std::string at = grp.where + ": column '" + grp.cols[k].name + "'";
        const hsize_t extent[1] = {grp.rows + direct};
        h5::Dataset scratch;
        const h5::Dataset& ds = m.column(grp, k, scratch);
        if (H5Dset_extent(ds.id(), extent) < 0) h5::fail(at, "cannot extend a column");
        for (std::size_t c = 0; c < per_col; ++c) {
          const hsize_t offset[1] = {grp.rows + c * chunk_rows};
          const auto& e = encoded[i * per_col + c];
          if (H5Dwrite_chunk(ds.id(), H5P_DEFAULT, 0, offset, e.size(), e.data()) < 0)
            h5::fail(at, "cannot write a chunk");
        }
        m.done(grp, k, scratch);
      }
    }
    if (n > direct) {
      for (std::size_t k = 0; k < grp.cols.size(); ++k) {
        if (grp.copied[k]) continue;
        h5::Dataset scratch;
        h5::append_column(m.column(grp, k, scratch), H5T_NATIVE_DOUBLE, columns[k] + direct, n - direct,
                          grp.where + ": column '" + grp.cols[k].name + "'");
        m.done(grp, k, scratch);
      }
      grp.aligned = false;
    }
    grp.rows += n;
  });
}

void LogBlockWriter::set_executor(BlockExecutor* executor) { impl_->executor = executor; }

void LogBlockWriter::set_deflate_level(int level) {
  if (level < 0 || level > 9) throw std::logic_error("LogBlockWriter::set_deflate_level: level outside 0-9");
  impl_->deflate_level = level;
}

void LogBlockWriter::commit() {
  Impl& m = *impl_;
  for (std::size_t gi = 0; gi < m.groups.size(); ++gi) {
    Impl::G& g = m.groups[gi];
    bool all_copied = true;
    for (bool c : g.copied) all_copied = all_copied && c;
    if (all_copied) g.rows = g.copied_rows;
    if (g.rows == 0) throw InputError(g.where + ": no rows written");
    if (g.copied_rows && g.rows != g.copied_rows)
      throw InputError(g.where + ": " + std::to_string(g.rows) + " rows written, the copied channels have " +
                       std::to_string(g.copied_rows));
    if (!g.experiment) {
      std::vector<std::string> names;
      for (const auto& c : g.cols) names.push_back(c.name);
      detail::name_result_dimensions(g.group.id(), names, g.where);
      continue;
    }
    if (g.cols.size() > kMaxScaledChannels) continue;
    m.use(gi);
    for (std::size_t k = 0; k < g.cols.size(); ++k) {
      if (g.cols[k].name != "time") continue;
      h5::Dataset time_scratch;
      const h5::Dataset& time = m.column(g, k, time_scratch);
      for (std::size_t j = 0; j < g.cols.size(); ++j) {
        if (j == k) continue;
        h5::Dataset scratch;
        h5::attach_scale(m.column(g, j, scratch), time, "time", g.where + ": channel '" + g.cols[j].name + "'");
        m.done(g, j, scratch);
      }
      m.done(g, k, time_scratch);
    }
  }
  m.groups.clear();
  h5::guard_write(m.path, [&] { h5::close_file(m.file, m.path); });
  m.out.commit();
}

}  // namespace stribeck::data
