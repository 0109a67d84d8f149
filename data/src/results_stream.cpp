// Results groups streamed block by block with checkpoints (results_stream.hpp).
#include "stribeck/data/results_stream.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>
#include <stdexcept>

#include "group_attributes.hpp"
#include "journal_driver.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/interrupt.hpp"
#include "stribeck/data/output_lock.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"

namespace stribeck::data {
namespace {

// HDF5 chunk of a streamed column: 8 Ki rows (64 KiB of float64 for a
// 1-D column), large enough that appends and reads stay sequential; a
// stream expected to hold fewer rows gets chunks of its size, since HDF5
// stores whole chunks (a 144-point ensemble took 8 MB with 64 Ki rows).
// Small enough that a chunk a checkpoint ends inside, which every flush
// until it is full writes again through the journal (journal_driver.hpp),
// costs little: with 64 Ki rows a sweep checkpointed every 4096 points
// journaled 6 MB per checkpoint and ran in 1.8 times the time. The
// engine's default chunks (2^14 and 2^20 points) fill whole ones.
constexpr hsize_t kChunkRows = 8192;

// Written at every checkpoint, removed by finish: a complete file has
// neither, so a finished run and a resumed one end with the same attributes.
constexpr const char* kRowsAttribute = "checkpoint_rows";
constexpr const char* kStateAttribute = "checkpoint_state";
// Which of its two slots holds each checkpoint table (NAME=SLOT lines).
constexpr const char* kTablesAttribute = "checkpoint_tables";

// A checkpoint table lives in one of two slots, NAME and NAME_next, and a
// checkpoint writes the slot its last one did not use, flushes it, and only
// then names it in checkpoint_tables: a kill at any moment leaves the
// checkpoint's state with the table it was written with (HDF5 1.10 has no
// journal; a table rewritten in place could be half old, half new after a
// kill during the flush, and a resume then kept a wrong top-K). finish moves
// the current slot to NAME.
std::string slot_name(const std::string& name, int slot) { return slot == 0 ? name : name + "_next"; }

std::string encode(const std::map<std::string, std::string>& state) {
  std::string s;
  for (const auto& [k, v] : state) s += k + "=" + v + "\n";
  return s;
}

std::map<std::string, std::string> decode(const std::string& text) {
  std::map<std::string, std::string> state;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    const size_t eq = line.find('=');
    if (eq != std::string::npos) state[line.substr(0, eq)] = line.substr(eq + 1);
    pos = end + 1;
  }
  return state;
}

// The stored (file) type of a column: little-endian, whatever the machine.
hid_t stored_type(ColumnType t) {
  switch (t) {
    case ColumnType::kInt32: return H5T_STD_I32LE;
    case ColumnType::kInt64: return H5T_STD_I64LE;
    case ColumnType::kUInt8: return H5T_STD_U8LE;
    case ColumnType::kUInt64: return H5T_STD_U64LE;
    case ColumnType::kFloat64: break;
  }
  return H5T_IEEE_F64LE;
}

// `units`, `description`, `long_name` and the flags of a column.
void describe(const h5::Dataset& ds, const StreamColumn& c, const std::string& where) {
  if (!c.units.empty()) h5::write_string_attribute(ds.id(), "units", c.units, where);
  if (!c.description.empty()) h5::write_string_attribute(ds.id(), "description", c.description, where);
  const std::string long_name = c.long_name.empty() ? c.description : c.long_name;
  if (!long_name.empty()) h5::write_string_attribute(ds.id(), "long_name", long_name, where);
  if (c.flags.empty()) return;
  std::vector<int> values;
  std::string meanings;
  for (const auto& [v, name] : c.flags) values.push_back(v), meanings += (meanings.empty() ? "" : " ") + name;
  const hsize_t n = values.size();
  const h5::Dataspace space(H5Screate_simple(1, &n, nullptr));
  const h5::Attribute a(H5Acreate2(ds.id(), "flag_values", stored_type(c.type), space.id(), H5P_DEFAULT, H5P_DEFAULT));
  if (!a.valid() || H5Awrite(a.id(), H5T_NATIVE_INT, values.data()) < 0)
    h5::fail(where, "cannot write attribute 'flag_values'");
  h5::write_string_attribute(ds.id(), "flag_meanings", meanings, where);
}

// The native (in-memory) type of a stored column type, and a column's
// doubles converted to it for a contiguous write.
hid_t native_type(ColumnType t) {
  switch (t) {
    case ColumnType::kInt32: return H5T_NATIVE_INT32;
    case ColumnType::kInt64: return H5T_NATIVE_INT64;
    case ColumnType::kUInt8: return H5T_NATIVE_UINT8;
    case ColumnType::kUInt64: return H5T_NATIVE_UINT64;
    case ColumnType::kFloat64: break;
  }
  return H5T_NATIVE_DOUBLE;
}
template <class V>
std::vector<V> converted(const std::vector<double>& x) {
  return std::vector<V>(x.begin(), x.end());
}
void write_typed(hid_t g, const std::string& name, ColumnType t, const std::vector<double>& x,
                 const std::string& where) {
  const hsize_t n = x.size();
  switch (t) {
    case ColumnType::kInt32:
      return h5::write_array(g, name, native_type(t), converted<std::int32_t>(x).data(), n, where);
    case ColumnType::kInt64:
      return h5::write_array(g, name, native_type(t), converted<std::int64_t>(x).data(), n, where);
    case ColumnType::kUInt8:
      return h5::write_array(g, name, native_type(t), converted<std::uint8_t>(x).data(), n, where);
    case ColumnType::kUInt64:
      return h5::write_array(g, name, native_type(t), converted<std::uint64_t>(x).data(), n, where);
    case ColumnType::kFloat64: break;
  }
  h5::write_array(g, name, H5T_NATIVE_DOUBLE, x.data(), n, where);
}

// Variable-length UTF-8 strings: what netCDF-4 calls `string`, read by
// xarray and pandas as str (fixed-length ones read as bytes).
h5::Datatype text_type() {
  h5::Datatype t(H5Tcopy(H5T_C_S1));
  H5Tset_size(t.id(), H5T_VARIABLE);
  H5Tset_cset(t.id(), H5T_CSET_UTF8);
  return t;
}

// Writes `t` as subgroup t.name of `group`, replacing one of that name.
void write_table(hid_t group, const StreamTable& t, const std::string& where) {
  const std::string at = where + ": table '" + t.name + "'";
  if (t.data.size() != t.columns.size()) throw std::logic_error("StreamTable: one data vector per column expected");
  for (const auto& d : t.data)
    if (d.size() != t.rows()) throw std::logic_error("StreamTable: columns of different lengths");
  if (h5::has_child(group, t.name) && H5Ldelete(group, t.name.c_str(), H5P_DEFAULT) < 0)
    h5::fail(at, "cannot replace the table");
  const h5::Group g = h5::create_group(group, t.name, at);
  std::vector<std::uint64_t> index(t.rows());
  for (std::uint64_t r = 0; r < index.size(); ++r) index[r] = r;
  h5::write_array(g.id(), t.dimension, H5T_NATIVE_UINT64, index.data(), index.size(), at);
  const h5::Dataset scale = h5::open_dataset(g.id(), t.dimension, at);
  h5::write_string_attribute(scale.id(), "units", "1", at);
  h5::write_string_attribute(scale.id(), "long_name", t.dimension_long_name, at);
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    write_typed(g.id(), t.columns[c].name, t.columns[c].type, t.data[c], at);
    const h5::Dataset ds = h5::open_dataset(g.id(), t.columns[c].name, at);
    describe(ds, t.columns[c], at);
    h5::attach_scale(ds, scale, t.dimension, at);
  }
  for (const auto& [k, v] : t.attributes) h5::write_double_attribute(g.id(), k, v, at);
}

