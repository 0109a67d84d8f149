// Outputs are checked before a run and never left half-written: a directory,
// a device or pipe, or the run's own config as -o is refused up front; a
// signal removes write-then-rename temporaries; a run that fails before its
// first chunk leaves no OUT.partial to block the next one, while one killed
// there resumes; shard files merge in any order, empty shards included.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "cli_runner.hpp"
#include "stiction_grid.hpp"
#include "temp_dir.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/sweep_file.hpp"
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/simulate.hpp"

namespace stribeck {
namespace {

using test::run_cli;

std::string tmp(const std::string& name) { return test::temp_dir() + "safety_" + name; }
bool exists(const std::string& p) { return static_cast<bool>(std::ifstream(p)); }
// Equal bit for bit (NaN metrics of metrics without a force compare equal).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}
std::string slurp(const std::string& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const char* kSweep =
    "model = \"simscape-translational\"\n[params]\nF_C = { values = [1.0, 2.0] }\n"
    "[[trace]]\nprofile = \"sine\"\nsamples = 16\n";

TEST(OutputSafety, UnusableOutputsAreRefusedBeforeTheRun) {
  const std::string fifo = tmp("fifo"), dir = tmp("dir");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_directory(dir);
  const std::string ens = test::write_stiction_grid(tmp("grid.toml"));
  const std::string sweep = test::write_temp_file("safety_sweep.toml", kSweep);
  const std::string ens_text = slurp(ens), sweep_text = slurp(sweep);
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"simulate " + ens + " -q -o " + dir, dir + ": is a directory"},
      {"simulate " + ens + " -q -o " + fifo, fifo + ": exists and is not a regular file"},
      {"simulate " + ens + " -q -o " + ens, ens + ": is the input " + ens + " of this run"},
      {"sweep " + sweep + " -q -o " + dir, dir + ": is a directory"},
      {"sweep " + sweep + " -q -o " + fifo, fifo + ": exists and is not a regular file"},
      {"sweep " + sweep + " -q -o " + sweep, "is the input"},
  };
  for (const auto& c : cases) {
    std::string text;
    EXPECT_EQ(run_cli(c.args, &text), 2) << c.args;
    EXPECT_NE(text.find(c.expect), std::string::npos) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  }
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));  // not replaced by a result
  EXPECT_EQ(slurp(ens), ens_text);
  EXPECT_EQ(slurp(sweep), sweep_text);
  EXPECT_FALSE(exists(dir + ".partial"));
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  EXPECT_THROW(data::check_output_path(""), data::InputError);
}

TEST(OutputSafety, SignalsRemoveWriteThenRenameTemporaries) {
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string dir = tmp("signal_" + std::to_string(sig));
    std::filesystem::create_directory(dir);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      data::AtomicFile f(dir + "/out.csv");
      std::fputs("half a file", f.stream());
      std::fflush(f.stream());
      std::raise(sig);
      std::_Exit(0);  // not reached: the signal ends the process
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status)) << "the signal must still end the process";
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_TRUE(std::filesystem::is_empty(dir)) << "a temporary was left behind after signal " << sig;
  }
}

