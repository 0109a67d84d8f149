// Outputs shared, interrupted, linked and named at the limits (issue 32,
// items 2, 3, 10, 11, 14, 22; docs/reliability.md): appending writers of one
// file take turns (OutputLock), later runs remove what dead writers left,
// a multi-file export is all or nothing, long names keep working, and a
// replaced file keeps its link, owner and mode.
//
// Concurrency is made deterministic by the lock, not by timing: two CLI
// processes are started at once, many rounds, and every round must keep
// every result group. A full disk is RLIMIT_FSIZE in the child (SIGXFSZ
// ignored), as in test_reliability_data.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "child_cli.hpp"
#include "cli_runner.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/text_export.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

namespace fs = std::filesystem;

using test::lines;
using test::slurp;
using test::spit;
using CliRun = test::ChildRun;

std::string case_dir(const std::string& name) { return test::case_dir("out_", name); }

std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

// Starts the CLI with `args` (no shell), stdout to /dev/null, stderr to
// `err_file`; with fsize_bytes > 0 the child may not write files past it;
// with `program`, args[0] is the program to run (setpriv in front of the CLI).
pid_t start_cli(const std::vector<std::string>& args, const std::string& err_file, long fsize_bytes = 0,
                bool program = false) {
  test::ChildSpec spec;
  spec.err = err_file;
  spec.fsize_bytes = fsize_bytes;
  spec.program = program;
  return test::start_cli(args, spec);
}

int wait_cli(pid_t pid) { return test::wait_child(pid).status; }

CliRun run_args(const std::vector<std::string>& args, long fsize_bytes = 0, bool program = false) {
  test::ChildSpec spec;
  spec.err = test::temp_dir() + "outputs_err.txt";
  spec.fsize_bytes = fsize_bytes;
  spec.program = program;
  return test::run_child(args, spec);
}

using test::plateau_log;

// A valid experiment of `n` samples named `name`.
data::Experiment ramp(const std::string& name, size_t n) {
  data::Experiment e;
  e.name = name;
  std::vector<double> t(n), v(n), f(n);
  for (size_t i = 0; i < n; ++i) {
    t[i] = 0.01 * static_cast<double>(i);
    v[i] = 0.001 * static_cast<double>(i % 50) - 0.02;
    f[i] = 100.0 * v[i] + 3.0;
  }
  e.channels = {{"time", t}, {"velocity", v}, {"force", f}};
  e.units = {{"time", "s"}, {"velocity", "m/s"}, {"force", "N"}};
  return e;
}

const std::vector<std::string> kIdentify = {"--model", "simscape-cylinder", "--fix", "v_th=2e-4", "--starts",
                                            "1",       "--max-iterations",  "5",     "-q"};

const std::string kSweep = std::string(STRIBECK_SOURCE_DIR) + "/examples/sweep_translational_sobol.toml";

std::vector<std::string> identify_args(const std::string& log, const std::string& out) {
  std::vector<std::string> a{"identify", log};
  a.insert(a.end(), kIdentify.begin(), kIdentify.end());
  a.insert(a.end(), {"-o", out});
  return a;
}

// ---- item 2: two experiments that map to one file --------------------------

