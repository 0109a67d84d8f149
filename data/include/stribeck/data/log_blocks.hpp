#pragma once
// One experiment of an HDF5 log read, or a log written, a block of rows at a
// time, so memory is bounded by the block whatever the length of the log.
//
//   LogBlockReader in("rig.h5", "p40bar");          // "" = the only experiment
//   std::vector<double> v(n), f(n);
//   double* out[] = {v.data(), f.data()};
//   in.read({"velocity", "force"}, begin, begin + n, out);   // SI, as read_log
//
//   LogBlockWriter w("out.h5", provenance);           // writes OUT's temporary
//   auto g = w.add_experiment("p40bar", {{"time", "s"}, {"force", "N"}}, attrs);
//   w.append(g, columns, n);                          // any number of times
//   w.commit();                                       // checks, renames
//
// Reading converts exactly as read_log does (same unit table, same
// arithmetic), so the blocks of a channel concatenated equal read_log's
// channel bit for bit; the checks read_log makes on values (finite; time
// strictly increasing) are made on every block read (time across blocks when
// they are read in order). Each object is used by one thread at a time; a
// reader and a writer may run on two threads at once where libhdf5 is built
// thread-safe (H5_HAVE_THREADSAFE, as Debian's is: it serialises the calls).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stribeck/data/log.hpp"

namespace stribeck::data {

// Names of the experiments of an HDF5 log, in the order read_log returns
// them (root first, then groups depth-first in name order; results groups
// skipped).
std::vector<std::string> list_log_experiments(const std::string& path);

// An HDF5 log (not a MATLAB v7.3 file, which is HDF5 too).
bool is_hdf5_log(const std::string& path);

// Runs body(0), ..., body(n - 1) on a pool of threads (the calling thread
// among them) and returns when every call has returned; an exception thrown
// by a call is rethrown here. Several threads may call run() at once. Reader
// and writer hand it their chunk jobs (inflate, deflate) instead of opening
// OpenMP regions: a pool whose idle threads sleep, not spin (eval's pipeline,
// workloads/src/eval.cpp).
class BlockExecutor {
 public:
  virtual ~BlockExecutor() = default;
  virtual void run(long n, const std::function<void(long)>& body) = 0;
};

class LogBlockReader {
 public:
  // Opens experiment `experiment` of the log at `path` (empty: the only one;
  // InputError listing the names when there are several). Checks every
  // channel's shape (1-D), type (floating point), `units` attribute (known
  // unit of the channel's dimension for schema channels) and that all have
  // one length; no sample is read.
  LogBlockReader(const std::string& path, const std::string& experiment);
  ~LogBlockReader();
  LogBlockReader(LogBlockReader&&) noexcept;
  LogBlockReader& operator=(LogBlockReader&&) noexcept;

  const std::string& path() const;
  const std::string& experiment() const;
  // Channel names in name order.
  const std::vector<std::string>& channels() const;
  bool has(const std::string& channel) const;
  // Number of samples of every channel.
  std::size_t length() const;
  // SI unit of a channel after conversion (read_log's Experiment::units).
  const std::string& units(const std::string& channel) const;
  // Experiment attributes as read_log returns them (an absolute-pressure log
  // reads as gauge).
  const std::map<std::string, std::string>& attributes() const;
  // A channel's import attributes (--gain: gain, gain_unit, offset, raw_unit,
  // scaling) as read_log returns them in Experiment::channel_attributes;
  // empty when it has none.
  const std::map<std::string, std::string>& channel_attributes(const std::string& channel) const;
  // "<path>: experiment '<name>'" for messages.
  std::string where() const;

  // Reads rows [begin, end) of each named channel into out[k] (end - begin
  // doubles each), converted to SI. InputError naming file, experiment and
  // channel for an unknown channel, rows past the end, a value that is not
  // finite (with its index) or time that does not increase.
  void read(const std::vector<std::string>& channels, std::size_t begin, std::size_t end, double* const* out) const;
  void read(const std::string& channel, std::size_t begin, std::size_t end, double* out) const;

  // Null (default): read() decodes on the calling thread. Else chunks
  // stored as float64 with shuffle and/or deflate are taken out of HDF5 on
  // the calling thread and inflated by the jobs of `executor` (eval's pool;
  // not for a prefetch thread beside a running computation, which would only
  // add threads that compete with it). Same values either way.
  void set_executor(BlockExecutor* executor);

