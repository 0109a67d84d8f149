#pragma once
// Who writes an output: OutputLock, held by every writer of OUT, and
// PartialOwner, held by the writer of a checkpointed OUT.partial. Both are
// open-file-description locks, released by the kernel when a process ends.
#include <string>
#include <utility>

#include "stribeck/data/error.hpp"

namespace stribeck::data {

// Who writes OUT.partial. The writer holds OUT.partial.lock, a file beside
// it with its PID and whether the partial file is a checkpoint
// ("resumable") or scratch (a merge's: never resumed), locked for as long
// as the writer lives (an open-file-description lock: the kernel releases
// it when the process ends, kill -9 included). A second run on the same
// output is refused naming the live writer's PID. A leftover whose writer
// is gone is taken over: scratch (what `kill -9` of a merge leaves) is
// removed at once, never mistaken for a result; a checkpoint is left to
// --resume (or to refuse_unfinished's message). The lock file is removed
// when the owner is destroyed, and by the signal handlers.
class PartialOwner {
 public:
  PartialOwner() = default;
  // Takes the lock of `partial`; throws InputError when a live process
  // holds it. `resumable`: whether this run's partial file is a checkpoint.
  PartialOwner(const std::string& partial, bool resumable);
  ~PartialOwner();
  PartialOwner(PartialOwner&& o) noexcept { *this = std::move(o); }
  PartialOwner& operator=(PartialOwner&& o) noexcept;
  PartialOwner(const PartialOwner&) = delete;
  PartialOwner& operator=(const PartialOwner&) = delete;
  // True when a leftover partial file of a dead writer was removed.
  bool removed_leftover() const { return removed_leftover_; }

 private:
  void release();
  std::string lock_path_;
  int fd_ = -1;
  int slot_ = -1;
  bool removed_leftover_ = false;
};

// The lock of an output, held by every writer of it for as long as it
// writes: the file TEMPORARY_STEM + "lock" beside it (OUT.tmp.lock), with
// an open-file-description lock that the kernel releases when the process
// ends, kill -9 included. Writers that replace OUT whole (AtomicFile) share
// it; a writer that adds to OUT (append_results: copy, add, rename) holds
// it alone, so appending writers are serialised: the second waits for the
// first and then appends to its result. A writer that gets the lock alone
// knows no other writer of OUT lives, and removes the temporaries
// (OUT.tmp.XXXXXX) that dead ones left. The last holder removes the lock
// file, and so do the signal handlers. Holds within one process nest (an
// append_results inside write_fit_results' exclusive hold). On file systems
// without locks, or where the lock file cannot be created (the writer's own
// open then reports why), nothing is locked, as before.
class OutputLock {
 public:
  enum class Mode { kShared, kExclusive };
  OutputLock() = default;
  // `target` is the output as the user named it (resolved here).
  OutputLock(const std::string& target, Mode mode);
  ~OutputLock() { release(); }
  OutputLock(OutputLock&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
  OutputLock& operator=(OutputLock&& o) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  // Leftover temporaries of dead writers removed when the lock was taken.
  int removed_leftovers() const { return removed_; }

 private:
  void release();
  int slot_ = -1;
  int removed_ = 0;
};

}  // namespace stribeck::data
