#pragma once
// What the signal handlers (interrupt.cpp) share with the HDF5 watchdog
// (hdf5_watchdog.cpp) and the output locks (output_lock.cpp): a process that
// ends on a signal, a crash or an overdue library call removes the same
// files and prints its line the same way. The first three are
// async-signal-safe (unlink, fcntl, write).
namespace stribeck::data::detail {

// Unlinks every registered temporary (register_temporary) and lets go of
// this process's output locks (drop_output_locks).
void remove_registered_files();
// Removes the lock files of the OutputLocks this process holds where no
// other process holds them too (output_lock.cpp).
void drop_output_locks();
// Writes `s` to stderr with write(2) only.
void put_stderr(const char* s);

// True once install_cli_signal_handlers ran.
bool cli_handlers_installed();
// Called by durable_rename just before a finished output takes its name.
// From then on the run is finishing (its other outputs, its summary), and
// with install_cli_signal_handlers the first SIGINT, SIGTERM or SIGHUP waits
// for it: the run ends as it would have, its outputs complete. A second
// one ends it at once, as before a commit. Async-signal-safe.
void outputs_committing();
// True when `file` is a registered input (register_input). Takes a mutex:
// never from a handler.
bool is_registered_input(const char* file);

}  // namespace stribeck::data::detail
