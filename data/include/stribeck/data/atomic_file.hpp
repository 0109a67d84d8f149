#pragma once
// Write-then-rename output: the target path either keeps its old content or
// gets the complete new file, never a partial one. The temporary lives in the
// same directory (rename is atomic only within one file system) and is removed
// when the writer is destroyed without commit(), e.g. on an exception.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "stribeck/data/error.hpp"

namespace stribeck {

// Refuses, before any work is done, an output path that cannot take a
// file: empty, a directory, or an existing file that is not a regular file
// (a device such as /dev/null or a pipe: renaming a result over it would
// replace it). Throws InputError naming the path.
void check_output_path(const std::string& path);

// Refuses an input path that is not a regular file: a directory, or a pipe
// or device (the readers open a file twice, to sniff its format and then to
// read it, and would hang on a FIFO or see a pipe empty). Throws InputError
// naming the path; a missing file is left to the reader's own message.
void check_input_path(const std::string& path);

// What a file that is not a regular one is, for messages: "a directory",
// "a FIFO (named pipe)", "a character device", "a block device", "a socket"
// ("" for a regular file or a missing path).
std::string describe_non_regular(const std::string& path);

// Why `head` (the first bytes of a text input) is not UTF-8 text, or "":
// UTF-16/UTF-32 (by byte-order mark, or NUL bytes between ASCII characters)
// or NUL bytes in general, with the byte offset of the first one.
std::string text_encoding_problem(std::string_view head);

// Configs (sweep, simulate) larger than this are refused before they are
// read: a TOML config is a few KiB; a bigger one is the wrong file.
constexpr std::size_t kMaxConfigBytes = std::size_t(16) << 20;

// Reads a config file whole. Refuses at once, naming what it is, a
// directory, a FIFO, a device or a socket (opened without blocking, so a
// FIFO with no writer never hangs and /dev/zero is never read), a file over
// kMaxConfigBytes, and content that is UTF-16/32 or holds NUL bytes.
// `what` names the file in messages ("sweep config").
std::string read_config_file(const std::string& path, const std::string& what);

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

// Signals. install_cli_signal_handlers() (the CLI's main calls it first):
// SIGINT, SIGTERM and SIGHUP remove the registered temporaries, print one
// line "stribeck: error: interrupted by SIGTERM[; NOTE]" and exit with
// 128 + the signal number (130, 143, 129). Without it (a library user), the
// handlers only remove the temporaries and let the signal end the process.
// Signals set to be ignored (nohup) stay ignored.
void install_cli_signal_handlers();
// The note the interrupt line ends with ("" for none), e.g. where the
// checkpoint is kept. Copied into a fixed buffer (at most 1 KiB).
void set_interrupt_note(const std::string& note);
// Input files being read (h5::open_file registers every HDF5 file it
// opens). With install_cli_signal_handlers, a SIGSEGV, SIGBUS or SIGFPE while
// one is registered is taken for what it is, a library crashing on a damaged
// input (libhdf5 1.10 does not check every structure it parses): the
// temporaries are removed and the process ends with one line
// "stribeck: error: FILE: damaged file: the HDF5 library crashed reading it
// (SIGSEGV)", exit 2. With no input registered the signal keeps its default
// action (a bug of ours stays a crash with its core dump). Returns a slot for
// unregister_input, or -1 if none is free.
int register_input(const std::string& path);
void unregister_input(int slot);
// An output being written by libhdf5 calls that also read a registered
// input (eval copies a log's channels into its output with H5Ocopy). A
// fault while one is registered is the write's: "stribeck: error: writing
// OUT: the HDF5 library crashed writing it (SIGSEGV)", exit 2, never a
// damaged input (libhdf5 1.10 crashes in H5Ocopy's clean-up after a failed
// write). RAII; an empty `target` registers nothing.
class LibraryWrite {
 public:
  explicit LibraryWrite(const std::string& target);
  ~LibraryWrite();
  LibraryWrite(const LibraryWrite&) = delete;
  LibraryWrite& operator=(const LibraryWrite&) = delete;

