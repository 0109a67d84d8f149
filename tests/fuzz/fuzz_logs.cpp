// libFuzzer target for everything that reads user files: the bytes are
// written to a file and read with read_any_log (HDF5 log, MATLAB v7.3 or
// delimited text, chosen by content exactly as for a user), and parsed once
// more in memory as delimited text. InputError is the expected answer to bad
// input; any other exception, a crash or a sanitizer report is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "stribeck/data/error.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/log.hpp"

namespace {

std::string scratch_path() {
  const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return std::string(dir) + "/stribeck_fuzz_" + std::to_string(getpid()) + ".bin";
}

}  // namespace

#ifdef STRIBECK_ASAN_SUPPRESSIONS
// libhdf5 is not ours: memory errors inside it are suppressed (asan.supp)
// and its oversized allocations for corrupt sizes return null, which it
// handles, instead of aborting the run.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:suppressions=" STRIBECK_ASAN_SUPPRESSIONS;
}

// libhdf5 1.10 leaks small blocks on some error paths of corrupt files.
extern "C" const char* __lsan_default_suppressions() { return "leak:libhdf5_serial.so\nleak:libhdf5.so\n"; }
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = scratch_path();
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
      stribeck::data::read_any_log(path);
    } catch (const stribeck::data::InputError&) {}
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const stribeck::data::RawColumns raw = stribeck::data::parse_delimited(text, "fuzz");
    stribeck::data::ReadOptions o;
    o.columns = {{"time", "0", "ms"}, {"force", "1", "kN"}};
    stribeck::data::columns_to_experiment(raw, o, "fuzz", "fuzz");
  } catch (const stribeck::data::InputError&) {}
  return 0;
}