// The slots of a group's checkpoint tables (none: every table under its name).
std::map<std::string, int> read_slots(hid_t group, const std::string& where) {
  std::map<std::string, int> slots;
  if (!h5::has_attribute(group, kTablesAttribute)) return slots;
  for (const auto& [name, slot] : decode(h5::read_string_attribute(group, kTablesAttribute, where)))
    slots[name] = slot == "1" ? 1 : 0;
  return slots;
}

// Where table `name` is stored: its current slot; its plain name when that
// slot is gone (a kill during finish, after it moved the slot there).
std::string stored_table(hid_t group, const std::map<std::string, int>& slots, const std::string& name) {
  const auto it = slots.find(name);
  if (it == slots.end() || it->second == 0) return name;
  const std::string next = slot_name(name, 1);
  return h5::has_child(group, next) ? next : name;
}

// Table `name` of `group` (every column that is not its dimension scale, as
// doubles), or an empty table.
StreamTable read_table_of(hid_t group, const std::string& name, const std::vector<std::string>& attribute_names,
                          const std::string& where) {
  StreamTable t;
  t.name = name;
  const std::string stored = stored_table(group, read_slots(group, where), name);
  if (!h5::has_child(group, stored)) return t;
  const std::string at = where + ": table '" + stored + "'";
  const h5::Group g = h5::open_group(group, stored, at);
  std::uint64_t rows = 0;
  bool first = true;
  for (const h5::Child& c : h5::children(g.id(), at)) {
    h5::check_child(c, at + ": '" + c.name + "'");
    if (c.kind != h5::Kind::kDataset) continue;
    if (h5::is_dimension_scale(g.id(), c.name, at)) {
      t.dimension = c.name;
      continue;
    }
    StreamColumn col;
    col.name = c.name;
    const h5::Dataset ds = h5::open_dataset(g.id(), c.name, at);
    if (h5::has_attribute(ds.id(), "units")) col.units = h5::read_string_attribute(ds.id(), "units", at);
    if (h5::has_attribute(ds.id(), "long_name")) col.long_name = h5::read_string_attribute(ds.id(), "long_name", at);
    std::vector<double> v = h5::read_array<double>(g.id(), c.name, H5T_NATIVE_DOUBLE, at);
    if (!first && v.size() != rows)
      throw InputError(at + ": column '" + c.name + "' holds " + std::to_string(v.size()) + " rows, others " +
                       std::to_string(rows));
    rows = v.size();
    first = false;
    t.columns.push_back(std::move(col));
    t.data.push_back(std::move(v));
  }
  for (const auto& a : attribute_names) {
    if (!h5::has_attribute(g.id(), a)) throw InputError(at + ": no attribute '" + a + "'");
    t.attributes[a] = h5::read_double_attribute(g.id(), a, at);
  }
  return t;
}

}  // namespace

