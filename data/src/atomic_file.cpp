#include "stribeck/data/atomic_file.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/data/interrupt.hpp"
#include "stribeck/data/paths.hpp"
#include "interrupt_detail.hpp"

namespace stribeck::data {

AtomicFile::AtomicFile(std::string target) : target_(std::move(target)) {
  check_output_path(target_);
  real_ = resolve_output(target_);
  lock_ = OutputLock(real_, OutputLock::Mode::kShared);
  std::string pattern = temporary_stem(real_) + "XXXXXX";
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
  slot_ = register_temporary(temp_);
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_.c_str());
  unregister_temporary(slot_);
}

std::FILE* AtomicFile::stream() {
  if (!file_) {
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) throw InputError(target_ + ": cannot write: " + std::strerror(errno));
  }
  return file_;
}

namespace {
[[noreturn]] void write_failed(const std::string& target, int err) {
  std::string cause = err ? std::strerror(err) : "write error";
  cause[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(cause[0])));
  throw InputError("writing " + target + ": " + cause);
}
}  // namespace

std::string AtomicFile::name_target(std::string message) const {
  if (temp_.empty()) return message;
  for (size_t at = message.find(temp_); at != std::string::npos; at = message.find(temp_, at + target_.size()))
    message.replace(at, temp_.size(), target_);
  return message;
}

void AtomicFile::write(const void* data, size_t n) {
  std::FILE* f = stream();
  errno = 0;
  if (n > 0 && std::fwrite(data, 1, n, f) != n) write_failed(target_, errno);
}

namespace {
// fsync of a path opened read-only (the data of every descriptor of the
// file, also one libhdf5 has closed); file systems that cannot sync say
// EINVAL or ENOTSUP, which is not an error of the output.
bool sync_path(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | flags);
  if (fd < 0) return false;
  int rc;
  do rc = ::fsync(fd);
  while (rc != 0 && errno == EINTR);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && err != EINVAL && err != ENOTSUP && err != EROFS) {
    errno = err;
    return false;
  }
  return true;
}

// A file replaced by a new version keeps who owns it and who may read it:
// owner and group where this process may give them (root; a group it is in),
// then the permission bits (after chown, which clears set-id bits).
void keep_owner_and_mode(const std::string& temp, const std::string& target) {
  struct stat old {
  }, mine{};
  if (::stat(target.c_str(), &old) != 0 || !S_ISREG(old.st_mode) || ::stat(temp.c_str(), &mine) != 0) return;
  if ((mine.st_uid != old.st_uid || mine.st_gid != old.st_gid) && ::chown(temp.c_str(), old.st_uid, old.st_gid) != 0 &&
      mine.st_gid != old.st_gid) {
    if (::chown(temp.c_str(), static_cast<uid_t>(-1), old.st_gid) != 0) {
      // not permitted: the result is the running user's, as a new file would be
    }
  }
  ::chmod(temp.c_str(), old.st_mode & 07777);
}
std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace

int durable_rename(const std::string& from, const std::string& to_name) {
  std::string to;
  try {
    to = resolve_output(to_name);
  } catch (const InputError&) {
    errno = ELOOP;
    return -1;
  }
  keep_owner_and_mode(from, to);
  if (!sync_path(from, 0)) return -1;
  detail::outputs_committing();  // before the name changes: no window where a signal reports a result as a failure
  if (std::rename(from.c_str(), to.c_str()) != 0) return -1;
  const int saved = errno;
  sync_path(directory_of(to), O_DIRECTORY);  // best effort: the rename has happened
  errno = saved;
  return 0;
}

void reserve_space(const std::string& path, std::uint64_t bytes, const std::string& target, const std::string& note) {
  // Metadata (B-tree nodes, object headers, the checkpoint's attributes)
  // beside the rows.
  bytes += std::uint64_t(256) << 10;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;  // the writer's own writes report it
  struct stat st {};
  int err = 0;
  if (::fstat(fd, &st) == 0) {
    struct rlimit lim {};
    if (::getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
        static_cast<std::uint64_t>(st.st_size) + bytes > static_cast<std::uint64_t>(lim.rlim_cur))
      err = EFBIG;
    else if (::fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, static_cast<off_t>(bytes)) != 0 &&
             (errno == ENOSPC || errno == EDQUOT || errno == EFBIG))
      err = errno;  // EOPNOTSUPP and the like: no reservation, as before
  }
  ::close(fd);
  if (!err) return;
  std::string cause = std::strerror(err);
  cause[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(cause[0])));
  throw InputError("writing " + target + ": " + cause + (note.empty() ? "" : "; " + note));
}

void AtomicFile::commit() {
  close_stream();
  if (durable_rename(temp_, real_) != 0)
    throw InputError(target_ + ": cannot move output into place: " + std::strerror(errno));
  committed_ = true;
  unregister_temporary(slot_);
  slot_ = -1;
}

void AtomicFile::close_stream() {
  if (file_) {
    errno = 0;
    int err = 0;
    if (std::fflush(file_) != 0 || std::ferror(file_)) err = errno ? errno : EIO;
    errno = 0;
    if (std::fclose(file_) != 0 && !err) err = errno ? errno : EIO;
    file_ = nullptr;
    if (err) write_failed(target_, err);
  }
}

void copy_file_contents(const std::string& source, AtomicFile& out) {
  std::FILE* in = std::fopen(source.c_str(), "rb");
  if (!in) throw InputError(source + ": cannot read: " + std::strerror(errno));
  std::vector<char> buf(1 << 20);
  for (;;) {
    const size_t n = std::fread(buf.data(), 1, buf.size(), in);
    if (n > 0) {
      try {
        out.write(buf.data(), n);
      } catch (...) {
        std::fclose(in);
        throw;
      }
    }
    if (n < buf.size()) break;
  }
  const bool bad = std::ferror(in) != 0;
  std::fclose(in);
  if (bad) throw InputError(source + ": cannot read: " + std::strerror(errno));
  // Closed (and its write errors reported) before HDF5 opens the copy.
  out.close_stream();
}

}  // namespace stribeck::data
