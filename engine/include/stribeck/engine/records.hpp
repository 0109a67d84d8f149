#pragma once
// Records defined once: what the engine derives from a record's field table
// (the X-macro list next to the record, e.g. STRIBECK_STICK_SLIP_FIELDS in
// kernels/systems/metrics.hpp): column names, units, long names and stored
// types, packing to a row of doubles (the GPU's staging layout) and back,
// and conversion between working scalars. Nothing here names a field but
// the one convention every record keeps: its field `status` is the point's
// PointStatus, written as every workload's status column.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stribeck/data/results_stream.hpp"
#include "stribeck/kernels/systems/metrics.hpp"

namespace stribeck::engine {

// How a field is stored: float64 (the working scalar T), int32 (int
// members), int64 (long members), or the status column (status_column:
// uint8 with its flags).
enum class FieldStorage { kFloat64, kInt32, kInt64, kStatus };

// One column of a record as the results files and the summaries see it.
struct FieldInfo {
  const char* name;       // column name
  const char* units;      // CF/UDUNITS spelling, translational ("1": dimensionless)
  const char* long_name;  // what it is
  bool integer;           // stored as an integer column
  FieldStorage storage;
};

namespace detail {
template <class U>
constexpr bool kIntegerField = !std::is_floating_point<U>::value;
constexpr bool same_text(const char* a, const char* b) { return *a == *b && (*a == 0 || same_text(a + 1, b + 1)); }
template <class U>
constexpr FieldStorage storage_of(const char* name) {
  return same_text(name, "status")           ? FieldStorage::kStatus
         : !kIntegerField<U>                 ? FieldStorage::kFloat64
         : sizeof(U) == sizeof(std::int64_t) ? FieldStorage::kInt64
                                             : FieldStorage::kInt32;
}
// `T` in a field table is the working scalar: a floating-point field.
struct StickSlipTable {
  using T = double;
#define STRIBECK_FIELD_INFO(member, type, name, units, long_name) \
  FieldInfo{name, units, long_name, kIntegerField<type>, storage_of<type>(name)},
  static constexpr FieldInfo fields[] = {STRIBECK_STICK_SLIP_FIELDS(STRIBECK_FIELD_INFO)};
#undef STRIBECK_FIELD_INFO
};
}  // namespace detail

// StickSlipMetrics, field by field in the table's order.
inline constexpr const FieldInfo* kStickSlipFields = detail::StickSlipTable::fields;
constexpr std::size_t kStickSlipFieldCount = std::size(detail::StickSlipTable::fields);

// The unit of a translational quantity in a rotational system (N -> N*m,
// m -> rad, m/s -> rad/s); others unchanged.
inline std::string rotational_units(const std::string& u) {
  if (u == "N") return "N*m";
  if (u == "m") return "rad";
  if (u == "m/s") return "rad/s";
  return u;
}

// The results column of a field (units made rotational where asked).
StreamColumn field_column(const FieldInfo& field, bool rotational);

// A record as a row of doubles (kStickSlipFieldCount values, table order).
template <class T>
void pack(const StickSlipMetrics<T>& m, double* row) {
  std::size_t k = 0;
#define STRIBECK_FIELD_PACK(member, type, name, units, long_name) row[k++] = static_cast<double>(m.member);
  STRIBECK_STICK_SLIP_FIELDS(STRIBECK_FIELD_PACK)
#undef STRIBECK_FIELD_PACK
}

// A row of doubles (pack's layout, the GPU's staging layout) as a record.
template <class T>
void unpack(const double* row, StickSlipMetrics<T>& m) {
  std::size_t k = 0;
#define STRIBECK_FIELD_UNPACK(member, type, name, units, long_name) \
  m.member = static_cast<decltype(m.member)>(row[k++]);
  STRIBECK_STICK_SLIP_FIELDS(STRIBECK_FIELD_UNPACK)
#undef STRIBECK_FIELD_UNPACK
}

// The record in another working scalar (float -> double on the CPU path).
template <class To, class From>
StickSlipMetrics<To> convert(const StickSlipMetrics<From>& m) {
  StickSlipMetrics<To> o;
#define STRIBECK_FIELD_CONVERT(member, type, name, units, long_name) \
  o.member = static_cast<decltype(o.member)>(m.member);
  STRIBECK_STICK_SLIP_FIELDS(STRIBECK_FIELD_CONVERT)
#undef STRIBECK_FIELD_CONVERT
  return o;
}

// (column name, value) in table order: summaries, CSV rows, results groups.
inline std::vector<std::pair<std::string, double>> named_values(const StickSlipMetrics<double>& m) {
  double row[kStickSlipFieldCount];
  pack(m, row);
  std::vector<std::pair<std::string, double>> out;
  out.reserve(kStickSlipFieldCount);
  for (std::size_t k = 0; k < kStickSlipFieldCount; ++k) out.emplace_back(kStickSlipFields[k].name, row[k]);
  return out;
}

}  // namespace stribeck::engine
