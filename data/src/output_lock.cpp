#include "stribeck/data/output_lock.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "interrupt_detail.hpp"
#include "path_detail.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/interrupt.hpp"
#include "stribeck/data/paths.hpp"

namespace stribeck::data {
namespace {

using detail::kPathMax;
using detail::kUniqueChars;

// As many locks as temporaries (interrupt.cpp): a multi-experiment export
// holds a temporary and a lock per file until the last is written.
constexpr int kLockSlots = 256;

// Output locks held by this process (OutputLock), in fixed slots so that the
// handlers can let them go: path first, then fd (>= 0: in use).
struct LockSlot {
  char path[kPathMax];
  std::atomic<int> fd{-1};
  int count = 0;  // holds within this process
  bool exclusive = false;
};
LockSlot g_locks[kLockSlots];
std::mutex g_lock_mutex;  // taken by OutputLock, never by a handler

int set_lock(int fd, short type, bool wait) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  int rc;
  do rc = ::fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl);
  while (rc != 0 && wait && errno == EINTR);
  return rc;
}

// Removes the temporaries STEM + XXXXXX (regular files): called while no
// writer of the output lives, so every one is a dead writer's.
int remove_leftover_temporaries(const std::string& stem) {
  const size_t slash = stem.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : stem.substr(0, slash + 1);
  const std::string prefix = stem.substr(dir.size());
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (!d) return 0;
  int removed = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n.size() != prefix.size() + kUniqueChars || n.compare(0, prefix.size(), prefix) != 0) continue;
    if (!std::all_of(n.begin() + static_cast<std::ptrdiff_t>(prefix.size()), n.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }))
      continue;
    struct stat st {};
    const std::string path = dir + n;
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::unlink(path.c_str()) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

