#include "stribeck/data/csv_reader.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool is_blank_or_comment(std::string_view line) {
  line = trim(line);
  return line.empty() || line.front() == '#';
}

}  // namespace

bool parse_double(std::string_view text, double& out) {
  if (text.empty()) return false;
  if (text.front() == '+') text.remove_prefix(1);  // from_chars rejects a leading '+'
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

void append_double(std::string& out, double x) {
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, ptr);
}

CsvReader::CsvReader(std::string path) : path_(std::move(path)) {
  check_input_path(path_);
  file_ = std::fopen(path_.c_str(), "rb");
  if (!file_) throw InputError(path_ + ": cannot open: " + std::strerror(errno));
  do {
    if (!read_line()) throw InputError(path_ + ": no header row (file is empty)");
    if (line_ == 1)  // UTF-16 or NULs: said so, not a confusing header error
      if (const std::string why = text_encoding_problem(buf_); !why.empty()) throw InputError(path_ + ": " + why);
    // A UTF-8 byte-order mark from spreadsheet exports (as the importer drops it).
    if (line_ == 1 && buf_.rfind("\xEF\xBB\xBF", 0) == 0) buf_.remove_prefix(3);
  } while (is_blank_or_comment(buf_));
  if (buf_.find(',') == std::string::npos) {
    if (buf_.find(';') != std::string::npos) delim_ = ';';
    else if (buf_.find('\t') != std::string::npos) delim_ = '\t';
  }
  std::vector<std::string_view> cells;
  split(cells);
  for (size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].empty())
      throw InputError(path_ + ":" + std::to_string(line_) + ": column " + std::to_string(i + 1) +
                       " has an empty name");
    for (const auto& c : columns_)
      if (c == cells[i])
        throw InputError(path_ + ":" + std::to_string(line_) + ": column name '" + c +
                         "' appears twice");
    columns_.emplace_back(cells[i]);
  }
}

CsvReader::~CsvReader() {
  if (file_) std::fclose(file_);
  std::free(line_buf_);
}

int CsvReader::column(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == name) return static_cast<int>(i);
  return -1;
}

bool CsvReader::read_line() {
  errno = 0;
  const ssize_t n = ::getline(&line_buf_, &line_cap_, file_);
  if (n < 0) {
    if (std::ferror(file_)) throw InputError(path_ + ": read error: " + std::strerror(errno));
    return false;
  }
  buf_ = std::string_view(line_buf_, static_cast<size_t>(n));
  if (!buf_.empty() && buf_.back() == '\n') buf_.remove_suffix(1);
  ++line_;
  if (const void* nul = std::memchr(buf_.data(), 0, buf_.size())) {
    // UTF-16 (on the first line) or binary content: said so, instead of a
    // cell error whose echo a NUL would cut short.
    const std::string why = text_encoding_problem(buf_);
    throw InputError(path_ + ":" + std::to_string(line_) + ": " +
                     (line_ == 1 && why.rfind("holds a NUL", 0) != 0
                          ? why
                          : "holds a NUL byte (character " +
                                std::to_string(static_cast<const char*>(nul) - buf_.data() + 1) +
                                " of the line): not a text file"));
  }
  return true;
}

void CsvReader::split(std::vector<std::string_view>& cells) const {
  // One pass over the bytes: cells are short, so a plain loop beats a
  // memchr call per cell.
  cells.clear();
  const char* start = buf_.data();
  const char* const end = start + buf_.size();
  for (const char* c = start; c != end; ++c) {
    if (*c == delim_) {
      cells.push_back(trim(std::string_view(start, static_cast<size_t>(c - start))));
      start = c + 1;
    }
  }
  cells.push_back(trim(std::string_view(start, static_cast<size_t>(end - start))));
}

bool CsvReader::next(std::vector<double>& values, std::vector<std::string_view>& cells) {
  do {
    if (!read_line()) return false;
  } while (is_blank_or_comment(buf_));
  split(cells);
  // The "file:line" prefix is built only on error: this is the per-row hot path.
  auto where = [&] { return path_ + ":" + std::to_string(line_); };
  if (cells.size() != columns_.size())
    throw InputError(where() + ": expected " + std::to_string(columns_.size()) + " cells, found " +
                     std::to_string(cells.size()));
  values.resize(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    if (!parse_double(cells[i], values[i]))
      throw InputError(where() + ": column " + std::to_string(i + 1) + " '" + columns_[i] + "': '" +
                       std::string(cells[i]) + "' is not a finite number");
  }
  return true;
}

}  // namespace stribeck
