// check_output (commands.hpp): refuse an output path before the run, not after it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "commands.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::cli {

void check_output_directory(const std::string& output) {
  const std::size_t slash = output.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : output.substr(0, slash);
  // The temporary beside the output needs a directory this process may
  // write (the effective ids, so root is not refused where it may write);
  // access() also says EROFS for a read-only file system and EPERM for an
  // immutable directory, where root's permissions do not count.
  // "DIR/." also says ENOTDIR where DIR is a file.
  if (::faccessat(AT_FDCWD, (dir + "/.").c_str(), W_OK | X_OK, AT_EACCESS) != 0)
    throw data::InputError(output + ": cannot create output file: " + std::strerror(errno));
}

void check_output(const std::string& output, const std::vector<std::string>& inputs) {
  if (output == "-")
    throw data::InputError("-o -: this command writes a file (standard output is for `stribeck export`)");
  data::check_output_path(output);
  check_output_directory(output);
  struct stat out {};
  if (::stat(output.c_str(), &out) != 0) return;  // a new file reads nothing
  for (const auto& in : inputs) {
    struct stat st {};
    if (!in.empty() && ::stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
      throw data::InputError(output + ": is the input " + in + " of this run; write the output to another file");
  }
}

}  // namespace stribeck::cli
