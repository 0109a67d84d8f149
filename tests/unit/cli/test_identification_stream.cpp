// Static fits of HDF5 logs streamed chunk by chunk (stream_fit.hpp): the same
// fit as in memory (chunk boundaries through plateaus and reversals), the
// polish of a long log on every sample, the subsample of the search (slow
// samples and every load level kept), the blocked noise estimate, the CLI's
// --stream with -o written block by block, peak memory that does not grow
// with the log, and the library's decision which fits can stream (plan_stream).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "noise.hpp"
#include "stream_source.hpp"
#include "stribeck/workloads/generator.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/fit_inputs.hpp"
#include "stribeck/identification/stream_fit.hpp"
#include "stribeck/kernels/registry.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

using ident::FitOptions;
using ident::FitSummary;

// Issue 23's simscape-cylinder plateau log (10 and 40 bar).
workloads::GeneratorOptions cylinder(double rate_hz, double duration, double noise, std::uint64_t seed = 7) {
  workloads::GeneratorOptions g;
  g.model = "simscape-cylinder";
  const ModelInfo& m = *find_model(g.model);
  g.params = m.defaults();
  g.params[m.param_index("F_pr")] = 20;
  g.params[m.param_index("f_cfr")] = 2e-5;
  g.params[m.param_index("K_brk")] = 1.6;
  g.params[m.param_index("f_vfr")] = 150;
  g.params[m.param_index("c_v")] = 40;
  g.params[m.param_index("v_th")] = 1e-4;
  g.profile = "plateaus";
  g.rate_hz = rate_hz;
  g.duration = duration;
  g.pressure_levels = {10e5, 40e5};
  if (noise > 0) g.noise["force"] = noise;
  g.seed = seed;
  return g;
}

double truth(const workloads::GeneratorOptions& g, const std::string& name) {
  return g.params[find_model(g.model)->param_index(name)];
}

std::string write_h5(const std::string& name, const std::vector<data::Experiment>& log) {
  const std::string path = test::temp_dir() + name;
  write_log(path, log, data::Provenance{});
  return path;
}

// The log as write_h5 writes it but stored uncompressed (LogBlockWriter at
// deflate level 0: Fletcher-32 chunks, read through HDF5's chunk cache). A
// streamed pass reads each deflated chunk (up to 65536 rows) whole for every
// block it takes from it, so chunks of a few hundred rows from a compressed
// log of 1e4 samples inflate it 50 times a pass: three quarters of this
// file's time, spent in zlib, not in the fit.
std::string write_h5_uncompressed(const std::string& name, const std::vector<data::Experiment>& log) {
  const std::string path = test::temp_dir() + name;
  data::LogBlockWriter w(path, data::Provenance{});
  w.set_deflate_level(0);
  for (const auto& e : log) {
    std::vector<data::BlockColumn> columns;
    std::vector<const double*> values;
    for (const auto& [channel, x] : e.channels) {
      columns.push_back({channel, e.units.at(channel), ""});
      values.push_back(x.data());
    }
    const std::size_t g = w.add_experiment(e.name, columns, e.attributes);
    w.append(g, values.data(), e.size());
  }
  w.commit();
  return path;
}

std::vector<ident::LogStream> streams(const std::string& path, const std::vector<data::Experiment>& log) {
  std::vector<ident::LogStream> s;
  for (const auto& e : log) s.push_back({path, e.name, e.name});
  return s;
}

double rel(double a, double b) {
  if (a == b) return 0.0;
  return std::abs(a - b) / std::max(std::abs(a), std::abs(b));
}

