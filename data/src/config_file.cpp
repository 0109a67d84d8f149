#include "stribeck/data/config_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "path_detail.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::data {

using detail::kind_of;

std::string text_encoding_problem(std::string_view h) {
  auto starts = [&](std::string_view p) { return h.substr(0, p.size()) == p; };
  if (starts(std::string_view("\xFF\xFE\0\0", 4)) || starts(std::string_view("\0\0\xFE\xFF", 4)))
    return "is UTF-32 text (byte-order mark); save it as UTF-8";
  if (starts("\xFF\xFE") || starts("\xFE\xFF")) return "is UTF-16 text (byte-order mark); save it as UTF-8";
  const size_t nul = h.find('\0');
  if (nul == std::string_view::npos) return "";
  // ASCII saved as UTF-16 without a mark: every other byte is NUL.
  size_t even = 0, odd = 0, pairs = std::min<size_t>(h.size() / 2, 64);
  for (size_t i = 0; i < pairs; ++i) {
    even += h[2 * i] == '\0';
    odd += h[2 * i + 1] == '\0';
  }
  if (pairs >= 2 && (even == pairs) != (odd == pairs))
    return "looks like UTF-16 text (a NUL byte between characters); save it as UTF-8";
  return "holds a NUL byte (at byte " + std::to_string(nul) + "): not a text file";
}

std::string read_config_file(const std::string& path, const std::string& what) {
  if (path.empty()) throw InputError(what + ": the path is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(path + ": cannot open the " + what + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw InputError(path + ": is " + kind_of(st.st_mode) + ", not a " + what + " file");
  // Non-blocking, and checked again on the open file: a path swapped for a
  // FIFO after the stat still cannot block.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(path + ": cannot open the " + what + ": " + std::strerror(errno));
  std::string text;
  try {
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
      throw InputError(path + ": is " + kind_of(st.st_mode) + ", not a " + what + " file");
    auto too_big = [&](unsigned long long bytes) {
      return InputError(path + ": the " + what + " is " + std::to_string(bytes) + " bytes; at most " +
                        std::to_string(kMaxConfigBytes >> 20) + " MiB are read (is this the right file?)");
    };
    if (static_cast<unsigned long long>(st.st_size) > kMaxConfigBytes) throw too_big(st.st_size);
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError(path + ": cannot read the " + what + ": " + std::strerror(errno));
      if (n == 0) break;
      text.append(buf, static_cast<size_t>(n));
      if (text.size() > kMaxConfigBytes) throw too_big(text.size());
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  const std::string bad = text_encoding_problem(text);
  if (!bad.empty()) throw InputError(path + ": the " + what + " " + bad);
  return text;
}

}  // namespace stribeck::data
