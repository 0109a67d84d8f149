// A record's columns from its field table (records.hpp).
#include "stribeck/engine/records.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "stribeck/data/text_table.hpp"
#include "stribeck/engine/checkpoint.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::engine {

data::StreamColumn field_column(const FieldInfo& k, bool rotational) {
  if (k.storage == FieldStorage::kStatus) return status_column();
  if (k.storage == FieldStorage::kText) throw std::logic_error(std::string(k.name) + ": a text field has no column");
  data::StreamColumn c{k.name, 0, rotational ? rotational_units(k.units) : k.units, k.long_name};
  c.type = k.storage == FieldStorage::kInt64   ? data::ColumnType::kInt64
           : k.storage == FieldStorage::kInt32 ? data::ColumnType::kInt32
           : k.storage == FieldStorage::kUInt8 ? data::ColumnType::kUInt8
           : k.storage == FieldStorage::kWord  ? data::ColumnType::kUInt8
                                               : data::ColumnType::kFloat64;
  if (k.storage == FieldStorage::kWord)
    for (std::size_t code = 0; code < k.word_count; ++code)
      c.flags.emplace_back(static_cast<int>(code), data::flag_word(k.words[code]));
  return c;
}

std::vector<data::StreamColumn> record_columns(const RecordTable& record, bool rotational) {
  std::vector<data::StreamColumn> c;
  c.reserve(record.size);
  for (const FieldInfo& f : record) c.push_back(field_column(f, rotational));
  return c;
}

std::vector<data::CsvColumn> record_csv_columns(const RecordTable& record, bool rotational) {
  std::vector<data::CsvColumn> c;
  c.reserve(record.size);
  for (const FieldInfo& f : record) c.push_back({f.name, rotational ? rotational_units(f.units) : f.units});
  return c;
}

std::string record_csv_header(const RecordTable& record) {
  std::string h;
  for (const FieldInfo& f : record) {
    if (&f != record.begin()) h += ',';
    data::append_csv_field(h, f.name);
  }
  return h;
}

std::string field_text(const FieldInfo& field, double value) {
  switch (field.storage) {
    case FieldStorage::kText: throw std::logic_error(std::string(field.name) + ": a text field's cell is its text");
    case FieldStorage::kWord: {
      // A code is a whole number below word_count; anything else has no word.
      if (!(value >= 0 && value < static_cast<double>(field.word_count) && value == std::floor(value)))
        throw std::logic_error(std::string(field.name) + ": code " + format_number(value) + " has no word");
      return field.words[static_cast<std::size_t>(value)];
    }
    case FieldStorage::kFloat64: {
      if (field.digits <= 0) return format_number(value);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*g", field.digits, value);
      return buf;
    }
    default: return std::to_string(static_cast<long long>(value));
  }
}

}  // namespace stribeck::engine