// Found by an adversarial run of eval, import, export, generate and identify
// (about 1,040 cases): inputs overwritten by their own output, a FIFO that
// hung, results that were inf, values out of range or of the wrong unit
// taken silently. Each is now one line, and no input changes.
TEST(OutputSafety, OtherCommandsRefuseBeforeTouchingAnything) {
  const std::string log = tmp("log.h5"), csv = tmp("trace.csv"), fifo = tmp("in_fifo");
  std::filesystem::copy_file(std::string(STRIBECK_SOURCE_DIR) + "/data/examples/cylinder_plateaus.h5", log);
  std::filesystem::copy_file(std::string(STRIBECK_SOURCE_DIR) + "/data/examples/sine_trace.csv", csv);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string hot = test::write_temp_file("safety_hot.csv", "velocity,pressure_a,pressure_b\n0.1,1e308,1e308\n");
  const std::string log_text = slurp(log), csv_text = slurp(csv);
  struct Case {
    std::string args;
    int code;
    std::string expect;
  };
  const Case cases[] = {
      {"eval -m simscape-cylinder -i " + log + " -e p10bar -o " + log, 2, "is the input"},
      {"eval -m simscape-cylinder -i " + csv + " -o " + csv, 2, "is the input"},
      {"export " + log + " -e p10bar -o " + log, 2, "is the input"},
      {"import " + csv + " -o " + csv, 2, "is the input"},
      {"identify " + log + " -m coulomb-viscous --json " + log, 2, "is the input"},
      {"identify " + log + " -m coulomb-viscous --json " + tmp("j.json") + " --table " + tmp("j.json"), 2,
       "is named twice"},
      {"identify " + log + " -m simscape-cylinder-il --fix R_brk=0.5", 2,
       "--fix R_brk: parameter R_brk = 0.5 must be >= 1"},
      {"eval -m simscape-cylinder -i " + fifo + " -o " + tmp("o.csv"), 2, "is not a regular file"},
      {"eval -m simscape-cylinder -i " + hot + " -o " + tmp("o.csv"), 2,
       "data row 1: the simscape-cylinder force is inf"},
      {"eval -m simscape-cylinder -p v_th=1e-320 -i " + csv + " -o " + tmp("o.csv"), 2, "is subnormal"},
      {"eval -m simscape-cylinder -i " + csv + " -o -", 2, "standard output is for `stribeck export`"},
      {"generate -m simscape-cylinder --rate 1e7 --duration 100 -o " + tmp("g.h5"), 2,
       "samples per experiment; at most 5e7"},
      {"generate -m simscape-cylinder --vmax 60rpm -o " + tmp("g.h5"), 2,
       "'60rpm' is angular velocity, expected velocity"},
      {"generate -m simscape-cylinder --duration -1 -o " + tmp("g.h5"), 2, "--duration -1: must be > 0"},
      {"generate -m simscape-cylinder --noise position=1N -o " + tmp("g.h5"), 2, "'1N' is force, expected length"},
      {"generate -m simscape-cylinder --seed -1 -o " + tmp("g.h5"), 1, "must be a whole number >= 0"},
      {"import " + csv + " --derive velocity --cutoff -5 -o " + tmp("i.h5"), 2, "--cutoff -5: the cut-off must be"},
      // The second file's name clash used to come after the first file's progress line.
      {"import " + csv + " " + csv + " -o " + tmp("i.h5"), 2, "is already taken by"},
      {"identify " + log + " -m coulomb-viscous --mass nan", 1, "must be a finite mass >= 0"},
      {"identify " + log + " --compare ,", 2, "--compare ',': no model id"},
      {"identify " + log + " -m simscape-cylinder --fix F_pr=1 --free F_pr", 2, "--fix and --free both name F_pr"},
  };
  for (const auto& c : cases) {
    std::string text;
    EXPECT_EQ(run_cli(c.args, &text), c.code) << c.args << "\n" << text;
    EXPECT_NE(text.find(c.expect), std::string::npos) << c.args << "\n" << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  }
  EXPECT_EQ(slurp(log), log_text);
  EXPECT_EQ(slurp(csv), csv_text);
  for (const char* never : {"o.csv", "g.h5", "i.h5", "j.json"}) EXPECT_FALSE(exists(tmp(never))) << never;
  // A spreadsheet's UTF-8 byte-order mark before the header is not part of the first name.
  const std::string bom =
      test::write_temp_file("safety_bom.csv", "\xEF\xBB\xBFvelocity,pressure_a,pressure_b\n0.1,1e5,0\n");
  std::string text;
  ASSERT_EQ(run_cli("eval -m simscape-cylinder -i " + bom + " -o " + tmp("bom_out.csv"), &text), 0) << text;
  EXPECT_EQ(slurp(tmp("bom_out.csv")).rfind("velocity,pressure_a,pressure_b,model_force\n", 0), 0u);
}

