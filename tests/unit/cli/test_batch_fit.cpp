// `identify --batch`, the engine's third workload through the program:
// shards merged, and a stopped run resumed, equal one run bit for bit; bad
// input is one line and exit 2; tables, names, intervals and operating
// points as written. (The library's batch fits:
// tests/unit/identification/test_batch_fit.cpp.)
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>
#include <string>
#include <vector>

#include "batch_line.hpp"
#include "cli_runner.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/results_stream.hpp"
#include "stribeck/identification/batch_fit.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/report/figure.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using test::synthetic;
using test::truth;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A log of the line's experiments (bad ones included) as HDF5, with a NaN
// written into one experiment afterwards by raw HDF5 (write_log refuses it).
std::string line_log(const std::string& dir) {
  const std::string path = dir + "line.h5";
  std::vector<data::Experiment> v;
  for (int k = 0; k < 5; ++k) v.push_back(synthetic(k % 4, 60 + k));
  for (int k = 0; k < 5; ++k) v[k].name = "unit" + std::to_string(k);
  data::Experiment nan = synthetic(1, 70);
  nan.name = "unit5";
  v.push_back(nan);
  data::Experiment shorty = synthetic(2, 71);
  for (auto& [name, ch] : shorty.channels) ch.resize(3);
  shorty.name = "unit6";
  v.push_back(shorty);
  write_log(path, v, data::Provenance{});
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "unit5/force", H5P_DEFAULT);
  std::vector<double> x(2001);
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data());
  x[7] = std::nan("");
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data());
  H5Dclose(d);
  H5Fclose(f);
  return path;
}

// Every column of the batch-fit group but `seconds` (wall-clock time).
std::map<std::string, std::vector<double>> columns(const std::string& path) {
  std::map<std::string, std::vector<double>> c;
  for (const auto& d : data::read_results(path, "batch_fit").datasets)
    if (d.name != "seconds") c[d.name] = d.values;
  return c;
}

bool same_bits(const std::map<std::string, std::vector<double>>& a,
               const std::map<std::string, std::vector<double>>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, v] : a) {
    const auto it = b.find(name);
    if (it == b.end() || it->second.size() != v.size()) return false;
    if (!v.empty() && std::memcmp(v.data(), it->second.data(), v.size() * sizeof(double)) != 0) return false;
  }
  return true;
}

class BatchFitCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(test::temp_dir() + "batch_fit/");
    std::system(("mkdir -p " + *dir_).c_str());
    log_ = new std::string(line_log(*dir_));
    std::string out;
    ASSERT_EQ(test::run_cli(fit("one.h5"), &out), 0) << out;
  }
  static std::string fit(const std::string& output, const std::string& more = "") {
    return "identify " + *log_ + " --batch -m simscape-translational --threads 2 --chunk 2 -o " + *dir_ + output + " " +
           more;
  }
  static std::string* dir_;
  static std::string* log_;
};
std::string* BatchFitCli::dir_ = nullptr;
std::string* BatchFitCli::log_ = nullptr;

