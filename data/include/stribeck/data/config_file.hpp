#pragma once
// Text inputs read whole: a config file (sweep, simulate, a parameter file)
// and the encoding check every text reader makes on the first bytes.
#include <cstddef>
#include <string>
#include <string_view>

#include "stribeck/data/error.hpp"

namespace stribeck::data {

// Why `head` (the first bytes of a text input) is not UTF-8 text, or "":
// UTF-16/UTF-32 (by byte-order mark, or NUL bytes between ASCII characters)
// or NUL bytes in general, with the byte offset of the first one.
std::string text_encoding_problem(std::string_view head);

// Configs (sweep, simulate) larger than this are refused before they are
// read: a TOML config is a few KiB; a bigger one is the wrong file.
constexpr std::size_t kMaxConfigBytes = std::size_t(16) << 20;

// Reads a config file whole. Refuses at once, naming what it is, a
// directory, a FIFO, a device or a socket (opened without blocking, so a
// FIFO with no writer never hangs and /dev/zero is never read), a file over
// kMaxConfigBytes, and content that is UTF-16/32 or holds NUL bytes.
// `what` names the file in messages ("sweep config").
std::string read_config_file(const std::string& path, const std::string& what);

}  // namespace stribeck::data
