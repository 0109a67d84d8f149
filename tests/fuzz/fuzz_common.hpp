#pragma once
// Shared by the reader harnesses (fuzz_*.cpp): the libFuzzer build (clang,
// -fsanitize=fuzzer) and the plain corpus replay (replay_main.cpp, any
// compiler, run by CTest) compile the same LLVMFuzzerTestOneInput.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace stribeck::fuzz {

// A per-process scratch file (RAM-backed where /dev/shm exists) holding the
// input, for readers that take a path. `suffix` matters to readers that go
// by extension (".csv", ".toml", ".mat").
inline const std::string& write_scratch(const std::uint8_t* data, std::size_t size, const char* suffix) {
  static std::string path;
  if (path.empty()) {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    path = std::string(dir) + "/stribeck_fuzz_" + std::to_string(getpid()) + suffix;
  }
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

}  // namespace stribeck::fuzz

#ifdef STRIBECK_ASAN_SUPPRESSIONS
// libhdf5 and libmatio are not ours: memory errors inside them are
// suppressed (asan.supp) and their oversized allocations for corrupt sizes
// return null, which they handle, instead of aborting the run.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:suppressions=" STRIBECK_ASAN_SUPPRESSIONS;
}
// libhdf5 1.10 leaks small blocks on some error paths of corrupt files.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libhdf5_serial.so\nleak:libhdf5.so\nleak:libmatio.so\n";
}
#endif
