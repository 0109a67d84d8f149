// The record mechanism's tables (engine/records.hpp): the sweep metrics are
// one table in the order of the row a point stages, and a table's fields as
// text (a text table's header and cells: identify --table) and as results
// columns, for every kind of field, words and text included. Expected names,
// units and texts are written out here from the docs (sweep.md "Metrics")
// and from printf's %g, not taken from the code under test. (The files that
// hold records: tests/unit/cli/test_records_table.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "record_fields.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/kernels/sweep/metrics.hpp"

namespace stribeck {
namespace {

using engine::FieldInfo;
using engine::FieldStorage;
using engine::RecordTable;
using test::names_of;
using test::units_of;

TEST(RecordsTable, SweepMetricsAreOneTableInTheStagedRowsOrder) {
  const RecordTable& r = engine::kSweepMetricRecord;
  EXPECT_EQ(names_of(r), (std::vector<std::string>{"sse", "rmse", "max_abs_error", "peak_force", "mean_force_pos",
                                                   "mean_force_neg", "energy", "loop_area"}));
  EXPECT_EQ(units_of(r, false), (std::vector<std::string>{"N^2", "N", "N", "N", "N", "N", "J", "J"}));
  ASSERT_EQ(r.size, static_cast<std::size_t>(sweep::kNumMetrics));
  for (std::size_t k = 0; k < r.size; ++k) {
    EXPECT_STREQ(sweep::kMetricInfo[k].name, r[k].name);
    EXPECT_STREQ(sweep::kMetricInfo[k].unit, r[k].units);
    EXPECT_STREQ(sweep::kMetricInfo[k].description, r[k].long_name);
    EXPECT_EQ(r[k].storage, FieldStorage::kFloat64) << r[k].name;
  }
  // The row a CPU lane or a GPU thread stages for a point is in table order:
  // raw sums whose metrics all differ land under the table's names.
  sweep::RawMetrics raw;
  raw.sse = 8, raw.max_abs_error = 3, raw.peak = 5, raw.sum_pos = 14, raw.sum_neg = -9, raw.energy = 11, raw.loop = 13,
  raw.samples = 2, raw.n_pos = 7, raw.n_neg = 3;
  double row[sweep::kNumMetrics];
  sweep::finalize_metrics(raw, true, row);
  const std::map<std::string, double> expected{{"sse", 8},        {"rmse", 2},           {"max_abs_error", 3},
                                               {"peak_force", 5}, {"mean_force_pos", 2}, {"mean_force_neg", -3},
                                               {"energy", 11},    {"loop_area", 13}};
  for (std::size_t k = 0; k < r.size; ++k) EXPECT_EQ(row[k], expected.at(r[k].name)) << r[k].name;
}

// A table with a field of each kind a text table writes: a name, a word, an
// integer, a float in 6 digits and one in the shortest text that reads back.
constexpr const char* kWords[] = {"converged", "max_iterations", "bad-data"};
constexpr FieldInfo kMixedFields[] = {{"fit", "1", "a label", false, FieldStorage::kText},
                                      {"status", "1", "a state", true, FieldStorage::kWord, 0, kWords, 3},
                                      {"samples", "1", "a count", true, FieldStorage::kInt64},
                                      {"rmse", "N", "an error", false, FieldStorage::kFloat64, 6},
                                      {"value", "N", "a value", false, FieldStorage::kFloat64}};
constexpr RecordTable kMixed{kMixedFields, 5};

TEST(RecordsTable, EachKindOfFieldAsTableText) {
  EXPECT_EQ(engine::record_csv_header(kMixed), "fit,status,samples,rmse,value");
  EXPECT_EQ(engine::field_text(kMixed[1], 0), "converged");
  EXPECT_EQ(engine::field_text(kMixed[1], 1), "max_iterations");
  EXPECT_EQ(engine::field_text(kMixed[1], 2), "bad-data");
  for (double no_word : {-1.0, 3.0, 0.5, std::nan("")})
    EXPECT_THROW(engine::field_text(kMixed[1], no_word), std::logic_error) << no_word;
  EXPECT_THROW(engine::field_text(kMixed[0], 0), std::logic_error);  // a name's cell is its own text
  EXPECT_EQ(engine::field_text(kMixed[2], 4503), "4503");
  EXPECT_EQ(engine::field_text(kMixed[2], 9007199254740992.0), "9007199254740992");  // 2^53, in full
  EXPECT_EQ(engine::field_text(kMixed[3], 0.50527249), "0.505272");
  EXPECT_EQ(engine::field_text(kMixed[3], 1234567.0), "1.23457e+06");
  EXPECT_EQ(engine::field_text(kMixed[3], 1e-7), "1e-07");
  EXPECT_EQ(engine::field_text(kMixed[3], std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(engine::field_text(kMixed[4], 0.1), "0.1");
  EXPECT_EQ(engine::field_text(kMixed[4], 1.0 / 3.0), "0.3333333333333333");
  // A name that needs quoting is quoted as RFC 4180 says.
  constexpr FieldInfo quoted[] = {{"a,b", "1", "", false, FieldStorage::kText},
                                  {"say \"x\"", "1", "", false, FieldStorage::kText}};
  EXPECT_EQ(engine::record_csv_header(RecordTable{quoted, 2}), "\"a,b\",\"say \"\"x\"\"\"");
}

TEST(RecordsTable, AWordFieldIsACodeWithItsWordsAsFlagsInAResultsFile) {
  const data::StreamColumn c = engine::field_column(kMixed[1], false);
  EXPECT_EQ(c.name, "status");
  EXPECT_EQ(c.type, data::ColumnType::kUInt8);
  EXPECT_EQ(c.flags,
            (std::vector<std::pair<int, std::string>>{{0, "converged"}, {1, "max_iterations"}, {2, "bad_data"}}));
  EXPECT_EQ(c.description, "a state");
  EXPECT_EQ(names_of(kMixed), (std::vector<std::string>{"fit", "status", "samples", "rmse", "value"}));
  EXPECT_EQ(engine::field_column(kMixed[3], true).units, "N*m");
  EXPECT_THROW(engine::field_column(kMixed[0], false), std::logic_error);  // text has no column
  EXPECT_THROW(units_of(kMixed, false), std::logic_error);
  // The CSV columns of every field, text included: names and units.
  const auto csv = engine::record_csv_columns(kMixed, true);
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_EQ(csv[0].name, "fit");
  EXPECT_EQ(csv[4].units, "N*m");
}

}  // namespace
}  // namespace stribeck
