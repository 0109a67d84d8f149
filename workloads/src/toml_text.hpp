#pragma once
// Private to workloads/: a character check of a TOML config before toml++ sees it.
//
// toml++ 3.3.0 (Debian 12) reaches an unreachable point (undefined behaviour
// in a release build) on some non-ASCII characters where it expects
// whitespace, and asserts on others where it expects a key (found by the
// fuzz_toml campaign; docs/reliability.md). TOML allows non-ASCII characters
// only inside strings (quoted keys included) and comments, and no control
// characters but tab (and newlines) anywhere, so refusing the rest first is
// both the TOML rule and out of the parser's way.
#include <cstdint>
#include <optional>
#include <string>
#include <toml++/toml.h>
#include <vector>

namespace stribeck::workloads::detail {

// Throws InputError "PATH:LINE:COLUMN: ..." for a control character anywhere,
// or a non-ASCII byte outside strings and comments.
void check_toml_characters(const std::string& text, const std::string& path);

// The text parsed as TOML after check_toml_characters; a syntax error is an
// InputError "PATH:LINE:COLUMN: what toml++ says".
toml::table parse_toml(const std::string& text, const std::string& path);

// "FILE:LINE:COLUMN" of a node, the prefix of every message about it.
std::string toml_where(const std::string& file, const toml::node& n);

// Refuses a key of `t` that `known` does not hold (a typo would otherwise be
// ignored): "FILE:LINE:COLUMN: unknown key 'k' in TABLE (known: ...)", the
// known keys in the order given.
void check_toml_keys(const std::string& file, const toml::table& t, const std::string& table,
                     const std::vector<std::string>& known);

// A TOML number as a double: floats, and integers of any size (toml++'s
// value<double>() refuses integers beyond 2^53, so "max_substeps =
// 1000000000000000000" would read as "not a number"; the caller's range
// check says what is allowed). std::nullopt for anything that is not a number.
inline std::optional<double> toml_number(const toml::node& n) {
  if (const auto i = n.value_exact<std::int64_t>()) return static_cast<double>(*i);
  return n.value_exact<double>();
}

}  // namespace stribeck::workloads::detail
