#pragma once
// Write-then-rename output: the target path either keeps its old content or
// gets the complete new file, never a partial one. The temporary lives in the
// same directory (rename is atomic only within one file system) and is removed
// when the writer is destroyed without commit(), e.g. on an exception.
#include <cstdio>
#include <string>

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

// The temporary files of AtomicFiles alive in this process are removed when
// SIGINT, SIGTERM or SIGHUP ends it (the handlers are installed with the
// first AtomicFile); the signal then ends the process as it would have.
class AtomicFile {
 public:
  // Checks `target` (check_output_path) and reserves a temporary name next
  // to it; throws InputError if the directory cannot be written.
  explicit AtomicFile(std::string target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Path to write to (for libraries that open files themselves, e.g. HDF5).
  const std::string& temp_path() const { return temp_; }
  const std::string& target() const { return target_; }
  // A stdio stream on the temporary file, opened on first use.
  std::FILE* stream();
  // Flushes, closes and renames the temporary onto the target.
  void commit();

 private:
  std::string target_;
  std::string temp_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
  int slot_ = -1;  // where the signal handlers find temp_
};

}  // namespace stribeck
