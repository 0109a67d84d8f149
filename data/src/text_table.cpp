#include "stribeck/data/text_table.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "stribeck/data/config_file.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data {
namespace {

constexpr char kWhitespace = ' ';
constexpr size_t kSniffLines = 50;      // data rows looked at to choose the delimiter
constexpr size_t kReadChunk = 1 << 16;  // small files stay small (the fuzzer reads thousands)

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

bool is_comment(std::string_view t) {
  t = trim_text(t);
  return t.empty() || t.front() == '#' || t.front() == '%' || t.rfind("//", 0) == 0;
}

// Whitespace split keeps "[...]" and "(...)" groups together so a header
// like "velocity [mm / s]" stays one cell; other delimiters do not split
// inside double quotes ("Force, N").
void split(std::string_view line, char delim, std::vector<std::string_view>& cells) {
  cells.clear();
  if (delim == kWhitespace) {
    size_t i = 0;
    const size_t n = line.size();
    while (i < n) {
      while (i < n && is_space(line[i])) ++i;
      if (i >= n) break;
      const size_t start = i;
      int depth = 0;
      while (i < n && (depth > 0 || !is_space(line[i]))) {
        if (line[i] == '[' || line[i] == '(') ++depth;
        if ((line[i] == ']' || line[i] == ')') && depth > 0) --depth;
        ++i;
      }
      cells.push_back(unquote_cell(line.substr(start, i - start)));
    }
    return;
  }
  const char* start = line.data();
  const char* const end = start + line.size();
  bool quoted = false;
  for (const char* c = start; c != end; ++c) {
    if (*c == '"') quoted = !quoted;
    else if (*c == delim && !quoted) {
      cells.push_back(unquote_cell(std::string_view(start, static_cast<size_t>(c - start))));
      start = c + 1;
    }
  }
  cells.push_back(unquote_cell(std::string_view(start, static_cast<size_t>(end - start))));
}

// Does every sampled line split into the same number of numeric cells?
// Returns that number, or 0.
size_t fits(const std::deque<std::pair<std::string, long>>& lines, size_t first, char delim, bool& decimal_comma) {
  std::vector<std::string_view> cells;
  size_t k = 0;
  decimal_comma = false;
  for (size_t i = first; i < lines.size() && i < first + kSniffLines; ++i) {
    split(lines[i].first, delim, cells);
    if (k == 0) k = cells.size();
    if (cells.size() != k) return 0;
    // Empty cells are allowed beside numbers (a spreadsheet's unnamed
    // trailing columns, ",,,"): the rows still say the delimiter; reading
    // refuses them unless the column is left out (ignore_columns).
    size_t numbers = 0;
    for (auto c : cells) {
      double x;
      if (c.empty()) continue;
      if (delim != ',' && c.find(',') != std::string_view::npos) decimal_comma = true;
      if (!parse_text_cell(c, delim != ',', x)) return 0;
      ++numbers;
    }
    if (numbers == 0) return 0;
  }
  return k;
}

// Does the line's first cell read as a number? Looks at that cell only, so
// the rows of a wide table are passed over at no cost while a preamble is
// looked for.
bool starts_with_number(std::string_view line, char delim) {
  line = trim_text(line);
  const size_t end = delim == kWhitespace ? line.find_first_of(" \t") : line.find(delim);
  double x;
  return parse_text_cell(line.substr(0, end), delim != ',', x);
}

std::string where(const std::string& source, long line) { return source + ":" + std::to_string(line); }

}  // namespace