// Every reported number of two fits agrees to `tol` relative.
void expect_same_fit(const FitSummary& a, const FitSummary& b, double tol) {
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  EXPECT_EQ(a.status, b.status);
  for (size_t i = 0; i < a.parameters.size(); ++i) {
    const auto &p = a.parameters[i], &q = b.parameters[i];
    SCOPED_TRACE(p.name);
    EXPECT_EQ(p.name, q.name);
    EXPECT_LE(rel(p.value, q.value), tol) << p.value << " vs " << q.value;
    EXPECT_EQ(p.determined, q.determined);
    EXPECT_EQ(p.interval, q.interval);
    if (std::isfinite(p.std_error) || std::isfinite(q.std_error)) EXPECT_LE(rel(p.std_error, q.std_error), 1e3 * tol);
    if (std::isfinite(p.ci95_lo) || std::isfinite(q.ci95_lo)) EXPECT_LE(rel(p.ci95_lo, q.ci95_lo), tol);
    if (std::isfinite(p.ci95_hi) || std::isfinite(q.ci95_hi)) EXPECT_LE(rel(p.ci95_hi, q.ci95_hi), tol);
  }
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_LE(rel(a.rmse, b.rmse), tol);
  EXPECT_LE(rel(a.r_squared, b.r_squared), tol);
  EXPECT_LE(rel(a.max_abs_error, b.max_abs_error), tol);
  EXPECT_LE(rel(a.autocorrelation_lag1, b.autocorrelation_lag1), tol);
  EXPECT_LE(rel(a.noise_estimate, b.noise_estimate), tol);
  ASSERT_EQ(a.experiments.size(), b.experiments.size());
  for (size_t e = 0; e < a.experiments.size(); ++e) EXPECT_LE(rel(a.experiments[e].rmse, b.experiments[e].rmse), tol);
}

TEST(IdentificationStream, StreamedFitEqualsTheFitInMemory) {
  // 2 x 4 s at 1 kHz, noise 0.5 N; chunks of 3 blocks of 64 samples (21 an
  // experiment, the last one ragged), so chunk boundaries fall inside
  // plateaus, ramps and at reversals.
  const workloads::GeneratorOptions g = cylinder(1000, 4, 0.5);
  const auto log = workloads::generate_log(g);
  const std::string path = write_h5_uncompressed("stream_equal.h5", log);
  struct Case {
    const char* what;
    FitOptions o;
  };
  std::vector<Case> cases(3);
  cases[0].what = "default";
  cases[1].what = "offset, huber loss, block 100";
  cases[1].o.offset = true;
  cases[1].o.loss = "huber:1";
  cases[1].o.block_size = 100;
  cases[2].what = "asymmetric, 1 start";
  cases[2].o.asymmetric = true;
  cases[2].o.starts = 1;
  for (auto& c : cases) {
    SCOPED_TRACE(c.what);
    c.o.fix = {"v_th=1e-4"};
    const FitSummary mem = ident::fit(log, g.model, c.o);
    ident::StreamOptions so;
    so.chunk_rows = 3 * static_cast<size_t>(std::max(16, c.o.block_size)) - 1;  // rounded up to 3 blocks
    std::vector<double> fitted(log[0].size() + log[1].size(), std::nan("")), resid = fitted;
    so.signals = [&](int e, size_t begin, const double* f, const double* r, size_t n) {
      const size_t off = e == 0 ? 0 : log[0].size();
      for (size_t i = 0; i < n; ++i) fitted[off + begin + i] = f[i], resid[off + begin + i] = r[i];
    };
    const FitSummary st = ident::fit_streamed(streams(path, log), g.model, c.o, so);
    SCOPED_TRACE(st.report());
    expect_same_fit(mem, st, 1e-9);
    EXPECT_EQ(mem.starts, st.starts);
    EXPECT_EQ(mem.has_asymmetry_test, st.has_asymmetry_test);
    if (mem.has_asymmetry_test) EXPECT_LE(rel(mem.asymmetry.statistic, st.asymmetry.statistic), 1e-6);
    // The per-sample signals, handed over chunk by chunk, are the in-memory ones.
    for (size_t e = 0, off = 0; e < log.size(); off += log[e].size(), ++e)
      for (size_t i = 0; i < log[e].size(); ++i) {
        ASSERT_NEAR(fitted[off + i], mem.experiments[e].fitted[i], 1e-9 * (1 + std::abs(mem.experiments[e].fitted[i])))
            << "experiment " << e << " sample " << i;
        ASSERT_NEAR(resid[off + i], mem.experiments[e].residual[i],
                    1e-9 * (1 + std::abs(mem.experiments[e].fitted[i])));
      }
    EXPECT_TRUE(st.experiments[0].fitted.empty());
  }
}

