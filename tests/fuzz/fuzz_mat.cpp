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
  stribeck::data::ReadOptions o;
  try {
    stribeck::data::read_mat_log(path, o);
  } catch (const stribeck::data::InputError&) {}
#ifndef STRIBECK_FUZZ_NO_MATIO
  try {
    stribeck::data::read_mat5_log(path, o);
  } catch (const stribeck::data::InputError&) {}
#endif
  return 0;
}
