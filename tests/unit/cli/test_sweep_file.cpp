// The sweep file's layout (data/sweep_file.hpp) for every model, and sweep
// files of the root layout (format_version 1 and 2, before the sweep was a
// results group of the engine): still readable by read_sweep_file, `map` and
// `report`, refused in one line by `merge` and `--resume` (docs/data-format.md,
// "Older files"). The fixtures were written by older stribecks
// (tests/data/README.md); the expected values are what those runs printed
// and what their configs define, not read with the code under test.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"
#include "stribeck/data/point_file.hpp"
#include "stribeck/data/sweep_file.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/workloads/heat_map.hpp"
#include "stribeck/kernels/registry.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

std::string fixture(const std::string& name) { return std::string(STRIBECK_SOURCE_DIR) + "/tests/data/" + name; }
std::string tmp(const std::string& name) { return test::temp_dir() + name; }

// Every model's sweep file: no parameter is named like a metric, a
// per-experiment column or a reserved name (which would hide one dataset
// behind another); the columns follow the documented order.
TEST(SweepFile, EveryModelsColumnsHaveDistinctNames) {
  data::StreamColumn status{"status", 0, "1", ""};
  const std::vector<data::StreamColumn> metrics = engine::record_columns(engine::kSweepMetricRecord, false);
  for (const ModelInfo& mi : all_models()) {
    data::SweepMeta m;
    m.model = mi.id;
    for (const auto& p : mi.params) m.param_names.push_back(p.name), m.param_units.push_back(p.unit);
    for (int k = 0; k < sweep::kNumMetrics; ++k) m.metrics.push_back(k);
    m.experiments = {"a", "b"};
    m.per_experiment = true;
    std::vector<data::StreamColumn> c;
    ASSERT_NO_THROW(c = data::sweep_columns(m, status, metrics)) << mi.id;
    ASSERT_EQ(c.size(), mi.params.size() + 2 * sweep::kNumMetrics + 1) << mi.id;
    EXPECT_EQ(c[mi.params.size() + sweep::kNumMetrics].name, "status");
    EXPECT_EQ(c.back().width, 2u);
    EXPECT_EQ(c.back().width_dimension, "experiment");
  }
  data::SweepMeta clash;
  clash.model = "test";
  clash.param_names = {"rmse"};
  clash.param_units = {"N"};
  EXPECT_THROW(data::sweep_columns(clash, status, metrics), std::logic_error);
}

TEST(SweepFile, Version1IsReadWithItsStatusCodesTranslated) {
  const data::SweepFile f = data::read_sweep_file(fixture("sweep_v1.h5"));
  EXPECT_EQ(f.format_version, 1);
  EXPECT_TRUE(f.complete);
  EXPECT_EQ(f.meta.model, "coulomb-viscous");
  EXPECT_EQ(f.meta.param_names, (std::vector<std::string>{"F_C", "f_v", "v_eps"}));
  ASSERT_EQ(f.rows.count, 16u);
  for (std::uint8_t s : f.rows.status) EXPECT_EQ(s, kSimOk);
  // F_C = linear:1:10:16, in order.
  for (std::size_t j = 0; j < 16; ++j) EXPECT_DOUBLE_EQ(f.rows.params[j * 3], 1.0 + 9.0 * j / 15.0) << j;
  ASSERT_EQ(f.progress.top.size(), 2u);
  EXPECT_EQ(f.progress.top[0].index, 0u);  // least energy: the smallest F_C
}

TEST(SweepFile, Version2IsReadByTheReaderMapAndReport) {
  const std::string v2 = fixture("sweep_v2.h5");
  ASSERT_TRUE(data::is_sweep_file(v2));
  const data::SweepFile f = data::read_sweep_file(v2);
  EXPECT_EQ(f.format_version, 2);
  EXPECT_TRUE(f.complete);
  ASSERT_EQ(f.rows.count, 12u);
  EXPECT_EQ(f.progress.invalid, 4u);
  EXPECT_EQ(f.meta.experiments, (std::vector<std::string>{"slow", "fast"}));
  std::size_t invalid = 0;
  for (std::size_t j = 0; j < 12; ++j) {
    const bool bad = f.rows.params[j * 4 + 2] == 30.0;  // F_C = 30 > F_brk = 20
    invalid += bad;
    EXPECT_EQ(f.rows.status[j], bad ? kSimInvalid : kSimOk) << j;
  }
  EXPECT_EQ(invalid, 4u);
  ASSERT_EQ(f.progress.top.size(), 4u);
  EXPECT_EQ(f.progress.top[0].index, 1u);  // the summary that wrote it: "#1 point 1: rmse = 10.69 N"
  EXPECT_NEAR(f.progress.top[0].objective, 10.69, 0.005);
  // map, through PointFile's root-layout branch.
  const data::PointFile pf(v2);
  EXPECT_EQ(pf.kind(), "sweep");
  EXPECT_EQ(pf.rows(), 12u);
  std::string out;
  ASSERT_EQ(test::run_cli("map " + v2 + " --metric rmse --x F_C --y v_brk -o " + tmp("legacy_map.csv"), &out), 0)
      << out;
  ASSERT_EQ(test::run_cli("report " + v2 + " -o " + tmp("legacy_report.html"), &out), 0) << out;
  std::ifstream html(tmp("legacy_report.html"));
  const std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("simscape-translational"), std::string::npos);
}

TEST(SweepFile, OlderFilesAreRefusedByMergeAndResumeInOneLine) {
  std::string out;
  const std::string merged = tmp("legacy_merged.h5");
  EXPECT_EQ(test::run_cli("merge " + fixture("sweep_v2.h5") + " -o " + merged, &out), 2) << out;
  EXPECT_NE(out.find("format_version 2 (an older stribeck)"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_FALSE(std::filesystem::exists(merged));
  EXPECT_FALSE(std::filesystem::exists(merged + ".partial"));
  // A partial file of the old layout is not continued.
  const std::string cfg = tmp("legacy.toml"), target = tmp("legacy_resume.h5");
  std::ofstream(cfg) << "model = \"coulomb-viscous\"\n[params]\nF_C = { linear = [1.0, 10.0], count = 16 }\n"
                        "[[trace]]\nprofile = \"sine\"\nsamples = 20\n[run]\ndevice = \"cpu\"\n";
  std::filesystem::copy_file(fixture("sweep_v1.h5"), target + ".partial",
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(test::run_cli("sweep " + cfg + " -q --resume -o " + target, &out), 2) << out;
  EXPECT_NE(out.find("written by an older stribeck (sweep format_version 1)"), std::string::npos) << out;
  EXPECT_TRUE(std::filesystem::exists(target + ".partial"));  // the user's file is kept
  EXPECT_FALSE(std::filesystem::exists(target));
}

}  // namespace
}  // namespace stribeck
