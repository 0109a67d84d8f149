#pragma once
// A results group (the same group read_results reads back) written a block
// of rows at a time, for runs whose results outgrow memory or outlast a job:
// the file is OUT.partial while it grows, with a checkpoint after every
// block, so a killed run resumes from the last checkpoint; it is renamed to
// OUT when complete, so OUT never holds a partial result.
//
//   auto s = ResultsStream::create("map.h5", "ensemble", columns, attributes, provenance);
//   s->append(rows, {points, period, ...});  // one pointer per column
//   s->checkpoint({rows_so_far, {{"ok", "12"}}});
//   s->finish();                             // map.h5.partial -> map.h5
//
// Plain types only: the engine (engine/, workloads/) decides what the columns and the
// checkpoint's state mean; this layer knows the file.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stribeck/data/log.hpp"

namespace stribeck::data {

// How a column is stored. append() always takes doubles; integer columns
// receive whole numbers (below 2^53), converted exactly by HDF5.
enum class ColumnType { kFloat64, kInt32, kInt64, kUInt8, kUInt64 };

// One dataset of the group. Every column's first dimension is the group's
// `point` dimension scale (the index of each row in the whole space); a
// table's second is `width_dimension`, a scale holding `width_labels`.
struct StreamColumn {
  StreamColumn() = default;
  StreamColumn(std::string name_, std::uint64_t width_ = 0, std::string units_ = "", std::string description_ = "")
      : name(std::move(name_)), width(width_), units(std::move(units_)), description(std::move(description_)) {}
  std::string name;
  std::uint64_t width = 0;  // 0: a 1-D dataset (one value per row); w >= 1: rows x w
  std::string units;        // `units` attribute, CF/UDUNITS spelling ("" for none)
  std::string description;  // `description` attribute ("" for none)
  ColumnType type = ColumnType::kFloat64;
  std::string long_name;                  // `long_name` attribute ("": the description)
  std::string width_dimension;            // w >= 1: name of the second dimension ("": "<name>_column")
  std::vector<std::string> width_labels;  // its values (w names; empty: 0 .. w-1)
  std::vector<std::string> width_units;   // w >= 1: `units` of each label (attribute of the scale)
  // Codes and their names, as the CF attributes `flag_values` (in the
  // column's type) and `flag_meanings` (names joined by spaces): a status
  // column says what its codes mean.
  std::vector<std::pair<int, std::string>> flags;
};

// A small table kept beside the rows (a sweep's top-K, a point's force
// trace): subgroup `name` of the results group (a path such as
// "trajectories/5/slow" makes the groups between), its rows along its own
// dimension scale `dimension` (uint64, 0 .. rows-1), 1-D columns (width 0)
// with their units, long names and types, and numeric attributes.
struct StreamTable {
  std::string name;
  std::string dimension;  // the scale's name ("rank", "sample")
  std::string dimension_long_name;
  std::vector<StreamColumn> columns;
  std::vector<std::vector<double>> data;     // one vector of rows() values per column
  std::map<std::string, double> attributes;  // float64 attributes of the table's group
  std::uint64_t rows() const { return data.empty() ? 0 : data.front().size(); }
  // The values of column `column_name`, or nullptr.
  const std::vector<double>* column(const std::string& column_name) const;
};

// The results format's name lists (docs/data-format.md, "name lists"):
// names joined by `sep` (',', or '\n' where a name may hold a comma) and
// split again (an empty text is no names).
std::string join_names(const std::vector<std::string>& names, char sep = ',');
std::vector<std::string> split_names(const std::string& text, char sep = ',');
// A name as one word of a CF `flag_meanings` list ("non-finite" ->
// "non_finite").
std::string flag_word(std::string name);

// Name of the dimension scale of a stream's rows.
constexpr const char* kPointDimension = "point";

// What a checkpoint records: the rows written, the engine's running totals
// as text (counts, examples), so a resumed run continues them, and the
// tables that summarise the rows so far (replaced whole at every checkpoint
// and kept by finish: a sweep's top-K). State keys may not contain '=' or
// '\n'; values may not contain '\n'.
struct StreamCheckpoint {
  std::uint64_t rows = 0;
  std::map<std::string, std::string> state;
  std::vector<StreamTable> tables;
  // Points the checkpoint counts as done: the rows, or more for a run that
  // keeps only tables (a sweep's top_k_only). Not stored (the state holds
  // the engine's count); from the first checkpoint that counts any, the
  // partial file is work worth resuming and is kept when the run ends.
  std::uint64_t completed = 0;
};

// Throws InputError when `partial` exists: the checkpointed results of an
// unfinished run are never overwritten by a new one (continue it with
// --resume, or remove it; `resumable` false: the writer, e.g. a merge, has
// no --resume, so the message only says to remove it). Shared with the
// sweep file.
void refuse_unfinished(const std::string& partial, bool resumable = true);

// Brings the OUT.partial of a writer that is gone to its last checkpoint:
// a writer killed while it committed one left the commit in its journal
// (journal_driver.hpp), which this completes, as --resume does first. For
// readers of a dead run's partial file; never while its writer runs.
void settle_partial(const std::string& partial);

class ResultsStream {
 public:
  // Starts PATH.partial holding group `group` with
  // kind = "results", the provenance, `attributes` (as append_results writes
  // them) and empty columns. PATH and PATH.partial are checked first
  // (check_output_path); an existing PATH.partial is refused
  // (refuse_unfinished, `resumable` choosing its advice): it is an
  // interrupted run's work. `rows_hint`: the rows the stream will hold when
  // known (0: not known), so that a small run is not stored in chunks of
  // 8 Ki rows. A stream destroyed unfinished before any checkpoint counted
  // rows removes its file: it holds no work, and would block the next run.
  static std::unique_ptr<ResultsStream> create(const std::string& path, const std::string& group,
                                               const std::vector<StreamColumn>& columns,
                                               const std::map<std::string, std::string>& attributes,
                                               const Provenance& provenance, std::uint64_t rows_hint = 0,
                                               bool resumable = true, std::uint64_t index_base = 0);
  // `index_base`: the index in the whole space of the first row (a shard's
  // first point), what the `point` scale counts from.
  // Reopens PATH.partial after an interruption. Its group must hold the same
  // columns and every one of `attributes` with the same value (else a
  // one-line InputError naming the first that differs: a partial file of
  // another run is never continued); rows past the last checkpoint are cut
  // off. Returns the checkpoint in `checkpoint`. The provenance stays the
  // first run's, except that a different device is appended ("A; resumed
  // on B").
  static std::unique_ptr<ResultsStream> resume(const std::string& path, const std::string& group,
                                               const std::vector<StreamColumn>& columns,
                                               const std::map<std::string, std::string>& attributes,
                                               const Provenance& provenance, StreamCheckpoint& checkpoint,
                                               std::uint64_t index_base = 0);
  ~ResultsStream();
  ResultsStream(const ResultsStream&) = delete;
  ResultsStream& operator=(const ResultsStream&) = delete;

