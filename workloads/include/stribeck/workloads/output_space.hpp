#pragma once
// The size guard: a run whose output would not fit on the file system that
// is to hold it is refused before it starts (a grid of 1e15 points once
// filled 69 GB at disk speed before it was stopped).
#include <cstdint>
#include <string>

namespace stribeck::workloads {

// Bytes available to this user on the file system holding `path` (the
// directory it is in; statvfs f_bavail x f_frsize), or UINT64_MAX when that
// cannot be told.
std::uint64_t free_bytes_for(const std::string& path);

// "1.2 GB", "120 PB": a byte count for messages (decimal units).
std::string format_bytes(double bytes);

// Throws InputError (exit 2) when `bytes`, the estimated size of the output
// `output`, exceeds the free space there, unless `allow` (the CLI's
// --allow-large-output). With `resume`, what OUT.partial already holds is
// counted as written. `what` says what the estimate is made of, e.g.
// "1e15 points x 120 B".
void check_output_space(const std::string& output, double bytes, bool allow, bool resume, const std::string& what);

}  // namespace stribeck::workloads
