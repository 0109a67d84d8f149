#pragma once
// The one reader of delimited text: `eval`, `import`, every command that
// reads a text log. A row at a time, so a file of any length costs memory for
// one row (plus the first rows kept to sniff the dialect).
//
// Dialect, detected from the file:
//   - lines: LF, CRLF or CR; blank lines and lines starting with '#', '%' or
//     '//' are comments; a UTF-8 byte-order mark is dropped;
//   - delimiter: tab, ';', ',' or runs of whitespace, whichever splits the
//     first data rows into the same number of numeric cells (tried in that
//     order);
//   - decimal comma ("0,5") when the delimiter is not ',';
//   - cells in double quotes may hold the delimiter ("Force, N"); quotes
//     (double or single) around a cell are removed;
//   - an optional header row of names, with units in the cell
//     ("velocity [mm/s]", "p_A (bar)", "Force/kN"), and an optional units
//     row right below it (every cell a known unit or empty: "s;mm;N");
//   - lines before the header (an instrument's preamble or title line) are
//     dropped when the first line does not head the table: the header is
//     then the first later line whose cells are all names (no number), as
//     many as each of the data rows below it has numbers, with no row of
//     that many numbers above it (TextLayout says where instead).
// Errors are InputErrors naming the source, the 1-based line and the column.
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stribeck::data {

struct TextDialect {
  char delimiter = ',';  // ' ' for runs of whitespace
  bool decimal_comma = false;
  bool header = false;     // the first content line names the columns
  bool units_row = false;  // the line after the header gives units
};

// Where the table starts when the user says so (import --skip-rows /
// --header-row): `skip_rows` lines (of any content) dropped before the
// table, or the header on 1-based line `header_row`. Both 0: detected.
struct TextLayout {
  long skip_rows = 0;
  long header_row = 0;
};

class TextTable {
 public:
  // Streams the file at `path`.
  explicit TextTable(const std::string& path, TextLayout layout = {});
  // Reads text in memory (not copied: `text` must outlive the table);
  // `source` names it in errors.
  TextTable(std::string_view text, std::string source, TextLayout layout = {});
  ~TextTable();
  TextTable(const TextTable&) = delete;
  TextTable& operator=(const TextTable&) = delete;

  const TextDialect& dialect() const { return dialect_; }
  const std::string& source() const { return source_; }
  // Number of cells of every row.
  std::size_t width() const { return width_; }
  // Header cells as written (unquoted, trimmed; "" when headerless), and
  // each split into name and unit (split_header_cell; a units row gives the
  // unit of a cell that has none).
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<std::string>& units() const { return units_; }
  // 1-based line of the header (0 when headerless).
  long header_line() const { return header_line_; }
  // Lines before the table that were dropped (TextLayout or a detected
  // preamble), comments not counted.
  long preamble_lines() const { return preamble_lines_; }
  // Cells of the columns marked true are neither parsed nor checked (their
  // values read 0): columns an import leaves out, such as a spreadsheet's
  // unnamed empty ones.
  void ignore_columns(std::vector<bool> ignored) { ignored_ = std::move(ignored); }

  // Next data row: `values` receives width() finite doubles; `cells` (when
  // given) the unquoted text of each cell, valid until the next call.
  // False at the end. InputError on a short or long row, an empty cell or a
  // cell that is not a finite number.
  bool next(std::vector<double>& values, std::vector<std::string_view>* cells = nullptr);
  // 1-based line of the row last returned.
  long line() const { return line_; }

 private:
  bool raw_line(std::string_view& out);  // next line of the input, any content
  bool content_line(std::string_view& out, long& number);
  void sniff(TextLayout layout);
  size_t preamble_end() const;

  std::string source_;
  std::FILE* file_ = nullptr;
  std::string buf_;  // file input: buffered bytes
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  std::string_view text_;  // in-memory input
  long raw_number_ = 0;
  bool first_line_ = true;
  std::deque<std::pair<std::string, long>> pending_;  // sniffed lines not yet served
  std::string current_;                               // the pending line being served
  std::vector<std::string_view> cells_;
  std::vector<std::string> header_, names_, units_;
  TextDialect dialect_;
  std::size_t width_ = 0;
  long header_line_ = 0;
  long preamble_lines_ = 0;
  std::vector<bool> ignored_;
  long line_ = 0;
};

// Whitespace (space, \t, \r, \n, \v, \f) removed from both ends.
std::string_view trim_text(std::string_view text);
// A cell's text: trimmed, then one pair of surrounding double or single
// quotes removed (and the text inside trimmed).
std::string_view unquote_cell(std::string_view cell);

// Parses one cell (quotes removed) as a finite double; with
// `decimal_comma`, "0,5" reads as 0.5.
bool parse_text_cell(std::string_view cell, bool decimal_comma, double& out);

// RFC 4180: appends `field` to `out`, in double quotes (inner quotes
// doubled) when it holds the delimiter, a quote, CR or LF, or starts or ends
// with a space.
void append_csv_field(std::string& out, std::string_view field, char delimiter = ',');

}  // namespace stribeck::data
