// `stribeck sweep` and `stribeck merge` end to end: files of a sharded,
// resumed or repeated run equal those of one uninterrupted run.
#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "temp_dir.hpp"
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "stribeck/data/error.hpp"
#include "stribeck/workloads/sweep_output.hpp"

namespace stribeck {
namespace {

std::string tmp(const std::string& name) { return stribeck::test::temp_dir() + "sweep_cli_" + name; }

using test::run_cli;

std::string write_config(const std::string& name, const std::string& extra = "") {
  const std::string path = tmp(name);
  std::ofstream(path) << R"(model = "simscape-cylinder"
[design]
type = "lhs"
points = 3001
seed = 4
[params]
F_pr = { uniform = [0.0, 60.0] }
f_cfr = { loguniform = [1e-7, 1e-5] }
K_brk = { values = [0.5, 1.5, 2.0] }   # 0.5 is invalid (K_brk >= 1)
c_v = { log = [1.0, 100.0] }
[[trace]]
profile = "sine"
samples = 300
p_a = 5e6
p_b = 1e6
reference = { F_pr = 30, f_cfr = 2e-6 }
noise = 0.2
[[trace]]
profile = "sine"
name = "fast"
frequency = 3.0
samples = 200
p_a = 2e6
p_b = 2e6
reference = { F_pr = 30, f_cfr = 2e-6 }
[metrics]
keep = ["rmse", "peak_force", "energy"]
per_experiment = true
top_k = 7
[run]
device = "cpu"
)" << extra;
  return path;
}

// Equal results: every row, the top-K table and the counts.
void expect_same_sweep(const data::SweepFile& a, const data::SweepFile& b) {
  EXPECT_TRUE(a.complete);
  EXPECT_TRUE(b.complete);
  EXPECT_EQ(a.meta.points, b.meta.points);
  EXPECT_EQ(a.meta.first, b.meta.first);
  EXPECT_EQ(a.meta.count, b.meta.count);
  EXPECT_EQ(a.meta.provenance.config, b.meta.provenance.config);
  EXPECT_EQ(a.progress.completed, b.progress.completed);
  EXPECT_EQ(a.progress.invalid, b.progress.invalid);
  EXPECT_EQ(a.progress.nonfinite, b.progress.nonfinite);
  EXPECT_EQ(a.rows.status, b.rows.status);
  EXPECT_EQ(a.rows.params, b.rows.params);
  auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i])))) return false;
    return true;
  };
  EXPECT_TRUE(same(a.rows.metrics, b.rows.metrics));
  EXPECT_TRUE(same(a.rows.exp_metrics, b.rows.exp_metrics));
  ASSERT_EQ(a.progress.top.size(), b.progress.top.size());
  for (size_t r = 0; r < a.progress.top.size(); ++r) {
    EXPECT_EQ(a.progress.top[r].index, b.progress.top[r].index);
    EXPECT_EQ(a.progress.top[r].objective, b.progress.top[r].objective);
    EXPECT_EQ(a.progress.top[r].params, b.progress.top[r].params);
  }
}

TEST(SweepCli, RunWritesEveryPointAndReportsInvalidOnes) {
  const std::string cfg = write_config("basic.toml"), out = tmp("basic.h5");
  std::string text;
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + out + " --chunk 1000", &text), 0) << text;
  // Not a terminal: plain progress lines (the last one at 100 %), no carriage returns.
  EXPECT_NE(text.find("3001/3001 points (100.0%)"), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  const data::SweepFile f = data::read_sweep_file(out);
  EXPECT_EQ(f.rows.count, 3001u);
  EXPECT_EQ(f.meta.metrics.size(), 3u);
  // LHS over the 3-value list: one third of the points has K_brk = 0.5.
  EXPECT_EQ(f.progress.invalid, 1000u);
  EXPECT_NE(text.find("invalid: point"), std::string::npos) << text;
  EXPECT_NE(text.find("K_brk = 0.5 must be >= 1"), std::string::npos) << text;
  EXPECT_EQ(f.progress.top.size(), 7u);
  for (size_t r = 1; r < f.progress.top.size(); ++r)
    EXPECT_LE(f.progress.top[r - 1].objective, f.progress.top[r].objective);
  // The best point's objective is its rmse row.
  const auto& best = f.progress.top[0];
  EXPECT_EQ(f.rows.metrics[best.index * sweep::kNumMetrics + sweep::kRmse], best.objective);
  // The summary shows it to four significant digits (the file has them all).
  char shown[64];
  std::snprintf(shown, sizeof shown, "#1 point %llu: rmse = %.4g N | F_pr=%.4g ",
                static_cast<unsigned long long>(best.index), best.objective, best.params[0]);
  EXPECT_NE(text.find(shown), std::string::npos) << shown << "\n" << text;
}

