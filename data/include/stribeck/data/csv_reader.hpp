#pragma once
// Streaming reader for numeric delimited text with a header row of channel
// names (the format `stribeck eval` reads). Rows are read one at a time, so a
// file of any length costs constant memory. Every problem is reported as an
// InputError naming file, line and column.
#include <sys/types.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace stribeck {

class CsvReader {
 public:
  // Opens `path` and reads the header (the first line that is neither empty
  // nor a '#' comment). The delimiter is ',' unless the header contains ';'
  // or a tab and no ','.
  explicit CsvReader(std::string path);
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  const std::vector<std::string>& columns() const { return columns_; }
  // Index of a column by exact name, or -1.
  int column(std::string_view name) const;

  // Reads the next data row. `values` receives one finite double per column;
  // `cells` the trimmed text of each cell (valid until the next call). Returns
  // false at end of file. Throws InputError on a short or long row, a
  // non-numeric cell, or NaN/Inf.
  bool next(std::vector<double>& values, std::vector<std::string_view>& cells);
  // 1-based line number of the row last returned.
  long line() const { return line_; }
  const std::string& path() const { return path_; }
  char delimiter() const { return delim_; }

 private:
  bool read_line();
  void split(std::vector<std::string_view>& cells) const;

  std::string path_;
  std::FILE* file_ = nullptr;
  char* line_buf_ = nullptr;  // owned by getline()
  size_t line_cap_ = 0;
  std::string_view buf_;      // current line without its newline
  long line_ = 0;
  char delim_ = ',';
  std::vector<std::string> columns_;
};

// Parses a whole cell as a finite double (no trailing characters); false if it
// is not one.
bool parse_double(std::string_view text, double& out);
// Appends the shortest text that reads back to exactly `x` (format_number in
// kernels/registry.hpp gives it as a string) to `out` without allocating.
void append_double(std::string& out, double x);

}  // namespace stribeck
