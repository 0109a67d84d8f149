#include "stribeck/data/paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "path_detail.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::data {

using detail::kind_of;
using detail::kPathMax;
using detail::kUniqueChars;

void check_output_path(const std::string& path) {
  if (path.empty()) throw InputError("the output path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // does not exist yet: fine
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory; give a file name for the output");
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": exists and is not a regular file (a device, pipe or socket); write to a regular file");
}

std::string describe_non_regular(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return kind_of(st.st_mode);
}

void check_input_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": is not a regular file but " + kind_of(st.st_mode) + "; save the data to a file first");
}

namespace {
// 64-bit FNV-1a as 16 hex digits: the same in every run and build.
std::string name_hash(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

std::string resolve_output(const std::string& target) {
  std::string p = target;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    if (hops == 40) throw InputError(target + ": too many levels of symbolic links");
    std::vector<char> buf(kPathMax);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size());
    if (n <= 0 || static_cast<size_t>(n) >= buf.size()) return p;
    std::string link(buf.data(), static_cast<size_t>(n));
    const size_t slash = p.find_last_of('/');
    if (link[0] != '/' && slash != std::string::npos) link = p.substr(0, slash + 1) + link;
    p = link;
  }
}

std::string name_with_room(const std::string& path, size_t room) {
  const size_t slash = path.find_last_of('/');
  const size_t base = slash == std::string::npos ? 0 : slash + 1;
  const std::string name = path.substr(base);
  if (name.size() + room <= kFileNameMax) return path;
  const std::string hash = "~" + name_hash(name);
  return path.substr(0, base) + name.substr(0, kFileNameMax - room - hash.size()) + hash;
}

std::string temporary_stem(const std::string& target) {
  const std::string tmp = ".tmp.";
  return name_with_room(target, tmp.size() + kUniqueChars) + tmp;
}

std::string partial_path(const std::string& output) {
  // Its companions must fit too: OUT.partial.lock, and the journaling
  // driver's OUT.partial.journal(.new) and OUT.partial.undo(.new)
  // (journal_driver.cpp), the longest of them ".journal.new".
  const std::string partial = ".partial", longest = ".journal.new";
  return name_with_room(output, partial.size() + longest.size()) + partial;
}

}  // namespace stribeck::data