// The signals are handed over once per sample even where the quality phase
// runs twice: a log without its slow range (every |v| above 0.04 m/s, where a
// breakaway decaying at c_v = 400 s/m is below 1e-6 N) leaves the breakaway
// open, and the fit is estimated again for the law without one.
TEST(IdentificationStream, SignalsAreHandedOverOncePerSampleWhenTheQualityPhaseRunsAgain) {
  workloads::GeneratorOptions g = cylinder(1000, 10, 0.5);
  g.params[find_model(g.model)->param_index("c_v")] = 400;
  auto log = workloads::generate_log(g);
  double max_abs_velocity = 0;
  for (double x : log[0].channel("velocity")) max_abs_velocity = std::max(max_abs_velocity, std::abs(x));
  for (auto& e : log) {
    const std::vector<double> v = e.channel("velocity");
    for (auto& [name, c] : e.channels) {
      std::vector<double> kept;
      for (size_t i = 0; i < v.size(); ++i)
        if (std::abs(v[i]) > 0.04) kept.push_back(c[i]);
      c = std::move(kept);
    }
  }
  ASSERT_GT(log[0].size(), 1000u) << "max |v| " << max_abs_velocity;
  const std::string path = write_h5("stream_fast_only.h5", log);
  FitOptions o;
  o.fix = {"v_th=1e-4"};
  ident::StreamOptions so;
  so.chunk_rows = 1000;
  std::vector<size_t> rows(log.size(), 0);
  so.signals = [&](int e, size_t, const double*, const double*, size_t n) { rows[e] += n; };
  const FitSummary st = ident::fit_streamed(streams(path, log), "simscape-cylinder", o, so);
  SCOPED_TRACE(st.report());
  bool again = false;
  for (const auto& [name, sec] : st.phase_seconds) again = again || name == "hidden breakaway";
  EXPECT_TRUE(again) << "the case this test is for: estimates run twice";
  for (size_t e = 0; e < log.size(); ++e) EXPECT_EQ(rows[e], log[e].size()) << "experiment " << e;
}

TEST(IdentificationStream, LongLogIsSearchedOnASubsampleAndPolishedOnEverySample) {
  // More samples than the search may hold: the multistart runs on the
  // subsample, the polish on every sample, streamed.
  for (double noise : {0.0, 0.5}) {
    SCOPED_TRACE(noise);
    const workloads::GeneratorOptions g = cylinder(2000, 10, noise, 11);
    const auto log = workloads::generate_log(g);
    const std::string path = write_h5("stream_long_" + std::to_string(noise) + ".h5", log);
    FitOptions o;
    o.fix = {"v_th=1e-4"};
    o.keep_signals = false;
    ident::StreamOptions so;
    so.chunk_rows = 5000;
    so.search_samples = 6000;  // of 40000
    std::vector<ident::FitProgress> progress;
    FitOptions op = o;
    op.progress = [&](const ident::FitProgress& p) { progress.push_back(p); };
    const FitSummary st = ident::fit_streamed(streams(path, log), g.model, op, so);
    SCOPED_TRACE(st.report());
    EXPECT_EQ(st.samples, static_cast<long>(log[0].size() + log[1].size()));
    EXPECT_EQ(st.status, ident::FitStatus::kConverged);
    bool polished = false, iterated = false;
    for (const auto& [name, sec] : st.phase_seconds) polished = polished || name == "polish";
    for (const auto& p : progress) iterated = iterated || (p.phase == "polish" && std::isfinite(p.cost));
    EXPECT_TRUE(polished);
    EXPECT_TRUE(iterated) << "the polish reports its iterations and cost";
    if (noise == 0.0) {
      for (const char* n : {"F_pr", "f_cfr", "K_brk", "f_vfr", "c_v"})
        EXPECT_NEAR(st.param(n).value, truth(g, n), 1e-6 * truth(g, n)) << n;
      EXPECT_LT(st.rmse, 1e-6);
    } else {
      // The same optimum as the fit in memory, whatever subsample found the basin.
      const FitSummary mem = ident::fit(log, g.model, o);
      for (const char* n : {"F_pr", "f_cfr", "K_brk", "f_vfr", "c_v"}) {
        EXPECT_LE(rel(st.param(n).value, mem.param(n).value), 1e-5) << n;
        EXPECT_LE(rel(st.param(n).std_error, mem.param(n).std_error), 1e-3) << n;
        EXPECT_LE(st.param(n).ci95_lo, truth(g, n)) << n;
        EXPECT_GE(st.param(n).ci95_hi, truth(g, n)) << n;
      }
      EXPECT_LE(rel(st.rmse, mem.rmse), 1e-9);
      EXPECT_NEAR(st.noise_estimate, 0.5, 0.02);
    }
  }
}

