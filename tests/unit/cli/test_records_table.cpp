// One record mechanism (engine/records.hpp) in the files: what a sweep file,
// an ensemble file and a batch-fit file hold is what the record tables yield
// (every column's name, units, description and stored type), and so are the
// ensemble CSV's header and its sidecar's units. The names and units the
// tables must hold are written out here from the docs (sweep.md "Metrics",
// dynamics.md, identification.md "HDF5"), not taken from the code under
// test. (The tables themselves: tests/unit/workloads/test_record_tables.cpp
// and tests/unit/identification/test_fits_table.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "record_fields.hpp"
#include "stiction_grid.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/identification/batch_fit.hpp"
#include "stribeck/kernels/registry.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using engine::FieldStorage;
using engine::RecordTable;
using test::names_of;
using test::units_of;

std::string tmp(const std::string& name) { return test::temp_dir() + name; }

// A dataset as a file holds it.
struct Written {
  std::string units, description, long_name, type;
};

std::string string_attribute(hid_t obj, const char* name) {
  return data::h5::has_attribute(obj, name) ? data::h5::read_string_attribute(obj, name, name) : std::string();
}

// The datasets of group `group` of `path` by name.
std::map<std::string, Written> datasets(const std::string& path, const std::string& group) {
  std::map<std::string, Written> out;
  const data::h5::File f = data::h5::open_file(path);
  const data::h5::Group g = data::h5::open_group(f.id(), group, path);
  for (const data::h5::Child& c : data::h5::children(g.id(), path)) {
    if (c.kind != data::h5::Kind::kDataset) continue;
    const data::h5::Dataset d = data::h5::open_dataset(g.id(), c.name, path);
    out[c.name] = {string_attribute(d.id(), "units"), string_attribute(d.id(), "description"),
                   string_attribute(d.id(), "long_name"), data::h5::dataset_info(d, path).type_name()};
  }
  return out;
}

// The stored type of a field, as DatasetInfo::type_name says it.
std::string type_of(FieldStorage s) {
  switch (s) {
    case FieldStorage::kFloat64: return "float64";
    case FieldStorage::kInt32: return "int32";
    case FieldStorage::kInt64: return "int64";
    case FieldStorage::kUInt8:
    case FieldStorage::kWord:
    case FieldStorage::kStatus: return "int8";
    case FieldStorage::kText: break;  // no column
  }
  return "?";
}

// Every field of `record` is a dataset of `written` (named with `suffix`)
// whose units, description, long name and type are the table's column's.
void expect_written(const std::map<std::string, Written>& written, const RecordTable& record, bool rotational,
                    const std::string& suffix = "", const std::string& description_suffix = "") {
  for (const engine::FieldInfo& field : record) {
    const data::StreamColumn col = engine::field_column(field, rotational);
    const auto it = written.find(col.name + suffix);
    ASSERT_NE(it, written.end()) << col.name + suffix;
    const Written& w = it->second;
    EXPECT_EQ(w.units, col.units) << col.name;
    EXPECT_EQ(w.type, type_of(field.storage)) << col.name;
    const std::string description = col.description.empty() ? "" : col.description + description_suffix;
    EXPECT_EQ(w.description, description) << col.name;
    EXPECT_EQ(w.long_name, col.long_name.empty() ? description : col.long_name) << col.name;
  }
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(RecordsTableCli, SweepFileColumnsComeFromTheMetricsTable) {
  // Traces with a measured force, so every metric is kept.
  const std::string cfg = tmp("sweep.toml"), out = tmp("sweep.h5");
  std::ofstream(cfg) << R"(model = "coulomb-viscous"
[design]
type = "random"
points = 16
[params]
F_C = { uniform = [1.0, 2.0] }
[[trace]]
profile = "sine"
name = "a"
samples = 64
reference = { F_C = 1.5 }
[[trace]]
profile = "sine"
name = "b"
samples = 64
reference = { F_C = 1.2 }
[metrics]
per_experiment = true
[run]
device = "cpu"
)";
  std::string text;
  ASSERT_EQ(test::run_cli("sweep " + cfg + " -q -o " + out, &text), 0) << text;
  const auto written = datasets(out, "sweep");
  expect_written(written, engine::kSweepMetricRecord, false);
  expect_written(written, engine::kSweepMetricRecord, false, "_by_experiment", ", per experiment");
  expect_written(datasets(out, "sweep/top_k"), engine::kSweepMetricRecord, false);
  EXPECT_EQ(written.at("status").type, "int8");
}