  // Appends `rows` rows: data[c] holds the rows of column c
  // (rows values, or rows x width).
  void append(std::uint64_t rows, const std::vector<const double*>& data);
  // Records the checkpoint (its tables included) and flushes the file to disk.
  void checkpoint(const StreamCheckpoint& checkpoint);
  // Writes a table that is not a checkpoint's (a point's force trace),
  // replacing one of the same name; made durable by the next checkpoint.
  void add_table(const StreamTable& table);
  // Writes a column of text along the rows, whole, beside the streamed
  // ones (a batch fit's experiment names, known before any row is
  // computed): `values` as variable-length UTF-8 strings (xarray reads them
  // as str) on the `point` dimension, with the column's long_name. A column
  // the file has already is kept: a resumed run writes it again in case its
  // first run was killed before a checkpoint made the column durable.
  void write_text(const StreamColumn& column, const std::vector<std::string>& values);
  // A table of the partial file (a resumed run's last top-K); an empty
  // table when there is none.
  StreamTable read_table(const std::string& name) const;
  // Removes the checkpoint attributes, adds `attributes` to the group's
  // (typed as create's are: the final counts), closes and renames
  // PATH.partial -> PATH (replacing it).
  void finish(const std::map<std::string, std::string>& attributes = {});

  struct Impl;

 private:
  explicit ResultsStream(std::unique_ptr<Impl> impl);
  // The group, its attributes, the empty columns and the first checkpoint.
  void start(const std::string& group, const Provenance& provenance,
             const std::map<std::string, std::string>& attributes, std::uint64_t rows_hint);
  void write_checkpoint(const StreamCheckpoint& checkpoint);
  std::unique_ptr<Impl> impl_;
};

// Table `name` of results group `group` of a file (a finished shard's
// top-K, for merge) with the float64 attributes `attribute_names` (each
// required); an empty table when there is none.
StreamTable read_stream_table(const std::string& path, const std::string& group, const std::string& name,
                              const std::vector<std::string>& attribute_names = {});
// Text column `name` of results group `group` (ResultsStream::write_text).
std::vector<std::string> read_text_column(const std::string& path, const std::string& group, const std::string& name);
// The last checkpoint of an unfinished results group (rows and state; its
// tables are read with read_stream_table): false for a finished group.
bool read_stream_checkpoint(const std::string& path, const std::string& group, StreamCheckpoint& checkpoint);
// The names of the subgroups of `group`/`name` (a sweep's trajectories).
std::vector<std::string> stream_subgroups(const std::string& path, const std::string& group, const std::string& name);

}  // namespace stribeck::data
