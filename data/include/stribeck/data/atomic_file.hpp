#pragma once
// Write-then-rename output: the target path either keeps its old content or
// gets the complete new file, never a partial one. The temporary lives in the
// same directory (rename is atomic only within one file system) and is removed
// when the writer is destroyed without commit(), e.g. on an exception.
#include <cstdio>
#include <string>

namespace stribeck {

class AtomicFile {
 public:
  // Reserves a temporary name next to `target`; throws InputError if the
  // directory cannot be written.
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
};

}  // namespace stribeck