TEST(RecordsTableCli, EnsembleColumnsAndCsvHeaderComeFromTheStickSlipTable) {
  const RecordTable& r = engine::kStickSlipRecord;
  EXPECT_EQ(names_of(r),
            (std::vector<std::string>{"stick_slip", "stick_fraction", "amp_spring_force", "amp_velocity", "period",
                                      "breakaway_force", "peak_velocity", "dissipated", "final_elongation",
                                      "final_velocity", "final_state", "final_mode", "status", "steps"}));
  EXPECT_EQ(units_of(r, true), (std::vector<std::string>{"1", "1", "N*m", "rad/s", "s", "N*m", "rad/s", "J", "rad",
                                                         "rad/s", "rad", "1", "1", "1"}));
  const std::string cfg = test::write_stiction_grid(tmp("grid.toml"), "0.5");
  std::string text;
  ASSERT_EQ(test::run_cli("simulate " + cfg + " -q -o " + tmp("ens.h5"), &text), 0) << text;
  const auto written = datasets(tmp("ens.h5"), "ensemble");
  expect_written(written, r, false);
  EXPECT_EQ(written.at("steps").type, "int64");
  EXPECT_EQ(written.at("final_mode").type, "int32");

  ASSERT_EQ(test::run_cli("simulate " + cfg + " -q -o " + tmp("ens.csv"), &text), 0) << text;
  std::string tail;
  for (const auto& c : engine::record_csv_columns(r, false)) tail += "," + c.name;
  const std::string header = first_line(tmp("ens.csv"));
  ASSERT_GE(header.size(), tail.size());
  EXPECT_EQ(header.substr(header.size() - tail.size()), tail) << header;
  std::ifstream sidecar(tmp("ens.csv.json"));
  const nlohmann::json j = nlohmann::json::parse(sidecar);
  const auto& columns = j.at("columns");
  ASSERT_GE(columns.size(), r.size);
  const std::size_t first = columns.size() - r.size;
  const auto csv = engine::record_csv_columns(r, false);
  for (std::size_t k = 0; k < r.size; ++k) {
    EXPECT_EQ(columns[first + k].at("name").get<std::string>(), csv[k].name);
    EXPECT_EQ(columns[first + k].at("units").get<std::string>(), csv[k].units) << csv[k].name;
  }
}

TEST(RecordsTableCli, BatchFitColumnsComeFromTheRowTables) {
  const RecordTable row = ident::batch_fit_row_fields(), coords = ident::batch_fit_coordinate_fields();
  EXPECT_EQ(names_of(row), (std::vector<std::string>{"status", "fit_status", "warnings", "log", "experiment", "samples",
                                                     "iterations", "starts", "cost", "rmse", "r_squared", "seconds"}));
  EXPECT_EQ(units_of(row, false),
            (std::vector<std::string>{"1", "1", "1", "1", "1", "1", "1", "1", "N^2", "N", "1", "s"}));
  EXPECT_EQ(units_of(row, true),
            (std::vector<std::string>{"1", "1", "1", "1", "1", "1", "1", "1", "(N*m)^2", "N*m", "1", "s"}));
  EXPECT_EQ(names_of(coords), (std::vector<std::string>{"mean_pressure_a", "mean_pressure_b", "mean_normal_force"}));
  EXPECT_EQ(units_of(coords, false), (std::vector<std::string>{"Pa", "Pa", "N"}));

  const std::string log = tmp("log.h5"), out = tmp("batch.h5");
  std::string text;
  ASSERT_EQ(test::run_cli("generate -m coulomb-viscous --profile triangle --pressure-levels 1bar,3bar --rate 200 "
                          "--duration 2 --noise force=0.1 -o " +
                              log,
                          &text),
            0)
      << text;
  ASSERT_EQ(test::run_cli("identify " + log + " --batch -m coulomb-viscous --threads 1 -q -o " + out, &text), 0)
      << text;
  const auto written = datasets(out, "batch_fit");
  expect_written(written, row, false);
  expect_written(written, coords, false);
  EXPECT_EQ(written.at("fit_status").type, "int8");
  EXPECT_EQ(written.at("samples").type, "int64");
  // Between them, each parameter of the model (value, error, interval).
  for (const auto& p : find_model("coulomb-viscous")->params)
    for (const char* part : {"", "_std_error", "_ci95_lo", "_ci95_hi"})
      EXPECT_EQ(written.count(std::string("param_") + p.name + part), 1u) << p.name << part;
}

}  // namespace
}  // namespace stribeck