TEST(IdentificationStream, SubsampleKeepsTheSlowSamplesAndEveryLoadLevel) {
  // Three pressure levels, one of them only 300 samples long, and a sine
  // velocity with a slow stretch at every reversal.
  std::vector<data::Experiment> log;
  const size_t lengths[] = {60000, 300, 60000};
  const double levels[] = {10e5, 25e5, 40e5};
  for (int l = 0; l < 3; ++l) {
    data::Experiment e;
    e.name = "p" + std::to_string(l);
    e.source = "test";
    const size_t n = lengths[l];
    auto& t = e.channels["time"];
    auto& v = e.channels["velocity"];
    auto& f = e.channels["force"];
    auto& p = e.channels["pressure_a"];
    for (size_t i = 0; i < n; ++i) {
      t.push_back(1e-3 * static_cast<double>(i));
      v.push_back(0.1 * std::sin(2 * M_PI * 0.37 * t.back() + l));
      f.push_back(20 * std::tanh(v.back() / 1e-3));
      p.push_back(levels[l] * (1 + 1e-4 * std::sin(0.01 * static_cast<double>(i))));  // a level with ripple
    }
    e.units = {{"time", "s"}, {"velocity", "m/s"}, {"force", "N"}, {"pressure_a", "Pa"}};
    log.push_back(e);
  }
  const std::string path = write_h5("stream_sub.h5", log);
  FitOptions o;
  const ModelInfo& model = *find_model("simscape-cylinder");
  ident::detail::PreparedStream st(streams(path, log), model, o, 4096);
  const long cap = 8000;
  const auto sc = ident::detail::scan_stream(st, {0, 1, 2}, cap);
  ASSERT_FALSE(sc.whole);
  EXPECT_EQ(sc.n, 120300);
  size_t kept = 0;
  for (int l = 0; l < 3; ++l) {
    kept += sc.sample[l].size();
    EXPECT_GE(sc.sample[l].size(), l == 1 ? 100u : 1000u) << "level " << l;
  }
  EXPECT_LE(kept, static_cast<size_t>(cap) * 9 / 16 + 256);
  // The slowest moving samples (a 32nd of the budget) are all kept.
  std::vector<double> speeds;
  for (const auto& e : log)
    for (double v : e.channel("velocity"))
      if (v != 0) speeds.push_back(std::abs(v));
  std::nth_element(speeds.begin(), speeds.begin() + cap / 32, speeds.end());
  const double slow = speeds[cap / 32];
  for (size_t l = 0; l < log.size(); ++l) {
    size_t want = 0, got = 0;
    for (double v : log[l].channel("velocity")) want += v != 0 && std::abs(v) < slow;
    for (double v : sc.sample[l].v) got += v != 0 && std::abs(v) < slow;
    EXPECT_EQ(got, want) << "level " << l;
  }
  // The statistics are those of every sample.
  double fsum = 0, vmin = 1e300;
  for (const auto& e : log)
    for (size_t i = 0; i < e.size(); ++i)
      fsum += e.channel("force")[i], vmin = std::min(vmin, e.channel("velocity")[i]);
  EXPECT_NEAR(sc.fsum, fsum, 1e-9 * std::abs(fsum) + 1e-6);
  EXPECT_EQ(sc.vmin, vmin);
}

TEST(IdentificationStream, BlockedNoiseEstimateIsRobustAndExactForOneBlock) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> nd(0.0, 0.3);
  // One block: exactly noise_estimate.
  {
    ident::detail::Prepared p;
    ident::detail::NoiseAccumulator acc;
    for (int i = 0; i < 20000; ++i) {
      p.y.push_back(5 * std::sin(1e-3 * i) + nd(rng));
      acc.add(p.y.back());
    }
    p.v = p.y;
    EXPECT_EQ(acc.estimate(), ident::detail::noise_estimate({p}, {0}));
  }
  // Many blocks, one of them full of steps: the median ignores it.
  ident::detail::NoiseAccumulator acc;
  const size_t n = 9 * ident::detail::NoiseAccumulator::kNoiseBlock;
  for (size_t i = 0; i < n; ++i) {
    const bool steps =
        i >= 2 * ident::detail::NoiseAccumulator::kNoiseBlock && i < 3 * ident::detail::NoiseAccumulator::kNoiseBlock;
    acc.add((steps && (i / 7) % 2 ? 10.0 : 0.0) + nd(rng));
  }
  EXPECT_NEAR(acc.estimate(), 0.3, 0.3 * 0.01);
}