TEST(SweepCli, RepeatedRunIsIdentical) {
  const std::string cfg = write_config("det.toml"), a = tmp("det_a.h5"), b = tmp("det_b.h5");
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + a + " -q --chunk 500"), 0);
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + b + " -q"), 0);
  expect_same_sweep(data::read_sweep_file(a), data::read_sweep_file(b));
}

TEST(SweepCli, ShardsMergedEqualOneRun) {
  const std::string cfg = write_config("shard.toml"), one = tmp("shard_one.h5"), merged = tmp("shard_merged.h5");
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + one + " -q"), 0);
  std::string shards;
  for (int i = 2; i >= 0; --i) {  // any order
    const std::string s = tmp("shard_" + std::to_string(i) + ".h5");
    ASSERT_EQ(
        run_cli("sweep " + cfg + " -o " + s + " -q --shard " + std::to_string(i) + "/3 --chunk 400 --trajectory 2500"),
        0);
    shards += " " + s;
  }
  std::string text;
  ASSERT_EQ(run_cli("merge" + shards + " -o " + merged, &text), 0) << text;
  expect_same_sweep(data::read_sweep_file(merged), data::read_sweep_file(one));
  EXPECT_EQ(run_cli("merge " + tmp("shard_1.h5") + " -o " + tmp("shard_alone.h5"), &text), 2);
  // The trajectory of point 2500 (in shard 2) is carried into the merged file.
  const hid_t f = H5Fopen(merged.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  bool found = true;
  for (const char* p : {"/sweep/trajectories", "/sweep/trajectories/2500", "/sweep/trajectories/2500/sine",
                        "/sweep/trajectories/2500/sine/force"})
    found = found && H5Lexists(f, p, H5P_DEFAULT) > 0;
  H5Fclose(f);
  EXPECT_TRUE(found);
  // A missing shard is named, and nothing is written.
  const std::string partial = tmp("shard_missing.h5");
  EXPECT_EQ(run_cli("merge " + tmp("shard_0.h5") + " " + tmp("shard_2.h5") + " -o " + partial, &text), 2);
  EXPECT_NE(text.find("a shard is missing"), std::string::npos) << text;
  EXPECT_FALSE(std::ifstream(partial).good());
}

// The Slurm array variables for one test, unset again at its end.
struct SlurmArrayTask {
  static constexpr const char* kNames[] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
                                           "SLURM_ARRAY_TASK_MAX"};
  SlurmArrayTask() { clear(); }
  ~SlurmArrayTask() { clear(); }
  void set(const char* id, const char* count, const char* min, const char* max) {
    const char* values[] = {id, count, min, max};
    for (int i = 0; i < 4; ++i) setenv(kNames[i], values[i], 1);
  }
  static void clear() {
    for (const char* n : kNames) unsetenv(n);
  }
};

