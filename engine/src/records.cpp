// A record's columns from its field table (records.hpp).
#include "stribeck/engine/records.hpp"

#include "stribeck/engine/checkpoint.hpp"

namespace stribeck::engine {

StreamColumn field_column(const FieldInfo& k, bool rotational) {
  if (k.storage == FieldStorage::kStatus) return status_column();
  StreamColumn c{k.name, 0, rotational ? rotational_units(k.units) : k.units, k.long_name};
  c.type = k.storage == FieldStorage::kInt64   ? ColumnType::kInt64
           : k.storage == FieldStorage::kInt32 ? ColumnType::kInt32
           : k.storage == FieldStorage::kUInt8 ? ColumnType::kUInt8
                                               : ColumnType::kFloat64;
  return c;
}

std::vector<StreamColumn> record_columns(const RecordTable& record, bool rotational) {
  std::vector<StreamColumn> c;
  c.reserve(record.size);
  for (const FieldInfo& f : record) c.push_back(field_column(f, rotational));
  return c;
}

std::vector<CsvColumn> record_csv_columns(const RecordTable& record, bool rotational) {
  std::vector<CsvColumn> c;
  c.reserve(record.size);
  for (const FieldInfo& f : record) c.push_back({f.name, rotational ? rotational_units(f.units) : f.units});
  return c;
}

}  // namespace stribeck::engine