  // Copies a channel's dataset as stored (chunks and filters, no values
  // decoded or re-encoded; no attributes) to `name` below `dst_group` of
  // another file, when reading it converts nothing (float64, SI units):
  // then the copy reads back exactly as read() returns it. False (nothing
  // done) otherwise. The values are not checked: read() them too.
  bool copy_stored(const std::string& channel, hid_t dst_group, const std::string& name) const;
  // Bytes a channel's dataset takes in the file (what copy_stored writes).
  std::uint64_t stored_bytes(const std::string& channel) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Rows per chunk of the columns LogBlockWriter streams into a group of
// `columns` columns: 65536 (512 KiB of float64) where the columns are few,
// fewer (a power of two, at least 16) where they are many, so that one chunk
// of every column stays within 16 MiB: HDF5 holds the chunk being filled of
// each column written, and a block holds as many rows of each.
std::size_t stream_chunk_rows(std::size_t columns);
// Rows per block of a stream of `columns` columns into LogBlockWriter
// (import, eval): four chunks, so that whole chunks are written, encoded on
// parallel threads, and a block of every column stays within 64 MiB.
std::size_t stream_block_rows(std::size_t columns);

// A column of a group being written: name, `units` attribute ("" for none
// on results columns), optional description.
struct BlockColumn {
  std::string name;
  std::string units;
  std::string description;
  // Further string attributes of the dataset (an experiment channel's
  // Experiment::channel_attributes, as write_log writes them).
  std::map<std::string, std::string> attributes = {};
};

// Writes an HDF5 log (schema, provenance on the root) whose groups are filled
// by appending blocks of rows: experiments (channels with `units`, `time`
// attached as dimension scale) and results groups (`kind = "results"` and
// provenance, as append_results writes them). The file is the temporary of
// an AtomicFile: the target appears only at commit(), complete; destroyed
// without commit (an exception), nothing is left. Memory does not grow with
// the number of groups or columns: the columns of the two groups appended to
// last are held open (of a group of over 1024 columns, none: each is opened
// while it is written), chunks are stream_chunk_rows long, and experiments
// of over 2048 channels get no `time` scale (its attachment is quadratic).
class LogBlockWriter {
 public:
  LogBlockWriter(const std::string& path, const Provenance& provenance);
  ~LogBlockWriter();
  LogBlockWriter(const LogBlockWriter&) = delete;
  LogBlockWriter& operator=(const LogBlockWriter&) = delete;

  // Adds a group and returns its handle for append(). Experiment names and
  // result group paths follow write_log's and append_results' rules.
  // `source` (when given) names the experiment's origin in messages instead
  // of the output file ("rig.csv: experiment 'rig': channel 'time': ...").
  //
  // With `copy_from`, channels the reader can copy as stored
  // (LogBlockReader::copy_stored: float64 in SI) are copied whole now, not
  // re-encoded; append() then skips them (their pointer may be null) and
  // commit() checks that the other columns reach their length.
  //
  // `rows_at_most` (0: unknown) bounds the experiment's length: its columns
  // then get chunks of the next power of two above it (at least 16 rows)
  // where that is shorter than stream_chunk_rows, so a log of many short
  // experiments does not deflate, store and inflate a 512 KiB chunk per
  // channel of a few samples. Appending more rows than the bound is still
  // correct (more chunks), only slower.
  std::size_t add_experiment(const std::string& name, const std::vector<BlockColumn>& channels,
                             const std::map<std::string, std::string>& attributes, const std::string& source = "",
                             const LogBlockReader* copy_from = nullptr, std::size_t rows_at_most = 0);
  std::size_t add_results(const std::string& group, const std::vector<BlockColumn>& datasets,
                          const std::map<std::string, std::string>& attributes, const Provenance& provenance);
  // Writes the string attributes of group `g` again, e.g. with a summary known
  // only after its rows were appended: pass every attribute the group should
  // list (its attribute index is rewritten; same-named ones are replaced).
  void set_attributes(std::size_t g, const std::map<std::string, std::string>& attributes);
  // The summary of results group `g`, known only after its rows: its string,
  // number and flag attributes (append_results' Results::attributes, numbers,
  // flags: every attribute the group should list) and small datasets written
  // whole (e.g. scalars: a fitted parameter with its units).
  void set_summary(std::size_t g, const Results& summary);
  // Appends n rows to every column of group `g`: columns[k] holds the n values
  // of column k, in the order the columns were given. Experiment channels must
  // be finite (InputError naming the channel and the row otherwise).
  void append(std::size_t g, const double* const* columns, std::size_t n);
  // Whole chunks are encoded by the jobs of `executor` (null, the default:
  // on every OpenMP thread); the HDF5 calls stay on the thread that calls
  // append().
  void set_executor(BlockExecutor* executor);
  // How the columns of the groups added from now on are stored (channels
  // copied as stored keep the input's storage): `level` 1-9, byte shuffle and
  // deflate at that level (4, the default: write_log's storage); 0, no
  // compression but a Fletcher-32 checksum per chunk, as the sweep's streamed
  // columns, so a damaged chunk is still refused when read. Deflate is most
  // of the time of a write; float64 measurements shrink by about a third.
  void set_deflate_level(int level);
  // Checks that no group is empty and all columns of a group have one length,
  // closes the file and renames it onto the target.
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stribeck::data
