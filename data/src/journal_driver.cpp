// An HDF5 file driver whose flushes are atomic (journal_driver.hpp).
#include "journal_driver.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "stribeck/data/error.hpp"

namespace stribeck::data::h5 {
namespace {

constexpr std::uint64_t kPage = 4096;
constexpr char kMagic[8] = {'S', 'T', 'R', 'J', 'R', 'N', 'L', '1'};
constexpr char kEnd[8] = {'S', 'T', 'R', 'J', 'E', 'N', 'D', '1'};

std::string journal_of(const std::string& path) { return path + ".journal"; }
std::string undo_of(const std::string& path) { return path + ".undo"; }

// A test hook: STRIBECK_TEST_KILL_AT_WRITE=N ends the process with SIGKILL
// before the Nth write this driver makes (to the file or its journal, a
// rename or removal of the journal counted as writes), which is a kill -9
// at that moment of a checkpoint, reproducible (KillResume's kill
// tests).
void maybe_die() {
  static const long target = [] {
    const char* v = std::getenv("STRIBECK_TEST_KILL_AT_WRITE");
    return v ? std::atol(v) : 0L;
  }();
  static std::atomic<long> writes{0};
  if (target > 0 && ++writes == target) ::raise(SIGKILL);
}

bool write_all(int fd, const void* data, std::uint64_t n, std::uint64_t at) {
  maybe_die();
  const auto* p = static_cast<const unsigned char*>(data);
  while (n > 0) {
    const ssize_t w =
        ::pwrite(fd, p, static_cast<size_t>(std::min<std::uint64_t>(n, 1u << 30)), static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    p += w, n -= static_cast<std::uint64_t>(w), at += static_cast<std::uint64_t>(w);
  }
  return true;
}

// Reads n bytes at `at`; bytes past the end of the file read as zeros.
bool read_all(int fd, void* data, std::uint64_t n, std::uint64_t at) {
  auto* p = static_cast<unsigned char*>(data);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, static_cast<size_t>(std::min<std::uint64_t>(n, 1u << 30)), static_cast<off_t>(at));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (r == 0) {
      std::memset(p, 0, static_cast<size_t>(n));
      return true;
    }
    p += r, n -= static_cast<std::uint64_t>(r), at += static_cast<std::uint64_t>(r);
  }
  return true;
}

std::uint64_t checksum(const unsigned char* p, std::size_t n) {  // FNV-1a
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// PATH.journal: magic, the file's size, the page count, then per page its
// index and bytes, then the checksum of all that and an end mark.
void put(std::vector<unsigned char>& out, std::uint64_t v) {
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<unsigned char>(v >> (8 * b)));
}
std::uint64_t get(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= static_cast<std::uint64_t>(p[b]) << (8 * b);
  return v;
}

// Writes the journal's pages into the file and cuts it to `size`.
bool apply(int fd, const std::map<std::uint64_t, std::vector<unsigned char>>& pages, std::uint64_t size) {
  for (const auto& [page, bytes] : pages) {
    const std::uint64_t at = page * kPage;
    if (at >= size) continue;
    if (!write_all(fd, bytes.data(), std::min<std::uint64_t>(kPage, size - at), at)) return false;
  }
  maybe_die();
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  return static_cast<std::uint64_t>(st.st_size) == size || ::ftruncate(fd, static_cast<off_t>(size)) == 0;
}

using Pages = std::map<std::uint64_t, std::vector<unsigned char>>;

// Writes `pages` and `size` as NAME.new, renamed NAME when complete, so
// that NAME is never a part of a log.
bool write_log(const std::string& name, std::uint64_t size, const Pages& pages) {
  std::vector<unsigned char> j(kMagic, kMagic + 8);
  put(j, size);
  put(j, pages.size());
  for (const auto& [index, bytes] : pages) {
    put(j, index);
    j.insert(j.end(), bytes.begin(), bytes.end());
  }
  put(j, checksum(j.data(), j.size()));
  j.insert(j.end(), kEnd, kEnd + 8);
  const std::string part = name + ".new";
  const int jfd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (jfd < 0) return false;
  const bool written = write_all(jfd, j.data(), j.size(), 0);
  const int err = errno;
  ::close(jfd);
  if (!written) {
    ::unlink(part.c_str());
    errno = err;
    return false;
  }
  maybe_die();
  return ::rename(part.c_str(), name.c_str()) == 0;
}

// Reads log NAME (false when there is none); throws when it is damaged.
bool read_log(const std::string& name, const std::string& path, std::uint64_t& size, Pages& pages) {
  ::unlink((name + ".new").c_str());  // a log never completed: its commit never began
  const int jfd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (jfd < 0) return false;
  struct stat st {};
  std::vector<unsigned char> j;
  if (::fstat(jfd, &st) == 0) {
    j.resize(static_cast<size_t>(st.st_size));
    if (!read_all(jfd, j.data(), j.size(), 0)) j.clear();
  }
  ::close(jfd);
  const auto bad = [&] { return InputError(name + ": damaged journal of " + path + "; remove both and run again"); };
  const std::size_t head = 24, entry = 8 + kPage, tail = 16;
  if (j.size() < head + tail || std::memcmp(j.data(), kMagic, 8) != 0 ||
      std::memcmp(j.data() + j.size() - 8, kEnd, 8) != 0 ||
      get(j.data() + j.size() - tail) != checksum(j.data(), j.size() - tail))
    throw bad();
  size = get(j.data() + 8);
  const std::uint64_t count = get(j.data() + 16);
  if (count != (j.size() - head - tail) / entry || head + count * entry + tail != j.size()) throw bad();
  for (std::uint64_t k = 0; k < count; ++k) {
    const unsigned char* e = j.data() + head + k * entry;
    pages[get(e)].assign(e + 8, e + entry);
  }
  return true;
}

struct JournalFile {
  H5FD_t pub;  // first: libhdf5 sees a JournalFile as its H5FD_t
  int fd = -1;
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
  haddr_t eoa = 0;
  haddr_t eof = 0;  // the file's end as libhdf5 sees it: the disk's, or past it by the pages held
  // Pages below `committed` (the end of the file at the last flush) are
  // part of what that flush left: their writes wait here until the next
  // flush commits them. A new file has committed nothing, and holds every
  // write until its first commit.
  std::uint64_t committed = 0;
  bool fresh = false;
  // A new file commits nothing until journal_release: libhdf5 flushes one
  // at creation, the superblock alone, which is no file to resume from.
  bool holding = false;
  Pages pages;
  bool failed = false;  // a write failed: what is held is never committed
  // journal_keep_undo: what the commits since then changed, as it was
  // before them (pages and size), kept in PATH.undo.
  bool keep_undo = false;
  Pages undo;
  std::uint64_t undo_size = 0;

