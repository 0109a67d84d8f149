#pragma once
// What a signal that ends the process leaves behind: the temporaries and
// locks it removes, the one line it prints, and the inputs and outputs a
// crash inside libhdf5 is blamed on. Every handler only unlinks, writes and
// _exits (async-signal-safe).
#include <string>

namespace stribeck::data {

// Signals. install_cli_signal_handlers() (the CLI's main calls it first):
// SIGINT, SIGTERM and SIGHUP remove the registered temporaries, print one
// line "stribeck: error: interrupted by SIGTERM[; NOTE]" and exit with
// 128 + the signal number (130, 143, 129). Once an output has been moved
// into place (durable_rename) the run is finishing: the first of them is
// held, the run completes (its other outputs, its summary) and exits as it
// would have, and only a second one ends it so. Without it (a library user),
// the handlers only remove the temporaries and let the signal end the
// process. Signals set to be ignored (nohup) stay ignored.
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

// A file removed if a signal ends the process (AtomicFile's temporaries,
// OUT.partial of a merge or of a run before its first checkpoint): returns
// a slot for unregister_temporary, or -1 if none is free.
int register_temporary(const std::string& path);
void unregister_temporary(int slot);

}  // namespace stribeck::data