// --shard auto is the array task's shard: task 4 of --array=3-5 is 1/3, the
// same file as --shard 1/3; outside an array task, or in an array with a
// step (tasks 0, 4, 8 would leave points out), it is refused with no output.
TEST(SweepCli, ShardAutoIsTheSlurmArrayTasksShard) {
  const std::string cfg = write_config("auto.toml"), a = tmp("auto_a.h5"), b = tmp("auto_b.h5"),
                    none = tmp("auto_none.h5");
  SlurmArrayTask slurm;
  std::string text;
  EXPECT_EQ(run_cli("sweep " + cfg + " -o " + none + " -q --shard auto", &text), 2);
  EXPECT_NE(text.find("stribeck: error: --shard auto: SLURM_ARRAY_TASK_ID is not set (not a Slurm array task"),
            std::string::npos)
      << text;
  slurm.set("4", "3", "3", "5");
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + a + " --shard auto", &text), 0) << text;
  EXPECT_NE(text.find(", shard 1/3"), std::string::npos) << text;
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + b + " -q --shard 1/3"), 0);
  const data::SweepFile fa = data::read_sweep_file(a);
  EXPECT_EQ(fa.meta.shard_index, 1);
  EXPECT_EQ(fa.meta.shard_count, 3);
  expect_same_sweep(fa, data::read_sweep_file(b));
  slurm.set("4", "3", "0", "8");
  EXPECT_EQ(run_cli("sweep " + cfg + " -o " + none + " -q --shard auto", &text), 2);
  EXPECT_NE(text.find("--shard auto: Slurm array task 4 of 3 tasks numbered 0..8 is not shard i of a contiguous "
                      "array; submit with --array=0-2, or give --shard i/N"),
            std::string::npos)
      << text;
  slurm.set("x", "3", "0", "2");
  EXPECT_EQ(run_cli("sweep " + cfg + " -o " + none + " -q --shard auto", &text), 2);
  EXPECT_NE(text.find("--shard auto: SLURM_ARRAY_TASK_ID='x' is not a whole number"), std::string::npos) << text;
  EXPECT_FALSE(std::ifstream(none).good());
}

TEST(SweepCli, ResumedRunEqualsOneRun) {
  const std::string cfg = write_config("resume.toml"), one = tmp("resume_one.h5"), two = tmp("resume_two.h5");
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + one + " -q --chunk 250"), 0);
  std::remove(two.c_str());
  std::string text;
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + two + " -q --chunk 250 --max-chunks 5", &text), 0) << text;
  EXPECT_FALSE(std::ifstream(two).good()) << "an unfinished sweep must not appear under its final name";
  EXPECT_NE(text.find("--resume"), std::string::npos) << text;
  const data::SweepFile partial = data::read_sweep_file(two + ".partial");
  EXPECT_FALSE(partial.complete);
  EXPECT_EQ(partial.progress.completed, 1250u);
  // A new run without --resume does not overwrite the unfinished one.
  EXPECT_EQ(run_cli("sweep " + cfg + " -o " + two + " -q --chunk 250", &text), 2);
  EXPECT_NE(text.find(".partial: the checkpointed results of an unfinished run; continue it with --resume"),
            std::string::npos)
      << text;
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + two + " -q --chunk 250 --resume", &text), 0) << text;
  expect_same_sweep(data::read_sweep_file(two), data::read_sweep_file(one));
  // Nothing left to resume: one line, exit 2.
  EXPECT_EQ(run_cli("sweep " + cfg + " -o " + two + " -q --resume", &text), 2);
  EXPECT_NE(text.find("nothing to resume"), std::string::npos) << text;
  // A partial file of another sweep is refused.
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + two + " -q --chunk 250 --max-chunks 1"), 0);
  EXPECT_EQ(run_cli("sweep " + cfg + " -o " + two + " -q --resume --seed 5", &text), 2);
  EXPECT_NE(text.find("belongs to a different sweep"), std::string::npos) << text;
}

