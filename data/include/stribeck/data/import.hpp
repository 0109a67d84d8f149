#pragma once
// Turning foreign files (delimited text, MATLAB v7.3) into Experiments: the
// pieces read_any_log() is built from, exposed for tests and the fuzzer.
#include <string>
#include <string_view>
#include <vector>

#include "stribeck/data/log.hpp"

namespace stribeck {

// Named numeric columns as found in a file, before mapping onto channels.
struct RawColumns {
  std::vector<std::string> names;  // header names without units ("" when headerless)
  std::vector<std::string> units;  // unit from the header ("" when none)
  std::vector<std::vector<double>> values;
};

// Delimited text: the delimiter (',' ';' tab or runs of spaces) is detected
// from the data rows, decimal commas are accepted when the delimiter is not
// ',', lines starting with '#', '%' or '//' and blank lines are skipped, an
// optional header row gives names with units ("velocity [mm/s]",
// "p_A (bar)", "Force/kN"). `source` names the file in errors, which carry
// the 1-based line and column.
struct TextInfo {
  char delimiter = ',';  // ' ' for whitespace
  bool decimal_comma = false;
  bool header = false;
};
RawColumns parse_delimited(std::string_view text, const std::string& source, TextInfo* info = nullptr);

// Splits "velocity [mm/s]" / "p_A (bar)" / "Force/kN" / "time_ms"? into name
// and unit; the unit is "" when the header gives none.
void split_header_cell(std::string_view cell, std::string& name, std::string& unit);

// Maps raw columns onto channels (explicit specs or aliases), converts to SI
// and validates. Throws InputError naming source and column.
Experiment columns_to_experiment(const RawColumns& raw, const ReadOptions& options,
                                 const std::string& source, const std::string& name);

Experiment read_text_log(const std::string& path, const ReadOptions& options);
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

// File stem: "dir/O-ring_1bar.csv" -> "O-ring_1bar".
std::string file_stem(const std::string& path);

}  // namespace stribeck
