#include "stribeck/data/csv_reader.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "stribeck/data/error.hpp"

namespace stribeck::data {

CsvReader::CsvReader(const std::string& path) : table_(path) {
  if (!table_.dialect().header)
    throw InputError(path + ": no header row: the first line must name the columns (time, velocity, ...)");
  // Indexed once: a header of 1e5 columns is checked in linear time.
  const auto& cols = table_.header();
  index_.reserve(cols.size());
  // Columns without a name (a spreadsheet's trailing `,,,`) are never read
  // by name, so their cells are carried as written, empty ones included,
  // as import leaves them out, instead of refusing the row.
  std::vector<bool> unnamed(cols.size(), false);
  for (size_t i = 0; i < cols.size(); ++i) {
    unnamed[i] = cols[i].empty();
    if (!unnamed[i] && !index_.emplace(cols[i], static_cast<int>(i)).second)
      throw InputError(path + ":" + std::to_string(table_.header_line()) + ": column name '" + cols[i] +
                       "' appears twice");
  }
  table_.ignore_columns(std::move(unnamed));
}

int CsvReader::column(std::string_view name) const {
  const auto it = index_.find(std::string(name));
  return it == index_.end() ? -1 : it->second;
}

}  // namespace stribeck::data