// The `start` hook runs once the output is open: a throw there is an error
// before the first chunk. The partial file then holds no work and is removed;
// a copy of it taken at that moment (what a kill would leave) resumes.
TEST(OutputSafety, FailureBeforeTheFirstChunkLeavesNoPartialAndAKillThereResumes) {
  const workloads::SimulateConfig c = workloads::read_simulate_config(test::write_stiction_grid(tmp("early.toml")));
  const std::string out = tmp("early.h5"), one = tmp("early_one.h5"), snapshot = tmp("early_snapshot.h5");
  workloads::EnsembleRunOptions o;
  o.output = out;
  o.start = [&] {
    std::filesystem::copy_file(out + ".partial", snapshot);
    throw std::runtime_error("stopped before the first chunk");
  };
  EXPECT_THROW(workloads::run_ensemble(c, o), std::runtime_error);
  EXPECT_FALSE(exists(out + ".partial"));
  EXPECT_FALSE(exists(out));
  std::filesystem::copy_file(snapshot, out + ".partial");
  o.start = nullptr;
  o.resume = true;
  const workloads::EnsembleResult resumed = workloads::run_ensemble(c, o);
  EXPECT_TRUE(resumed.finished);
  workloads::EnsembleRunOptions plain;
  plain.output = one;
  const workloads::EnsembleResult whole = workloads::run_ensemble(c, plain);
  const data::Results a = data::read_results(out, "ensemble"), b = data::read_results(one, "ensemble");
  ASSERT_EQ(a.datasets.size(), b.datasets.size());
  for (size_t k = 0; k < a.datasets.size(); ++k)
    EXPECT_TRUE(same_bits(a.datasets[k].values, b.datasets[k].values)) << a.datasets[k].name;
  for (int k = 0; k < 5; ++k) EXPECT_EQ(resumed.totals.status_counts[k], whole.totals.status_counts[k]) << k;
}

// More shards than points: some are empty and start where their neighbour
// does. Every argument order merges to the single run.
TEST(OutputSafety, EmptyShardsMergeInAnyOrder) {
  const std::string sweep = test::write_temp_file("safety_sweep_shards.toml", kSweep);
  const std::string ens = test::write_stiction_grid(tmp("ensemble_shards.toml"));  // 12 points
  for (const bool is_sweep : {true, false}) {
    const int n = is_sweep ? 5 : 15;  // 2 and 12 points
    std::vector<std::string> parts;
    for (int i = 0; i < n; ++i) {
      parts.push_back(tmp((is_sweep ? "sw" : "en") + std::to_string(i) + ".h5"));
      std::string text;
      ASSERT_EQ(run_cli(std::string(is_sweep ? "sweep " + sweep : "simulate " + ens) + " -q -o " + parts.back() +
                            " --shard " + std::to_string(i) + "/" + std::to_string(n),
                        &text),
                0)
          << text;
    }
    const std::string one = tmp(is_sweep ? "sw_one.h5" : "en_one.h5");
    ASSERT_EQ(run_cli(std::string(is_sweep ? "sweep " + sweep : "simulate " + ens) + " -q -o " + one), 0);
    for (const bool reversed : {false, true}) {
      std::string args;
      for (int i = 0; i < n; ++i) args += " " + parts[reversed ? n - 1 - i : i];
      const std::string merged = tmp(std::string(is_sweep ? "sw" : "en") + (reversed ? "_rev.h5" : "_fwd.h5"));
      std::string text;
      ASSERT_EQ(run_cli("merge" + args + " -o " + merged, &text), 0) << text;
      if (is_sweep) {
        const data::SweepFile a = data::read_sweep_file(merged), b = data::read_sweep_file(one);
        EXPECT_TRUE(same_bits(a.rows.metrics, b.rows.metrics));
        EXPECT_TRUE(same_bits(a.rows.params, b.rows.params));
        EXPECT_EQ(a.rows.count, 2u);
      } else {
        const data::Results a = data::read_results(merged, "ensemble"), b = data::read_results(one, "ensemble");
        ASSERT_EQ(a.datasets.size(), b.datasets.size());
        for (size_t k = 0; k < a.datasets.size(); ++k)
          EXPECT_TRUE(same_bits(a.datasets[k].values, b.datasets[k].values));
      }
    }
  }
}

}  // namespace
}  // namespace stribeck
