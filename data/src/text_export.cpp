#include "stribeck/data/text_export.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck {
namespace {

constexpr const char* kOrder[] = {"time",       "position",   "velocity",     "acceleration", "force",
                                  "pressure_a", "pressure_b", "normal_force", "temperature"};

void write_all(AtomicFile* out, const std::string& text, const std::string& path) {
  if (out) {
    out->write(text);
    return;
  }
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
    throw InputError("writing " + path + ": " + std::strerror(errno));
}

}  // namespace

std::string csv_field(const std::string& f, char delim) {
  if (f.find_first_of(std::string("\"\r\n") + delim) == std::string::npos) return f;
  std::string q = "\"";
  for (char c : f) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
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

void write_csv(const std::string& path, const Experiment& e, char delim, bool units_in_header) {
  std::vector<std::string> cols;
  for (const char* c : kOrder)
    if (e.has(c)) cols.emplace_back(c);
  for (const auto& [name, v] : e.channels) {
    bool schema = false;
    for (const char* c : kOrder) schema |= name == c;
    if (!schema) cols.push_back(name);
  }
  std::string text = units_in_header ? "# experiment: " + comment_text(e.name) + "\n" : "";
  for (const auto& [k, v] : e.attributes) {
    if (!units_in_header) break;
    if (v.find('\n') != std::string::npos) continue;  // multi-line metadata stays in the HDF5 log
    text += "# " + comment_text(k) + ": " + comment_text(v) + "\n";
  }
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i) text += delim;
    auto u = e.units.find(cols[i]);
    text += csv_field(cols[i] + (units_in_header && u != e.units.end() && !u->second.empty() ? " [" + u->second + "]"
                                                                                            : std::string()),
                      delim);
  }
  text += '\n';
  std::vector<const std::vector<double>*> data;
  for (const auto& c : cols) data.push_back(&e.channels.at(c));
  std::unique_ptr<AtomicFile> out;
  if (path != "-") out = std::make_unique<AtomicFile>(path);
  const size_t n = e.size();
  for (size_t r = 0; r < n; ++r) {
    for (size_t c = 0; c < data.size(); ++c) {
      if (c) text += delim;
      append_double(text, (*data[c])[r]);
    }
    text += '\n';
    if (text.size() > (1u << 16)) {
      write_all(out.get(), text, path);
      text.clear();
    }
  }
  write_all(out.get(), text, path);
  if (out) out->commit();
  else std::fflush(stdout);
}

}  // namespace stribeck
