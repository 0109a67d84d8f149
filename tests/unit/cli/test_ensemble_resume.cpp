// `stribeck simulate` ensembles streamed to their file chunk by chunk: a run
// stopped (--max-chunks) or killed after a checkpoint and continued with
// --resume ends with the same file as an uninterrupted run, bit for bit;
// a partial file of another run is never continued.
#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "stiction_grid.hpp"
#include "temp_dir.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"

namespace stribeck {
namespace {

using test::run_cli;

std::string tmp(const std::string& name) { return test::temp_dir() + "ens_resume_" + name; }
bool exists(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

std::string write_config(const std::string& name, const char* t_end = "2.0") {
  return test::write_stiction_grid(tmp(name), t_end);
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// The summary's totals line ("stick-slip in ...; status ok ...").
std::string totals_line(const std::string& log) {
  const size_t a = log.find("  stick-slip in ");
  return a == std::string::npos ? "" : log.substr(a, log.find('\n', a) - a);
}

void expect_same_file(const std::string& a_path, const std::string& b_path) {
  const data::Results a = data::read_results(a_path, "ensemble"), b = data::read_results(b_path, "ensemble");
  ASSERT_EQ(a.datasets.size(), 17u);  // 3 coordinates + 14 metrics
  ASSERT_EQ(a.datasets.size(), b.datasets.size());
  for (size_t k = 0; k < a.datasets.size(); ++k) {
    EXPECT_EQ(a.datasets[k].name, b.datasets[k].name);
    EXPECT_EQ(a.datasets[k].shape, b.datasets[k].shape) << a.datasets[k].name;
    EXPECT_TRUE(same_bits(a.datasets[k].values, b.datasets[k].values)) << a.datasets[k].name;
  }
  EXPECT_EQ(a.attributes, b.attributes);
  EXPECT_EQ(a.provenance.config, b.provenance.config);
}

TEST(EnsembleResume, StoppedAndResumedEqualsOneRunBitForBit) {
  const std::string cfg = write_config("grid.toml"), one = tmp("one.h5"), out = tmp("stopped.h5");
  std::remove(out.c_str());
  std::string whole, text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q -o " + one, &whole), 0) << whole;

  ASSERT_EQ(run_cli("simulate " + cfg + " -q --chunk 5 --max-chunks 1 -o " + out, &text), 0) << text;
  EXPECT_NE(text.find("5 simulated"), std::string::npos) << text;
  EXPECT_NE(text.find("-> " + out + ".partial"), std::string::npos) << text;
  EXPECT_NE(text.find("stopped after 5 of 12 points; continue with --resume"), std::string::npos) << text;
  EXPECT_FALSE(exists(out));
  EXPECT_TRUE(exists(out + ".partial"));
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --resume --chunk 4 --max-chunks 1 -o " + out, &text), 0) << text;
  EXPECT_NE(text.find("stopped after 9 of 12 points"), std::string::npos) << text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --resume -o " + out, &text), 0) << text;
  EXPECT_NE(text.find("3 simulated"), std::string::npos) << text;
  EXPECT_TRUE(exists(out));
  EXPECT_FALSE(exists(out + ".partial"));
  // The totals and invalid examples span all three runs.
  EXPECT_EQ(totals_line(text), totals_line(whole));
  EXPECT_NE(totals_line(whole).find("invalid-parameters "), std::string::npos) << whole;
  EXPECT_EQ(text.substr(text.find("  invalid: ")), whole.substr(whole.find("  invalid: ")));
  expect_same_file(one, out);
}

// A run killed after a checkpoint: rows written after it are in the file but
// not in the checkpoint; --resume drops and recomputes them.
TEST(EnsembleResume, RowsPastTheLastCheckpointAreComputedAgain) {
  const std::string cfg = write_config("kill.toml"), one = tmp("kill_one.h5"), out = tmp("killed.h5");
  std::remove(out.c_str());
  std::string text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q -o " + one, &text), 0) << text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --chunk 6 --max-chunks 1 -o " + out, &text), 0) << text;
  {
    // What a kill between an append and its checkpoint leaves: 3 more rows
    // of garbage in every dataset.
    const data::h5::File f = data::h5::open_file(out + ".partial", /*write=*/true);
    const data::h5::Group g = data::h5::open_group(f.id(), "ensemble", out);
    for (const auto& c : data::h5::children(g.id())) {
      const data::h5::Dataset ds = data::h5::open_dataset(g.id(), c.name, out);
      const std::vector<double> junk(3, -7.0);
      data::h5::append_column(ds, H5T_NATIVE_DOUBLE, junk.data(), 3, out);
    }
  }
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --resume -o " + out, &text), 0) << text;
  EXPECT_NE(text.find("6 simulated"), std::string::npos) << text;
  expect_same_file(one, out);
}

// A shard stops and resumes like a whole run (its own range and attributes).
TEST(EnsembleResume, ShardResumesWithinItsRange) {
  const std::string cfg = write_config("shard.toml"), one = tmp("shard_one.h5"), out = tmp("shard_resumed.h5");
  std::remove(out.c_str());
  std::string text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --shard 1/2 -o " + one, &text), 0) << text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --shard 1/2 --chunk 4 --max-chunks 1 -o " + out, &text), 0) << text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --shard 1/2 --resume -o " + out, &text), 0) << text;
  expect_same_file(one, out);
  EXPECT_EQ(data::read_results(out, "ensemble").attributes.at("first"), "6");
}

