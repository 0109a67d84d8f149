// Harness for the MATLAB readers: the bytes as a v7.3 file (HDF5 inside:
// read_mat_log) and as a v5 file (read_mat5_log: Stribeck's element-chain
// check, then libmatio), as `import` reads them. InputError is the expected
// answer to bad input; any other exception, a crash, a hang or a sanitizer
// report in Stribeck's code is a bug.
#include "fuzz_common.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = stribeck::fuzz::write_scratch(data, size, ".mat");
  stribeck::ReadOptions o;
  try {
    stribeck::read_mat_log(path, o);
  } catch (const stribeck::InputError&) {}
#ifndef STRIBECK_FUZZ_NO_MATIO
  try {
    stribeck::read_mat5_log(path, o);
  } catch (const stribeck::InputError&) {}
#endif
  return 0;
}
