#pragma once
// Numbers as text (host only): the shortest text that reads back to exactly
// the same double, and the strict reading of one. Every file, message and
// command line writes and reads numbers through these; the model registry
// prints parameter ranges with format_number, so they sit in kernels/.
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>

namespace stribeck {

// Shortest text that reads back to exactly x (e.g. "20", "1e-06", "0.1").
inline std::string format_number(double x) {
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, res.ptr);
}

// Appends format_number(x) to `out` without allocating.
inline void append_double(std::string& out, double x) {
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, ptr);
}

// Parses a whole cell as a finite double (no trailing characters); false if it
// is not one.
inline bool parse_double(std::string_view text, double& out) {
  if (text.empty()) return false;
  if (text.front() == '+') text.remove_prefix(1);  // from_chars rejects a leading '+'
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

}  // namespace stribeck