// Reads the lock file's "PID KIND" line ("" when empty or unreadable).
std::string read_owner(int fd) {
  char buf[128];
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string s(buf, static_cast<size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

// Async-signal-safe (fcntl, unlink): the lock files this process holds are
// removed where no other process holds them too, so a run ended by a signal
// or a crash leaves none.
void detail::drop_output_locks() {
  for (auto& l : g_locks) {
    const int fd = l.fd.load();
    if (fd < 0) continue;
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (::fcntl(fd, F_OFD_SETLK, &fl) == 0) ::unlink(l.path);
  }
}

OutputLock::OutputLock(const std::string& target, Mode mode) {
  const std::string stem = temporary_stem(resolve_output(target));
  const std::string path = stem + "lock";
  if (path.size() >= kPathMax) return;
  const bool exclusive = mode == Mode::kExclusive;
  std::lock_guard<std::mutex> guard(g_lock_mutex);
  int free_slot = -1;
  for (int i = 0; i < kLockSlots; ++i) {
    LockSlot& l = g_locks[i];
    const int held = l.fd.load();
    if (held < 0) {
      if (free_slot < 0) free_slot = i;
      continue;
    }
    if (path != l.path) continue;
    // Held by this process already: one more hold, made exclusive if asked.
    if (exclusive && !l.exclusive) {
      if (set_lock(held, F_WRLCK, true) != 0) return;
      l.exclusive = true;
    }
    ++l.count;
    slot_ = i;
    return;
  }
  if (free_slot < 0) return;
  int fd = -1;
  bool alone = false;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) return;  // a directory we cannot write: the writer's own open says why
    // Writable by every user whatever the umask (it holds nothing): one that
    // kill -9 left behind (root's, say) must not keep other users' runs on
    // the same output from locking it and removing the leftovers.
    ::fchmod(fd, 0666);
    alone = set_lock(fd, F_WRLCK, false) == 0;
    if (!alone) {
      // Another writer lives: share with it, or wait for it to end.
      if ((errno != EAGAIN && errno != EACCES) || set_lock(fd, exclusive ? F_WRLCK : F_RDLCK, true) != 0) {
        ::close(fd);  // no locks on this file system (ENOLCK, EINVAL): nothing locked, as before
        return;
      }
      alone = exclusive;
    }
    // The name must still be the file we locked: the last holder removes it
    // when it ends, and a run that waited for it then locks a new one.
    struct stat a {
    }, b{};
    if (::fstat(fd, &a) != 0 || ::stat(path.c_str(), &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
      ::close(fd);
      fd = -1;
    }
  }
  if (fd < 0) return;
  if (alone) removed_ = remove_leftover_temporaries(stem);
  if (alone && !exclusive) set_lock(fd, F_RDLCK, false);  // converts the lock in place: never a moment without it
  LockSlot& l = g_locks[free_slot];
  std::memcpy(l.path, path.c_str(), path.size() + 1);
  l.count = 1;
  l.exclusive = exclusive;
  l.fd.store(fd);
  slot_ = free_slot;
}

OutputLock& OutputLock::operator=(OutputLock&& o) noexcept {
  if (this != &o) {
    release();
    slot_ = o.slot_;
    removed_ = o.removed_;
    o.slot_ = -1;
  }
  return *this;
}

void OutputLock::release() {
  if (slot_ < 0) return;
  std::lock_guard<std::mutex> guard(g_lock_mutex);
  LockSlot& l = g_locks[slot_];
  slot_ = -1;
  if (--l.count > 0) return;
  const int fd = l.fd.load();
  // The last holder of all removes the file (a run waiting on it then
  // retries on a new one); while others share it, it stays.
  if (set_lock(fd, F_WRLCK, false) == 0) ::unlink(l.path);
  l.fd.store(-1);
  ::close(fd);
}

PartialOwner::PartialOwner(const std::string& partial, bool resumable) {
  const std::string lock = partial + ".lock";
  int fd = -1;
  for (int attempt = 0; attempt < 8; ++attempt) {
    fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;  // a directory we cannot write: the writer's own open reports it
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (::fcntl(fd, F_OFD_SETLK, &fl) != 0) {
      const int err = errno;
      if (err == EAGAIN || err == EACCES) {
        std::string owner = read_owner(fd);
        ::close(fd);
        const std::string pid = owner.substr(0, owner.find(' '));
        throw InputError(partial + ": being written by " +
                         (pid.empty() ? std::string("another process") : "process " + pid) +
                         " (another stribeck run on the same output); wait for it to end or stop it");
      }
      ::close(fd);  // no locks on this file system (ENOLCK, EINVAL): no ownership, as before
      return;
    }
    // The name must still be the file we locked: an owner that ended may
    // have removed it between our open and our lock.
    struct stat a {
    }, b{};
    if (::fstat(fd, &a) == 0 && ::stat(lock.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) break;
    ::close(fd);
    fd = -1;
  }
  if (fd < 0) return;
  lock_path_ = lock;
  fd_ = fd;
  slot_ = register_temporary(lock_path_);
  // A leftover of a writer that is gone (we hold its lock): scratch is
  // removed; a checkpoint stays for --resume.
  const std::string before = read_owner(fd_);
  const size_t sp = before.find(' ');
  if (sp != std::string::npos && before.substr(sp + 1) == "scratch" && ::access(partial.c_str(), F_OK) == 0) {
    removed_leftover_ = ::unlink(partial.c_str()) == 0;
  }
  const std::string line = std::to_string(::getpid()) + (resumable ? " resumable\n" : " scratch\n");
  if (::ftruncate(fd_, 0) == 0) {
    const ssize_t w = ::pwrite(fd_, line.data(), line.size(), 0);
    (void)w;  // the lock is what counts; the PID is for messages
  }
}

PartialOwner& PartialOwner::operator=(PartialOwner&& o) noexcept {
  if (this != &o) {
    release();
    lock_path_ = std::move(o.lock_path_);
    fd_ = o.fd_;
    slot_ = o.slot_;
    removed_leftover_ = o.removed_leftover_;
    o.lock_path_.clear();
    o.fd_ = -1;
    o.slot_ = -1;
  }
  return *this;
}

void PartialOwner::release() {
  if (fd_ >= 0) {
    ::unlink(lock_path_.c_str());  // before the lock goes: a waiting run then retries on a new file
    ::close(fd_);
  }
  unregister_temporary(slot_);
  fd_ = -1;
  slot_ = -1;
  lock_path_.clear();
}

PartialOwner::~PartialOwner() { release(); }

}  // namespace stribeck::data
