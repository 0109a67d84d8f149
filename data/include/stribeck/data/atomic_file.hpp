#pragma once
// Write-then-rename output: the target path either keeps its old content or
// gets the complete new file, never a partial one. The temporary lives in the
// same directory (rename is atomic only within one file system) and is removed
// when the writer is destroyed without commit(), e.g. on an exception.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "stribeck/data/error.hpp"
#include "stribeck/data/output_lock.hpp"

namespace stribeck::data {

// Moves a finished output into place durably: fsync of `from` (its data
// reach the disk before its name does), rename onto `to`, fsync of the
// directory (the rename itself survives a power loss). Returns rename's
// result (0, or -1 with errno set); a failed fsync of a file system that
// cannot sync (EINVAL, ENOTSUP) is ignored, any other makes it -1 before
// the rename, so a result whose bytes did not reach the disk never takes
// the name. Every writer that renames goes through this. A `to` that is a
// symbolic link is written through (resolve_output: the file it points to
// is replaced, the link stays), and a `to` that exists gives `from` its
// owner, group (where this process may: root, or a group it is in) and
// permission bits first.
int durable_rename(const std::string& from, const std::string& to);

// Before a checkpointed writer (a sweep's or an ensemble's OUT.partial)
// writes a chunk of about `bytes` to `path`: reserves the disk blocks
// beyond the file's end (fallocate, the size unchanged) so that the writes
// that follow cannot fail for want of space halfway, leaving libhdf5's
// metadata half-written, and checks RLIMIT_FSIZE the same way. When the
// space is not there nothing has been written since the last checkpoint:
// throws InputError "writing TARGET: no space left on device" (or "file
// too large"), with `note` appended when not empty (where the checkpoint
// is and how to continue). On file systems without fallocate it reserves
// nothing.
void reserve_space(const std::string& path, std::uint64_t bytes, const std::string& target, const std::string& note);

// The temporary files of AtomicFiles alive in this process are removed when
// SIGINT, SIGTERM or SIGHUP ends it (the handlers are installed with the
// first AtomicFile); the signal then ends the process as it would have.
// A target that is a symbolic link is written through (resolve_output): the
// temporary is made beside the file the link points to and renamed onto it;
// a target that exists keeps its owner, group and mode (durable_rename).
class AtomicFile {
 public:
  // Checks `target` (check_output_path), takes its OutputLock (shared),
  // which removes what dead writers of it left, and reserves a temporary
  // name next to it; throws InputError if the directory cannot be written.
  explicit AtomicFile(std::string target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Path to write to (for libraries that open files themselves, e.g. HDF5).
  const std::string& temp_path() const { return temp_; }
  const std::string& target() const { return target_; }
  // A stdio stream on the temporary file, opened on first use.
  std::FILE* stream();
  // Writes `n` bytes to stream(); a failed write throws InputError
  // "writing <target>: <cause>" (e.g. "no space left on device").
  void write(const void* data, size_t n);
  void write(const std::string& text) { write(text.data(), text.size()); }
  // Flushes, closes and renames the temporary onto the target. A failed
  // flush or close throws "writing <target>: <cause>" and the temporary is
  // removed by the destructor.
  void commit();
  // Flushes and closes stream() (if open) without renaming, with commit()'s
  // error; the temporary can then be opened by another library.
  void close_stream();
  // Runs `fill`, code that writes temp_path() through another writer
  // (write_log, HDF5); an InputError naming the temporary is rethrown
  // naming the target, so messages name the file the user asked for.
  template <class F>
  void fill(F&& fill) {
    try {
      fill();
    } catch (const InputError& e) {
      throw InputError(name_target(e.what()));
    }
  }
  // `message` with every mention of the temporary replaced by the target.
  std::string name_target(std::string message) const;

 private:
  std::string target_;
  std::string real_;  // target_ with symbolic links followed: where the rename goes
  OutputLock lock_;
  std::string temp_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
  int slot_ = -1;  // where the signal handlers find temp_
};

// Fills the temporary of `out` with the bytes of `source` (a file about to
// be replaced by an edited copy; commit() gives it the target's owner and
// permissions).
// Errors: "<source>: cannot read: ..." or "writing <target>: <cause>".
void copy_file_contents(const std::string& source, AtomicFile& out);

}  // namespace stribeck::data
