#pragma once
// Private to host/: a character check of a TOML config before toml++ sees it.
//
// toml++ 3.3.0 (Debian 12) reaches an unreachable point (undefined behaviour
// in a release build) on some non-ASCII characters where it expects
// whitespace, and asserts on others where it expects a key (found by the
// fuzz_toml campaign; docs/reliability.md). TOML allows non-ASCII characters
// only inside strings (quoted keys included) and comments, and no control
// characters but tab (and newlines) anywhere, so refusing the rest first is
// both the TOML rule and out of the parser's way.
#include <string>

namespace stribeck::detail {

// Throws InputError "PATH:LINE:COLUMN: ..." for a control character anywhere,
// or a non-ASCII byte outside strings and comments.
void check_toml_characters(const std::string& text, const std::string& path);

}  // namespace stribeck::detail