 private:
  int slot_ = -1;
};

// Watchdog for libhdf5 calls that read only the metadata of an input
// (opening the file, listing a group, opening a dataset, group or attribute,
// reading an attribute): on any valid file they take milliseconds, but
// libhdf5 1.10 can loop for ever inside one of them on a damaged file (a
// cycle in a symbol-table B-tree). With install_cli_signal_handlers, a
// watched call that has not returned after library_call_limit() seconds
// ends the process like a crash inside the library: the temporaries are
// removed and one line is printed, "stribeck: error: FILE: damaged file: the
// HDF5 library did not return from WHAT (20 s)", exit 2. A watchdog thread
// (started with the first watched call) checks the armed calls a few times
// per limit and, when one is overdue, only unlinks, writes and _exits, as
// the crash handler does: the stuck thread may hold any lock, even
// malloc's. The loop libhdf5 1.10.8 is known for also allocates (about
// 300 MB/s, its metadata cache), so a watched call during which the
// process's resident memory grows by more than kLibraryCallMemory ends the
// same way before the time is up: "... (it allocated 1.0 GiB in 3.4 s)".
// Reads of raw data (samples, chunks) are never watched: a long log takes
// as long as it takes. Without install_cli_signal_handlers (a library user,
// the fuzz harnesses) nothing is watched.
//
// The limit: the environment variable STRIBECK_HDF5_METADATA_TIMEOUT in
// seconds (a positive number, fractions allowed; 0 turns the watchdog off),
// default kLibraryCallLimit. Read once, at the first watched call.
constexpr double kLibraryCallLimit = 20.0;
constexpr std::uint64_t kLibraryCallMemory = std::uint64_t(1) << 30;
double library_call_limit();
// Arms the watchdog for one call on `file`, which must be a registered input
// (register_input); `what` completes "did not return from ..." ("opening the
// file", "listing the members of group '/experiments'"). Returns a slot for
// unwatch_library_call, or -1 when nothing is watched (not the CLI, the
// limit is 0, `file` is not a registered input, all slots are taken).
int watch_library_call(const char* file, const std::string& what);
void unwatch_library_call(int slot);
// RAII form of the two.
class WatchedLibraryCall {
 public:
  WatchedLibraryCall(const char* file, const std::string& what) : slot_(watch_library_call(file, what)) {}
  ~WatchedLibraryCall() { unwatch_library_call(slot_); }
  WatchedLibraryCall(const WatchedLibraryCall&) = delete;
  WatchedLibraryCall& operator=(const WatchedLibraryCall&) = delete;

 private:
  int slot_;
};
// True when watched calls are armed at all (the CLI, a limit above 0):
// callers skip building the description otherwise.
bool library_calls_watched();

// A file removed if a signal ends the process (AtomicFile's temporaries,
// OUT.partial of a merge or of a run before its first checkpoint): returns
// a slot for unregister_temporary, or -1 if none is free.
int register_temporary(const std::string& path);
void unregister_temporary(int slot);

// Where an output really goes: `target` itself, or, when it is a symbolic
// link, the file the chain of links ends at (which may not exist yet), so
// that a result is written through the link and the link stays. Throws
// InputError for a loop of links.
std::string resolve_output(const std::string& target);

// NAME_MAX of Linux's file systems: no file name may be longer.
constexpr size_t kFileNameMax = 255;

// `path` with its file name cut so that `room` more bytes fit within
// kFileNameMax: the cut part replaced by "~" and a hash of the whole name,
// the same in every run, so a later run finds what an earlier one named.
// Unchanged when it fits. temporary_stem, partial_path and a CSV's sidecar
// name their files beside an output with it.
std::string name_with_room(const std::string& path, size_t room);

// The name of a temporary of `target` (a resolved output) without its
// 6-character unique part: "DIR/NAME.tmp.". When NAME is so long (over 244
// bytes) that NAME.tmp.XXXXXX would pass NAME_MAX (255), NAME is cut and
// the cut part replaced by a hash of the whole name ("DIR/PREFIX~HASH.tmp."),
// the same in every run, so a later run still finds the leftovers.
std::string temporary_stem(const std::string& target);

// The checkpointed partial file of a streamed output (a sweep's, an
// ensemble's, a batch fit's, a merge's): OUT.partial, its lock
// OUT.partial.lock (PartialOwner) and its journal files
// OUT.partial.journal.new etc. (journal_driver.cpp). For a NAME so long
// (over 235 bytes) that NAME.partial.journal.new would pass NAME_MAX, NAME
// cut with a hash of the whole (as temporary_stem), the same in every run,
// so --resume finds it.
std::string partial_path(const std::string& output);

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

}  // namespace stribeck