  // First byte written straight to the file.
  std::uint64_t held_below() const { return fresh ? ~std::uint64_t(0) : (committed + kPage - 1) / kPage * kPage; }
  std::vector<unsigned char>* page(std::uint64_t index) {
    auto it = pages.find(index);
    if (it != pages.end()) return &it->second;
    std::vector<unsigned char> bytes(kPage);
    if (!fresh && !read_all(fd, bytes.data(), kPage, index * kPage)) return nullptr;
    return &pages.emplace(index, std::move(bytes)).first->second;
  }
  bool commit();
};

bool JournalFile::commit() {
  if (failed) return false;
  if (holding) return true;
  if (keep_undo) {
    for (const auto& [index, bytes] : pages) {
      if (undo.count(index)) continue;
      std::vector<unsigned char> before(kPage);
      if (!read_all(fd, before.data(), kPage, index * kPage)) return failed = true, false;
      undo.emplace(index, std::move(before));
    }
    if (!write_log(undo_of(path), undo_size, undo)) return failed = true, false;
  }
  if (!pages.empty()) {
    // From the journal's rename on, the flush is done: a writer that dies
    // now is completed by journal_replay.
    if (!write_log(journal_of(path), eof, pages)) return failed = true, false;
    if (!apply(fd, pages, eof)) return failed = true, false;
    maybe_die();
    ::unlink(journal_of(path).c_str());
    pages.clear();
  } else if (!fresh && !apply(fd, pages, eof)) {  // a size libhdf5 cut (j_truncate)
    return failed = true, false;
  }
  // Allocated but not yet written space counts as the flush's too.
  committed = std::max<std::uint64_t>(eof, eoa);
  fresh = false;
  return true;
}

void push_error(const char* what) {
  const int err = errno;
  H5Epush2(H5E_DEFAULT, __FILE__, what, __LINE__, H5E_ERR_CLS, H5E_VFL,
           std::strcmp(what, "write") == 0 ? H5E_WRITEERROR : H5E_CANTFLUSH,
           "journaled file %s failed: errno = %d, error message = '%s'", what, err, std::strerror(err));
}

JournalFile* of(H5FD_t* f) { return reinterpret_cast<JournalFile*>(f); }
const JournalFile* of(const H5FD_t* f) { return reinterpret_cast<const JournalFile*>(f); }

H5FD_t* j_open(const char* name, unsigned flags, hid_t, haddr_t maxaddr) {
  if (!name || !*name || maxaddr == 0 || maxaddr == HADDR_UNDEF) return nullptr;
  int o = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
  if (flags & H5F_ACC_TRUNC) o |= O_TRUNC;
  if (flags & H5F_ACC_CREAT) o |= O_CREAT;
  if (flags & H5F_ACC_EXCL) o |= O_EXCL;
  const int fd = ::open(name, o | O_CLOEXEC, 0666);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    push_error("open");
    if (fd >= 0) ::close(fd);
    return nullptr;
  }
  auto* f = new (std::nothrow) JournalFile();
  if (!f) {
    ::close(fd);
    return nullptr;
  }
  std::memset(&f->pub, 0, sizeof f->pub);
  f->fd = fd;
  f->path = name;
  f->device = st.st_dev;
  f->inode = st.st_ino;
  f->eof = static_cast<haddr_t>(st.st_size);
  f->committed = f->eof;
  f->fresh = f->holding = st.st_size == 0;
  return &f->pub;
}

