// `stribeck simulate --shard i/N` for ensembles and `stribeck merge` of their
// shard files: the merged file equals one unsharded run bit for bit, and
// shards that do not make up one ensemble are refused without output.
#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "stiction_grid.hpp"
#include "temp_dir.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/point_file.hpp"
#include "stribeck/data/results_stream.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/report/figure.hpp"

namespace stribeck {
namespace {

std::string tmp(const std::string& name) { return stribeck::test::temp_dir() + "ens_shard_" + name; }

using test::run_cli;

bool exists(const std::string& path) { return static_cast<bool>(std::ifstream(path)); }

std::string write_config(const std::string& name, const char* t_end = "2.0") {
  return test::write_stiction_grid(tmp(name), t_end);
}

// Shards 0..n-1 of `cfg` as files part_<tag>_<i>.h5.
std::vector<std::string> run_shards(const std::string& cfg, int n, const std::string& tag) {
  std::vector<std::string> parts;
  for (int i = 0; i < n; ++i) {
    const std::string p = tmp("part_" + tag + "_" + std::to_string(i) + ".h5");
    std::string text;
    EXPECT_EQ(
        run_cli("simulate " + cfg + " -q --shard " + std::to_string(i) + "/" + std::to_string(n) + " -o " + p, &text),
        0)
        << text;
    parts.push_back(p);
  }
  return parts;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(EnsembleShards, MergedEqualsOneRunBitForBit) {
  const std::string cfg = write_config("grid.toml"), one = tmp("one.h5"), merged = tmp("merged.h5");
  std::string text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q -o " + one, &text), 0) << text;
  const auto parts = run_shards(cfg, 5, "a");
  // Shard 2 of 5 is points [4, 7): its invalid examples use global indices.
  const data::Results p2 = data::read_results(parts[2], "ensemble");
  EXPECT_EQ(p2.attributes.at("first"), "4");
  EXPECT_EQ(p2.attributes.at("count"), "3");
  EXPECT_EQ(p2.attributes.at("points"), "12");
  EXPECT_EQ(p2.attributes.at("shard_index"), "2");
  EXPECT_EQ(p2.attributes.at("shard_count"), "5");
  // Any order.
  ASSERT_EQ(
      run_cli("merge " + parts[3] + " " + parts[0] + " " + parts[4] + " " + parts[1] + " " + parts[2] + " -o " + merged,
              &text),
      0)
      << text;
  EXPECT_NE(text.find("5 ensemble shards"), std::string::npos) << text;

  const data::Results a = data::read_results(one, "ensemble"), b = data::read_results(merged, "ensemble");
  ASSERT_EQ(a.datasets.size(), b.datasets.size());
  ASSERT_EQ(a.datasets.size(), 17u);  // 3 coordinates + 14 metrics
  int invalid = 0;
  for (size_t k = 0; k < a.datasets.size(); ++k) {
    const data::ResultDataset &x = a.datasets[k], &y = b.datasets[k];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.shape, y.shape) << x.name;
    EXPECT_EQ(x.description, y.description) << x.name;
    EXPECT_TRUE(same_bits(x.values, y.values)) << x.name;
    if (x.name == "status")
      for (double s : x.values) invalid += s == 4;
  }
  EXPECT_GE(invalid, 6);  // mass -1: 6 points; breakaway 0.5: 3 more
  EXPECT_LT(invalid, 12);
  auto attrs = b.attributes;
  EXPECT_EQ(attrs.at("merged_from"), "5 shards");
  attrs.erase("merged_from");
  EXPECT_EQ(attrs, a.attributes);  // names, model, form, precision, identity, points, first 0, count, shard 0/1
  EXPECT_EQ(b.provenance.config, a.provenance.config);
  EXPECT_EQ(b.provenance.device.rfind("merged from 5 shards: cpu (", 0), 0u) << b.provenance.device;

  // More shards than points: empty shards merge too.
  const auto many = run_shards(cfg, 13, "b");
  const std::string merged13 = tmp("merged13.h5");
  std::string list;
  for (const auto& p : many) list += " " + p;
  ASSERT_EQ(run_cli("merge" + list + " -o " + merged13, &text), 0) << text;
  const data::Results c = data::read_results(merged13, "ensemble");
  for (size_t k = 0; k < a.datasets.size(); ++k) EXPECT_TRUE(same_bits(a.datasets[k].values, c.datasets[k].values));
}

// Each refusal is one line naming the file, exit 2, and no output file.
// --shard auto: task 2 of a Slurm array of 5 (--array=0-4) runs shard 2/5;
// outside an array task it is refused and writes nothing.
TEST(EnsembleShards, ShardAutoIsTheSlurmArrayTasksShard) {
  const std::string cfg = write_config("auto.toml"), out = tmp("auto.h5"), none = tmp("auto_none.h5");
  const char* names[] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
                         "SLURM_ARRAY_TASK_MAX"};
  const char* values[] = {"2", "5", "0", "4"};
  for (int i = 0; i < 4; ++i) setenv(names[i], values[i], 1);
  std::string text;
  const int rc = run_cli("simulate " + cfg + " --shard auto -o " + out, &text);
  for (const char* n : names) unsetenv(n);
  ASSERT_EQ(rc, 0) << text;
  EXPECT_NE(text.find(", shard 2/5 of 12"), std::string::npos) << text;
  const data::Results r = data::read_results(out, "ensemble");
  EXPECT_EQ(r.attributes.at("shard_index"), "2");
  EXPECT_EQ(r.attributes.at("shard_count"), "5");
  EXPECT_EQ(r.attributes.at("first"), "4");
  EXPECT_EQ(r.attributes.at("count"), "3");
  EXPECT_EQ(run_cli("simulate " + cfg + " -q --shard auto -o " + none, &text), 2);
  EXPECT_NE(text.find("stribeck: error: --shard auto: SLURM_ARRAY_TASK_ID is not set"), std::string::npos) << text;
  EXPECT_FALSE(exists(none));
}

TEST(EnsembleShards, MergeRefusesShardsThatAreNotOneEnsemble) {
  const std::string cfg = write_config("grid2.toml"), other = write_config("grid3.toml", "2.5");
  const auto parts = run_shards(cfg, 3, "c");
  const auto foreign = run_shards(other, 3, "d");
  const std::string out = tmp("refused.h5");
  auto refused = [&](const std::string& files, const std::string& named, const std::string& why) {
    std::string text;
    EXPECT_EQ(run_cli("merge " + files + " -o " + out, &text), 2) << text;
    EXPECT_EQ(text.rfind("stribeck: error: " + named + ": ", 0), 0u) << text;
    EXPECT_NE(text.find(why), std::string::npos) << text;
    EXPECT_EQ(text.find('\n'), text.size() - 1) << text;
    EXPECT_FALSE(exists(out));
  };
  refused(parts[0] + " " + foreign[1] + " " + parts[2], foreign[1], "belongs to a different ensemble than " + parts[0]);
  // Same config, other precision: another ensemble too.
  const std::string fp32 = tmp("part_fp32_1.h5");
  std::string log;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --precision fp32 --shard 1/3 -o " + fp32, &log), 0) << log;
  refused(parts[2] + " " + fp32 + " " + parts[0], fp32, "belongs to a different ensemble than " + parts[0]);
  refused(parts[0] + " " + parts[2], parts[2], "shard starts at point 8, expected 4 (a shard is missing)");
  refused(parts[0] + " " + parts[1], parts[1], "the last shard ends at point 8 of 12 (a shard is missing)");
  refused(parts[0] + " " + parts[1] + " " + parts[1] + " " + parts[2], parts[1], "(overlapping shards)");

  // A sweep file among ensemble shards, either order.
  const std::string sweep_cfg = tmp("sweep.toml"), sweep_out = tmp("sweep.h5");
  std::ofstream(sweep_cfg)
      << "model = \"coulomb-viscous\"\n[design]\ntype = \"grid\"\n[params]\nF_C = { values = [1.0, "
         "2.0] }\n[[trace]]\nprofile = \"sine\"\nsamples = 50\n";
  std::string text;
  ASSERT_EQ(run_cli("sweep " + sweep_cfg + " -q --device cpu -o " + sweep_out, &text), 0) << text;
  refused(parts[0] + " " + sweep_out + " " + parts[1] + " " + parts[2], sweep_out, "a sweep file, but " + parts[0]);
  refused(sweep_out + " " + parts[0] + " " + parts[1] + " " + parts[2], sweep_out, "is an ensemble shard");
  // A file that is neither, and one that is not there.
  refused(parts[0] + " " + cfg, cfg, "not an ensemble shard file");
  refused(parts[0] + " " + tmp("nothere.h5"), tmp("nothere.h5"), "cannot open (no such file, or not readable)");
}

TEST(EnsembleShards, ShardFlagErrors) {
  const std::string single = tmp("single.toml"), out = tmp("flag_out.h5");
  std::ofstream(single) << "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"coulomb-viscous\"\n"
                           "[friction.params]\nF_C = 1.0\nf_v = 0.0\n[simulation]\nt_end = 1.0\ndt = 1e-3\n";
  auto refused = [&](const std::string& args, const std::string& message) {
    std::string text;
    EXPECT_EQ(run_cli("simulate " + args + " -o " + out, &text), 2) << text;
    EXPECT_EQ(text, "stribeck: error: " + message + "\n");
    EXPECT_FALSE(exists(out));
  };
  refused(single + " --shard 0/2",
          "--shard applies to ensembles (an [ensemble] table); a single simulation is not split");
  const std::string cfg = write_config("grid4.toml");
  // The sweep's own parsing and message.
  for (const std::string bad : {"2/2", "1/0", "1", "0/2x", "0/-1", "-1/2", "+1/2", "1/99999999999999999999"})
    refused(cfg + " --shard " + bad,
            "--shard '" + bad + "': expected i/N with 0 <= i < N (whole numbers, N up to 999999999)");
  std::string empty;
  EXPECT_EQ(run_cli("simulate " + cfg + " --shard '' -o " + out, &empty), 1) << empty;  // a usage error
  EXPECT_EQ(empty, "stribeck: error: --shard: must not be empty (run with --help for usage)\n");
  std::string text;
  EXPECT_EQ(run_cli("simulate " + cfg + " -q --shard 0/2 -o " + tmp("part.csv"), &text), 2) << text;
  EXPECT_NE(text.find("--shard: shard files are HDF5"), std::string::npos) << text;
}

// Results kept in memory: the point limit (1e8 per run) and the memory check
// apply to the points a shard computes, so a space too large for one run
// runs as shards. Results streamed to a file have neither limit. `start` is
// called once every check has passed (before anything is allocated); it
// throws here so nothing runs.
TEST(EnsembleShards, LimitsApplyToTheShardsOwnPoints) {
  const std::string cfg = tmp("huge.toml");
  std::ofstream(cfg) << "[system]\nmass = 1.0\ndrive_velocity = 0.1\n[friction]\nmodel = \"coulomb-viscous\"\n"
                        "[friction.params]\nF_C = 1.0\nf_v = 0.0\n[simulation]\nt_end = 1.0\ndt = 1e-3\n"
                        "[ensemble]\ndevice = \"cpu\"\n[ensemble.params]\nstiffness = \"linear:1:20:1000\"\n"
                        "drive_velocity = \"linear:0.01:0.3:1000\"\nmass = \"linear:1:2:200\"\n";  // 2e8 points
  const workloads::SimulateConfig c = workloads::read_simulate_config(cfg);
  struct Started {};
  auto checks_pass = [&](const std::string& shard, const std::string& output = "") {
    workloads::EnsembleRunOptions o;
    o.shard = shard;
    o.output = output;
    o.start = [] { throw Started{}; };
    try {
      workloads::run_ensemble(c, o);
    } catch (const Started&) {
      return std::string();
    } catch (const data::InputError& e) {
      return std::string(e.what());
    }
    return std::string("ran");
  };
  EXPECT_EQ(checks_pass(""), cfg +
                                 ": [ensemble]: 200000000 points; at most 1e8 per run with the results in memory "
                                 "(write them to a file)");
  const std::string streamed = tmp("huge.h5");
  EXPECT_EQ(checks_pass("", streamed), "");
  std::remove((streamed + ".partial").c_str());
  // The smallest split whose shards fit this machine passes every check.
  const std::uint64_t memory = std::uint64_t(sysconf(_SC_PHYS_PAGES)) * std::uint64_t(sysconf(_SC_PAGE_SIZE));
  const std::uint64_t per_point = workloads::ensemble_result_bytes(1, 3);
  std::uint64_t n = 2;
  while ((200'000'000 + n - 1) / n * per_point > memory / 10 * 8) ++n;
  EXPECT_EQ(checks_pass(std::to_string(n - 1) + "/" + std::to_string(n)), "");
  if (100'000'000 * per_point > memory / 10 * 8) {  // halves of 1e8 points do not fit: the memory check says so
    const std::string m = checks_pass("1/2");
    EXPECT_EQ(m.rfind(cfg + ": [ensemble]: 100000000 points need about ", 0), 0u) << m;
    EXPECT_NE(m.find("write them to a file (-o OUT.h5)"), std::string::npos) << m;
  }
}

// --point K: the single simulation of one point has the metrics of its row
// in the ensemble (the same code in FP64 on the CPU), and its time series.
TEST(EnsemblePoint, SingleSimulationEqualsItsEnsembleRow) {
  const std::string cfg = write_config("point.toml"), map = tmp("point_map.h5"), one = tmp("point_11.h5");
  std::string text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q -o " + map, &text), 0) << text;
  ASSERT_EQ(run_cli("simulate " + cfg + " --point 11 -o " + one, &text), 0) << text;
  // Keys in name order, the last fastest: point 11 = (breakaway 1.5, mass 1, stiffness 20).
  EXPECT_NE(text.find("  point 11: breakaway = 1.5, mass = 1, stiffness = 20\n"), std::string::npos) << text;
  const data::Results ens = data::read_results(map, "ensemble"), single = data::read_results(one, "results/metrics");
  int compared = 0;
  for (const auto& d : single.datasets)
    for (const auto& e : ens.datasets)
      if (e.name == d.name && d.values.size() == 1) {
        const double a = d.values[0], b = e.values[11];
        EXPECT_NEAR(a, b, 1e-12 * (1 + std::abs(b))) << d.name;
        ++compared;
      }
  EXPECT_EQ(compared, 14) << "every metric";
  EXPECT_EQ(data::read_any_log(one).front().size(), 2001u);  // the time series: t = 0 ... 2 s at dt 1e-3
  // One-line refusals: past the space, a point the ensemble does not run, other run flags.
  auto refused = [&](const std::string& args, const std::string& message) {
    EXPECT_EQ(run_cli("simulate " + cfg + " " + args + " -o " + tmp("point_bad.h5"), &text), 2) << text;
    EXPECT_EQ(text, "stribeck: error: " + message + "\n");
    EXPECT_FALSE(exists(tmp("point_bad.h5")));
  };
  refused("--point 12", "--point 12: the ensemble of " + cfg + " has 12 points (0 to 11)");
  refused("--point 0", "--point 0: not simulated in the ensemble: mass = -1 must be > 0");
  refused("--point 3 --shard 0/2",
          "--point runs one simulation (on the CPU, in fp64): drop --shard, --resume, "
          "--chunk, --max-chunks, --mpi, --device and --precision");
}

// mpirun -np 2: each rank runs its shard, rank 0 merges and reports the whole
// space once. Skipped in builds without MPI.
TEST(EnsembleMpi, TwoRanksEqualOneRun) {
#ifndef STRIBECK_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  const std::string cfg = write_config("mpi.toml"), one = tmp("mpi_one.h5"), two = tmp("mpi_two.h5");
  std::string whole;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q -o " + one, &whole), 0) << whole;
  const std::string log = tmp("mpi_log_" + std::to_string(getpid()) + ".txt");
  const std::string cmd = std::string(STRIBECK_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " + STRIBECK_CLI +
                          " simulate " + cfg + " -o " + two + " -q --mpi > " + log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(rc, 0) << text;
  EXPECT_NE(text.find("ensemble of 12 points (fp64, cpu ("), std::string::npos) << text;
  EXPECT_NE(text.find(" x 2 MPI ranks): 12 simulated"), std::string::npos) << text;
  EXPECT_EQ(text.find("stribeck simulate:"), text.rfind("stribeck simulate:")) << "summary printed once: " << text;
  // The totals and the invalid examples are the whole space's.
  auto from = [](const std::string& t, const char* key) { return t.substr(t.find(key)); };
  EXPECT_EQ(from(text, "  stick-slip in "), from(whole, "  stick-slip in "));
  const data::Results a = data::read_results(one, "ensemble"), b = data::read_results(two, "ensemble");
  ASSERT_EQ(a.datasets.size(), b.datasets.size());
  for (size_t k = 0; k < a.datasets.size(); ++k)
    EXPECT_TRUE(same_bits(a.datasets[k].values, b.datasets[k].values)) << a.datasets[k].name;
  auto attrs = b.attributes;
  EXPECT_EQ(attrs.at("merged_from"), "2 shards");
  attrs.erase("merged_from");
  EXPECT_EQ(attrs, a.attributes);
  EXPECT_FALSE(exists(two + ".rank0"));
  EXPECT_FALSE(exists(two + ".rank1"));
  // Refusals come from every rank before anything runs: one exit status 2.
  const std::string bad = std::string(STRIBECK_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " + STRIBECK_CLI +
                          " simulate " + cfg + " -o " + tmp("mpi_bad.h5") + " -q --mpi --shard 0/2 > " + log + " 2>&1";
  EXPECT_NE(std::system(bad.c_str()), 0);
  std::ifstream bin(log);
  const std::string btext((std::istreambuf_iterator<char>(bin)), std::istreambuf_iterator<char>());
  EXPECT_NE(btext.find("--mpi splits the space itself; drop --shard"), std::string::npos) << btext;
  EXPECT_FALSE(exists(tmp("mpi_bad.h5")));
#endif
}

// What an older stribeck wrote for `current` (an ensemble file of this
// one): ensemble format_version 1, the coordinates as one 2-D `points`
// table along the scale `coordinate` (the names, their units in
// `units_of_each`), no `format_version`; the same metric columns.
void write_version_1(const std::string& current, const std::string& old) {
  const data::Results r = data::read_results(current, "ensemble");
  const std::vector<std::string> names = data::split_names(r.attributes.at("names"));
  const std::size_t n = std::stoull(r.attributes.at("count")), dims = names.size();
  data::StreamColumn points{"points", dims, "", "coordinates of each point: " + r.attributes.at("names")};
  points.long_name = "coordinates of each point";
  points.width_dimension = "coordinate";
  points.width_labels = names;
  std::vector<double> table(n * dims);
  std::vector<data::StreamColumn> columns{points};
  std::vector<const double*> data{table.data()};
  for (const data::ResultDataset& d : r.datasets) {
    const auto it = std::find(names.begin(), names.end(), d.name);
    if (it != names.end()) {
      columns[0].width_units.resize(dims);
      columns[0].width_units[it - names.begin()] = d.units;
      for (std::size_t i = 0; i < n; ++i) table[i * dims + (it - names.begin())] = d.values[i];
      continue;
    }
    for (std::size_t f = 0; f < engine::kStickSlipFieldCount; ++f)
      if (d.name == engine::kStickSlipFields[f].name)
        columns.push_back(engine::field_column(engine::kStickSlipFields[f], false));
    data.push_back(d.values.data());
  }
  std::map<std::string, std::string> attributes = r.attributes;
  attributes.erase("format_version");
  std::remove(old.c_str());
  auto s = data::ResultsStream::create(old, "ensemble", columns, attributes, r.provenance, n, true,
                                       std::stoull(r.attributes.at("first")));
  if (n) s->append(n, data);
  data::StreamCheckpoint done;
  done.rows = done.completed = n;
  s->checkpoint(done);
  s->finish();
}

std::string map_cells(const std::string& file, const std::string& out) {
  std::string text;
  EXPECT_EQ(run_cli("map " + file + " --metric stick_slip --x stiffness --y breakaway --reduce mean -o " + out, &text),
            0)
      << text;
  std::ifstream in(out);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Each coordinate is a 1-D float64 column along `point` named after it, with
// `units` and `long_name`, as a sweep stores its parameters (issue 34: a 2-D
// `points` table with a byte-string scale could not be selected by name and
// had no units); the file says format_version 2, and PointFile (map, report)
// reads the coordinates and their units from those columns.
TEST(EnsembleFormat, CoordinatesAreColumnsWithUnits) {
  const std::string cfg = write_config("format.toml"), out = tmp("format.h5");
  std::string text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q -o " + out, &text), 0) << text;
  {
    const data::h5::File f = data::h5::open_file(out);
    const data::h5::Group g = data::h5::open_group(f.id(), "ensemble", out);
    EXPECT_EQ(data::h5::read_int_attribute(g.id(), "format_version", out), data::kEnsembleFormatVersion);
    EXPECT_FALSE(data::h5::has_child(g.id(), "points"));
    EXPECT_FALSE(data::h5::has_child(g.id(), "coordinate"));
    const std::map<std::string, std::pair<std::string, std::string>> expected{
        {"stiffness", {"N/m", "system quantity stiffness"}},
        {"mass", {"kg", "system quantity mass"}},
        {"breakaway", {"N", "system quantity breakaway"}}};
    for (const auto& [name, want] : expected) {
      ASSERT_TRUE(data::h5::has_child(g.id(), name)) << name;
      const data::h5::Dataset ds = data::h5::open_dataset(g.id(), name, out);
      const auto info = data::h5::dataset_info(ds, out);
      EXPECT_EQ(info.dims, std::vector<unsigned long long>{12}) << name;
      EXPECT_EQ(info.type_class, H5T_FLOAT) << name;
      EXPECT_EQ(data::h5::read_string_attribute(ds.id(), "units", out), want.first) << name;
      EXPECT_EQ(data::h5::read_string_attribute(ds.id(), "long_name", out), want.second) << name;
    }
  }
  const data::PointFile pf(out);
  const std::vector<std::string> dims = data::split_names(data::read_results(out, "ensemble").attributes.at("names"));
  EXPECT_EQ(pf.dimensions(), dims);
  ASSERT_EQ(pf.dimension_units().size(), 3u);
  EXPECT_EQ(pf.dimension_units()[static_cast<std::size_t>(pf.dimension_index("stiffness"))], "N/m");
  EXPECT_EQ(pf.dimension_units()[static_cast<std::size_t>(pf.dimension_index("mass"))], "kg");
  EXPECT_EQ(pf.metrics().size(), 14u);  // the coordinates are not metrics
  std::vector<double> stiffness;
  pf.read_dimension(pf.dimension_index("stiffness"), 0, 12, stiffness);
  EXPECT_EQ(std::set<double>(stiffness.begin(), stiffness.end()), (std::set<double>{5.0, 12.5, 20.0}));
  // The report's maps (over the first two that vary) label their axes with the coordinates' units.
  std::set<std::string> labels;
  for (const auto& section : report::read_document(out).sections)
    for (const auto& fig : section.figures) labels.insert({fig.x_label, fig.y_label});
  EXPECT_TRUE(labels.count("breakaway [N]") && labels.count("mass [kg]"))
      << "report axes: " << data::join_names({labels.begin(), labels.end()});
}

// Files of ensemble format_version 1 (a 2-D `points` table) still read:
// PointFile gives the same coordinates, units and values, map draws the same
// cells, report reads them, and merge joins such shards, alone or mixed with
// current ones, into the current layout, equal to one run bit for bit. An
// unfinished file of version 1 is not resumed, and a file of a newer version
// is refused by name, each in one line.
TEST(EnsembleFormat, OlderFilesReadMergeIntoTheCurrentLayoutAndAreNotResumed) {
  const std::string cfg = write_config("old.toml"), one = tmp("old_one.h5"), old = tmp("old_v1.h5");
  std::string text;
  ASSERT_EQ(run_cli("simulate " + cfg + " -q -o " + one, &text), 0) << text;
  write_version_1(one, old);
  ASSERT_TRUE(data::h5::has_child(data::h5::open_file(old).id(), "ensemble/points"));
  {
    const data::PointFile a(one), b(old);
    EXPECT_EQ(b.dimensions(), a.dimensions());
    EXPECT_EQ(b.dimension_units(), a.dimension_units());
    EXPECT_EQ(b.metrics(), a.metrics());
    ASSERT_EQ(b.rows(), 12u);
    for (int d = 0; d < 3; ++d) {
      std::vector<double> x, y;
      a.read_dimension(d, 0, 12, x);
      b.read_dimension(d, 0, 12, y);
      EXPECT_TRUE(same_bits(x, y)) << a.dimensions()[static_cast<std::size_t>(d)];
    }
  }
  EXPECT_EQ(map_cells(old, tmp("old_v1.csv")), map_cells(one, tmp("old_one.csv")));
  EXPECT_NE(map_cells(one, tmp("old_one.csv")).find('\n'), std::string::npos);
  ASSERT_EQ(run_cli("report " + old + " -o " + tmp("old_v1.html"), &text), 0) << text;

  // Shards of version 1, alone or beside a current one, merge into the current layout.
  const auto parts = run_shards(cfg, 3, "old");
  std::vector<std::string> v1;
  for (const auto& p : parts) v1.push_back(p + ".v1.h5"), write_version_1(p, v1.back());
  const data::Results a = data::read_results(one, "ensemble");
  for (const std::string& list : {v1[2] + " " + v1[0] + " " + v1[1], v1[0] + " " + parts[1] + " " + v1[2]}) {
    const std::string merged = tmp("old_merged.h5");
    std::remove(merged.c_str());
    ASSERT_EQ(run_cli("merge " + list + " -o " + merged, &text), 0) << text;
    const data::Results b = data::read_results(merged, "ensemble");
    ASSERT_EQ(b.datasets.size(), a.datasets.size()) << list;
    for (size_t k = 0; k < a.datasets.size(); ++k) {
      EXPECT_EQ(a.datasets[k].name, b.datasets[k].name);
      EXPECT_EQ(a.datasets[k].units, b.datasets[k].units) << a.datasets[k].name;
      EXPECT_EQ(a.datasets[k].shape, b.datasets[k].shape) << a.datasets[k].name;
      EXPECT_TRUE(same_bits(a.datasets[k].values, b.datasets[k].values)) << a.datasets[k].name;
    }
    auto attrs = b.attributes;
    attrs.erase("merged_from");
    EXPECT_EQ(attrs, a.attributes) << list;  // format_version 2 among them
  }

  // An unfinished run of version 1 is not continued.
  const std::string out = tmp("old_partial.h5");
  std::remove(out.c_str());
  std::remove((out + ".partial").c_str());
  ASSERT_EQ(run_cli("simulate " + cfg + " -q --chunk 5 --max-chunks 1 -o " + out, &text), 0) << text;
  {
    const data::h5::File f = data::h5::open_file(out + ".partial", /*write=*/true);
    ASSERT_GE(H5Adelete_by_name(f.id(), "ensemble", "format_version", H5P_DEFAULT), 0);
  }
  EXPECT_EQ(run_cli("simulate " + cfg + " -q --resume -o " + out, &text), 2) << text;
  EXPECT_EQ(text, "stribeck: error: " + out +
                      ".partial: written by an older stribeck (ensemble format_version 1); it cannot be continued: "
                      "remove it and run without --resume\n");
  EXPECT_TRUE(exists(out + ".partial"));
  EXPECT_FALSE(exists(out));

  // A newer version is refused by the readers, in one line naming it.
  const std::string newer = tmp("old_newer.h5");
  std::remove(newer.c_str());
  ASSERT_EQ(run_cli("simulate " + cfg + " -q -o " + newer, &text), 0) << text;
  {
    const data::h5::File f = data::h5::open_file(newer, /*write=*/true);
    const data::h5::Group g = data::h5::open_group(f.id(), "ensemble", newer);
    ASSERT_GE(H5Adelete(g.id(), "format_version"), 0);
    data::h5::write_int_attribute(g.id(), "format_version", data::kEnsembleFormatVersion + 1, newer);
  }
  EXPECT_EQ(run_cli("map " + newer + " --list", &text), 2) << text;
  EXPECT_EQ(text, "stribeck: error: " + newer +
                      ": ensemble file format_version 3 is newer than this stribeck (2); use a newer stribeck\n");
}

}  // namespace
}  // namespace stribeck