TEST(SweepCli, TopKOnlyAndFlagsOverrideConfig) {
  const std::string cfg = write_config("topk.toml"), out = tmp("topk.h5");
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + out +
                    " -q --top-k-only --top-k 3 --objective energy --maximize "
                    "--design sobol --points 512 --trajectory 5"),
            0);
  const data::SweepFile f = data::read_sweep_file(out);
  EXPECT_TRUE(f.meta.top_k_only);
  EXPECT_EQ(f.meta.design, "sobol");
  EXPECT_EQ(f.rows.count, 0u);
  ASSERT_EQ(f.progress.top.size(), 3u);
  EXPECT_GE(f.progress.top[0].objective, f.progress.top[1].objective);
}

// A top_k_only run writes no rows, only its table: stopped after two
// chunks, its partial file is kept (it counts completed points) and resumes
// to the table and counts of one run. A partial shard is no input to merge,
// and merged shards sum their counts by status.
TEST(SweepCli, TopKOnlyRunResumesAndShardsMergeTheirCounts) {
  const std::string cfg = write_config("topk_resume.toml"), one = tmp("topk_one.h5"), two = tmp("topk_two.h5");
  const std::string flags = " -q --top-k-only --chunk 400";
  std::remove((two + ".partial").c_str());
  std::string text;
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + one + flags, &text), 0) << text;
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + two + flags + " --max-chunks 2", &text), 0) << text;
  const data::SweepFile partial = data::read_sweep_file(two + ".partial");
  EXPECT_FALSE(partial.complete);
  EXPECT_EQ(partial.progress.completed, 800u);
  EXPECT_EQ(partial.rows.count, 0u);
  EXPECT_EQ(partial.progress.top.size(), 7u);
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + two + flags + " --resume", &text), 0) << text;
  const data::SweepFile a = data::read_sweep_file(one), b = data::read_sweep_file(two);
  EXPECT_TRUE(b.complete);
  EXPECT_EQ(b.progress.completed, 3001u);
  EXPECT_EQ(b.progress.invalid, a.progress.invalid);
  EXPECT_EQ(b.progress.invalid, 1000u);  // LHS over the 3-value list: one third has K_brk = 0.5
  ASSERT_EQ(a.progress.top.size(), b.progress.top.size());
  for (size_t r = 0; r < a.progress.top.size(); ++r) {
    EXPECT_EQ(a.progress.top[r].index, b.progress.top[r].index);
    EXPECT_EQ(a.progress.top[r].objective, b.progress.top[r].objective);
  }
  // Shards: one left unfinished is refused by name; the finished ones merge
  // to the counts of one run.
  const std::string s0 = tmp("topk_s0.h5"), s1 = tmp("topk_s1.h5"), merged = tmp("topk_merged.h5");
  std::remove((s1 + ".partial").c_str());
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + s0 + flags + " --shard 0/2", &text), 0) << text;
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + s1 + flags + " --shard 1/2 --max-chunks 1", &text), 0) << text;
  EXPECT_EQ(run_cli("merge " + s0 + " " + s1 + ".partial -o " + merged, &text), 2) << text;
  EXPECT_NE(text.find(s1 + ".partial: the shard is not finished (resume it first)"), std::string::npos) << text;
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + s1 + flags + " --shard 1/2 --resume", &text), 0) << text;
  ASSERT_EQ(run_cli("merge " + s1 + " " + s0 + " -o " + merged, &text), 0) << text;
  const data::SweepFile m = data::read_sweep_file(merged);
  EXPECT_EQ(m.progress.invalid, a.progress.invalid);
  EXPECT_EQ(m.progress.nonfinite, a.progress.nonfinite);
  ASSERT_EQ(m.progress.top.size(), a.progress.top.size());
  for (size_t r = 0; r < a.progress.top.size(); ++r) EXPECT_EQ(m.progress.top[r].index, a.progress.top[r].index);
}