std::string join_names(const std::vector<std::string>& names, char sep) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) s += (i ? std::string(1, sep) : "") + names[i];
  return s;
}

std::vector<std::string> split_names(const std::string& text, char sep) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (std::size_t a = 0;;) {
    const std::size_t b = text.find(sep, a);
    out.push_back(text.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) return out;
    a = b + 1;
  }
}

std::string flag_word(std::string name) {
  for (char& c : name)
    if (c == '-' || c == ' ') c = '_';
  return name;
}

const std::vector<double>* StreamTable::column(const std::string& column_name) const {
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (columns[c].name == column_name) return &data[c];
  return nullptr;
}

StreamTable read_stream_table(const std::string& path, const std::string& group, const std::string& name,
                              const std::vector<std::string>& attribute_names) {
  const h5::File f = h5::open_file(path);
  const std::string where = path + ": results group '" + group + "'";
  if (!h5::has_child(f.id(), group)) throw InputError(where + ": does not exist");
  const h5::Group g = h5::open_group(f.id(), group, where);
  return read_table_of(g.id(), name, attribute_names, where);
}

std::vector<std::string> read_text_column(const std::string& path, const std::string& group, const std::string& name) {
  const h5::File f = h5::open_file(path);
  const std::string where = path + ": results group '" + group + "'", at = where + ": dataset '" + name + "'";
  if (!h5::has_child(f.id(), group + "/" + name)) throw InputError(at + ": does not exist");
  const h5::Dataset ds = h5::open_dataset(f.id(), group + "/" + name, at);
  const auto info = h5::dataset_info(ds, at);
  const h5::Datatype stored(H5Dget_type(ds.id()));
  if (info.dims.size() != 1 || info.type_class != H5T_STRING || H5Tis_variable_str(stored.id()) <= 0)
    throw InputError(at + ": is not a column of text");
  std::vector<char*> p(info.dims[0], nullptr);
  const h5::Datatype type = text_type();
  if (!p.empty() && H5Dread(ds.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data()) < 0)
    h5::fail(at, "cannot read");
  std::vector<std::string> out;
  for (char* c : p) out.emplace_back(c ? c : "");
  const h5::Dataspace space(H5Dget_space(ds.id()));
  if (!p.empty()) H5Dvlen_reclaim(type.id(), space.id(), H5P_DEFAULT, p.data());
  return out;
}