TEST_F(BatchFitCli, OneRowPerFitWithStatusAndUnits) {
  const data::Results r = data::read_results(*dir_ + "one.h5", "batch_fit");
  std::map<std::string, data::ResultDataset> d;
  for (const auto& x : r.datasets) d[x.name] = x;
  ASSERT_EQ(d.at("status").values.size(), 7u);
  // The engine's point status (4: invalid, not fitted), and how each fit ended.
  EXPECT_EQ(d.at("status").values, (std::vector<double>{0, 0, 0, 0, 0, 4, 4}));
  EXPECT_EQ(d.at("fit_status").values,
            (std::vector<double>{0, 0, 0, 0, 0, static_cast<double>(ident::BatchFitStatus::kBadData),
                                 static_cast<double>(ident::BatchFitStatus::kBadData)}));
  EXPECT_EQ(d.at("experiment").values, (std::vector<double>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(d.at("param_F_C").units, "N");
  EXPECT_EQ(d.at("param_f_v_std_error").units, "N/(m/s)");
  EXPECT_EQ(d.at("rmse").units, "N");
  EXPECT_EQ(d.at("seconds").units, "s");
  EXPECT_NEAR(d.at("param_F_C").values[2], truth(2).at("F_C"), 0.03 * truth(2).at("F_C"));
  EXPECT_NEAR(d.at("param_F_C").values[4], truth(0).at("F_C"), 0.03 * truth(0).at("F_C"));  // unit4 is truth 0
  EXPECT_TRUE(std::isnan(d.at("param_F_C").values[5]));
  EXPECT_EQ(r.attributes.at("model"), "simscape-translational");
  EXPECT_EQ(r.attributes.at("parameters"), "F_brk,v_brk,F_C,f_v");
}

TEST_F(BatchFitCli, ShardsMergedEqualOneRunBitForBit) {
  std::string out;
  ASSERT_EQ(test::run_cli(fit("s0.h5", "--shard 0/2"), &out), 0) << out;
  ASSERT_EQ(test::run_cli(fit("s1.h5", "--shard 1/2"), &out), 0) << out;
  ASSERT_EQ(test::run_cli("merge " + *dir_ + "s1.h5 " + *dir_ + "s0.h5 -o " + *dir_ + "merged.h5", &out), 0) << out;
  EXPECT_NE(out.find("batch-fit shards"), std::string::npos) << out;
  EXPECT_EQ(columns(*dir_ + "s0.h5").at("status").size(), 3u);
  EXPECT_TRUE(same_bits(columns(*dir_ + "merged.h5"), columns(*dir_ + "one.h5")));
  EXPECT_EQ(data::read_text_column(*dir_ + "merged.h5", "batch_fit", "experiment_name"),
            data::read_text_column(*dir_ + "one.h5", "batch_fit", "experiment_name"));
  // A missing shard, or a shard of another batch, is refused.
  EXPECT_EQ(test::run_cli("merge " + *dir_ + "s1.h5 -o " + *dir_ + "m1.h5", &out), 2) << out;
  EXPECT_NE(out.find("a shard is missing"), std::string::npos) << out;
  ASSERT_EQ(test::run_cli(fit("other0.h5", "--shard 0/2 --fix F_C=20"), &out), 0) << out;
  EXPECT_EQ(test::run_cli("merge " + *dir_ + "other0.h5 " + *dir_ + "s1.h5 -o " + *dir_ + "m2.h5", &out), 2) << out;
  EXPECT_NE(out.find("belongs to a different batch"), std::string::npos) << out;
}

// --shard auto: task 1 of a Slurm array of 2 fits shard 1/2 (experiments
// [3, 7) of 7); outside an array task it is refused.
TEST_F(BatchFitCli, ShardAutoIsTheSlurmArrayTasksShard) {
  const char* names[] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
                         "SLURM_ARRAY_TASK_MAX"};
  const char* values[] = {"1", "2", "0", "1"};
  for (int i = 0; i < 4; ++i) setenv(names[i], values[i], 1);
  std::string out;
  const int rc = test::run_cli(fit("auto1.h5", "--shard auto"), &out);
  for (const char* n : names) unsetenv(n);
  ASSERT_EQ(rc, 0) << out;
  const data::Results r = data::read_results(*dir_ + "auto1.h5", "batch_fit");
  EXPECT_EQ(r.attributes.at("shard_index"), "1");
  EXPECT_EQ(r.attributes.at("shard_count"), "2");
  EXPECT_EQ(columns(*dir_ + "auto1.h5").at("experiment"), (std::vector<double>{3, 4, 5, 6}));
  EXPECT_EQ(test::run_cli(fit("auto_none.h5", "--shard auto"), &out), 2);
  EXPECT_NE(out.find("stribeck: error: --shard auto: SLURM_ARRAY_TASK_ID is not set"), std::string::npos) << out;
}

TEST_F(BatchFitCli, StoppedAndResumedEqualsOneRun) {
  std::string out;
  ASSERT_EQ(test::run_cli(fit("r.h5", "--max-chunks 2"), &out), 0) << out;
  EXPECT_NE(out.find("stopped after 4 of 7 fits; continue with --resume"), std::string::npos) << out;
  EXPECT_FALSE(std::ifstream(*dir_ + "r.h5"));
  // A new run does not overwrite the checkpointed work.
  EXPECT_EQ(test::run_cli(fit("r.h5"), &out), 2) << out;
  ASSERT_EQ(test::run_cli(fit("r.h5", "--resume"), &out), 0) << out;
  EXPECT_NE(out.find("bad-data 2"), std::string::npos) << out;  // the totals of both runs
  EXPECT_TRUE(same_bits(columns(*dir_ + "r.h5"), columns(*dir_ + "one.h5")));
  EXPECT_FALSE(std::ifstream(*dir_ + "r.h5.partial"));
  // Another batch's partial file is not continued.
  ASSERT_EQ(test::run_cli(fit("q.h5", "--max-chunks 1"), &out), 0) << out;
  EXPECT_EQ(test::run_cli(fit("q.h5", "--resume --fix F_C=20"), &out), 2) << out;
}

TEST_F(BatchFitCli, KilledAndResumedEqualsOneRun) {
  // SIGKILL wherever it lands once the first checkpoint is out (a fit or an
  // HDF5 write), then --resume until it finishes.
  const std::string out = *dir_ + "k.h5";
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    const std::string log = *log_;
    execl(STRIBECK_CLI, STRIBECK_CLI, "identify", log.c_str(), "--batch", "-m", "simscape-translational", "--threads",
          "1", "--chunk", "1", "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 600 && !std::ifstream(out + ".partial") && !std::ifstream(out); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  std::string text;
  if (std::ifstream(out + ".partial")) ASSERT_EQ(test::run_cli(fit("k.h5", "--resume"), &text), 0) << text;
  EXPECT_FALSE(std::ifstream(out + ".partial"));
  EXPECT_TRUE(same_bits(columns(out), columns(*dir_ + "one.h5")));
}

// mpirun -np 2: a shard per rank, merged by rank 0, equal to one run.
TEST_F(BatchFitCli, TwoMpiRanksEqualOneRun) {
#ifndef STRIBECK_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  const std::string out = *dir_ + "mpi.h5", log = *dir_ + "mpi_log.txt";
  const std::string cmd = std::string(STRIBECK_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " + STRIBECK_CLI +
                          " identify " + *log_ + " --batch -m simscape-translational --threads 1 -o " + out +
                          " --mpi > " + log + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(log);
  const std::string text = slurp(log);
  EXPECT_EQ(text.find("stribeck identify:"), text.rfind("stribeck identify:")) << "summary printed once: " << text;
  EXPECT_NE(text.find("bad-data 2"), std::string::npos) << text;  // both ranks' counts
  EXPECT_TRUE(same_bits(columns(out), columns(*dir_ + "one.h5")));
  EXPECT_FALSE(std::ifstream(out + ".rank0"));
  EXPECT_FALSE(std::ifstream(out + ".rank1"));
  // The engine's MPI driver refuses what --mpi does not combine with, in the
  // ensemble's and the sweep's words, before any fit: no output.
  const std::string bad = std::string(STRIBECK_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 2 " + STRIBECK_CLI +
                          " identify " + *log_ + " --batch -m simscape-translational --threads 1 -o " + *dir_ +
                          "mpi_bad.h5 --mpi ";
  EXPECT_NE(std::system((bad + "--shard 0/2 > " + log + " 2>&1").c_str()), 0);
  EXPECT_NE(slurp(log).find("--mpi splits the space itself; drop --shard"), std::string::npos) << slurp(log);
  EXPECT_NE(std::system((bad + "--max-chunks 1 > " + log + " 2>&1").c_str()), 0);
  EXPECT_NE(slurp(log).find("--mpi does not combine with --resume or --max-chunks; use --shard"), std::string::npos)
      << slurp(log);
  EXPECT_FALSE(std::ifstream(*dir_ + "mpi_bad.h5"));
  EXPECT_FALSE(std::ifstream(*dir_ + "mpi_bad.h5.rank0"));
#endif
}

TEST_F(BatchFitCli, BadInputIsOneLineAndExitTwo) {
  const std::vector<std::string> bad = {
      fit("b1.h5", "--fix F_X=2"),
      fit("b2.h5", "--shard 2/2"),
      fit("b3.h5", "--resume"),
      "identify " + *log_ + " --batch -m simscape-translational --max-chunks 1",
      "identify " + *log_ + " -m simscape-translational --shard 0/2 -o " + *dir_ + "b4.h5",
      "identify " + *dir_ + "missing.h5 --batch -m simscape-translational -o " + *dir_ + "b5.h5"};
  for (const auto& cmd : bad) {
    std::string out;
    EXPECT_EQ(test::run_cli(cmd, &out), 2) << cmd << "\n" << out;
    EXPECT_EQ(out.rfind("stribeck: error: ", 0), 0u) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
  for (const char* f : {"b1.h5", "b2.h5", "b3.h5", "b4.h5", "b5.h5", "b1.h5.partial"})
    EXPECT_FALSE(std::ifstream(*dir_ + f)) << f;
}

TEST_F(BatchFitCli, TableWithoutOutputFileListsBadData) {
  std::string out;
  ASSERT_EQ(
      test::run_cli("identify " + *log_ + " --batch -m simscape-translational -q --table " + *dir_ + "t.csv", &out), 0)
      << out;
  const std::string t = slurp(*dir_ + "t.csv");
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 8) << t;
  EXPECT_NE(t.find(":unit5,simscape-translational,bad-data,false,0,"), std::string::npos) << t;
  EXPECT_NE(t.find(":unit0,simscape-translational,converged,true,2001,"), std::string::npos) << t;
}

// Each fit names its experiment (a text column along `point`), carries its
// 95 % intervals beside value and standard error (as identify's results
// groups: param_NAME, _std_error, _ci95_lo, _ci95_hi) and where it was run
// (the mean of each operating-point channel its experiment has).
TEST_F(BatchFitCli, NamesIntervalsAndOperatingPointsStored) {
  const std::string path = *dir_ + "one.h5";
  EXPECT_EQ(data::read_text_column(path, "batch_fit", "experiment_name"),
            (std::vector<std::string>{"unit0", "unit1", "unit2", "unit3", "unit4", "unit5", "unit6"}));
  const auto c = columns(path);
  const auto &v = c.at("param_F_C"), &lo = c.at("param_F_C_ci95_lo"), &hi = c.at("param_F_C_ci95_hi");
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_LT(lo[i], v[i]) << i;
    EXPECT_GT(hi[i], v[i]) << i;
  }
  for (std::size_t i = 5; i < 7; ++i) EXPECT_TRUE(std::isnan(lo[i]) && std::isnan(hi[i])) << i;  // bad data
  for (const char* ch : {"pressure_a", "pressure_b", "normal_force"}) {
    const auto& m = c.at(std::string("mean_") + ch);
    for (std::size_t i = 0; i < 5; ++i) {
      const data::Experiment e = synthetic(static_cast<int>(i % 4), 60 + i);  // as line_log made it
      if (!e.has(ch)) {
        EXPECT_TRUE(std::isnan(m[i])) << ch << " " << i;
        continue;
      }
      double sum = 0;
      for (double x : e.channel(ch)) sum += x;
      EXPECT_DOUBLE_EQ(m[i], sum / double(e.size())) << ch << " " << i;
    }
  }
  const data::Results r = data::read_results(path, "batch_fit", false);
  EXPECT_EQ(r.attributes.at("format_version"), "2");
  EXPECT_EQ(r.attributes.at("coordinate_names"), "mean_pressure_a,mean_pressure_b,mean_normal_force");
}

// A run killed before a checkpoint made its names durable leaves a partial
// file without them (here: removed by hand); the resumed run writes them.
TEST_F(BatchFitCli, AResumedFileHasEveryName) {
  std::string out;
  ASSERT_EQ(test::run_cli(fit("n.h5", "--max-chunks 1"), &out), 0) << out;
  const std::string partial = *dir_ + "n.h5.partial";
  const hid_t f = H5Fopen(partial.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  EXPECT_GE(H5Ldelete(f, "batch_fit/experiment_name", H5P_DEFAULT), 0);
  H5Fclose(f);
  ASSERT_EQ(test::run_cli(fit("n.h5", "--resume"), &out), 0) << out;
  EXPECT_EQ(data::read_text_column(*dir_ + "n.h5", "batch_fit", "experiment_name"),
            data::read_text_column(*dir_ + "one.h5", "batch_fit", "experiment_name"));
}

// `report` and `map` of a batch fit (they refused it as "not a result
// file"): the page's table names every fit with its status, RMSE and
// intervals, each parameter is drawn over the fits with its interval, and
// map draws a fitted parameter over the operating points that vary.
TEST_F(BatchFitCli, ReportAndMapOfABatchOverItsOperatingPoints) {
  const std::string d = *dir_;
  std::string out;
  for (const char* b : {"0", "10"})
    ASSERT_EQ(
        test::run_cli("generate -m simscape-translational --profile triangle --duration 2 --rate 500 "
                      "--pressure-levels 20bar,40bar,60bar --noise force=0.1 -q --pressure-b " +
                          std::string(b) + "bar --seed " + (b[0] == '0' ? "1" : "2") + " -o " + d + "grid" + b + ".h5",
                      &out),
        0)
        << out;
  const std::string fits = d + "grid_fits.h5";
  ASSERT_EQ(test::run_cli(
                "identify " + d + "grid0.h5 " + d + "grid10.h5 --batch -m simscape-translational -q -o " + fits, &out),
            0)
      << out;

  ASSERT_EQ(test::run_cli("report " + fits + " -o " + d + "grid.html", &out), 0) << out;
  const std::string page = slurp(d + "grid.html");
  EXPECT_NE(page.find("Batch fit: simscape-translational, 6 experiments"), std::string::npos);
  EXPECT_NE(page.find("p40bar"), std::string::npos);
  const report::Document doc = report::read_document(fits);
  EXPECT_EQ(doc.kind, "batch-fit");
  auto figure = [&](const std::string& id) -> const report::Figure* {
    for (const auto& s : doc.sections)
      for (const auto& f : s.figures)
        if (f.id == id) return &f;
    return nullptr;
  };
  const report::Figure* table = figure("fig-fits");
  ASSERT_TRUE(table);
  ASSERT_EQ(table->table.rows.size(), 6u);
  const auto& h = table->table.header;
  const std::size_t fc = std::find(h.begin(), h.end(), "F_C [N]") - h.begin();
  ASSERT_LT(fc, h.size());
  const char* names[] = {"p20bar", "p40bar", "p60bar", "p20bar", "p40bar", "p60bar"};
  for (std::size_t i = 0; i < 6; ++i) {
    const auto& row = table->table.rows[i];
    EXPECT_EQ(row[1], names[i]);
    EXPECT_EQ(row[2], "converged");
    EXPECT_NEAR(std::stod(row[fc]), 20.0, 0.5) << row[fc];        // the generator's F_C
    EXPECT_NE(row[fc].find(" ["), std::string::npos) << row[fc];  // and its interval
  }
  const report::Figure* over = figure("fig-over-F-C");
  ASSERT_TRUE(over);
  EXPECT_EQ(over->x_label, "fit [1]");
  EXPECT_EQ(over->y_label, "F_C [N]");
  ASSERT_EQ(over->series.size(), 3u);  // the values and both ends of their intervals
  ASSERT_EQ(over->series[0].y.size(), 6u);
  ASSERT_EQ(over->series[1].y.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(over->series[0].y[i], 20.0, 0.5);
    EXPECT_LT(over->series[1].y[i], over->series[0].y[i]);
    EXPECT_GT(over->series[2].y[i], over->series[0].y[i]);
  }
  const report::Figure* map = nullptr;
  for (const auto& s : doc.sections)
    for (const auto& f : s.figures)
      if (f.what == "map") map = &f;
  ASSERT_TRUE(map);
  EXPECT_EQ(map->x_label, "mean_pressure_a [Pa]");
  EXPECT_EQ(map->y_label, "mean_pressure_b [Pa]");
  EXPECT_EQ(map->heat.x, (std::vector<double>{2e6, 4e6, 6e6}));
  EXPECT_EQ(map->heat.y, (std::vector<double>{0, 1e6}));
  EXPECT_EQ(std::count_if(map->heat.z.begin(), map->heat.z.end(), [](double z) { return std::isfinite(z); }), 6);

  ASSERT_EQ(test::run_cli("map " + fits + " -m param_F_C -o " + d + "grid_map.csv", &out), 0) << out;
  std::ifstream csv(d + "grid_map.csv");
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "mean_pressure_a [Pa],mean_pressure_b [Pa],param_F_C [N],points");
  int cells = 0;
  while (std::getline(csv, line)) {
    double pa = 0, pb = 0, fc_value = 0;
    int points = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf,%lf,%lf,%d", &pa, &pb, &fc_value, &points), 4) << line;
    EXPECT_TRUE(pa == 2e6 || pa == 4e6 || pa == 6e6) << line;
    EXPECT_TRUE(pb == 0 || pb == 1e6) << line;
    EXPECT_NEAR(fc_value, 20.0, 0.5) << line;
    EXPECT_EQ(points, 1) << line;
    ++cells;
  }
  EXPECT_EQ(cells, 6);

  // Fits without operating points (the line's logs have no pressures):
  // one line saying what a map needs, and no map.
  EXPECT_EQ(test::run_cli("map " + d + "one.h5 -m rmse -o " + d + "none.svg", &out), 2) << out;
  EXPECT_EQ(out.rfind("stribeck: error: ", 0), 0u) << out;
  EXPECT_NE(out.find("a map needs fits that differ in two of them"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_FALSE(std::ifstream(d + "none.svg"));
}

}  // namespace
}  // namespace stribeck