// Peak RSS [kB] of a child running the CLI with `args`.
long peak_rss_kb(const std::string& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string cmd = std::string(STRIBECK_CLI) + " " + args + " > /dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return ru.ru_maxrss;
}

TEST(IdentificationStream, PlanStreamSaysWhichFitsStreamAndWhyNot) {
  // The decision identify --stream and Python share (fit_inputs.hpp): what
  // streams, under which names, and why a fit is held in memory instead.
  const auto log = workloads::generate_log(cylinder(1000, 4, 0.5));
  const std::string a = write_h5("plan_a.h5", log), b = write_h5("plan_b.h5", log);
  auto omit = cylinder(1000, 4, 0.5);
  omit.omit = {"velocity"};
  const std::string no_v = write_h5("plan_no_v.h5", workloads::generate_log(omit));
  omit.omit = {"acceleration"};
  const std::string no_a = write_h5("plan_no_a.h5", workloads::generate_log(omit));
  const std::string csv = test::temp_dir() + "plan.csv";
  ASSERT_EQ(test::run_cli("export " + a + " -e " + log[0].name + " -o " + csv + " -q"), 0);
  ident::StreamRequest q;
  q.logs = {a};
  q.models = {"simscape-cylinder"};
  const FitOptions o;
  auto why = [&](const ident::StreamRequest& r, const FitOptions& fo = FitOptions{}) {
    const ident::StreamPlan p = ident::plan_stream(r, fo);
    EXPECT_TRUE(p.logs.empty());
    return p.why_not;
  };
  EXPECT_EQ(why(q), "the logs are short");  // auto: 2 x 4001 samples
  q.mode = ident::StreamMode::kAlways;
  const ident::StreamPlan all = ident::plan_stream(q, o);
  ASSERT_EQ(all.logs.size(), log.size());
  for (size_t i = 0; i < log.size(); ++i) {
    EXPECT_EQ(all.logs[i].path, a);
    EXPECT_EQ(all.logs[i].experiment, log[i].name);
    EXPECT_EQ(all.logs[i].name, log[i].name);
  }
  {
    auto two = q;  // an experiment in two logs is named after each file
    two.logs = {a, b};
    two.experiments = {log[1].name};
    const ident::StreamPlan p = ident::plan_stream(two, o);
    ASSERT_EQ(p.logs.size(), 2u);
    EXPECT_EQ(p.logs[0].name, "plan_a:" + log[1].name);
    EXPECT_EQ(p.logs[1].name, "plan_b:" + log[1].name);
    // The same names as the experiments loaded into memory.
    const auto mem = ident::load_fit_experiments(two.logs, two.experiments, {});
    ASSERT_EQ(mem.size(), 2u);
    EXPECT_EQ(mem[0].name, p.logs[0].name);
    EXPECT_EQ(mem[1].name, p.logs[1].name);
    two.experiments = {"nope"};
    EXPECT_THROW(ident::plan_stream(two, o), data::InputError);
    EXPECT_THROW(ident::load_fit_experiments(two.logs, two.experiments, {}), data::InputError);
  }
  auto r = q;
  r.mode = ident::StreamMode::kNever;
  EXPECT_EQ(why(r), "--stream never");
  r = q, r.batch = true;
  EXPECT_EQ(why(r), "--batch fits each experiment in memory");
  r = q, r.converted = true;
  EXPECT_EQ(why(r), "--columns/--gain apply to text and MATLAB logs");
  r = q, r.models = {"simscape-cylinder", "lugre"};
  EXPECT_EQ(why(r), ident::streaming_unsupported("lugre", o));
  EXPECT_FALSE(why(r).empty());
  r = q, r.logs = {a, csv};
  EXPECT_EQ(why(r), csv + " is not an HDF5 log");
  r = q, r.logs = {no_v};
  EXPECT_NE(why(r).find("has no velocity channel (it is derived in memory)"), std::string::npos) << why(r);
  FitOptions inertia;
  inertia.inertia = true;
  r = q, r.logs = {no_a};
  EXPECT_EQ(ident::plan_stream(r, o).logs.size(), log.size());  // needed only with inertia
  EXPECT_NE(why(r, inertia).find("has no acceleration channel"), std::string::npos) << why(r, inertia);
}

