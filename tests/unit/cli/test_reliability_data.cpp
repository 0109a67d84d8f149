// Reliability of the data layer under faults and hostile input (issue 21,
// docs/reliability.md): writers that fail cleanly on a full disk, logs never
// edited in place, corrupt and truncated inputs refused naming the object,
// inputs that point to other files refused, checksummed checkpoints.
//
// A full disk is simulated with RLIMIT_FSIZE in the child (SIGXFSZ ignored,
// so write() fails with EFBIG, "file too large"): no root, no tmpfs needed.
// Every case asserts the exit code, that stderr is exactly one line, that no
// temporary file is left, and that files that existed before are unchanged.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "child_cli.hpp"
#include "cli_runner.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/sweep_file.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

namespace fs = std::filesystem;

using test::lines;
using test::same_bits;
using test::slurp;
using test::snapshot;
using test::spit;
using test::words;
using CliRun = test::ChildRun;

std::string case_dir(const std::string& name) { return test::case_dir("rel_", name); }

// Runs the CLI with `args`, stdout to /dev/null, stderr captured; with
// fsize_bytes > 0 the child may not write files past that size.
CliRun run_limited(const std::vector<std::string>& args, long fsize_bytes, const std::string& err_file,
                   const std::map<std::string, std::string>& env = {}) {
  test::ChildSpec spec;
  spec.err = err_file;
  spec.fsize_bytes = fsize_bytes;
  spec.env = env;
  return test::run_child(args, spec);
}

// The full-disk contract for one command: exit 2, one line "stribeck: error:
// writing <out>: file too large", the directory exactly as before (no
// temporary, no partial output, inputs and an old output unchanged).
void expect_clean_disk_full(const std::string& dir, const std::string& args, const std::string& out_name, long limit) {
  const auto before = snapshot(dir);
  const CliRun r = run_limited(words(args), limit, test::temp_dir() + "rel_err.txt");
  EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
  EXPECT_EQ(lines(r.err), 1u) << args << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("stribeck: error: writing " + dir + out_name + ": file too large", 0), 0u) << args << "\n"
                                                                                                   << r.err;
  const auto after = snapshot(dir);
  for (const auto& [name, bytes] : after) {
    EXPECT_TRUE(before.count(name)) << args << ": left " << name;
    if (before.count(name)) {
      EXPECT_TRUE(before.at(name) == bytes) << args << ": changed " << name;
    }
  }
  for (const auto& [name, bytes] : before) EXPECT_TRUE(after.count(name)) << args << ": removed " << name;
}

const std::string kSweepConfig = R"(model = "simscape-cylinder"
[design]
type = "lhs"
points = 60000
seed = 4
[params]
F_pr = { uniform = [0.0, 60.0] }
f_cfr = { loguniform = [1e-7, 1e-5] }
[[trace]]
profile = "sine"
samples = 50
p_a = 5e6
p_b = 1e6
[metrics]
keep = ["rmse", "peak_force", "energy", "loop_area"]
[run]
device = "cpu"
)";

const std::string kEnsembleConfig = R"([system]
mass = 1.0
drive_velocity = 0.1
[friction]
model = "lugre"
[friction.params]
sigma1 = 1.0
sigma2 = 1.0
[simulation]
t_end = 0.2
dt = 1e-3
[ensemble]
design = "grid"
precision = "fp64"
device = "cpu"
[ensemble.params]
stiffness = "log:1:100:150"
drive_velocity = "linear:0.005:0.3:150"
)";

const std::string kSingleConfig = R"([system]
mass = 1.0
stiffness = 2.0
drive_velocity = 0.1
friction_on = "ground"
[friction]
model = "lugre"
[friction.params]
sigma1 = 1.0
sigma2 = 1.0
[simulation]
t_end = 20.0
dt = 1e-3
)";

// A log of three experiments (10, 40 and 80 bar plateaus) made by generate.
std::string make_log(const std::string& dir, const std::string& name = "log.h5") {
  return test::plateau_log(dir + name);
}

