#pragma once
// The watchdog over libhdf5's metadata calls on an input: a damaged file on
// which the library loops or allocates for ever ends the process with one
// line naming the file (interrupt.hpp says how a process ends).
#include <cstdint>
#include <string>

namespace stribeck::data {

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

}  // namespace stribeck::data