TEST(SweepCli, FlagsAloneDescribeASweep) {
  const std::string out = tmp("flags.h5");
  std::string text;
  ASSERT_EQ(run_cli("sweep --model coulomb-viscous --param F_C=linear:10:30:3 --param f_v=list:0,100 "
                    "--profile sine,samples=500,amplitude=0.1 --device cpu -q -o " +
                        out,
                    &text),
            0)
      << text;
  const data::SweepFile f = data::read_sweep_file(out);
  EXPECT_EQ(f.rows.count, 6u);
  EXPECT_EQ(f.meta.objective, sweep::kEnergy);  // no measured force: energy ranks
  EXPECT_EQ(f.progress.top[0].index, 0u);       // F_C = 10, f_v = 0 dissipates least
}

TEST(SweepCli, BadConfigIsOneLineWithLocationAndNoOutput) {
  const std::string cfg = tmp("bad.toml"), out = tmp("bad.h5");
  std::ofstream(cfg) << "model = \"simscape-cylinder\"\n[params]\nF_pr = { linear = [0, 1], cnt = 3 }\n";
  std::string text;
  EXPECT_EQ(run_cli("sweep " + cfg + " -o " + out, &text), 2);
  EXPECT_NE(text.find("bad.toml:3:"), std::string::npos) << text;
  EXPECT_NE(text.find("unknown key 'cnt'"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_FALSE(std::ifstream(out).good());
  EXPECT_EQ(run_cli("sweep --model simscape-cylinder --param F_pr=linear:0:10 --trace nowhere.csv", &text), 2);
  EXPECT_NE(text.find("grid range needs count"), std::string::npos) << text;
  EXPECT_EQ(run_cli("sweep --model simscape-cylinder --profile sine,speed=3", &text), 2);
  EXPECT_NE(text.find("unknown key 'speed'"), std::string::npos) << text;
  EXPECT_EQ(run_cli("sweep --model simscape-cylinder --param nope=1", &text), 2);
  EXPECT_NE(text.find("has no parameter 'nope'"), std::string::npos) << text;
  // Found by adversarial runs: each used to run (or hang), and then fail,
  // leave OUT.partial behind, or compute points the user never asked for.
  const std::string sine = "[[trace]]\nprofile = \"sine\"\nsamples = 16\n";
  const std::pair<std::string, std::string> bad[] = {
      {"[[trace]]\nprofile = \"sine\"\nsamples = 100000000000\n", ":4:11: samples = 100000000000: at most 5e7"},
      {"[[trace]]\nprofile = \"sine\"\nname = \"/\"\n", "experiment name '/' cannot name an HDF5 group"},
      {"[[trace]]\nprofile = \"sine\"\nname = \".\"\n", "experiment name '.' cannot name an HDF5 group"},
      {sine + "[metrics]\nkeep = [\"energy\", \"energy\"]\n", ":6:19: metrics.keep names 'energy' twice"},
      {"[[trace]]\nprofile = \"sine\"\namplitude = nan\n", ":4:13: amplitude must be a finite number"},
      {"[params]\nF_C = { linear = [-1.7e308, 1.7e308], count = 3 }\n" + sine, "is too wide for double precision"},
      {"[params]\nf_v = { log = [1e-310, 1.0], count = 3 }\n" + sine, "needs normal (not subnormal) ends"},
      {"[params]\nF_C = { values = [nan, 1.0] }\n" + sine, ":3:19: F_C.values must be a finite number"},
      {sine + "[output]\nfile = \"a\\u0000b.h5\"\n", "output.file must not contain a NUL character"},
      {"[[trace]]\nfile = \"\"\n", ":3:8: file is empty"},
      {sine.substr(0, sine.size() - 1) + "\nnoise = 0.5\n", ":5:9: noise is added to the reference force"},
      {sine + "[metrics]\nper_experiment = 1\n", ":6:18: metrics.per_experiment must be true or false"},
      {"[[trace]]\nfile = \"rig.h5\"\nexperiments = []\n", ":4:15: experiments is empty"},
  };
  for (const auto& [body, expect] : bad) {
    std::ofstream(cfg) << "model = \"simscape-translational\"\n" << body;
    EXPECT_EQ(run_cli("sweep " + cfg + " -q -o " + out, &text), 2) << body;
    EXPECT_NE(text.find(expect), std::string::npos) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    EXPECT_FALSE(std::ifstream(out).good()) << body;
    EXPECT_FALSE(std::ifstream(out + ".partial").good()) << body;
  }
  const std::string flags = "sweep -q -m simscape-translational --profile sine,samples=16 -o " + out + " ";
  EXPECT_EQ(run_cli(flags + "-p F_C=5 -p F_C=6", &text), 2);
  EXPECT_NE(text.find("--param F_C=6: F_C is given by --param twice"), std::string::npos) << text;
  EXPECT_EQ(run_cli(flags + "--profile sine,samples=8,samples=9", &text), 2);
  EXPECT_NE(text.find("'samples' is given twice"), std::string::npos) << text;
  EXPECT_EQ(run_cli(flags + "-p F_C=list:1,2 --points 99999999999999999999 --design random", &text), 1);
  EXPECT_NE(text.find("must be below 1e18"), std::string::npos) << text;
  EXPECT_EQ(run_cli("sweep -q -m simscape-translational --profile sine,samples=16 --trajectory 0", &text), 2);
  EXPECT_NE(text.find("are written to the output file; give one with -o OUT.h5"), std::string::npos) << text;
  EXPECT_EQ(run_cli(flags + "--chunk 20000000", &text), 2);
  EXPECT_NE(text.find("--chunk 20000000: at most 16777216"), std::string::npos) << text;
  // A numeric flag of 0 or below is refused, not taken for "not given" (a
  // --seed 0 used to run with the config's seed, --top-k -3 with no table).
  for (const char* flag : {"--seed 0", "--top-k -3", "--chunk 0", "--points 0", "--max-chunks 0"}) {
    EXPECT_EQ(run_cli("sweep " + cfg + " -o " + out + " " + flag, &text), 1) << flag;
    EXPECT_NE(text.find("must be a positive integer"), std::string::npos) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    EXPECT_FALSE(std::ifstream(out).good()) << flag;
  }
}

}  // namespace
}  // namespace stribeck