bool read_stream_checkpoint(const std::string& path, const std::string& group, StreamCheckpoint& cp) {
  const h5::File f = h5::open_file(path);
  const std::string where = path + ": results group '" + group + "'";
  if (!h5::has_child(f.id(), group)) throw InputError(where + ": does not exist");
  const h5::Group g = h5::open_group(f.id(), group, where);
  if (!h5::has_attribute(g.id(), kRowsAttribute)) return false;
  cp = StreamCheckpoint{};
  cp.rows = h5::read_uint_attribute(g.id(), kRowsAttribute, where);
  if (h5::has_attribute(g.id(), kStateAttribute))
    cp.state = decode(h5::read_string_attribute(g.id(), kStateAttribute, where));
  return true;
}

std::vector<std::string> stream_subgroups(const std::string& path, const std::string& group, const std::string& name) {
  const h5::File f = h5::open_file(path);
  const std::string where = path + ": results group '" + group + "'";
  std::vector<std::string> names;
  if (!h5::has_child(f.id(), group + "/" + name)) return names;
  const h5::Group g = h5::open_group(f.id(), group + "/" + name, where);
  for (const h5::Child& c : h5::children(g.id(), where + ": '" + name + "'")) {
    h5::check_child(c, where + ": '" + name + "/" + c.name + "'");
    if (c.kind == h5::Kind::kGroup) names.push_back(c.name);
  }
  return names;
}

void settle_partial(const std::string& partial) { h5::journal_replay(partial); }

void refuse_unfinished(const std::string& partial, bool resumable) {
  if (::access(partial.c_str(), F_OK) == 0)
    throw InputError(partial + (resumable ? ": the checkpointed results of an unfinished run; continue it with "
                                            "--resume, or remove the file to start again"
                                          : ": left by an unfinished run; remove it and run again"));
}

struct ResultsStream::Impl {
  PartialOwner owner;  // first: released last, after the partial file is dealt with
  std::string final_path, path, where, group_name;
  h5::File file;
  h5::Group group;
  std::vector<StreamColumn> columns;
  std::vector<h5::Dataset> datasets;
  h5::Dataset point;  // the rows' dimension scale (absent in files from before it)
  std::uint64_t index_base = 0;
  std::uint64_t rows = 0;   // rows appended so far
  bool holds_rows = false;  // a checkpoint counted rows: the partial file is worth resuming
  bool finished = false;
  bool resumable = true;
  // While the partial file holds no work (or cannot be resumed: a merge's),
  // a signal that ends the process removes it (register_temporary), and
  // its journal files (journal_driver.hpp) with it.
  int signal_slot = -1;
  std::vector<int> journal_slots;
  ~Impl() { unregister_signal_slots(); }
  void unregister_signal_slots() {
    if (signal_slot >= 0) unregister_temporary(signal_slot);
    signal_slot = -1;
    for (int slot : journal_slots)
      if (slot >= 0) unregister_temporary(slot);
    journal_slots.clear();
  }
  std::map<std::string, int> slots;  // the current slot of each checkpoint table
  void keep_on_signal() {
    if (signal_slot < 0) return;
    unregister_signal_slots();
    set_interrupt_note(path + " keeps the completed points; continue with --resume");
  }
  // A partial file without rows holds no work: removed when the stream ends
  // without finishing (an error before the first rows), so that it does not
  // block the next run.
  // Runs a write; a full disk (or other OS failure) becomes one line naming
  // the output. The partial file is then removed even if it held rows: a
  // failed flush leaves libhdf5's metadata half-written (the superblock
  // claims an end of file that was never written), so the file cannot be
  // resumed from; keeping it would block the next run for nothing.
  bool write_failed = false;
  template <class F>
  void guarded(F&& f) {
    h5::guard_write(final_path, std::forward<F>(f), "", &write_failed);
  }
  void discard_if_empty() {
    unregister_signal_slots();
    set_interrupt_note("");
    if (finished || (holds_rows && !write_failed) || path.empty()) return;
    datasets.clear();
    point.reset();
    group.reset();
    file.reset();
    std::remove(path.c_str());
    h5::journal_remove(path);
  }
  // The partial file through the journaling driver: every flush (each step
  // of a checkpoint) reaches the disk whole or not at all.
  h5::PropList access() const {
    h5::PropList fapl(h5::journaled_access());
    if (!fapl.valid()) h5::fail(path, "cannot set up the journaling file driver");
    return fapl;
  }
};

