#pragma once
// A record's field names and column units as lists (engine/records.hpp), for
// the tests that write out what a table must hold.
#include <string>
#include <vector>

#include "stribeck/engine/records.hpp"

namespace stribeck::test {

inline std::vector<std::string> names_of(const engine::RecordTable& record) {
  std::vector<std::string> n;
  for (const engine::FieldInfo& f : record) n.push_back(f.name);
  return n;
}

inline std::vector<std::string> units_of(const engine::RecordTable& record, bool rotational) {
  std::vector<std::string> u;
  for (const auto& c : engine::record_columns(record, rotational)) u.push_back(c.units);
  return u;
}

}  // namespace stribeck::test
