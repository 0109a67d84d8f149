// Harness for the delimited-text reader: the bytes parsed in memory
// (parse_delimited, then mapped to an experiment through a --columns spec
// and through the header) and read from a .csv file by read_any_log, exactly
// as `stribeck import` reads one. InputError is the expected answer to bad
// input; any other exception, a crash, a hang or a sanitizer report is a bug.
#include <string_view>

#include "fuzz_common.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const stribeck::data::RawColumns raw = stribeck::data::parse_delimited(text, "fuzz.csv");
    stribeck::data::ReadOptions o;
    stribeck::data::columns_to_experiment(raw, o, "fuzz.csv", "fuzz");
  } catch (const stribeck::data::InputError&) {}
  try {
    const stribeck::data::RawColumns raw = stribeck::data::parse_delimited(text, "fuzz.csv");
    stribeck::data::ReadOptions o;
    o.columns = {{"time", "0", "ms"}, {"force", "1", "kN"}, {"velocity", "2", "mm/s"}};
    stribeck::data::columns_to_experiment(raw, o, "fuzz.csv", "fuzz");
  } catch (const stribeck::data::InputError&) {}
  try {
    stribeck::data::read_any_log(stribeck::fuzz::write_scratch(data, size, ".csv"));
  } catch (const stribeck::data::InputError&) {}
  return 0;
}