// ---- classes 1 and 3: every writer fails cleanly on a full disk ----------

TEST(ReliabilityData, DiskFullGenerateImportExport) {
  const std::string dir = case_dir("gen");
  const std::string log = make_log(dir);
  // generate over an existing output: the old file survives the failure
  expect_clean_disk_full(
      dir, "generate --model simscape-cylinder --profile plateaus --pressure-levels 10bar,40bar -o " + log, "log.h5",
      40000);
  std::string text;
  ASSERT_EQ(test::run_cli("export " + log + " -e p40bar -o " + dir + "p40.csv", &text), 0) << text;
  expect_clean_disk_full(dir, "export " + log + " -e p40bar -o " + dir + "again.csv", "again.csv", 20000);
  expect_clean_disk_full(dir, "import " + dir + "p40.csv -o " + dir + "imported.h5", "imported.h5", 30000);
}

TEST(ReliabilityData, DiskFullSweepAndMerge) {
  const std::string dir = case_dir("sweep");
  const std::string cfg = dir + "sweep.toml";
  spit(cfg, kSweepConfig);
  // A sweep that fails before its first checkpoint leaves no partial file.
  expect_clean_disk_full(dir, "sweep " + cfg + " -q -o " + dir + "out.h5", "out.h5", 100000);
  std::string text;
  ASSERT_EQ(test::run_cli("sweep " + cfg + " -q --shard 0/2 -o " + dir + "s0.h5", &text), 0) << text;
  ASSERT_EQ(test::run_cli("sweep " + cfg + " -q --shard 1/2 -o " + dir + "s1.h5", &text), 0) << text;
  expect_clean_disk_full(dir, "merge " + dir + "s0.h5 " + dir + "s1.h5 -o " + dir + "all.h5", "all.h5", 200000);
  expect_clean_disk_full(dir, "map " + dir + "s0.h5 -m rmse --reduce min -o " + dir + "map.svg", "map.svg", 4000);
}

// Issue 21, item 6: a run that hits a full disk after a checkpoint stops
// before it writes (reserve_space), keeps OUT.partial at that checkpoint,
// says so in one line, and --resume with room completes it to the same
// results as an uninterrupted run: sweeps and ensembles, several limits.
void expect_full_disk_resumes(const std::string& dir, const std::string& run, const std::string& out,
                              const std::vector<long>& limits, const std::function<void()>& compare) {
  int resumed = 0;
  for (long limit : limits) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    std::remove(out.c_str());
    std::remove((out + ".partial").c_str());
    const CliRun r = run_limited(words(run + " -o " + out), limit, test::temp_dir() + "rel_err.txt");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("stribeck: error: writing " + out + ": file too large", 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists(out));
    for (const auto& e : fs::directory_iterator(dir))
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
    if (!fs::exists(out + ".partial")) {
      // The limit came before the first checkpoint: nothing to keep.
      EXPECT_EQ(r.err.find("--resume"), std::string::npos) << r.err;
      continue;
    }
    EXPECT_NE(r.err.find(out + ".partial keeps the completed points; continue with --resume once there is room"),
              std::string::npos)
        << r.err;
    const CliRun again = run_limited(words(run + " --resume -o " + out), 0, test::temp_dir() + "rel_err.txt");
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_FALSE(fs::exists(out + ".partial"));
    compare();
    ++resumed;
  }
  EXPECT_GT(resumed, 0) << "no limit fell after a checkpoint";
}

// Size of OUT.partial after the first chunk of `run` (--max-chunks 1).
long first_chunk_size(const std::string& run, const std::string& out) {
  std::string text;
  EXPECT_EQ(test::run_cli(run + " --max-chunks 1 -o " + out, &text), 0) << text;
  const long size = static_cast<long>(fs::file_size(out + ".partial"));
  std::remove((out + ".partial").c_str());
  return size;
}

