#include "stribeck/data/atomic_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "stribeck/data/error.hpp"

namespace stribeck {

AtomicFile::AtomicFile(std::string target) : target_(std::move(target)) {
  std::string pattern = target_ + ".tmp.XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0) throw InputError(target_ + ": cannot create output file: " + std::strerror(errno));
  // mkstemp creates 0600; give the result the permissions a plain fopen would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  temp_ = buf.data();
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_.c_str());
}

std::FILE* AtomicFile::stream() {
  if (!file_) {
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) throw InputError(target_ + ": cannot write: " + std::strerror(errno));
  }
  return file_;
}

void AtomicFile::commit() {
  if (file_) {
    const bool failed = std::ferror(file_) != 0;
    const int rc = std::fclose(file_);
    file_ = nullptr;
    if (failed || rc != 0) throw InputError(target_ + ": write failed: " + std::strerror(errno));
  }
  if (std::rename(temp_.c_str(), target_.c_str()) != 0)
    throw InputError(target_ + ": cannot move output into place: " + std::strerror(errno));
  committed_ = true;
}

}  // namespace stribeck
