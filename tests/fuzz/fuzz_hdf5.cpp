// Harness for the HDF5 readers: the bytes as a rig log (read_log: the group
// walk, channels, units, attributes), as a file of results groups
// (list_results, read_results) and as a sweep file (read_sweep_file), as
// `identify`, `export`, `map` and `merge` read them. InputError is the
// expected answer to bad input; any other exception, a crash, a hang or a
// sanitizer report in Stribeck's code is a bug.
#include "fuzz_common.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/sweep_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = stribeck::fuzz::write_scratch(data, size, ".h5");
  try {
    stribeck::data::read_log(path);
  } catch (const stribeck::data::InputError&) {}
  try {
    for (const auto& g : stribeck::data::list_results(path)) stribeck::data::read_results(path, g, true);
  } catch (const stribeck::data::InputError&) {}
  try {
    stribeck::data::read_sweep_file(path);
  } catch (const stribeck::data::InputError&) {}
  return 0;
}