herr_t j_close(H5FD_t* file) {
  JournalFile* f = of(file);
  // libhdf5 flushes before it closes; what a failed write left is dropped.
  const bool ok = f->failed || f->pages.empty() || f->commit();
  if (!ok) push_error("close");
  ::close(f->fd);
  delete f;
  return ok ? 0 : -1;
}

int j_cmp(const H5FD_t* a, const H5FD_t* b) {
  const JournalFile *x = of(a), *y = of(b);
  if (x->device != y->device) return x->device < y->device ? -1 : 1;
  if (x->inode != y->inode) return x->inode < y->inode ? -1 : 1;
  return 0;
}

herr_t j_query(const H5FD_t*, unsigned long* flags) {
  if (flags)
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA;
  return 0;
}

haddr_t j_get_eoa(const H5FD_t* file, H5FD_mem_t) { return of(file)->eoa; }
herr_t j_set_eoa(H5FD_t* file, H5FD_mem_t, haddr_t addr) {
  of(file)->eoa = addr;
  return 0;
}
haddr_t j_get_eof(const H5FD_t* file, H5FD_mem_t) { return of(file)->eof; }
// The JournalFile itself (journal_release), not a descriptor: nothing else
// asks this driver's files for theirs.
herr_t j_get_handle(H5FD_t* file, hid_t, void** handle) {
  if (!handle) return -1;
  *handle = of(file);
  return 0;
}

herr_t j_read(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t addr, size_t size, void* buf) {
  JournalFile* f = of(file);
  auto* out = static_cast<unsigned char*>(buf);
  std::uint64_t at = addr, left = size;
  const std::uint64_t held = f->held_below();
  while (left > 0) {
    const std::uint64_t index = at / kPage, offset = at % kPage;
    auto it = at < held ? f->pages.find(index) : f->pages.end();
    std::uint64_t n = 0;
    if (it != f->pages.end()) {
      n = std::min(left, kPage - offset);
      std::memcpy(out, it->second.data() + offset, static_cast<size_t>(n));
    } else {
      // Up to the next held page (or all of it past them) from the file.
      const auto next = at < held ? f->pages.upper_bound(index) : f->pages.end();
      n = next == f->pages.end() ? left : std::min(left, next->first * kPage - at);
      if (f->fresh) {
        std::memset(out, 0, static_cast<size_t>(n));
      } else if (!read_all(f->fd, out, n, at)) {
        push_error("read");
        return -1;
      }
    }
    out += n, at += n, left -= n;
  }
  return 0;
}

herr_t j_write(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t addr, size_t size, const void* buf) {
  JournalFile* f = of(file);
  const auto* in = static_cast<const unsigned char*>(buf);
  std::uint64_t at = addr, left = size;
  const std::uint64_t held = f->held_below();
  while (left > 0 && at < held) {
    const std::uint64_t index = at / kPage, offset = at % kPage, n = std::min(left, kPage - offset);
    std::vector<unsigned char>* p = f->page(index);
    if (!p) {
      f->failed = true;
      push_error("write");
      return -1;
    }
    std::memcpy(p->data() + offset, in, static_cast<size_t>(n));
    in += n, at += n, left -= n;
  }
  if (left > 0 && !write_all(f->fd, in, left, at)) {
    f->failed = true;
    push_error("write");
    return -1;
  }
  f->eof = std::max<haddr_t>(f->eof, addr + size);
  return 0;
}