TEST(IdentifyStreamCli, PeakMemoryDoesNotGrowWithTheLog) {
  // 2 x 1e5 and 2 x 5e5 samples (plateaus at 10 kHz), fitted streamed: the
  // peak RSS of the larger is within 40 MB of the smaller's (in memory, the
  // 8e5 more samples cost ~250 MB). No breakaway (K_brk = 1) and three free
  // parameters the force is linear in, one start: the passes over the log,
  // not the search or profile intervals, are what this costs.
  const std::string dir = test::temp_dir();
  long rss[2];
  int i = 0;
  for (const char* dur : {"10", "50"}) {
    const std::string log = dir + "rss_" + dur + ".h5";
    ASSERT_EQ(test::run_cli("generate -m simscape-cylinder -p F_pr=20 -p f_cfr=2e-5 -p K_brk=1 -p f_vfr=150 -p c_v=40 "
                            "-p v_th=1e-4 --rate 10000 --duration " +
                            std::string(dur) +
                            " --pressure-levels 10bar,40bar --noise force=0.5 --omit position,acceleration -o " + log),
              0);
    rss[i++] =
        peak_rss_kb("identify " + log +
                    " -m simscape-cylinder --fix v_th=1e-4 --fix K_brk=1 --free F_pr,f_cfr,f_vfr --stream always -q "
                    "--starts 1");
    std::remove(log.c_str());
  }
  ASSERT_GT(rss[0], 0);
  ASSERT_GT(rss[1], 0);
  EXPECT_LT(rss[1], rss[0] + 40 * 1024) << rss[0] << " kB at 2e5 samples, " << rss[1] << " kB at 1e6";
}

TEST(IdentifyStreamCli, OutputIsWrittenBlockByBlockAndEqualsTheInMemoryOne) {
  const workloads::GeneratorOptions g = cylinder(1000, 10, 0.5);
  const auto log = workloads::generate_log(g);
  const std::string path = write_h5("cli_stream.h5", log);
  const std::string dir = test::temp_dir();
  const std::string args = " -m simscape-cylinder --fix v_th=1e-4 -q ";
  std::string out;
  ASSERT_EQ(test::run_cli("identify " + path + args + "--stream always -o " + dir + "s.h5", &out), 0) << out;
  EXPECT_NE(out.find("(streamed)"), std::string::npos) << out;
  ASSERT_EQ(test::run_cli("identify " + path + args + "--stream never -o " + dir + "m.h5", &out), 0) << out;
  for (const auto& e : log) {
    const data::Results s = data::read_results(dir + "s.h5", "identify_simscape-cylinder/" + e.name);
    const data::Results m = data::read_results(dir + "m.h5", "identify_simscape-cylinder/" + e.name);
    // fitted_force, residual and the scalar param_* variables (name order)
    ASSERT_EQ(s.datasets.size(), m.datasets.size());
    EXPECT_EQ(s.attributes.at("status"), m.attributes.at("status"));
    EXPECT_EQ(s.attributes.at("experiment"), e.name);
    EXPECT_EQ(s.attributes.at("converged"), m.attributes.at("converged"));
    for (size_t d = 0; d < s.datasets.size(); ++d) {
      ASSERT_EQ(s.datasets[d].name, m.datasets[d].name);
      const bool series = s.datasets[d].name == "fitted_force" || s.datasets[d].name == "residual";
      ASSERT_EQ(s.datasets[d].values.size(), series ? e.size() : 1u) << s.datasets[d].name;
      for (size_t i = 0; i < s.datasets[d].values.size(); ++i)
        if (!std::isnan(m.datasets[d].values[i]))
          ASSERT_NEAR(s.datasets[d].values[i], m.datasets[d].values[i], 1e-9 * (1 + std::abs(m.datasets[d].values[i])));
    }
  }
  // A streamed fit does not append to an existing file: one error line, exit 2, file untouched.
  const auto before = data::read_results(dir + "s.h5", "identify_simscape-cylinder/" + log[0].name);
  EXPECT_EQ(test::run_cli("identify " + path + args + "--stream always -o " + dir + "s.h5", &out), 2);
  EXPECT_EQ(out.rfind("stribeck: error: ", 0), 0u) << out;
  EXPECT_EQ(data::list_results(dir + "s.h5").size(), 2u);
  // --stream always where streaming cannot work says why.
  EXPECT_EQ(test::run_cli("identify " + path + " -m lugre --stream always", &out), 2);
  EXPECT_NE(out.find("dynamic"), std::string::npos) << out;
}

}  // namespace
}  // namespace stribeck