TEST(ReliabilityData, DiskFullAfterACheckpointResumesToTheSameResults) {
  const std::string dir = case_dir("sweep_cp");
  const std::string cfg = dir + "sweep.toml";
  std::string big = kSweepConfig;
  big.replace(big.find("points = 60000"), 14, "points = 300000");
  spit(cfg, big);
  const std::string run = "sweep " + cfg + " -q --chunk 65536";
  std::string text;
  ASSERT_EQ(test::run_cli(run + " -o " + dir + "one.h5", &text), 0) << text;
  const data::SweepFile one = data::read_sweep_file(dir + "one.h5");
  // The partial file's size after one chunk: the limits fall before it (no
  // checkpoint yet) and after one and two chunks.
  const long s1 = first_chunk_size(run, dir + "probe.h5");
  expect_full_disk_resumes(dir, run, dir + "out.h5", {s1 / 2, s1 + 1000000, 2 * s1 + 1000000}, [&] {
    const data::SweepFile f = data::read_sweep_file(dir + "out.h5");
    EXPECT_TRUE(f.complete);
    EXPECT_EQ(f.rows.count, 300000u);
    EXPECT_EQ(f.rows.status, one.rows.status);
    EXPECT_TRUE(same_bits(f.rows.params, one.rows.params));
    EXPECT_TRUE(same_bits(f.rows.metrics, one.rows.metrics));
  });

  // 90,000 points: two HDF5 chunks of 65,536 rows, written by chunks of
  // 16,384 points; the second HDF5 chunk does not fit.
  const std::string ens = dir + "ens.toml";
  std::string etext = kEnsembleConfig;
  etext.replace(etext.find("t_end = 0.2"), 11, "t_end = 0.05");
  etext.replace(etext.find("log:1:100:150"), 13, "log:1:100:300");
  etext.replace(etext.find("linear:0.005:0.3:150"), 20, "linear:0.005:0.3:300");
  spit(ens, etext);
  const std::string erun = "simulate " + ens + " -q --chunk 16384";
  ASSERT_EQ(test::run_cli(erun + " -o " + dir + "ens_one.h5", &text), 0) << text;
  const data::Results a = data::read_results(dir + "ens_one.h5", "ensemble");
  const long e1 = first_chunk_size(erun, dir + "probe.h5");
  expect_full_disk_resumes(dir, erun, dir + "ens.h5", {e1 / 2, e1 + 300000}, [&] {
    const data::Results b = data::read_results(dir + "ens.h5", "ensemble");
    ASSERT_EQ(a.datasets.size(), b.datasets.size());
    for (size_t k = 0; k < a.datasets.size(); ++k)
      EXPECT_TRUE(same_bits(a.datasets[k].values, b.datasets[k].values)) << a.datasets[k].name;
  });
}

TEST(ReliabilityData, DiskFullSimulate) {
  const std::string dir = case_dir("sim");
  const std::string single = dir + "single.toml", ens = dir + "ens.toml";
  spit(single, kSingleConfig);
  spit(ens, kEnsembleConfig);
  expect_clean_disk_full(dir, "simulate " + single + " -o " + dir + "run.h5", "run.h5", 100000);
  expect_clean_disk_full(dir, "simulate " + single + " -o " + dir + "run.csv", "run.csv", 100000);
  expect_clean_disk_full(dir, "simulate " + ens + " -q -o " + dir + "map.h5", "map.h5", 60000);
  expect_clean_disk_full(dir, "simulate " + ens + " -q -o " + dir + "map.csv", "map.csv", 60000);
}

// ---- class 2: identify -o LOG never damages the log ------------------------

