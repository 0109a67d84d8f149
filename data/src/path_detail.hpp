#pragma once
// What paths.cpp shares with the files that keep paths in fixed buffers
// (the signal handlers' slots, the output locks) or name files beside an
// output.
#include <sys/stat.h>

#include <cstddef>
#include <string>

namespace stribeck::data::detail {

// The longest path a fixed slot holds (PATH_MAX): the signal handlers read
// their paths without allocating.
constexpr size_t kPathMax = 4096;
// The unique part of a temporary's name: mkstemp's XXXXXX.
constexpr size_t kUniqueChars = 6;

// What a file of mode `m` is, for messages ("" for a regular file).
inline std::string kind_of(mode_t m) {
  if (S_ISREG(m)) return "";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

}  // namespace stribeck::data::detail