ResultsStream::ResultsStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResultsStream::~ResultsStream() { impl_->discard_if_empty(); }

std::unique_ptr<ResultsStream> ResultsStream::create(const std::string& path, const std::string& group,
                                                     const std::vector<StreamColumn>& columns,
                                                     const std::map<std::string, std::string>& attributes,
                                                     const Provenance& provenance, std::uint64_t rows_hint,
                                                     bool resumable, std::uint64_t index_base) {
  auto w = std::make_unique<Impl>();
  w->index_base = index_base;
  w->final_path = path;
  w->path = partial_path(path);
  w->where = w->path + ": results group '" + group + "'";
  w->group_name = group;
  w->columns = columns;
  check_output_path(path);
  check_output_path(w->path);
  w->owner = PartialOwner(w->path, resumable);
  refuse_unfinished(w->path, resumable);
  w->resumable = resumable;
  h5::journal_remove(w->path);  // of a run whose partial file is gone: not this file's
  w->signal_slot = register_temporary(w->path);
  for (const std::string& name : h5::journal_files(w->path)) w->journal_slots.push_back(register_temporary(name));
  w->file = h5::create_file(w->path, w->access().id());
  // From here on an error removes the new file (see discard_if_empty).
  std::unique_ptr<ResultsStream> s(new ResultsStream(std::move(w)));
  s->impl_->guarded([&] { s->start(group, provenance, attributes, rows_hint); });
  return s;
}

void ResultsStream::start(const std::string& group, const Provenance& provenance,
                          const std::map<std::string, std::string>& attributes, std::uint64_t rows_hint) {
  Impl* w = impl_.get();
  h5::write_string_attribute(w->file.id(), "schema", detail::kSchemaVersion, w->path);
  w->group = h5::create_group(w->file.id(), group, w->where);
  h5::write_string_attribute(w->group.id(), "kind", "results", w->where);
  detail::write_provenance(w->group.id(), provenance, w->where);
  detail::write_attributes(w->group.id(), attributes, w->where, /*typed_integers=*/true);
  const hsize_t chunk = rows_hint > 0 && rows_hint < kChunkRows ? rows_hint : kChunkRows;
  // The rows' dimension scale: the index of each row in the whole space.
  w->point = h5::create_column(w->group.id(), kPointDimension, H5T_STD_U64LE, chunk, w->where);
  h5::write_string_attribute(w->point.id(), "units", "1", w->where);
  h5::write_string_attribute(w->point.id(), "long_name", "index of the point in the whole space", w->where);
  for (const auto& c : w->columns) {
    w->datasets.push_back(h5::create_column(w->group.id(), c.name, stored_type(c.type), chunk, w->where, c.width));
    const h5::Dataset& ds = w->datasets.back();
    describe(ds, c, w->where);
    h5::attach_scale(ds, w->point, kPointDimension, w->where, 0);
    if (c.width > 0) {
      const std::string dim = c.width_dimension.empty() ? c.name + "_column" : c.width_dimension;
      std::vector<std::string> labels = c.width_labels;
      for (std::uint64_t k = labels.size(); k < c.width; ++k) labels.push_back(std::to_string(k));
      const bool exists = h5::has_child(w->group.id(), dim);
      h5::Dataset scale = exists ? h5::open_dataset(w->group.id(), dim, w->where)
                                 : h5::write_string_array(w->group.id(), dim, labels, w->where);
      if (!exists) h5::write_string_attribute(scale.id(), "long_name", "names along dimension " + dim, w->where);
      if (!c.width_units.empty()) h5::write_string_list_attribute(scale.id(), "units_of_each", c.width_units, w->where);
      h5::attach_scale(ds, scale, dim, w->where, 1);
    }
  }
  checkpoint(StreamCheckpoint{});
}