TEST(ReliabilityData, IdentifyIntoItsOwnLogOnAFullDiskLeavesItByteIdentical) {
  const std::string dir = case_dir("ident");
  const std::string log = make_log(dir);
  const long size = static_cast<long>(fs::file_size(log));
  const std::string args =
      "identify " + log + " --model simscape-cylinder --fix v_th=2e-4 --starts 1 --max-iterations 5 -o " + log;
  // Too small for the copy, and big enough for the copy but not the results.
  for (long limit : {size / 2, size + 4096}) {
    SCOPED_TRACE(limit);
    expect_clean_disk_full(dir, args, "log.h5", limit);
  }
  // With room the results are added and the measured data is unchanged.
  std::string text;
  ASSERT_EQ(test::run_cli("export " + log + " -e p40bar -o " + dir + "before.csv", &text), 0) << text;
  ASSERT_EQ(test::run_cli(args, &text), 0) << text;
  ASSERT_EQ(test::run_cli("export " + log + " -e p40bar -o " + dir + "after.csv", &text), 0) << text;
  EXPECT_TRUE(slurp(dir + "before.csv") == slurp(dir + "after.csv"));
  EXPECT_GT(fs::file_size(log), static_cast<uintmax_t>(size));
}

// ---- class 4 and item 3: corrupt input refused, naming the object ----------

// File offset of the object header of `object` in an HDF5 file.
haddr_t header_address(const std::string& path, const std::string& object) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  H5O_info_t info{};
  const herr_t rc = H5Oget_info_by_name2(f, object.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT);
  H5Fclose(f);
  return rc < 0 ? HADDR_UNDEF : info.addr;
}

TEST(ReliabilityData, DamagedExperimentGroupStopsTheImportNamingIt) {
  const std::string dir = case_dir("damaged");
  const std::string log = make_log(dir);
  const haddr_t at = header_address(log, "p40bar");
  ASSERT_NE(at, HADDR_UNDEF);
  std::string bytes = slurp(log);
  // A v1 object header starts with its version (1) and a reserved 0: both
  // damaged, the group cannot be opened, its link is intact.
  bytes[at] = '\x7f';
  bytes[at + 1] = '\x55';
  spit(log, bytes);
  for (const std::string& cmd : {"import " + log + " -o " + dir + "out.h5", "export " + log + " -o " + dir + "out.csv",
                                 "identify " + log + " --model simscape-cylinder --starts 1 --max-iterations 5"}) {
    const CliRun r = run_limited(words(cmd), 0, test::temp_dir() + "rel_err.txt");
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("stribeck: error: " + log + ": experiment 'p40bar': cannot open (", 0), 0u) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir + "out.h5"));
  EXPECT_FALSE(fs::exists(dir + "out.csv"));
}

TEST(ReliabilityData, TruncatedHdf5LogIsRefusedAsTruncated) {
  const std::string dir = case_dir("trunc");
  const std::string log = make_log(dir);
  const std::string bytes = slurp(log);
  for (size_t keep : {bytes.size() / 2, bytes.size() - 100, size_t(3000)}) {
    spit(dir + "cut.h5", bytes.substr(0, keep));
    const CliRun r =
        run_limited(words("import " + dir + "cut.h5 -o " + dir + "out.h5"), 0, test::temp_dir() + "rel_err.txt");
    EXPECT_EQ(r.status, 2) << keep << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("truncated"), std::string::npos) << keep << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir + "out.h5"));
  }
}

TEST(ReliabilityData, MatV5CutInsideTheLastVariablesTagIsRefused) {
  const std::string dir = case_dir("mat5");
  const std::string seed = slurp(std::string(STRIBECK_SOURCE_DIR) + "/tests/fuzz/corpus/mat/v5_small.mat");
  ASSERT_GT(seed.size(), 128u);
  std::string text;
  spit(dir + "whole.mat", seed);
  const int whole = test::run_cli("import " + dir + "whole.mat -o " + dir + "whole.h5", &text);
  if (whole != 0 && text.find("libmatio") != std::string::npos) GTEST_SKIP() << "built without libmatio";
  ASSERT_EQ(whole, 0) << text;
  // One more variable whose 8-byte tag was cut after 1..7 bytes.
  for (int cut = 1; cut < 8; ++cut) {
    const std::string tag("\x0e\x00\x00\x00\x40\x00\x00\x00", 8);
    spit(dir + "cut.mat", seed + tag.substr(0, static_cast<size_t>(cut)));
    const CliRun r =
        run_limited(words("import " + dir + "cut.mat -o " + dir + "out.h5"), 0, test::temp_dir() + "rel_err.txt");
    EXPECT_EQ(r.status, 2) << cut << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir + "out.h5"));
  }
  // A header without the v5 endian indicator is not handed to libmatio
  // (which would read it as v4 and allocate what its first bytes claim).
  std::string v4ish = seed;
  v4ish[126] = 'x';
  spit(dir + "noendian.mat", v4ish);
  const CliRun r =
      run_limited(words("import " + dir + "noendian.mat -o " + dir + "out.h5"), 0, test::temp_dir() + "rel_err.txt");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("no endian indicator"), std::string::npos) << r.err;
}

