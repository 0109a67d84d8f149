#pragma once
// Turning foreign files (delimited text, MATLAB v7.3) into Experiments: the
// pieces read_any_log() is built from, exposed for tests and the fuzzer.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stribeck/data/log.hpp"
#include "stribeck/data/units.hpp"

namespace stribeck::data {

// Named numeric columns as found in a file, before mapping onto channels.
struct RawColumns {
  std::vector<std::string> names;  // header names without units ("" when headerless)
  std::vector<std::string> units;  // unit from the header ("" when none)
  std::vector<std::vector<double>> values;
};

// Delimited text in memory, read by TextTable (text_table.hpp: the one
// dialect of every command): the delimiter (',' ';' tab or runs of spaces) is
// detected from the data rows, decimal commas are accepted when the
// delimiter is not ',', lines starting with '#', '%' or '//' and blank lines
// are skipped, an optional header row gives names with units
// ("velocity [mm/s]", "p_A (bar)", "Force/kN"), an optional units row below
// it. `source` names the file in errors, which carry the 1-based line and
// column.
struct TextInfo {
  char delimiter = ',';  // ' ' for whitespace
  bool decimal_comma = false;
  bool header = false;
};
RawColumns parse_delimited(std::string_view text, const std::string& source, TextInfo* info = nullptr);

// Splits "velocity [mm/s]" / "p_A (bar)" / "Force/kN" / "time_ms"? into name
// and unit; the unit is "" when the header gives none.
void split_header_cell(std::string_view cell, std::string& name, std::string& unit);

// How columns become channels, decided from the header alone (so text can be
// imported a block of rows at a time): which column feeds which channel, and
// the conversion to SI (x -> factor * x + offset where a unit is given, minus
// the ambient pressure for --absolute-pressure columns without a unit).
struct ColumnPlan {
  struct Channel : SiConversion {
    std::size_t column = 0;
    std::string channel;  // schema name (aliases resolved) or extra name
    std::string unit;     // SI unit after conversion
  };
  std::vector<Channel> channels;
  std::map<std::string, std::string> attributes;  // motion, pressure_reference, source_file, ...
  // Per channel (--gain): gain, gain_unit, offset, raw_unit, scaling.
  std::map<std::string, std::map<std::string, std::string>> channel_attributes;
};
// Throws InputError naming source and column (unknown unit, wrong dimension,
// two columns on one channel, a headerless file without --columns).
ColumnPlan plan_columns(const std::vector<std::string>& names, const std::vector<std::string>& units,
                        const ReadOptions& options, const std::string& source);

// Maps raw columns onto channels (explicit specs or aliases), converts to SI
// and validates. Throws InputError naming source and column.
Experiment columns_to_experiment(const RawColumns& raw, const ReadOptions& options, const std::string& source,
                                 const std::string& name);

Experiment read_text_log(const std::string& path, const ReadOptions& options);

// A text log a block of rows at a time (import in bounded memory): the plan
// from the header, then rows converted to SI, one vector per planned channel.
// Values are checked as TextTable checks cells; what validate_experiment
// checks across rows (time increasing) is the writer's job (LogBlockWriter).
class TextTable;
class TextBlocks {
 public:
  TextBlocks(const std::string& path, const ReadOptions& options);
  ~TextBlocks();
  const ColumnPlan& plan() const { return plan_; }
  // Up to max_rows rows into columns[c] (plan().channels order, resized to
  // max_rows); returns the number read, 0 at the end.
  std::size_t next(std::vector<std::vector<double>>& columns, std::size_t max_rows);

 private:
  std::unique_ptr<TextTable> table_;
  ColumnPlan plan_;
  std::vector<double> row_;
};
// MATLAB v7.3: root numeric vectors form one experiment; each struct of
// vectors another, each element of a struct array one more (VAR_1, VAR_2, ...
// by MATLAB's linear index); a matrix is split into its columns (name_0,
// name_1, ...).
std::vector<Experiment> read_mat_log(const std::string& path, const ReadOptions& options);

// MATLAB v5/v7 (the default `save` format) through libmatio, when the build
// found it (STRIBECK_HAVE_MATIO); same mapping as read_mat_log.
std::vector<Experiment> read_mat5_log(const std::string& path, const ReadOptions& options);
// True when this build reads MATLAB v5/v7 files.
bool have_mat5_support();

// Files logged on different clocks as one experiment (import --align): every
// part's channels interpolated linearly onto the first part's time
// (rate_hz == 0) or onto a grid of rate_hz from the start of the overlap,
// which alone is kept (the span every part's time covers). Attributes
// aligned_files, align ("first" or "rate=HZ"), align_start and align_end [s]
// say so. InputError when times do not overlap or a channel other than time
// is in two parts.
Experiment align_experiments(const std::vector<Experiment>& parts, double rate_hz);

// File stem: "dir/O-ring_1bar.csv" -> "O-ring_1bar".
std::string file_stem(const std::string& path);

}  // namespace stribeck::data