std::unique_ptr<ResultsStream> ResultsStream::resume(const std::string& path, const std::string& group,
                                                     const std::vector<StreamColumn>& columns,
                                                     const std::map<std::string, std::string>& attributes,
                                                     const Provenance& provenance, StreamCheckpoint& checkpoint,
                                                     std::uint64_t index_base) {
  const std::string partial = partial_path(path);
  if (!std::ifstream(partial).good())
    throw InputError("--resume: nothing to resume (" + partial + " does not exist); run without --resume");
  auto w = std::make_unique<Impl>();
  w->final_path = path;
  w->path = partial;
  w->where = partial + ": results group '" + group + "'";
  w->group_name = group;
  w->columns = columns;
  w->index_base = index_base;
  w->owner = PartialOwner(partial, /*resumable=*/true);
  // A writer killed while it committed a checkpoint left its journal (the
  // commit is completed), one killed in finish before the rename its undo
  // (finish is taken back): the file is then its last checkpoint's.
  h5::journal_replay(partial);
  struct stat st {};
  if (::stat(partial.c_str(), &st) == 0 && st.st_size == 0) {
    // Killed before its first checkpoint reached the disk (the driver holds
    // a new file's writes until then): it holds no work; the run starts again.
    w->owner = PartialOwner();
    std::remove(partial.c_str());
    checkpoint = StreamCheckpoint{};
    return create(path, group, columns, attributes, provenance, 0, /*resumable=*/true, index_base);
  }
  w->file = h5::open_file(partial, /*write=*/true, w->access().id());
  if (!h5::has_child(w->file.id(), group)) throw InputError(w->where + ": does not exist; remove " + partial);
  w->group = h5::open_group(w->file.id(), group, w->where);
  if (!h5::has_attribute(w->group.id(), kRowsAttribute))
    throw InputError(w->where + ": has no checkpoint; remove " + partial + " and run without --resume");
  std::map<std::string, std::string> stored;
  detail::read_attributes(w->group.id(), stored, w->where);
  for (const auto& [k, v] : attributes) {
    const auto it = stored.find(k);
    if (it == stored.end() || it->second != v)
      throw InputError(partial + ": belongs to a different run (attribute '" + k + "' is '" +
                       (it == stored.end() ? std::string("missing") : it->second) + "', this run has '" + v +
                       "'); remove it or run without --resume");
  }
  checkpoint.rows = h5::read_uint_attribute(w->group.id(), kRowsAttribute, w->where);
  w->holds_rows = true;  // a resumed file is kept, whatever happens next
  set_interrupt_note(partial + " keeps the completed points; continue with --resume");
  checkpoint.state = decode(h5::read_string_attribute(w->group.id(), kStateAttribute, w->where));
  w->slots = read_slots(w->group.id(), w->where);
  for (const auto& c : columns) {
    const std::string at = w->where + ": dataset '" + c.name + "'";
    if (!h5::has_child(w->group.id(), c.name))
      throw InputError(at + ": missing (the partial file of another version or run); remove " + partial +
                       " and run without --resume");
    h5::Dataset ds = h5::open_dataset(w->group.id(), c.name, at);
    const auto info = h5::dataset_info(ds, at);
    const std::uint64_t width = info.dims.size() == 2 ? info.dims[1] : 0;
    if (info.dims.empty() || info.dims.size() > 2 || width != c.width || info.dims[0] < checkpoint.rows)
      throw InputError(at + ": does not hold the " + std::to_string(checkpoint.rows) +
                       " rows of its checkpoint; remove " + partial);
    // The rows the checkpoint counts are read once, chunk by chunk: a chunk
    // whose checksum fails is refused by name instead of resumed from.
    h5::verify_rows(ds, checkpoint.rows, at);
    ds.reset();
    // Rows written after the last checkpoint are dropped and computed again.
    h5::resize_column(w->group.id(), c.name, checkpoint.rows, w->where);
    w->datasets.push_back(h5::open_dataset(w->group.id(), c.name, at));
  }
  if (h5::has_child(w->group.id(), kPointDimension)) {  // absent in partial files from before the scale
    const std::string at = w->where + ": dataset 'point'";
    {
      const h5::Dataset ds = h5::open_dataset(w->group.id(), kPointDimension, at);
      if (h5::dataset_info(ds, at).dims.at(0) < checkpoint.rows)
        throw InputError(at + ": does not hold the " + std::to_string(checkpoint.rows) +
                         " rows of its checkpoint; remove " + partial);
      h5::verify_rows(ds, checkpoint.rows, at);
    }
    h5::resize_column(w->group.id(), kPointDimension, checkpoint.rows, w->where);
    w->point = h5::open_dataset(w->group.id(), kPointDimension, at);
  }
  w->rows = checkpoint.rows;
  const std::string device = provenance.device.empty() ? "cpu" : provenance.device;
  if (h5::has_attribute(w->group.id(), "device")) {
    const std::string first = h5::read_string_attribute(w->group.id(), "device", w->where);
    if (first.find(device) == std::string::npos)
      h5::write_string_attribute(w->group.id(), "device", first + "; resumed on " + device, w->where);
  }
  return std::unique_ptr<ResultsStream>(new ResultsStream(std::move(w)));
}