// Each refusal: one line, exit 2, the partial file left as it was.
TEST(EnsembleResume, RefusalsAreOneLineAndKeepThePartialFile) {
  const std::string cfg = write_config("refuse.toml"), other = write_config("refuse_other.toml", "2.5");
  const std::string out = tmp("refuse.h5");
  std::remove(out.c_str());
  std::string text;
  auto refused = [&](const std::string& args, const std::string& message) {
    EXPECT_EQ(run_cli("simulate " + args, &text), 2) << text;
    EXPECT_EQ(text.rfind("stribeck: error: " + message, 0), 0u) << text;
    EXPECT_EQ(text.find('\n'), text.size() - 1) << text;
  };
  std::remove((out + ".partial").c_str());
  refused(cfg + " --resume -o " + out,
          "--resume: nothing to resume (" + out + ".partial does not exist); run without --resume");
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --chunk 5 --max-chunks 1 -o " + out, &text), 0) << text;
  refused(cfg + " -o " + out, out +
                                  ".partial: the checkpointed results of an unfinished run; continue it with "
                                  "--resume, or remove the file to start again");
  refused(other + " --resume -o " + out,
          out + ".partial: belongs to a different run (attribute 'ensemble_identity' is '");
  refused(cfg + " --resume --precision fp32 -o " + out,
          out + ".partial: belongs to a different run (attribute 'ensemble_identity' is '");
  refused(cfg + " --resume --shard 0/2 -o " + out,
          out + ".partial: belongs to a different run (attribute 'count' is '12', this run has '6')");
  refused(cfg + " --resume -o " + tmp("refuse.csv"),
          "--resume: " + tmp("refuse.csv") +
              ": a CSV output has no checkpoints; write HDF5 (-o OUT.h5) to stop and resume");
  refused(cfg + " --max-chunks 1 -o " + tmp("refuse.csv"),
          "--max-chunks: " + tmp("refuse.csv") + ": a CSV output has no checkpoints");
  EXPECT_EQ(run_cli("simulate " + cfg + " --chunk 0 -o " + out, &text), 1) << text;  // a usage error
  EXPECT_NE(text.find("must be a positive integer, not '0'"), std::string::npos) << text;
  EXPECT_FALSE(exists(tmp("refuse.csv")));
  const std::string single = tmp("single.toml");
  std::ofstream(single) << "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"coulomb-viscous\"\n"
                           "[friction.params]\nF_C = 1.0\nf_v = 0.0\n[simulation]\nt_end = 1.0\ndt = 1e-3\n";
  refused(single + " --resume -o " + tmp("single.h5"),
          "--resume applies to ensembles (an [ensemble] table); a single simulation is written in one go");
  // After all that, the partial file still resumes to the whole result.
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --resume -o " + out, &text), 0) << text;
  EXPECT_NE(text.find("7 simulated"), std::string::npos) << text;
  EXPECT_FALSE(exists(out + ".partial"));
}

// CSV output is streamed chunk by chunk too: one row per point, indices of
// the whole space, the same values as the HDF5 file.
TEST(EnsembleResume, CsvIsStreamedInChunks) {
  const std::string cfg = write_config("csv.toml"), h5out = tmp("csv_ref.h5"), csv = tmp("chunks.csv");
  std::string text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q -o " + h5out, &text), 0) << text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --chunk 5 -o " + csv, &text), 0) << text;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // the header comes first (metadata in chunks.csv.json)
  EXPECT_EQ(line.rfind("index,breakaway,mass,stiffness,", 0), 0u) << line;
  EXPECT_TRUE(std::ifstream(csv + ".json").good());
  auto fields = [](const std::string& l) {
    std::vector<std::string> f;
    size_t a = 0;
    for (size_t b; (b = l.find(',', a)) != std::string::npos; a = b + 1) f.push_back(l.substr(a, b - a));
    f.push_back(l.substr(a));
    return f;
  };
  const auto header = fields(line);
  const size_t col = std::find(header.begin(), header.end(), "period") - header.begin();
  ASSERT_LT(col, header.size()) << line;
  const data::Results r = data::read_results(h5out, "ensemble");
  std::vector<double> period;
  for (const auto& d : r.datasets)
    if (d.name == "period") period = d.values;
  ASSERT_EQ(period.size(), 12u);
  int rows = 0;
  while (std::getline(in, line)) {
    const auto f = fields(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    EXPECT_EQ(f[0], std::to_string(rows));
    if (rows < 12) EXPECT_EQ(std::stod(f[col]), period[rows]) << line;  // shortest round-trip text: exact
    ++rows;
  }
  EXPECT_EQ(rows, 12);
}

}  // namespace
}  // namespace stribeck