herr_t j_flush(H5FD_t* file, hid_t, hbool_t) {
  if (of(file)->commit()) return 0;
  push_error("flush");
  return -1;
}

herr_t j_truncate(H5FD_t* file, hid_t, hbool_t) {
  JournalFile* f = of(file);
  if (f->eoa == f->eof) return 0;
  // A file that shrinks below what the last flush left is cut by the next
  // commit (the journal records the size), never before it.
  f->eof = f->eoa;
  if (f->eof >= f->committed && !f->fresh && ::ftruncate(f->fd, static_cast<off_t>(f->eof)) != 0) {
    push_error("truncate");
    return -1;
  }
  return 0;
}

hid_t driver_id() {
  static hid_t id = -1;
  static std::once_flag once;
  std::call_once(once, [] {
    static H5FD_class_t c;
    std::memset(&c, 0, sizeof c);
#if H5_VERSION_GE(1, 13, 2)
    c.version = H5FD_CLASS_VERSION;
    c.value = static_cast<H5FD_class_value_t>(599);  // a user driver's value (256 - 511 are testing)
#endif
    c.name = "stribeck_journal";
    c.maxaddr = static_cast<haddr_t>(INT64_MAX);
    c.fc_degree = H5F_CLOSE_WEAK;
    c.open = j_open;
    c.close = j_close;
    c.cmp = j_cmp;
    c.query = j_query;
    c.get_eoa = j_get_eoa;
    c.set_eoa = j_set_eoa;
    c.get_eof = j_get_eof;
    c.get_handle = j_get_handle;
    c.read = j_read;
    c.write = j_write;
    c.flush = j_flush;
    c.truncate = j_truncate;
    // No lock (libhdf5's flock): the file on disk is always a checkpoint, which
    // other readers may read while it grows, and two writers are kept apart
    // by the partial file's own lock (PartialOwner).
    const H5FD_mem_t map[H5FD_MEM_NTYPES] = H5FD_FLMAP_DICHOTOMY;  // the sec2 driver's free lists
    std::copy(map, map + H5FD_MEM_NTYPES, c.fl_map);
    id = H5FDregister(&c);
  });
  return id;
}

// The driver's file under a file id; nullptr for another driver's file.
JournalFile* journal_file(hid_t file) {
  void* handle = nullptr;
  const hid_t fapl = H5Fget_access_plist(file);
  const bool ours = fapl >= 0 && H5Pget_driver(fapl) == driver_id();
  if (fapl >= 0) H5Pclose(fapl);
  if (!ours || H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle) return nullptr;
  return static_cast<JournalFile*>(handle);
}

}  // namespace

hid_t journaled_access() {
  const hid_t driver = driver_id();
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (driver < 0 || fapl < 0 || H5Pset_driver(fapl, driver, nullptr) < 0) {
    if (fapl >= 0) H5Pclose(fapl);
    return -1;
  }
  return fapl;
}

bool journal_release(hid_t file) {
  JournalFile* f = journal_file(file);
  if (!f) return false;
  f->holding = false;
  return true;
}

void journal_replay(const std::string& path) {
  // The last commit completed, then (PATH.undo) the commits since
  // journal_keep_undo taken back.
  for (const std::string& name : {journal_of(path), undo_of(path)}) {
    std::uint64_t size = 0;
    Pages pages;
    if (!read_log(name, path, size, pages)) continue;
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    const bool applied = fd >= 0 && apply(fd, pages, size);
    const int err = errno;
    if (fd >= 0) ::close(fd);
    if (!applied)
      throw InputError(path + ": cannot complete its last checkpoint from " + name + " (" + std::strerror(err) + ")");
    ::unlink(name.c_str());
  }
}

bool journal_keep_undo(hid_t file) {
  JournalFile* f = journal_file(file);
  struct stat st {};
  if (!f || ::fstat(f->fd, &st) != 0) return false;
  f->keep_undo = true;
  f->undo_size = static_cast<std::uint64_t>(st.st_size);  // the last commit's (nothing is committed between)
  return true;
}

std::vector<std::string> journal_files(const std::string& path) {
  return {journal_of(path), journal_of(path) + ".new", undo_of(path), undo_of(path) + ".new"};
}

void journal_remove(const std::string& path) {
  for (const std::string& name : journal_files(path)) ::unlink(name.c_str());
}

}  // namespace stribeck::data::h5
