#pragma once
// Records defined once: every per-point record (a simulation's stick-slip
// metrics, a sweep point's metrics, a batch fit's row) is a table of
// FieldInfo, and what the results files and the staging rows hold is derived
// here from that table: HDF5 column names, units, long names and stored
// types (field_column, record_columns), CSV headers with their units
// (record_csv_columns), and for a record that is a struct, packing to a row
// of doubles (the GPU's staging layout) and back and conversion between
// working scalars. The tables of device records are X-macro lists next to
// the record in kernels/ (STRIBECK_STICK_SLIP_FIELDS in
// kernels/systems/metrics.hpp, STRIBECK_SWEEP_METRIC_FIELDS in
// kernels/sweep/metrics.hpp), so kernels/ keeps no host types; host records
// (the batch-fit row, identification/) write theirs as FieldInfo directly.
// Nothing here names a field but the one convention every record keeps: its
// field `status` is the point's PointStatus, written as every workload's
// status column. A record written as a text table (identify --table, in
// identification/src/fit_outputs.cpp) takes its header from the table and
// each cell from field_text, so its codes are words and its floats keep the
// digits the field asks for.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stribeck/data/results_stream.hpp"
#include "stribeck/data/text_export.hpp"
#include "stribeck/kernels/sweep/metrics.hpp"
#include "stribeck/kernels/systems/metrics.hpp"

namespace stribeck::engine {

// How a field is stored: float64 (the working scalar T), int32 (int
// members), int64 (long members), uint8 (a code whose flags the record's
// owner names), the status column (status_column: uint8 with its flags), a
// word (an enum: its code as uint8 whose flags are the field's words in a
// results file, the code's word in a text table), or text (a name: a text
// table's cell only, no results column).
enum class FieldStorage { kFloat64, kInt32, kInt64, kUInt8, kStatus, kWord, kText };

// One column of a record as the results files and the summaries see it.
struct FieldInfo {
  const char* name;       // column name, and its CSV header
  const char* units;      // CF/UDUNITS spelling, translational ("1": dimensionless)
  const char* long_name;  // what it is (the column's `description` attribute)
  bool integer;           // stored as an integer column
  FieldStorage storage;
  int digits = 0;                      // a float as text: significant digits (0: the shortest that reads back)
  const char* const* words = nullptr;  // kWord: the word of each code 0 .. word_count - 1
  std::size_t word_count = 0;
};

// A record's field table: its fields in row order.
struct RecordTable {
  const FieldInfo* fields;
  std::size_t size;
  constexpr const FieldInfo* begin() const { return fields; }
  constexpr const FieldInfo* end() const { return fields + size; }
  constexpr const FieldInfo& operator[](std::size_t k) const { return fields[k]; }
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
struct SweepMetricTable {
#define STRIBECK_METRIC_FIELD_INFO(id, name, unit, description, needs_force) \
  FieldInfo{name, unit, description, false, FieldStorage::kFloat64},
  static constexpr FieldInfo fields[] = {STRIBECK_SWEEP_METRIC_FIELDS(STRIBECK_METRIC_FIELD_INFO)};
#undef STRIBECK_METRIC_FIELD_INFO
};
}  // namespace detail

// StickSlipMetrics, field by field in the table's order.
inline constexpr const FieldInfo* kStickSlipFields = detail::StickSlipTable::fields;
constexpr std::size_t kStickSlipFieldCount = std::size(detail::StickSlipTable::fields);
inline constexpr RecordTable kStickSlipRecord{kStickSlipFields, kStickSlipFieldCount};

// A sweep point's metrics, in the order of sweep::Metric (the row of
// kNumMetrics doubles the CPU and GPU stage per point).
inline constexpr RecordTable kSweepMetricRecord{detail::SweepMetricTable::fields,
                                                std::size(detail::SweepMetricTable::fields)};
static_assert(std::size(detail::SweepMetricTable::fields) == sweep::kNumMetrics, "a field per sweep metric");

// The unit of a translational quantity in a rotational system (N -> N*m,
// N^2 -> (N*m)^2, m -> rad, m/s -> rad/s); others unchanged.
inline std::string rotational_units(const std::string& u) {
  if (u == "N") return "N*m";
  if (u == "N^2") return "(N*m)^2";
  if (u == "m") return "rad";
  if (u == "m/s") return "rad/s";
  return u;
}

// The results column of a field (units made rotational where asked; a kWord
// field's words as its flags). A kText field has none: std::logic_error.
data::StreamColumn field_column(const FieldInfo& field, bool rotational);
// The results columns of a record, in table order.
std::vector<data::StreamColumn> record_columns(const RecordTable& record, bool rotational);
// The CSV columns of a record (header cell and units), in table order.
std::vector<data::CsvColumn> record_csv_columns(const RecordTable& record, bool rotational);
// A record's CSV header line without its newline: the field names, each an
// RFC 4180 field, comma-separated.
std::string record_csv_header(const RecordTable& record);
// A value of a field as a text table's cell: an integer field's in full, a
// float as %.<digits>g ("nan" for NaN) or, without digits, the shortest text
// that reads back, a kWord field's code as its word (std::logic_error for a
// code without one). A kText field's cell is its own text: std::logic_error.
std::string field_text(const FieldInfo& field, double value);

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
