#include "toml_text.hpp"

#include <algorithm>
#include <cstdio>

#include "stribeck/data/error.hpp"

namespace stribeck::workloads::detail {

void check_toml_characters(const std::string& text, const std::string& path) {
  enum class In { kCode, kComment, kBasic, kLiteral, kMultiBasic, kMultiLiteral } in = In::kCode;
  long line = 1, column = 0;
  int array_depth = 0;     // '[' of array values open (headers are not arrays)
  bool in_value = false;   // after '=' on this logical line
  bool line_start = true;  // only spaces and tabs so far on this line
  // Dots of the key (or table header) on this line: toml++ recurses once
  // per part of a key, and a key of some 50000 parts overflows the stack
  // (found by the configs campaign; docs/reliability.md).
  int key_dots = 0;
  constexpr int kMaxKeyDots = 255;
  auto at = [&](const std::string& what) {
    return data::InputError(path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  };
  auto starts = [&](size_t i, const char* s) { return text.compare(i, 3, s) == 0; };
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    ++column;
    if (c == '\n') {
      if (in == In::kComment || in == In::kBasic || in == In::kLiteral)
        in = In::kCode;  // (an open string: toml++ says so)
      if (in == In::kCode && array_depth == 0) in_value = false;
      ++line;
      column = 0;
      line_start = true;
      key_dots = 0;
      continue;
    }
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", c);
      throw at(std::string("control character ") + hex + " (TOML allows none but tab and newlines)");
    }
    switch (in) {
      case In::kCode:
        if (c >= 0x80) throw at("non-ASCII character outside a string or comment (TOML allows them only there)");
        if (c == '[' && array_depth == 0 && !in_value && line_start) {
          // A table header: toml++ takes whatever follows '[' (or '[['), past
          // spaces and tabs, for the start of a key.
          size_t j = i + 1;
          if (j < text.size() && text[j] == '[') ++j;
          while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
          const char k = j < text.size() ? text[j] : '\n';
          const bool key = (k >= 'A' && k <= 'Z') || (k >= 'a' && k <= 'z') || (k >= '0' && k <= '9') || k == '_' ||
                           k == '-' || k == '"' || k == '\'' || k == ']';
          if (!key) throw at("a table header needs a key after '['");
        } else if (c == '[') {
          ++array_depth;
        } else if (c == ']' && array_depth > 0) {
          --array_depth;
        } else if (c == '=') {
          in_value = true;
        } else if (c == '.' && !in_value && ++key_dots > kMaxKeyDots) {
          throw at("a key of more than 256 dotted parts (tables nested that deep are refused)");
        }
        if (c != ' ' && c != '\t') line_start = false;
        if (c == '#') in = In::kComment;
        else if (c == '"') {
          if (starts(i, "\"\"\"")) in = In::kMultiBasic, i += 2, column += 2;
          else in = In::kBasic;
        } else if (c == '\'') {
          if (starts(i, "'''")) in = In::kMultiLiteral, i += 2, column += 2;
          else in = In::kLiteral;
        }
        break;
      case In::kComment: break;
      case In::kBasic:
      case In::kMultiBasic:
        if (c == '\\') {
          // An escape: TOML's letters, or (multi-line) a line-ending backslash
          // before spaces, tabs and a newline, which is counted above.
          const char e = i + 1 < text.size() ? text[i + 1] : '\0';
          const bool letter = e == 'b' || e == 't' || e == 'n' || e == 'f' || e == 'r' || e == '"' || e == '\\' ||
                              e == 'u' || e == 'U' || e == 'e';
          const bool line_end = in == In::kMultiBasic && (e == ' ' || e == '\t' || e == '\r' || e == '\n');
          if (!letter && !line_end)
            throw at("invalid escape in a string (TOML knows \\b \\t \\n \\f \\r \\\" \\\\ \\u \\U)");
          if (letter) ++i, ++column;
        } else if (c == '"') {
          if (in == In::kBasic) in = In::kCode;
          else if (starts(i, "\"\"\"")) {
            // Up to two more quotes may belong to the string ("""a""""").
            size_t j = i + 3;
            while (j < text.size() && text[j] == '"' && j < i + 5) ++j;
            column += static_cast<long>(j - i - 1);
            i = j - 1;
            in = In::kCode;
          }
        }
        break;
      case In::kLiteral:
      case In::kMultiLiteral:
        if (c == '\'') {
          if (in == In::kLiteral) in = In::kCode;
          else if (starts(i, "'''")) {
            size_t j = i + 3;
            while (j < text.size() && text[j] == '\'' && j < i + 5) ++j;
            column += static_cast<long>(j - i - 1);
            i = j - 1;
            in = In::kCode;
          }
        }
        break;
    }
  }
}

toml::table parse_toml(const std::string& text, const std::string& path) {
  check_toml_characters(text, path);
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw data::InputError(path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": " +
                           std::string(e.description()));
  }
}

std::string toml_where(const std::string& file, const toml::node& n) {
  const auto& b = n.source().begin;
  return file + ":" + std::to_string(b.line) + ":" + std::to_string(b.column);
}

void check_toml_keys(const std::string& file, const toml::table& t, const std::string& table,
                     const std::vector<std::string>& known) {
  for (const auto& [k, v] : t) {
    (void)v;
    const std::string key(k.str());
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (const auto& s : known) list += (list.empty() ? "" : ", ") + s;
    const auto& b = k.source().begin;
    throw data::InputError(file + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": unknown key '" +
                           key + "' in " + table + " (known: " + list + ")");
  }
}

}  // namespace stribeck::workloads::detail