TEST(OutputsCli, ExportRefusesTwoExperimentsThatMapToOneFileBeforeWriting) {
  const std::string d = case_dir("collide");
  const std::string log = d + "log.h5";
  write_log(log, {ramp("a/b", 40), ramp("a_b", 60), ramp("c", 20)}, data::Provenance{});
  const CliRun r = run_args({"export", log, "-o", d + "csv"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("'a/b'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'a_b'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(d + "csv/a_b.csv"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d + "csv")) << "written before the refusal";
  // Each can still be exported on its own.
  EXPECT_EQ(run_args({"export", log, "-e", "a/b", "-o", d + "ab.csv"}).status, 0);
}

// An experiment whose name is too long for a file name (the shapes
// campaign's open case) failed only at the last rename, after the others
// were written: refused before the first write.
TEST(OutputsCli, ExportRefusesAnExperimentNameTooLongForAFileBeforeWriting) {
  const std::string d = case_dir("longname");
  const std::string log = d + "log.h5";
  const std::string longname(300, 'x');
  write_log(log, {ramp("a", 40), ramp(longname, 60)}, data::Provenance{});
  const CliRun r = run_args({"export", log, "-o", d + "csv"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("too long for a file name"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d + "csv")) << "written before the refusal";
  EXPECT_EQ(run_args({"export", log, "-e", longname, "-o", d + "long.csv"}).status, 0);
}

// The directory of a multi-experiment export that cannot be made is named
// with the reason (it was "not a directory").
TEST(OutputsCli, ExportIntoADirectoryThatCannotBeMadeSaysWhy) {
  const std::string d = case_dir("nodir");
  const std::string log = d + "log.h5";
  write_log(log, {ramp("a", 40), ramp("b", 60)}, data::Provenance{});
  const CliRun r = run_args({"export", log, "-o", d + "missing/out"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err,
            "stribeck: error: " + d +
                "missing/out: cannot make the directory for the experiments' files: No such file or directory\n");
  spit(d + "file", "a file");
  const CliRun f = run_args({"export", log, "-o", d + "file"});
  EXPECT_EQ(f.err, "stribeck: error: " + d + "file: not a directory (the log holds several experiments)\n");
}

// ---- item 11: a multi-experiment export is all or nothing ------------------

TEST(OutputsCli, ExportOfSeveralExperimentsThatFailsLeavesNoneOfItsFiles) {
  const std::string d = case_dir("export_full");
  const std::string log = d + "log.h5";
  // Exported in name order: the small one first, so it is complete when the
  // big one hits the limit.
  write_log(log, {ramp("a", 50), ramp("b", 20000)}, data::Provenance{});
  ASSERT_EQ(run_args({"export", log, "-e", "a", "-o", d + "a.csv"}).status, 0);
  ASSERT_EQ(run_args({"export", log, "-e", "b", "-o", d + "b.csv"}).status, 0);
  const long small = static_cast<long>(fs::file_size(d + "a.csv")), big = static_cast<long>(fs::file_size(d + "b.csv"));
  ASSERT_LT(small * 2, big);
  const long limit = small * 2;
  // A new directory: removed again. An existing one: as it was.
  for (const bool existing : {false, true}) {
    SCOPED_TRACE(existing ? "existing directory" : "new directory");
    const std::string out = d + (existing ? "old" : "new");
    if (existing) {
      fs::create_directories(out);
      spit(out + "/keep.txt", "mine");
    }
    const CliRun r = run_args({"export", log, "-o", out}, limit);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("stribeck: error: writing " + out + "/b.csv: file too large", 0), 0u) << r.err;
    if (existing) EXPECT_EQ(names_in(out), (std::set<std::string>{"keep.txt"}));
    else EXPECT_FALSE(fs::exists(out));
  }
  // With room, both.
  const CliRun ok = run_args({"export", log, "-o", d + "all"});
  EXPECT_EQ(ok.status, 0) << ok.err;
  const auto all = names_in(d + "all");
  EXPECT_TRUE(all.count("a.csv") && all.count("b.csv"));
  for (const auto& n : all) EXPECT_EQ(n.find(".tmp."), std::string::npos) << "left " << n;
}

// ---- item 3: appending writers of one file take turns ----------------------

// The results groups of `path` per prefix ("identify_simscape-cylinder").
std::map<std::string, int> groups_by_fit(const std::string& path) {
  std::map<std::string, int> out;
  for (const auto& g : data::list_results(path)) ++out[g.substr(0, g.find('/'))];
  return out;
}

TEST(OutputsCli, TwoIdentifyRunsOnOneFileAtOnceKeepBothResults) {
  const std::string d = case_dir("identify_twice");
  const std::string log = plateau_log(d + "log.h5");
  const std::string err_a = d + "a.err", err_b = d + "b.err";
  constexpr int kRounds = 5;
  // A new results file each round, then the log itself, appended to round
  // after round.
  for (const bool into_log : {false, true}) {
    const std::string logcopy = d + "own.h5";
    if (into_log) fs::copy_file(log, logcopy, fs::copy_options::overwrite_existing);
    for (int round = 0; round < kRounds; ++round) {
      SCOPED_TRACE((into_log ? "into the log, round " : "new file, round ") + std::to_string(round));
      const std::string out = into_log ? logcopy : d + "fits" + std::to_string(round) + ".h5";
      const std::string in = into_log ? logcopy : log;
      const pid_t a = start_cli(identify_args(in, out), err_a);
      const pid_t b = start_cli(identify_args(in, out), err_b);
      EXPECT_EQ(wait_cli(a), 0) << slurp(err_a);
      EXPECT_EQ(wait_cli(b), 0) << slurp(err_b);
      // Every fit so far, each with its three experiments.
      const auto fits = groups_by_fit(out);
      const size_t expected = into_log ? 2 * static_cast<size_t>(round + 1) : 2;
      EXPECT_EQ(fits.size(), expected);
      for (const auto& [prefix, n] : fits) EXPECT_EQ(n, 3) << prefix;
      if (into_log) {  // and the measured data is still there
        std::string text;
        EXPECT_EQ(test::run_cli("export " + logcopy + " -e p40bar -o " + d + "check.csv", &text), 0) << text;
      }
    }
  }
  for (const auto& n : names_in(d)) EXPECT_EQ(n.find(".tmp."), std::string::npos) << n;
}

// ---- item 10: what dead writers left is removed by the next run ------------

TEST(OutputsCli, TemporariesOfDeadWritersAreRemovedByTheNextRunOnTheOutput) {
  const std::string d = case_dir("leftovers");
  const std::string log = plateau_log(d + "log.h5");
  std::string text;
  ASSERT_EQ(test::run_cli("export " + log + " -e p40bar -o " + d + "in.csv", &text), 0) << text;
  struct Case {
    std::string what, out;
    std::vector<std::string> args;
  };
  std::vector<std::string> ident = identify_args(log, log);
  const std::vector<Case> cases = {
      {"eval", d + "eval.csv", {"eval", "-m", "simscape-cylinder", "-i", d + "in.csv", "-o", d + "eval.csv"}},
      {"eval to HDF5",
       d + "eval.h5",
       {"eval", "-m", "simscape-cylinder", "-i", log, "-e", "p40bar", "-o", d + "eval.h5"}},
      {"import", d + "imp.h5", {"import", d + "in.csv", "-o", d + "imp.h5"}},
      {"identify -o LOG", log, ident},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    // What kill -9 leaves: temporaries (one of a name too long for the
    // plain suffix is tested in LongOutputNames...) and the lock file.
    const std::string stem = data::temporary_stem(c.out);
    for (const char* unique : {"Ab12Cd", "zz9XY0"}) spit(stem + unique, "half a result");
    spit(stem + "lock", "");
    spit(d + "unrelated.tmp", "not ours");
    const CliRun r = run_args(c.args);
    EXPECT_EQ(r.status, 0) << r.err;
    for (const auto& n : names_in(d)) EXPECT_EQ(n.find(".tmp."), std::string::npos) << "left " << n;
    EXPECT_TRUE(fs::exists(d + "unrelated.tmp"));
  }
}

// What a run of root left when it was killed (its temporary and its lock
// file) is removed by another user's run on the same output: the lock file
// must be one that user can lock (it was root's 0644, so the other user's
// runs neither locked the output nor removed anything, for good).
TEST(OutputsCli, LeftoversOfAnotherUsersKilledRunAreRemoved) {
  if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs root and setpriv";
  const std::string d = case_dir("other_user");
  const std::string out = d + "out.csv";
  spit(d + "in.csv", "time,velocity\n0,0.1\n0.01,0.2\n");
  // Every directory down to d searchable, d writable, by user 65534.
  for (fs::path p = d; p.has_relative_path() && p != p.root_path(); p = p.parent_path()) {
    if (p.filename().empty()) continue;
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) ::chmod(p.c_str(), st.st_mode | 0011);
  }
  ::chmod(d.c_str(), 0777);
  const pid_t killed = ::fork();
  if (killed == 0) {
    data::AtomicFile f(out);  // as a root run that kill -9 ends: nothing cleaned up
    f.write("half");
    f.close_stream();
    ::_exit(0);
  }
  ASSERT_EQ(wait_cli(killed), 0);
  ASSERT_TRUE(fs::exists(data::temporary_stem(out) + "lock"));
  const CliRun r = run_args({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", STRIBECK_CLI,
                             "eval", "-m", "coulomb-viscous", "-i", d + "in.csv", "-o", out},
                            0, /*program=*/true);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(out));
  for (const auto& n : names_in(d)) EXPECT_EQ(n.find(".tmp."), std::string::npos) << "left " << n;
}

// A living writer's temporary is never touched: a process holding the
// output's lock (an AtomicFile of this test's child) keeps its temporary
// while another run writes the same output.
TEST(OutputsCli, TemporaryOfALivingWriterIsKept) {
  const std::string d = case_dir("living");
  const std::string log = plateau_log(d + "log.h5");
  std::string text;
  ASSERT_EQ(test::run_cli("export " + log + " -e p40bar -o " + d + "in.csv", &text), 0) << text;
  for (const std::string& out : {d + "out.csv", d + "out.h5"}) {
    SCOPED_TRACE(out);
    int to_child[2], to_parent[2];
    ASSERT_EQ(::pipe(to_child), 0);
    ASSERT_EQ(::pipe(to_parent), 0);
    const pid_t child = ::fork();
    if (child == 0) {
      {
        data::AtomicFile f(out);
        f.write("a result in the making");
        const char ready = 'r';
        if (::write(to_parent[1], &ready, 1) != 1) ::_exit(3);
        char go = 0;
        if (::read(to_child[0], &go, 1) != 1) ::_exit(4);
      }
      ::_exit(0);
    }
    char ready = 0;
    ASSERT_EQ(::read(to_parent[0], &ready, 1), 1);
    std::vector<std::string> temps;
    for (const auto& n : names_in(d))
      if (n.find(".tmp.") != std::string::npos && n.find("lock") == std::string::npos) temps.push_back(d + n);
    ASSERT_EQ(temps.size(), 1u);
    const std::vector<std::string> args =
        out.find(".h5") != std::string::npos
            ? std::vector<std::string>{"import", d + "in.csv", "-o", out}
            : std::vector<std::string>{"eval", "-m", "simscape-cylinder", "-i", d + "in.csv", "-o", out};
    const CliRun r = run_args(args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(fs::exists(temps[0])) << "a living writer's temporary was removed";
    const char go = 'g';
    ASSERT_EQ(::write(to_child[1], &go, 1), 1);
    EXPECT_EQ(wait_cli(child), 0);
    for (int fd : {to_child[0], to_child[1], to_parent[0], to_parent[1]}) ::close(fd);
    EXPECT_FALSE(fs::exists(temps[0]));
    for (const auto& n : names_in(d)) EXPECT_EQ(n.find(".tmp."), std::string::npos) << "left " << n;
  }
}

// ---- item 14: names of 245..254 bytes are valid outputs --------------------

TEST(OutputsCli, LongOutputNamesAreWrittenUnderTheirOwnName) {
  const std::string d = case_dir("long");
  const std::string log = plateau_log(d + "log.h5");
  std::string text;
  ASSERT_EQ(test::run_cli("export " + log + " -e p40bar -o " + d + "in.csv", &text), 0) << text;
  for (const size_t length : {245u, 255u}) {
    SCOPED_TRACE(length);
    auto name = [&](const std::string& ext) { return d + std::string(length - ext.size(), 'n') + ext; };
    const std::vector<std::vector<std::string>> runs = {
        {"eval", "-m", "simscape-cylinder", "-i", d + "in.csv", "-o", name(".csv")},
        {"import", d + "in.csv", "-o", name(".h5")},
        {"export", log, "-e", "p10bar", "-o", name(".tsv"), "-f", "tsv"},
        {"generate", "--model", "coulomb-viscous", "--profile", "ramps", "-o", name(".gen.h5")},
        identify_args(log, name(".fit.h5")),
        {"sweep", kSweep, "-q", "-o", name(".sw.h5")},  // streamed: OUT.partial and its lock
    };
    for (const auto& args : runs) {
      const std::string& out = args[std::find(args.begin(), args.end(), "-o") - args.begin() + 1];
      const CliRun r = run_args(args);
      EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
      EXPECT_TRUE(fs::exists(out)) << args[0];
      fs::remove(out);
      if (args[0] == "export") {  // its sidecar, under a name cut with a hash where NAME.json is too long
        EXPECT_TRUE(fs::exists(data::csv_sidecar_path(out)));
        EXPECT_LE(fs::path(data::csv_sidecar_path(out)).filename().string().size(), 255u);
        fs::remove(data::csv_sidecar_path(out));
      }
    }
    // A stopped sweep of such a name is found again by --resume.
    if (length == 255) {
      const std::vector<std::string> stop = {"sweep", kSweep, "-q", "--chunk", "16384", "-o", name(".sw.h5")};
      std::vector<std::string> first = stop, resume = stop;
      first.insert(first.end(), {"--max-chunks", "1"});
      resume.push_back("--resume");
      EXPECT_EQ(run_args(first).status, 0);
      EXPECT_FALSE(fs::exists(name(".sw.h5")));
      const CliRun resumed = run_args(resume);
      EXPECT_EQ(resumed.status, 0) << resumed.err;
      EXPECT_TRUE(fs::exists(name(".sw.h5")));
      fs::remove(name(".sw.h5"));
    }
    // A leftover of a long name is found again by the next run.
    const std::string out = name(".csv");
    const std::string stale = data::temporary_stem(out) + "dead01";
    ASSERT_LE(stale.size() - d.size(), 255u);
    spit(stale, "half");
    EXPECT_EQ(run_args(runs[0]).status, 0);
    EXPECT_FALSE(fs::exists(stale));
    fs::remove(out);
    for (const auto& n : names_in(d)) EXPECT_EQ(n.find(".tmp."), std::string::npos) << "left " << n;
  }
}

// ---- item 22: links, owners and modes survive a replacement ----------------

TEST(OutputsCli, IdentifyIntoASymlinkedLogWritesThroughTheLink) {
  const std::string d = case_dir("symlink");
  fs::create_directories(d + "real");
  const std::string log = plateau_log(d + "real/log.h5");
  const std::string link = d + "link.h5";
  fs::create_symlink("real/log.h5", link);
  const CliRun r = run_args(identify_args(link, link));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced by a copy";
  EXPECT_EQ(groups_by_fit(log).size(), 1u) << "the real log got no results";
  // eval through a link, and a link to a file not made yet.
  std::string text;
  ASSERT_EQ(test::run_cli("export " + log + " -e p40bar -o " + d + "in.csv", &text), 0) << text;
  spit(d + "real/old.csv", "old");
  fs::create_symlink("real/old.csv", d + "old.csv");
  fs::create_symlink("real/new.csv", d + "new.csv");
  for (const char* name : {"old.csv", "new.csv"}) {
    SCOPED_TRACE(name);
    const CliRun e = run_args({"eval", "-m", "simscape-cylinder", "-i", d + "in.csv", "-o", d + name});
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_TRUE(fs::is_symlink(d + name));
    EXPECT_NE(slurp(d + "real/" + name).find("force"), std::string::npos);
  }
  // A sweep's result: the streamed writer's own rename.
  fs::create_symlink("real/sweep.h5", d + "sweep.h5");
  const CliRun s = run_args({"sweep", kSweep, "-q", "-o", d + "sweep.h5"});
  EXPECT_EQ(s.status, 0) << s.err;
  EXPECT_TRUE(fs::is_symlink(d + "sweep.h5"));
  EXPECT_TRUE(fs::is_regular_file(d + "real/sweep.h5"));
  for (const std::string& dir : {d, d + "real/"})
    for (const auto& n : names_in(dir)) EXPECT_EQ(n.find(".tmp."), std::string::npos) << "left " << n;
}

TEST(OutputsCli, ReplacedOutputsKeepTheirOwnerGroupAndMode) {
  const std::string d = case_dir("owner");
  const std::string log = plateau_log(d + "log.h5");
  std::string text;
  ASSERT_EQ(test::run_cli("export " + log + " -e p40bar -o " + d + "in.csv", &text), 0) << text;
  spit(d + "out.csv", "old");
  ASSERT_EQ(run_args({"sweep", kSweep, "-q", "-o", d + "sweep.h5"}).status, 0);
  const std::vector<std::string> files = {log, d + "out.csv", d + "sweep.h5"};
  // Another user's files, where this test may make them so (root).
  const bool root = ::geteuid() == 0;
  const uid_t uid = root ? 65534 : ::geteuid();
  const gid_t gid = root ? 65534 : ::getegid();
  for (const std::string& f : files) {
    ASSERT_EQ(::chmod(f.c_str(), 0640), 0);
    if (root) ASSERT_EQ(::chown(f.c_str(), uid, gid), 0);
  }
  ASSERT_EQ(run_args(identify_args(log, log)).status, 0);
  ASSERT_EQ(run_args({"eval", "-m", "simscape-cylinder", "-i", d + "in.csv", "-o", d + "out.csv"}).status, 0);
  ASSERT_EQ(run_args({"sweep", kSweep, "-q", "-o", d + "sweep.h5"}).status, 0);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    struct stat st {};
    ASSERT_EQ(::stat(f.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(st.st_uid, uid);
    EXPECT_EQ(st.st_gid, gid);
  }
  EXPECT_EQ(groups_by_fit(log).size(), 1u);
}

}  // namespace
}  // namespace stribeck