std::string_view trim_text(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view unquote_cell(std::string_view s) {
  s = trim_text(s);
  if (s.size() >= 2 && ((s.front() == '"' && s.back() == '"') || (s.front() == '\'' && s.back() == '\'')))
    s = trim_text(s.substr(1, s.size() - 2));
  return s;
}

bool parse_text_cell(std::string_view cell, bool decimal_comma, double& out) {
  cell = unquote_cell(cell);
  if (!decimal_comma || cell.find(',') == std::string_view::npos) return parse_double(cell, out);
  char buf[64];
  if (cell.size() >= sizeof buf || cell.find('.') != std::string_view::npos) return false;
  for (size_t i = 0; i < cell.size(); ++i) buf[i] = cell[i] == ',' ? '.' : cell[i];
  return parse_double(std::string_view(buf, cell.size()), out);
}

void append_csv_field(std::string& out, std::string_view field, char delimiter) {
  const bool quote = field.find_first_of(std::string{delimiter, '"', '\r', '\n'}) != std::string_view::npos ||
                     (!field.empty() && (field.front() == ' ' || field.back() == ' '));
  if (!quote) {
    out.append(field);
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

TextTable::TextTable(const std::string& path, TextLayout layout) : source_(path) {
  check_input_path(path);
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) throw InputError(path + ": cannot open: " + std::strerror(errno));
  try {
    sniff(layout);
  } catch (...) {
    std::fclose(file_);
    file_ = nullptr;
    throw;
  }
}

TextTable::TextTable(std::string_view text, std::string source, TextLayout layout)
    : source_(std::move(source)), text_(text) {
  sniff(layout);
}

TextTable::~TextTable() {
  if (file_) std::fclose(file_);
}

bool TextTable::raw_line(std::string_view& out) {
  if (!file_) {
    if (text_.empty()) return false;
    size_t end = text_.find_first_of("\r\n");
    out = text_.substr(0, end);
    if (end == std::string_view::npos) {
      text_ = {};
    } else {
      if (text_[end] == '\r' && end + 1 < text_.size() && text_[end + 1] == '\n') ++end;
      text_.remove_prefix(end + 1);
    }
  } else {
    // `scan`: bytes of the partial line already searched for a line end
    // (none there), so a line of any length is searched once.
    size_t scan = 0;
    for (;;) {
      const char* b = buf_.data() + pos_;
      const char* e = buf_.data() + end_;
      const char* from = b + scan;
      const char* nl = static_cast<const char*>(std::memchr(from, '\n', static_cast<size_t>(e - from)));
      const char* cr = static_cast<const char*>(std::memchr(from, '\r', static_cast<size_t>((nl ? nl : e) - from)));
      const char* term = cr ? cr : nl;
      // A CR at the end of the buffer may be the first half of a CRLF.
      if (term && !(term + 1 == e && *term == '\r' && !eof_)) {
        out = std::string_view(b, static_cast<size_t>(term - b));
        size_t adv = static_cast<size_t>(term - b) + 1;
        if (*term == '\r' && term + 1 < e && term[1] == '\n') ++adv;
        pos_ += adv;
        break;
      }
      if (eof_) {
        if (b == e) return false;
        out = std::string_view(b, static_cast<size_t>(e - b));
        pos_ = end_;
        break;
      }
      scan = static_cast<size_t>((term ? term : e) - b);
      // Refill: keep the partial line, read more behind it (at least as much
      // again as is kept, so a long line is moved a bounded number of times
      // per byte, not once per 64 KiB read).
      const size_t keep = end_ - pos_;
      if (pos_ > 0) std::memmove(buf_.data(), buf_.data() + pos_, keep);
      pos_ = 0;
      end_ = keep;
      if (buf_.size() < keep + std::max(kReadChunk, keep)) buf_.resize(keep + std::max(kReadChunk, keep));
      errno = 0;
      const size_t got = std::fread(buf_.data() + end_, 1, buf_.size() - end_, file_);
      end_ += got;
      if (got == 0) {
        if (std::ferror(file_)) throw InputError(source_ + ": read error: " + std::strerror(errno));
        eof_ = true;
      }
    }
  }
  ++raw_number_;
  if (first_line_) {
    first_line_ = false;
    // UTF-16 or UTF-32 (a byte-order mark, or NULs between ASCII
    // characters): said so, not a confusing header error.
    if (const std::string why = text_encoding_problem(out); !why.empty() && why.rfind("holds a NUL", 0) != 0)
      throw InputError(source_ + ": " + why);
    // UTF-8 byte-order mark from spreadsheet exports.
    if (out.rfind("\xEF\xBB\xBF", 0) == 0) out.remove_prefix(3);
  }
  // Binary content: said so, instead of a cell error whose echo a NUL would
  // cut short.
  if (const void* nul = std::memchr(out.data(), 0, out.size()))
    throw InputError(where(source_, raw_number_) + ": holds a NUL byte (character " +
                     std::to_string(static_cast<const char*>(nul) - out.data() + 1) + " of the line): not a text file");
  return true;
}

bool TextTable::content_line(std::string_view& out, long& number) {
  if (!pending_.empty()) {
    current_ = std::move(pending_.front().first);
    number = pending_.front().second;
    pending_.pop_front();
    out = current_;
    return true;
  }
  while (raw_line(out)) {
    if (!is_comment(out)) {
      number = raw_number_;
      return true;
    }
  }
  return false;
}

// Index of the sniffed line that heads the table: 0 when the first line
// does (or no later line does, so the errors below name the first line);
// else the first line whose cells are all names, as many as the cells of
// each row below it (or below a units row under it), the rows numbers, with
// no row of that many numbers above it. What comes before it is an
// instrument's preamble or a title line.
size_t TextTable::preamble_end() const {
  std::vector<std::string_view> cells;
  auto heads = [&](size_t h, char d) {
    split(pending_[h].first, d, cells);
    const size_t n = cells.size();
    double x;
    for (auto c : cells)
      if (parse_text_cell(c, d != ',', x)) return false;
    bool dc = false;
    if (n >= 2 && fits(pending_, h + 1, d, dc) == n) return true;
    if (n < 2 || h + 2 >= pending_.size() || fits(pending_, h + 2, d, dc) != n) return false;
    split(pending_[h + 1].first, d, cells);
    bool units = cells.size() == n;
    for (auto c : cells) units = units && (c.empty() || find_unit(c));
    return units;
  };
  constexpr char kDelimiters[] = {'\t', ';', ',', kWhitespace};
  for (char d : kDelimiters) {
    bool dc = false;
    if (heads(0, d) || fits(pending_, 0, d, dc) > 0) return 0;
  }
  for (size_t h = 1; h + 1 < pending_.size(); ++h) {
    for (char d : kDelimiters) {
      if (starts_with_number(pending_[h].first, d) || !heads(h, d)) continue;
      const size_t n = cells.size();
      bool data_above = false;
      for (size_t i = 0; i < h && !data_above; ++i) {
        bool dc = false;
        std::deque<std::pair<std::string, long>> one{pending_[i]};
        data_above = fits(one, 0, d, dc) == n;
      }
      if (!data_above) return h;
    }
  }
  return 0;
}

void TextTable::sniff(TextLayout layout) {
  std::string_view l;
  // Lines the user said are not the table (--skip-rows, --header-row).
  const long skip = layout.header_row > 0 ? layout.header_row - 1 : layout.skip_rows;
  for (long i = 0; i < skip; ++i)
    if (!raw_line(l))
      throw InputError(source_ + ": " +
                       (layout.header_row > 0 ? "header row " + std::to_string(layout.header_row)
                                              : "skipping " + std::to_string(skip) + " rows") +
                       " goes past the end of the file (" + std::to_string(i) + " lines)");
  preamble_lines_ = skip;
  // The first content line and up to kSniffLines + 1 after it (a units row
  // may sit between the header and the data).
  while (pending_.size() < kSniffLines + 2 && raw_line(l))
    if (!is_comment(l)) pending_.emplace_back(std::string(l), raw_number_);
  if (pending_.empty()) throw InputError(source_ + ": no data (file is empty or only comments)");
  if (layout.header_row > 0 && pending_[0].second != layout.header_row)
    throw InputError(where(source_, layout.header_row) + ": the header row is blank or a comment");
  if (layout.header_row == 0) {
    const size_t h = preamble_end();
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(h));
    preamble_lines_ += static_cast<long>(h);
  }

  // The first content line is a header unless it splits like the data rows
  // into numbers. Choose the delimiter from the rows after it.
  const size_t first_data = pending_.size() > 1 ? 1 : 0;
  size_t k = 0;
  for (char d : {'\t', ';', ',', kWhitespace}) {
    bool dc = false;
    k = fits(pending_, first_data, d, dc);
    // One column only when nothing in the first line looks like a delimiter
    // (else "0,1" rows under a "time,force" header would read as decimal commas).
    const bool single_ok = d == kWhitespace && pending_[0].first.find_first_of(",;\t") == std::string::npos;
    if (k >= 2 || (k == 1 && single_ok)) {
      dialect_.delimiter = d;
      dialect_.decimal_comma = dc;
      break;
    }
    k = 0;
  }
  std::vector<std::string_view> cells;
  if (k == 0 && pending_.size() > 2) {
    // A units row under the header: data from the third content line on,
    // the second splits into as many cells, each a unit or empty.
    for (char d : {'\t', ';', ',', kWhitespace}) {
      bool dc = false;
      const size_t kk = fits(pending_, 2, d, dc);
      if (kk < 2) continue;
      split(pending_[0].first, d, cells);
      if (cells.size() != kk) continue;  // the header names as many columns
      split(pending_[1].first, d, cells);
      bool units = cells.size() == kk;
      for (auto c : cells) units = units && (c.empty() || find_unit(c));
      if (!units) continue;
      k = kk;
      dialect_.delimiter = d;
      dialect_.decimal_comma = dc;
      dialect_.units_row = true;
      break;
    }
  }
  const size_t data_width = k;  // 0: the rows do not agree
  if (k == 0) {
    // Nothing fits: pick the delimiter the first data row suggests so the
    // error below points at the offending cell.
    const std::string& fl = pending_[first_data].first;
    dialect_.delimiter = fl.find('\t') != std::string::npos  ? '\t'
                         : fl.find(';') != std::string::npos ? ';'
                         : fl.find(',') != std::string::npos ? ','
                                                             : kWhitespace;
    split(fl, dialect_.delimiter, cells);
    k = cells.size();
  }
  split(pending_[0].first, dialect_.delimiter, cells);
  bool all_numbers = true;
  {
    double x;
    for (auto c : cells) all_numbers = all_numbers && parse_text_cell(c, dialect_.decimal_comma, x);
    dialect_.header = layout.header_row > 0 || !(all_numbers && cells.size() == k);
  }
  if (all_numbers && cells.size() != k && layout.header_row == 0)
    throw InputError(where(source_, pending_[0].second) + ": expected " + std::to_string(k) + " cells, found " +
                     std::to_string(cells.size()));
  // A header names the columns: rows with another number of cells are the
  // ones in error (named with their line below).
  // One cell above rows of several numbers: a title above a table without a
  // header, which detection cannot tell from a header (say where it starts).
  if (dialect_.header && cells.size() == 1 && data_width >= 2 && layout.header_row == 0)
    throw InputError(where(source_, pending_[0].second) + ": '" + std::string(cells[0].substr(0, 40)) +
                     "' is one cell above rows of " + std::to_string(data_width) +
                     " numbers; if it is a title above a table without a header, skip it with --skip-rows " +
                     std::to_string(pending_[0].second));
  if (dialect_.header) k = cells.size();
  width_ = k;
  header_.assign(k, "");
  names_.assign(k, "");
  units_.assign(k, "");
  if (!dialect_.header) return;
  header_line_ = pending_[0].second;
  // A column without a name (a spreadsheet's ",,," or "Unnamed: 3") is
  // refused by whoever would use it: import leaves it out unless mapped.
  for (size_t c = 0; c < k; ++c) {
    header_[c] = std::string(cells[c]);
    split_header_cell(cells[c], names_[c], units_[c]);
  }
  pending_.pop_front();
  if (dialect_.units_row) {
    split(pending_[0].first, dialect_.delimiter, cells);
    for (size_t c = 0; c < k; ++c)
      if (units_[c].empty()) units_[c] = std::string(cells[c]);
    pending_.pop_front();
  }
  if (pending_.empty()) {
    std::string_view probe;
    long n = 0;
    if (!content_line(probe, n)) throw InputError(source_ + ": header row but no data rows");
    pending_.emplace_back(std::string(probe), n);
  }
}

bool TextTable::next(std::vector<double>& values, std::vector<std::string_view>* cells_out) {
  std::string_view l;
  if (!content_line(l, line_)) return false;
  split(l, dialect_.delimiter, cells_);
  if (cells_.size() != width_)
    throw InputError(where(source_, line_) + ": expected " + std::to_string(width_) + " cells, found " +
                     std::to_string(cells_.size()));
  values.resize(width_);
  for (size_t c = 0; c < width_; ++c) {
    if (c < ignored_.size() && ignored_[c]) {
      values[c] = 0;
      continue;
    }
    if (!parse_text_cell(cells_[c], dialect_.decimal_comma, values[c])) {
      const std::string col = names_[c].empty() ? "" : " '" + names_[c] + "'";
      throw InputError(where(source_, line_) + ": column " + std::to_string(c + 1) + col + ": '" +
                       std::string(cells_[c].substr(0, 40)) + "' is " +
                       (cells_[c].empty() ? "empty" : "not a finite number"));
    }
  }
  if (cells_out) *cells_out = cells_;
  return true;
}

}  // namespace stribeck::data