void ResultsStream::append(std::uint64_t rows, const std::vector<const double*>& data) {
  Impl& w = *impl_;
  if (data.size() != w.columns.size())
    throw std::logic_error("ResultsStream::append: one data pointer per column expected");
  std::uint64_t bytes = 0;  // a full disk stops the run here, its checkpoint intact (reserve_space)
  for (const auto& d : w.datasets) bytes += h5::append_bytes(d, rows);
  reserve_space(w.path, bytes, w.final_path,
                w.holds_rows && w.resumable
                    ? w.path + " keeps the completed points; continue with --resume once there is room"
                    : "");
  w.guarded([&] {
    for (size_t c = 0; c < data.size(); ++c)
      h5::append_column(w.datasets[c], H5T_NATIVE_DOUBLE, data[c], rows,
                        w.where + ": dataset '" + w.columns[c].name + "'");
    if (w.point.valid()) {
      std::vector<std::uint64_t> index(rows);
      for (std::uint64_t r = 0; r < rows; ++r) index[r] = w.index_base + w.rows + r;
      h5::append_column(w.point, H5T_NATIVE_UINT64, index.data(), rows, w.where + ": dataset 'point'");
    }
  });
  w.rows += rows;
}

void ResultsStream::checkpoint(const StreamCheckpoint& cp) {
  impl_->guarded([&] { write_checkpoint(cp); });
}

void ResultsStream::write_checkpoint(const StreamCheckpoint& cp) {
  Impl& w = *impl_;
  // The rows reach the disk before the checkpoint that counts them: HDF5
  // writes its metadata in no particular order, so with one flush a kill
  // during it could leave the new row count with a column's old extent.
  if (H5Fflush(w.file.id(), H5F_SCOPE_GLOBAL) < 0) h5::fail(w.path, "cannot flush the rows of a checkpoint");
  // The tables, each into the slot the last checkpoint did not use, reach
  // the disk before the state that names them (slot_name).
  std::map<std::string, int> slots = w.slots;
  if (!cp.tables.empty()) {
    for (const StreamTable& t : cp.tables) {
      const auto it = w.slots.find(t.name);
      const int slot = it == w.slots.end() ? 0 : 1 - it->second;
      StreamTable stored = t;
      stored.name = slot_name(t.name, slot);
      write_table(w.group.id(), stored, w.where);
      slots[t.name] = slot;
    }
    if (H5Fflush(w.file.id(), H5F_SCOPE_GLOBAL) < 0) h5::fail(w.path, "cannot flush the tables of a checkpoint");
  }
  std::map<std::string, std::string> named;
  for (const auto& [name, slot] : slots) named[name] = std::to_string(slot);
  h5::write_string_attribute(w.group.id(), kTablesAttribute, encode(named), w.where);
  h5::write_string_attribute(w.group.id(), kStateAttribute, encode(cp.state), w.where);
  h5::write_uint_attribute(w.group.id(), kRowsAttribute, cp.rows, w.where);
  h5::journal_release(w.file.id());  // from the first checkpoint on, the file on disk holds one
  if (H5Fflush(w.file.id(), H5F_SCOPE_GLOBAL) < 0) h5::fail(w.path, "cannot flush a checkpoint");
  w.slots = std::move(slots);
  w.holds_rows = w.holds_rows || cp.rows > 0 || cp.completed > 0;
  if (w.holds_rows && w.resumable) w.keep_on_signal();
}

