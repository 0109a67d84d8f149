// Harness for the TOML configurations: the bytes as a sweep config
// (parse_sweep_config) and as a simulate config (read_simulate_config), as
// `sweep` and `simulate` read them before any work starts. InputError is the
// expected answer to bad input; any other exception, a crash, a hang or a
// sanitizer report is a bug.
#include <string>

#include "fuzz_common.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/simulate.hpp"
#include "stribeck/workloads/sweep_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    stribeck::workloads::parse_sweep_config(text, "fuzz.toml");
  } catch (const stribeck::data::InputError&) {}
  try {
    stribeck::workloads::read_simulate_config(stribeck::fuzz::write_scratch(data, size, ".toml"));
  } catch (const stribeck::data::InputError&) {}
  return 0;
}
