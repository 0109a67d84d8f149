#include "stribeck/data/text_export.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/text_table.hpp"

namespace stribeck {
namespace {

constexpr const char* kOrder[] = {"time",       "position",   "velocity",     "acceleration", "force",
                                  "pressure_a", "pressure_b", "normal_force", "temperature"};
constexpr size_t kBlockRows = 65536;

void write_all(AtomicFile* out, const std::string& text, const std::string& path) {
  if (out) {
    out->write(text);
    return;
  }
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    std::string cause = std::strerror(errno);  // as every write error: "writing OUT: no space left on device"
    cause[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(cause[0])));
    throw InputError("writing standard output: " + cause);
  }
}

using ReadBlock = std::function<void(const std::string& channel, size_t begin, size_t end, double* out)>;

}  // namespace

std::vector<std::string> csv_column_order(const std::vector<std::string>& channels) {
  std::vector<std::string> cols;
  auto has = [&](const std::string& c) {
    for (const auto& ch : channels)
      if (ch == c) return true;
    return false;
  };
  for (const char* c : kOrder)
    if (has(c)) cols.emplace_back(c);
  for (const auto& ch : channels) {
    bool schema = false;
    for (const char* c : kOrder) schema |= ch == c;
    if (!schema) cols.push_back(ch);
  }
  return cols;
}

std::string comment_text(const std::string& text) {
  std::string o;
  for (unsigned char c : text) {
    if (c == '\n') o += "\\n";
    else if (c == '\r') o += "\\r";
    else if (c < 0x20 && c != '\t') {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02X", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o;
}

namespace {

// One writer for both kinds of source: the columns in export order, read a
// block of rows at a time.
void write_table(AtomicFile* out, const std::string& path, const std::string& name,
                 const std::map<std::string, std::string>& attrs, const std::vector<std::string>& channels,
                 const std::map<std::string, std::string>& units, size_t n, const ReadBlock& read, char delim,
                 bool units_in_header) {
  const std::vector<std::string> cols = csv_column_order(channels);
  std::string text = units_in_header ? "# experiment: " + comment_text(name) + "\n" : "";
  for (const auto& [k, v] : attrs) {
    if (!units_in_header) break;
    if (v.find('\n') != std::string::npos) continue;  // multi-line metadata stays in the HDF5 log
    text += "# " + comment_text(k) + ": " + comment_text(v) + "\n";
  }
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i) text += delim;
    std::string cell = cols[i];
    auto u = units.find(cols[i]);
    if (units_in_header && u != units.end() && !u->second.empty()) cell += " [" + u->second + "]";
    append_csv_field(text, cell, delim);
  }
  text += '\n';
  std::vector<std::vector<double>> block(cols.size(), std::vector<double>(std::min(n, kBlockRows)));
  for (size_t b = 0; b < n; b += kBlockRows) {
    const size_t len = std::min(kBlockRows, n - b);
    for (size_t c = 0; c < cols.size(); ++c) read(cols[c], b, b + len, block[c].data());
    for (size_t r = 0; r < len; ++r) {
      for (size_t c = 0; c < cols.size(); ++c) {
        if (c) text += delim;
        append_double(text, block[c][r]);
      }
      text += '\n';
      if (text.size() > (1u << 20)) {
        write_all(out, text, path);
        text.clear();
      }
    }
  }
  write_all(out, text, path);
  if (out) out->close_stream();
  else std::fflush(stdout);
}

// `path` "-": stdout; otherwise a new AtomicFile, committed.
template <class Write>
void write_path(const std::string& path, const Write& write) {
  if (path == "-") return write(nullptr, path);
  AtomicFile out(path);
  write(&out, path);
  out.commit();
}

void write_experiment(AtomicFile* out, const std::string& path, const Experiment& e, char delim, bool units_in_header) {
  std::vector<std::string> channels;
  for (const auto& [name, v] : e.channels) channels.push_back(name);
  write_table(
      out, path, e.name, e.attributes, channels, e.units, e.size(),
      [&e](const std::string& ch, size_t b, size_t end, double* dst) {
        const auto& v = e.channels.at(ch);
        std::copy(v.begin() + static_cast<std::ptrdiff_t>(b), v.begin() + static_cast<std::ptrdiff_t>(end), dst);
      },
      delim, units_in_header);
}

void write_blocks(AtomicFile* out, const std::string& path, const LogBlockReader& log, char delim,
                  bool units_in_header) {
  std::map<std::string, std::string> units;
  for (const auto& ch : log.channels()) units[ch] = log.units(ch);
  write_table(
      out, path, log.experiment(), log.attributes(), log.channels(), units, log.length(),
      [&log](const std::string& ch, size_t b, size_t end, double* dst) { log.read(ch, b, end, dst); }, delim,
      units_in_header);
}

}  // namespace

void write_csv(const std::string& path, const Experiment& e, char delim, bool units_in_header) {
  write_path(path, [&](AtomicFile* out, const std::string& p) { write_experiment(out, p, e, delim, units_in_header); });
}

void write_csv(const std::string& path, const LogBlockReader& log, char delim, bool units_in_header) {
  write_path(path, [&](AtomicFile* out, const std::string& p) { write_blocks(out, p, log, delim, units_in_header); });
}

void write_csv(AtomicFile& out, const Experiment& e, char delim) {
  write_experiment(&out, out.target(), e, delim, true);
}

void write_csv(AtomicFile& out, const LogBlockReader& log, char delim) {
  write_blocks(&out, out.target(), log, delim, true);
}

}  // namespace stribeck