namespace stribeck {
namespace {

// mpirun -np 2: two ranks split the space and rank 0 merges; the file equals
// a single run. Skipped in builds without MPI.
TEST(SweepMpi, TwoRanksEqualOneRun) {
#ifndef STRIBECK_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  const std::string cfg = write_config("mpi.toml"), one = tmp("mpi_one.h5"), two = tmp("mpi_two.h5");
  ASSERT_EQ(run_cli("sweep " + cfg + " -o " + one + " -q"), 0);
  const std::string log = tmp("mpi_log_" + std::to_string(getpid()) + ".txt");
  const std::string cmd = std::string(STRIBECK_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " + STRIBECK_CLI +
                          " sweep " + cfg + " -o " + two + " -q --mpi > " + log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(rc, 0) << text;
  EXPECT_NE(text.find("x 2 MPI ranks"), std::string::npos) << text;
  EXPECT_EQ(text.find("stribeck sweep:"), text.rfind("stribeck sweep:")) << "summary printed once: " << text;
  expect_same_sweep(data::read_sweep_file(two), data::read_sweep_file(one));
  EXPECT_FALSE(std::ifstream(two + ".rank0").good());
  EXPECT_FALSE(std::ifstream(two + ".rank1").good());
  // The engine's MPI driver refuses, on every rank, a run with no file to merge into.
  const std::string bad = std::string(STRIBECK_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " + STRIBECK_CLI +
                          " sweep " + cfg + " -q --mpi > " + log + " 2>&1";
  EXPECT_NE(std::system(bad.c_str()), 0);
  std::ifstream bin(log);
  const std::string btext((std::istreambuf_iterator<char>(bin)), std::istreambuf_iterator<char>());
  EXPECT_NE(btext.find("--mpi: rank 0 merges the ranks' HDF5 shard files; name an HDF5 output (-o OUT.h5)"),
            std::string::npos)
      << btext;
#endif
}

}  // namespace
}  // namespace stribeck
