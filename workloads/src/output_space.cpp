// The size guard (output_space.hpp).
#include "stribeck/workloads/output_space.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cstdio>
#include <limits>

#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::workloads {

std::uint64_t free_bytes_for(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(fs.f_bavail) * static_cast<std::uint64_t>(fs.f_frsize);
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
  int u = 0;
  while (bytes >= 1000 && u < 8) bytes /= 1000, ++u;
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

void check_output_space(const std::string& output, double bytes, bool allow, bool resume, const std::string& what) {
  if (allow || output.empty()) return;
  double need = bytes;
  if (resume) {
    struct stat st {};
    if (::stat(data::partial_path(output).c_str(), &st) == 0) need -= static_cast<double>(st.st_size);
  }
  const std::uint64_t free = free_bytes_for(output);
  if (free == std::numeric_limits<std::uint64_t>::max() || need <= static_cast<double>(free)) return;
  throw data::InputError(
      output + ": the output needs about " + format_bytes(need) + " (" + what + "), but its file system has " +
      format_bytes(static_cast<double>(free)) +
      " free; shrink the run (fewer points, --metric, --top-k-only, --shard) or give --allow-large-output");
}

}  // namespace stribeck::workloads
