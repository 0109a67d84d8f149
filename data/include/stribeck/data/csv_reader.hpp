#pragma once
// Numeric delimited text with a header row of channel names (the format
// `stribeck eval` reads): TextTable (text_table.hpp, the one text dialect of
// every command) with a header required. Rows are read one at a time, so a
// file of any length costs constant memory. Every problem is reported as an
// InputError naming file, line and column.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "stribeck/data/text_table.hpp"

namespace stribeck::data {

class CsvReader {
 public:
  // Opens `path` and reads its header (TextTable's dialect: delimiter and
  // decimal comma sniffed, quotes, '#' '%' '//' comments, a units row).
  // InputError when the file has no header row or a name appears twice
  // (columns without a name are not indexed).
  explicit CsvReader(const std::string& path);

  // Header cells as written (names, with units where the header has them).
  const std::vector<std::string>& columns() const { return table_.header(); }
  // Unit of each column from the header cell or units row ("" for none).
  const std::vector<std::string>& units() const { return table_.units(); }
  // Index of a column by exact name, or -1.
  int column(std::string_view name) const;

  // Reads the next data row. `values` receives one finite double per column;
  // `cells` the unquoted text of each cell (valid until the next call; with
  // a decimal comma the cell keeps it). Returns false at end of file. Throws
  // InputError on a short or long row, a non-numeric cell, or NaN/Inf.
  bool next(std::vector<double>& values, std::vector<std::string_view>& cells) { return table_.next(values, &cells); }
  // 1-based line number of the row last returned.
  long line() const { return table_.line(); }
  const std::string& path() const { return table_.source(); }
  char delimiter() const { return table_.dialect().delimiter; }
  const TextDialect& dialect() const { return table_.dialect(); }

 private:
  TextTable table_;
  std::unordered_map<std::string, int> index_;  // column name -> index
};

}  // namespace stribeck::data
