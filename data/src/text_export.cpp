#include "stribeck/data/text_export.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <functional>

#include <nlohmann/json.hpp>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data {
namespace {

constexpr const char* kOrder[] = {"time",       "position",   "velocity",     "acceleration", "force",
                                  "pressure_a", "pressure_b", "normal_force", "temperature"};
constexpr size_t kBlockRows = 65536;

void write_all(AtomicFile* out, const std::string& text) {
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

std::string csv_sidecar_path(const std::string& csv_path) {
  // A CSV name so long that NAME.json would pass NAME_MAX is cut with a
  // hash, as the temporaries and partial files are.
  const std::string json = ".json";
  return name_with_room(csv_path, json.size()) + json;
}

std::string csv_sidecar_json(const std::string& kind, const std::vector<CsvColumn>& columns,
                             const std::map<std::string, std::string>& attributes,
                             const std::vector<std::pair<std::string, double>>& values,
                             const std::string& command_line) {
  nlohmann::ordered_json j;
  j["format"] = "stribeck-csv-metadata";
  j["kind"] = kind;
  j["toolkit_version"] = STRIBECK_VERSION;
  j["date"] = utc_now();
  j["command_line"] = command_line;
  j["columns"] = nlohmann::ordered_json::array();
  for (const auto& c : columns) j["columns"].push_back({{"name", c.name}, {"units", c.units}});
  j["attributes"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : attributes) j["attributes"][k] = v;
  j["values"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : values) j["values"][k] = std::isfinite(v) ? nlohmann::ordered_json(v) : nullptr;
  // Names and attributes come from input files: bytes that are not UTF-8
  // are replaced rather than refused, as the CSV keeps them verbatim.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

namespace {

struct Table {
  std::vector<std::string> cols;  // channels in export order
  std::vector<CsvColumn> header;  // their header cells and units
};

Table table_of(const std::vector<std::string>& channels, const std::map<std::string, std::string>& units) {
  Table t;
  t.cols = csv_column_order(channels);
  for (const auto& c : t.cols) {
    auto u = units.find(c);
    const std::string unit = u == units.end() ? "" : u->second;
    t.header.push_back({unit.empty() ? c : c + " [" + unit + "]", unit});
  }
  return t;
}

// One writer for both kinds of source: the columns in export order, read a
// block of rows at a time. The first line is the header: no comment lines,
// which pandas.read_csv would take for the header or refuse.
void write_table(AtomicFile* out, const Table& t, size_t n, const ReadBlock& read, char delim) {
  std::string text;
  for (size_t i = 0; i < t.header.size(); ++i) {
    if (i) text += delim;
    append_csv_field(text, t.header[i].name, delim);
  }
  text += '\n';
  std::vector<std::vector<double>> block(t.cols.size(), std::vector<double>(std::min(n, kBlockRows)));
  for (size_t b = 0; b < n; b += kBlockRows) {
    const size_t len = std::min(kBlockRows, n - b);
    for (size_t c = 0; c < t.cols.size(); ++c) read(t.cols[c], b, b + len, block[c].data());
    for (size_t r = 0; r < len; ++r) {
      for (size_t c = 0; c < t.cols.size(); ++c) {
        if (c) text += delim;
        append_double(text, block[c][r]);
      }
      text += '\n';
      if (text.size() > (1u << 20)) {
        write_all(out, text);
        text.clear();
      }
    }
  }
  write_all(out, text);
  if (out) out->close_stream();
  else std::fflush(stdout);
}

void write_sidecar(AtomicFile* sidecar, const std::string& name, const std::map<std::string, std::string>& attrs,
                   const Table& t, const std::string& command_line) {
  if (!sidecar) return;  // stdout: the CSV alone
  std::map<std::string, std::string> a = attrs;
  a["experiment"] = name;
  sidecar->write(csv_sidecar_json("log export", t.header, a, {}, command_line));
  sidecar->close_stream();
}

// `path` "-": stdout; otherwise the CSV and its sidecar, committed when both
// are complete.
template <class Write>
void write_path(const std::string& path, const Write& write) {
  if (path == "-") return write(nullptr, nullptr);
  AtomicFile out(path), sidecar(csv_sidecar_path(path));
  write(&out, &sidecar);
  out.commit();
  sidecar.commit();
}

void write_experiment(AtomicFile* out, AtomicFile* sidecar, const Experiment& e, char delim,
                      const std::string& command_line) {
  std::vector<std::string> channels;
  for (const auto& [name, v] : e.channels) channels.push_back(name);
  const Table t = table_of(channels, e.units);
  write_table(
      out, t, e.size(),
      [&e](const std::string& ch, size_t b, size_t end, double* dst) {
        const auto& v = e.channels.at(ch);
        std::copy(v.begin() + static_cast<std::ptrdiff_t>(b), v.begin() + static_cast<std::ptrdiff_t>(end), dst);
      },
      delim);
  write_sidecar(sidecar, e.name, e.attributes, t, command_line);
}

void write_blocks(AtomicFile* out, AtomicFile* sidecar, const LogBlockReader& log, char delim,
                  const std::string& command_line) {
  std::map<std::string, std::string> units;
  for (const auto& ch : log.channels()) units[ch] = log.units(ch);
  const Table t = table_of(log.channels(), units);
  write_table(
      out, t, log.length(),
      [&log](const std::string& ch, size_t b, size_t end, double* dst) { log.read(ch, b, end, dst); }, delim);
  write_sidecar(sidecar, log.experiment(), log.attributes(), t, command_line);
}

}  // namespace

void write_csv(const std::string& path, const Experiment& e, char delim, const std::string& command_line) {
  write_path(path,
             [&](AtomicFile* out, AtomicFile* sidecar) { write_experiment(out, sidecar, e, delim, command_line); });
}

void write_csv(const std::string& path, const LogBlockReader& log, char delim, const std::string& command_line) {
  write_path(path, [&](AtomicFile* out, AtomicFile* sidecar) { write_blocks(out, sidecar, log, delim, command_line); });
}

void write_csv(AtomicFile& out, AtomicFile& sidecar, const Experiment& e, char delim, const std::string& command_line) {
  write_experiment(&out, &sidecar, e, delim, command_line);
}

void write_csv(AtomicFile& out, AtomicFile& sidecar, const LogBlockReader& log, char delim,
               const std::string& command_line) {
  write_blocks(&out, &sidecar, log, delim, command_line);
}

}  // namespace stribeck::data