void ResultsStream::add_table(const StreamTable& table) {
  impl_->guarded([&] { write_table(impl_->group.id(), table, impl_->where); });
}

void ResultsStream::write_text(const StreamColumn& column, const std::vector<std::string>& values) {
  Impl& w = *impl_;
  w.guarded([&] {
    const std::string at = w.where + ": dataset '" + column.name + "'";
    if (h5::has_child(w.group.id(), column.name)) return;  // written by the run that started the file
    std::vector<const char*> p;
    for (const auto& v : values) p.push_back(v.c_str());
    const hsize_t n = p.size();
    const h5::Dataspace space(H5Screate_simple(1, &n, nullptr));
    const h5::Datatype type = text_type();
    const h5::Dataset ds(
        H5Dcreate2(w.group.id(), column.name.c_str(), type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (!ds.valid() || (n > 0 && H5Dwrite(ds.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data()) < 0))
      h5::fail(at, "cannot write");
    describe(ds, column, w.where);
    if (w.point.valid()) h5::attach_scale(ds, w.point, kPointDimension, w.where, 0);
  });
}

StreamTable ResultsStream::read_table(const std::string& name) const {
  return read_table_of(impl_->group.id(), name, {}, impl_->where);  // its current slot
}

void ResultsStream::finish(const std::map<std::string, std::string>& attributes) {
  Impl& w = *impl_;
  // A target that cannot take the file (it became a directory, say) is
  // found before the checkpoint is removed: the partial file stays
  // resumable, and --resume completes it once the target is free.
  try {
    check_output_path(w.final_path);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + "; the finished results are in " + w.path +
                     (w.resumable ? ": free the name and run again with --resume" : ""));
  }
  w.guarded([&] {
    // Until the rename, a kill leaves a file without its checkpoint: the
    // driver keeps what this changes, and --resume takes it back.
    h5::journal_keep_undo(w.file.id());
    // Each checkpoint table under its own name; the other slot removed.
    for (const auto& [name, slot] : w.slots) {
      const std::string next = slot_name(name, 1), at = w.where + ": table '" + name + "'";
      if (slot == 1 && h5::has_child(w.group.id(), next)) {
        if (h5::has_child(w.group.id(), name) && H5Ldelete(w.group.id(), name.c_str(), H5P_DEFAULT) < 0)
          h5::fail(at, "cannot remove the older slot");
        if (H5Lmove(w.group.id(), next.c_str(), w.group.id(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT) < 0)
          h5::fail(at, "cannot move the table into place");
      } else if (slot == 0 && h5::has_child(w.group.id(), next) &&
                 H5Ldelete(w.group.id(), next.c_str(), H5P_DEFAULT) < 0) {
        h5::fail(at, "cannot remove the older slot");
      }
    }
    for (auto& entry : w.slots) entry.second = 0;
    for (const char* a : {kRowsAttribute, kStateAttribute, kTablesAttribute})
      if (h5::has_attribute(w.group.id(), a) && H5Adelete(w.group.id(), a) < 0)
        h5::fail(w.where, std::string("cannot remove attribute '") + a + "'");
    if (!attributes.empty()) {  // added to the group's, whose index read_attributes reads them by
      std::map<std::string, std::string> all;
      detail::read_attributes(w.group.id(), all, w.where);
      for (const auto& [k, v] : attributes) all[k] = v;
      detail::write_attributes(w.group.id(), all, w.where, /*typed_integers=*/true);
    }
    w.datasets.clear();
    w.point.reset();
    w.group.reset();
    h5::close_file(w.file, w.path);
  });
  w.finished = true;
  if (durable_rename(w.path, w.final_path) != 0) {
    const std::string why = std::strerror(errno);
    // The checkpoint back, so that --resume completes the file (to the same
    // content) once the target can take it.
    try {
      if (w.resumable) h5::journal_replay(w.path);
      else h5::journal_remove(w.path);
    } catch (const std::exception&) {}
    throw InputError(w.final_path + ": cannot move the finished results into place (" + why + "); they are in " +
                     w.path + (w.resumable ? ": run again with --resume once the target can be written" : ""));
  }
  h5::journal_remove(w.path);  // the finished file's undo
  w.unregister_signal_slots();
  set_interrupt_note("");
}

}  // namespace stribeck::data