TEST(ReliabilityData, LogLockedByAWriterIsReportedAsLocked) {
  const std::string dir = case_dir("locked");
  const std::string log = make_log(dir);
  // This process holds the log open for writing (libhdf5 locks it).
  const hid_t f = H5Fopen(log.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const CliRun r = run_limited(words("import " + log + " -o " + dir + "out.h5"), 0, test::temp_dir() + "rel_err.txt");
  H5Fclose(f);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("locked by another process"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("HDF5_USE_FILE_LOCKING=FALSE"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "out.h5"));
}

// ---- item 11: inputs must not make Stribeck read other files ---------------

TEST(ReliabilityData, ExternalLinksAndExternalStorageAreRefusedUnlessAllowed) {
  const std::string dir = case_dir("external");
  const std::string log = make_log(dir);
  std::string text;
  // A log whose only experiment is an external link into log.h5.
  const std::string linked = dir + "linked.h5";
  {
    const hid_t f = H5Fcreate(linked.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(H5Lcreate_external(log.c_str(), "/p40bar", f, "p40bar", H5P_DEFAULT, H5P_DEFAULT), 0);
    H5Fclose(f);
  }
  // A log whose force channel keeps its samples in another (raw) file.
  const std::string raw = dir + "force.bin", stored = dir + "stored.h5";
  {
    std::vector<double> t(100), force(100, 5.0);
    for (size_t i = 0; i < t.size(); ++i) t[i] = 0.01 * static_cast<double>(i);
    spit(raw, std::string(reinterpret_cast<const char*>(force.data()), force.size() * sizeof(double)));
    const hid_t f = H5Fcreate(stored.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t g = H5Gcreate2(f, "run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t n = t.size();
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t ds_t = H5Dcreate2(g, "time", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds_t, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.data());
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_external(dcpl, raw.c_str(), 0, n * sizeof(double));
    const hid_t ds_f = H5Dcreate2(g, "force", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    for (hid_t ds : {ds_t, ds_f}) {
      const hid_t as = H5Screate(H5S_SCALAR);
      const hid_t ty = H5Tcopy(H5T_C_S1);
      H5Tset_size(ty, ds == ds_t ? 1 : 1);
      const hid_t a = H5Acreate2(ds, "units", ty, as, H5P_DEFAULT, H5P_DEFAULT);
      H5Awrite(a, ty, ds == ds_t ? "s" : "N");
      H5Aclose(a), H5Tclose(ty), H5Sclose(as);
    }
    H5Dclose(ds_f), H5Pclose(dcpl), H5Dclose(ds_t), H5Sclose(space), H5Gclose(g), H5Fclose(f);
  }
  struct Case {
    std::string input, expect;
  };
  for (const Case& c : {Case{linked, "external link"}, Case{stored, "stores its data in other files"}}) {
    const auto before = snapshot(dir);
    const CliRun r =
        run_limited(words("import " + c.input + " -o " + dir + "out.h5"), 0, test::temp_dir() + "rel_err.txt");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("STRIBECK_ALLOW_EXTERNAL_DATA"), std::string::npos) << r.err;
    EXPECT_TRUE(before == snapshot(dir));
    // Allowed explicitly, the same input imports.
    const CliRun ok = run_limited(words("import " + c.input + " -o " + dir + "out.h5"), 0,
                                  test::temp_dir() + "rel_err.txt", {{"STRIBECK_ALLOW_EXTERNAL_DATA", "1"}});
    EXPECT_EQ(ok.status, 0) << ok.err;
    fs::remove(dir + "out.h5");
  }
}

// ---- item 7: checksummed partial results -----------------------------------

// Flips one byte in the middle of the first stored chunk of `dataset`.
bool damage_first_chunk(const std::string& path, const std::string& dataset) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t ds = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  hsize_t offset[2] = {0, 0}, size = 0;
  haddr_t addr = HADDR_UNDEF;
  unsigned mask = 0;
  const herr_t rc = ds < 0 ? -1 : H5Dget_chunk_info_by_coord(ds, offset, &mask, &addr, &size);
  if (ds >= 0) H5Dclose(ds);
  H5Fclose(f);
  if (rc < 0 || addr == HADDR_UNDEF || size < 16) return false;
  std::string bytes = slurp(path);
  bytes[addr + size / 2] = static_cast<char>(bytes[addr + size / 2] ^ 0x10);
  spit(path, bytes);
  return true;
}

TEST(ReliabilityData, DamagedChunkOfAPartialSweepIsRefusedOnResumeNamingIt) {
  const std::string dir = case_dir("cksum_sweep");
  const std::string cfg = dir + "sweep.toml";
  spit(cfg, kSweepConfig);
  std::string text;
  ASSERT_EQ(test::run_cli("sweep " + cfg + " -q --chunk 20000 --max-chunks 2 -o " + dir + "out.h5", &text), 0) << text;
  ASSERT_TRUE(fs::exists(dir + "out.h5.partial"));
  ASSERT_TRUE(damage_first_chunk(dir + "out.h5.partial", "sweep/rmse"));
  const auto before = snapshot(dir);
  const CliRun r = run_limited(words("sweep " + cfg + " -q --chunk 20000 --resume -o " + dir + "out.h5"), 0,
                               test::temp_dir() + "rel_err.txt");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("chunk 0 (rows 0.."), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rmse"), std::string::npos) << r.err;
  EXPECT_TRUE(before == snapshot(dir));
}

TEST(ReliabilityData, DamagedChunkOfAShardIsRefusedByMerge) {
  const std::string dir = case_dir("cksum_merge");
  const std::string cfg = dir + "sweep.toml", ens = dir + "ens.toml";
  spit(cfg, kSweepConfig);
  spit(ens, kEnsembleConfig);
  std::string text;
  ASSERT_EQ(test::run_cli("sweep " + cfg + " -q --shard 0/2 -o " + dir + "s0.h5", &text), 0) << text;
  ASSERT_EQ(test::run_cli("sweep " + cfg + " -q --shard 1/2 -o " + dir + "s1.h5", &text), 0) << text;
  ASSERT_TRUE(damage_first_chunk(dir + "s1.h5", "sweep/energy"));
  ASSERT_EQ(test::run_cli("simulate " + ens + " -q --shard 0/2 -o " + dir + "e0.h5", &text), 0) << text;
  ASSERT_EQ(test::run_cli("simulate " + ens + " -q --shard 1/2 -o " + dir + "e1.h5", &text), 0) << text;
  ASSERT_TRUE(damage_first_chunk(dir + "e0.h5", "ensemble/stiffness"));
  for (const auto& [args, what] : std::vector<std::pair<std::string, std::string>>{
           {"merge " + dir + "s0.h5 " + dir + "s1.h5 -o " + dir + "all.h5", "energy"},
           {"merge " + dir + "e0.h5 " + dir + "e1.h5 -o " + dir + "all.h5", "stiffness"}}) {
    const auto before = snapshot(dir);
    const CliRun r = run_limited(words(args), 0, test::temp_dir() + "rel_err.txt");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("chunk 0 (rows 0.."), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
    EXPECT_TRUE(before == snapshot(dir));
  }
}

}  // namespace
}  // namespace stribeck
