// GPU path against the CPU path on the same sweeps. Skipped (not failed)
// where no usable CUDA device exists or the build has no CUDA; run on the
// block emulator by stribeck_gpu_emu_tests, whose small device splits every
// sweep into several sub-chunks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/sweep_run.hpp"

namespace stribeck {
namespace {

bool gpu_usable() {
  try {
    return workloads::choose_device("gpu").gpu;
  } catch (const data::InputError&) {
    return false;
  }
}

workloads::SweepConfig config_for(const std::string& model, const std::vector<std::string>& params, bool per_exp,
                                  std::uint64_t points = 5000, sweep::Design design = sweep::Design::kSobol) {
  workloads::SweepConfig c;
  c.model = model;
  c.design = design;
  c.points = design == sweep::Design::kGrid ? 0 : points;  // not a multiple of the block size: exercises the tail
  c.seed = 11;
  for (const auto& p : params) workloads::apply_param_flag(c, p);
  for (int e = 0; e < 2; ++e) {
    workloads::TraceSource t;
    t.kind = workloads::TraceSource::kProfile;
    t.name = "sine" + std::to_string(e);
    t.profile.amplitude = 0.05 + 0.1 * e;
    t.profile.frequency = 1.0 + e;
    t.profile.samples = 1000 + 333 * e;  // partial last tile
    t.profile.p_a = 5e6;
    t.profile.p_b = 1e6;
    t.profile.f_n = 800;
    // A measured force for the cost metrics: the model's defaults plus noise.
    const ModelInfo& m = workloads::require_model(model);
    t.profile.reference = {std::string(m.params[0].name) + "=" + format_number(m.params[0].default_value)};
    t.profile.noise = 0.3;
    c.traces.push_back(t);
  }
  c.per_experiment = per_exp;
  return c;
}

void expect_agree(const workloads::SweepPlan& plan, const data::SweepChunk& gpu, const data::SweepChunk& cpu,
                  double rel, const std::string& what) {
  ASSERT_EQ(gpu.count, cpu.count);
  ASSERT_EQ(gpu.status, cpu.status) << what;
  // The index -> point mapping: bit-identical for fixed, list and linear
  // axes; log axes go through the device's exp/log (1 ulp each), hence 1e-14
  // of the value. A normal draw is mean + sd * z with z from the device's
  // log/sqrt/cos: its few ulp are ulp of the axis' scale (|mean| + sd |z|),
  // not of a value that cancels to near zero (on an H200: f_v =
  // normal:100:60 drew 0.1759, 2e-14 apart, 1 ulp of 100).
  ASSERT_EQ(gpu.params.size(), cpu.params.size()) << what;
  const int dims = plan.space.dims;
  for (size_t i = 0; i < cpu.params.size(); ++i) {
    const sweep::Axis& axis = plan.space.axis[i % dims];
    if (axis.kind == sweep::AxisKind::kLog || axis.kind == sweep::AxisKind::kLogUniform)
      ASSERT_NEAR(gpu.params[i], cpu.params[i], 1e-14 * std::fabs(cpu.params[i])) << what << " parameter " << i;
    else if (axis.kind == sweep::AxisKind::kNormal)
      ASSERT_NEAR(gpu.params[i], cpu.params[i], 1e-14 * (std::fabs(axis.a) + std::fabs(cpu.params[i] - axis.a)))
          << what << " parameter " << i;
    else ASSERT_EQ(gpu.params[i], cpu.params[i]) << what << " parameter " << i;
  }
  auto close = [&](const std::vector<double>& a, const std::vector<double>& b, const char* kind) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(b[i])) {
        EXPECT_TRUE(std::isnan(a[i])) << what << " " << kind << " " << i;
        continue;
      }
      EXPECT_LE(std::fabs(a[i] - b[i]), rel * std::fabs(b[i]) + 1e-300)
          << what << " " << kind << " " << i << " (" << sweep::kMetricInfo[i % sweep::kNumMetrics].name << ")";
    }
  };
  close(gpu.metrics, cpu.metrics, "metrics");
  close(gpu.exp_metrics, cpu.exp_metrics, "per-experiment metrics");
}

struct Case {
  const char* model;
  std::vector<std::string> params;
  std::uint64_t points = 5000;
  double fp32 = 1e-4;  // FP32 against FP64, relative
  sweep::Design design = sweep::Design::kSobol;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.model; }

constexpr auto kGrid = sweep::Design::kGrid;
constexpr auto kRandom = sweep::Design::kRandom;
constexpr auto kLatin = sweep::Design::kLatinHypercube;

class SweepGpu : public ::testing::TestWithParam<Case> {};

TEST_P(SweepGpu, AgreesWithCpu) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU";
  const Case& k = GetParam();
  const workloads::SweepPlan plan = workloads::plan_sweep(config_for(k.model, k.params, true, k.points, k.design));
  ASSERT_GT(plan.count, 2 * 128u) << "the case spans fewer than three blocks";
  data::SweepChunk cpu64, gpu64, gpu32;
  workloads::evaluate_chunk_cpu(plan, workloads::Precision::kFp64, 0, plan.count, cpu64);
  workloads::evaluate_chunk_gpu(plan, workloads::Precision::kFp64, 0, plan.count, gpu64);
  workloads::evaluate_chunk_gpu(plan, workloads::Precision::kFp32, 0, plan.count, gpu32);
  expect_agree(plan, gpu64, cpu64, 1e-12, std::string(k.model) + " fp64");
  expect_agree(plan, gpu32, cpu64, k.fp32, std::string(k.model) + " fp32");
}

INSTANTIATE_TEST_SUITE_P(
    Models, SweepGpu,
    ::testing::Values(
        Case{"simscape-cylinder",
             {"F_pr=uniform:5:60", "f_cfr=loguniform:1e-7:1e-5", "K_brk=uniform:1:3", "c_v=loguniform:1:100",
              "v_th=loguniform:1e-5:1e-3"}},
        Case{"simscape-translational",
             {"F_brk=uniform:10:60", "F_C=uniform:5:40", "v_brk=loguniform:1e-3:1e-1", "f_v=uniform:0:300"}},
        Case{"20sim-scvs", {"mu_s=uniform:0.1:0.3", "mu_c=uniform:0.05:0.2", "v_st=loguniform:1e-3:1e-1"}},
        Case{"coulomb-viscous", {"F_C=uniform:5:40", "f_v=uniform:0:300", "v_eps=list:0,0.001"}},
        // Models with memory: the state carried across tiles and experiments.
        Case{"lugre", {"sigma0=loguniform:1e4:1e6", "F_C=uniform:0.5:2", "F_s=uniform:1:3"}, 1500, 1e-3},
        Case{"dahl", {"sigma0=loguniform:1e4:1e6", "F_C=uniform:0.5:2", "alpha=uniform:0.5:2"}, 1500, 1e-3},
        // GMS: N element states, the fractions and the attraction varied.
        Case{"gms3",
             {"sigma0=loguniform:1e4:1e6", "C=loguniform:1e-3:1e-1", "kf_1=uniform:0.2:0.8", "af_2=uniform:0.2:0.8"},
             600,
             1e-3},
        // The other laws of issue 33: every element count, the elasto-plastic
        // bristle, the free exponent (exact sign and smoothed), each direction.
        Case{"gms1", {"sigma0=loguniform:1e4:1e6", "C=loguniform:1e-3:1e-1", "delta=uniform:0.5:3"}, 600, 1e-3},
        Case{"gms2", {"sigma0=loguniform:1e4:1e6", "kf_1=uniform:0.2:0.8", "af_1=uniform:0.2:0.8"}, 600, 1e-3},
        Case{"gms4", {"sigma0=loguniform:1e4:1e6", "kf_3=uniform:0.2:0.8", "af_2=uniform:0.2:0.8"}, 400, 1e-3},
        Case{"elastoplastic", {"sigma0=loguniform:1e4:1e6", "r_ba=uniform:0:0.9", "F_s=uniform:1.5:3"}, 1500, 1e-3},
        Case{"stribeck-delta",
             {"F_s=uniform:20:40", "v_s=loguniform:1e-3:1e-1", "delta=uniform:0.5:3", "v_eps=list:0,0.001"}},
        Case{"stribeck-asymmetric",
             {"F_C_neg=uniform:5:20", "v_s_neg=loguniform:1e-3:1e-1", "f_v_pos=uniform:0:300", "delta=uniform:0.5:3"},
             3001,
             1e-4,
             kRandom},
        // Every other model, and every design: a grid over list, linear and
        // log axes (9 x 3 x 7 x 5 = 945 points, the last block partial),
        // independent random draws with a truncated normal, a Latin hypercube.
        Case{"simscape-rotational",
             {"T_brk=linear:10:60:9", "T_C=list:5,20,40", "w_brk=log:1e-3:1e-1:7", "f_v=linear:0:300:5"},
             0,
             1e-4,
             kGrid},
        Case{"simscape-cylinder-il",
             {"F_pr=uniform:5:60", "f_cfr=loguniform:1e-7:1e-5", "R_brk=uniform:1:3", "v_brk=loguniform:1e-3:1e-1",
              "f_v=normal:100:60:0:300"},
             3001,
             1e-4,
             kRandom},
        Case{"20sim-c", {"mu_c=uniform:0.05:0.3", "slope=loguniform:100:1e5"}, 2000, 1e-4, kLatin},
        Case{"20sim-v", {"mu_v=loguniform:1e-3:1"}, 700, 1e-4, kRandom},
        Case{"20sim-cv", {"mu_c=linear:0.05:0.3:11", "mu_v=list:0,0.01,0.1", "slope=log:100:1e5:9"}, 0, 1e-4, kGrid},
        Case{"20sim-lugre",
             {"mu_c=uniform:0.05:0.15", "mu_s=uniform:0.1:0.3", "v_st=loguniform:1e-3:1e-1",
              "sigma0=loguniform:1e3:1e5"},
             1200,
             1e-3,
             kLatin}),
    [](const ::testing::TestParamInfo<Case>& i) {
      std::string n = i.param.model;
      for (auto& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(SweepGpuRun, ChunkedRunEqualsOneChunkAndKeepsTopK) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU";
  const workloads::SweepConfig c = config_for("simscape-cylinder", {"F_pr=uniform:5:60", "K_brk=uniform:1:3"}, false);
  const workloads::SweepPlan plan = workloads::plan_sweep(c);
  workloads::SweepRunOptions a, b;
  a.device = b.device = "gpu";
  a.chunk = 777;
  const workloads::SweepSummary sa = workloads::run_sweep(plan, c, a), sb = workloads::run_sweep(plan, c, b);
  ASSERT_EQ(sa.top.size(), sb.top.size());
  for (size_t r = 0; r < sa.top.size(); ++r) {
    EXPECT_EQ(sa.top[r].index, sb.top[r].index);
    EXPECT_EQ(sa.top[r].objective, sb.top[r].objective);
  }
}

TEST(SweepGpuRun, TopKOnlyModeEqualsCpuTopKAndCounts) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU";
  // simscape-translational over F_brk < F_C too: invalid points must be counted on the device.
  workloads::SweepConfig c = config_for(
      "simscape-translational", {"F_brk=uniform:10:60", "F_C=uniform:5:40", "v_brk=loguniform:1e-3:1e-1"}, false);
  c.keep_top_k_only = true;
  c.top_k = 25;
  const workloads::SweepPlan plan = workloads::plan_sweep(c);
  workloads::SweepRunOptions gpu, cpu;
  gpu.device = "gpu";
  gpu.chunk = 1500;  // several host chunks
  cpu.device = "cpu";
  const workloads::SweepSummary g = workloads::run_sweep(plan, c, gpu), h = workloads::run_sweep(plan, c, cpu);
  EXPECT_EQ(g.invalid, h.invalid);
  EXPECT_GT(h.invalid, 0u);
  EXPECT_EQ(g.nonfinite, h.nonfinite);
  EXPECT_EQ(g.invalid_examples, h.invalid_examples);
  ASSERT_EQ(g.top.size(), h.top.size());
  for (size_t r = 0; r < g.top.size(); ++r) {
    EXPECT_EQ(g.top[r].index, h.top[r].index) << r;
    EXPECT_NEAR(g.top[r].objective, h.top[r].objective, 1e-12 * std::fabs(h.top[r].objective)) << r;
  }
}

// A K above the points ranked: the device picks every ranked point of each
// sub-chunk (min(K, ranked), the ranked count from CUB's histogram of the
// point classes), so the top-K holds every valid point, as on the CPU, and
// the invalid ones (F_brk < F_C) are counted, never picked.
TEST(SweepGpuRun, TopKAboveTheRankedPointsKeepsThemAll) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU";
  // 6 x 8 x 6 = 288 points: three blocks, the last one partial.
  workloads::SweepConfig c =
      config_for("simscape-translational", {"F_brk=linear:10:60:6", "F_C=linear:5:40:8", "v_brk=log:1e-3:1e-1:6"},
                 false, 0, sweep::Design::kGrid);
  c.keep_top_k_only = true;
  c.top_k = 1000;
  const workloads::SweepPlan plan = workloads::plan_sweep(c);
  ASSERT_EQ(plan.count, 288u);
  workloads::SweepRunOptions gpu, cpu;
  gpu.device = "gpu";
  gpu.chunk = 100;  // several host chunks
  cpu.device = "cpu";
  const workloads::SweepSummary g = workloads::run_sweep(plan, c, gpu), h = workloads::run_sweep(plan, c, cpu);
  EXPECT_GT(h.invalid, 0u);
  EXPECT_EQ(g.invalid, h.invalid);
  EXPECT_EQ(g.nonfinite, h.nonfinite);
  EXPECT_EQ(g.ok, h.ok);
  ASSERT_EQ(g.top.size(), h.top.size());
  EXPECT_EQ(h.top.size(), h.ok);
  for (size_t r = 0; r < g.top.size(); ++r) EXPECT_EQ(g.top[r].index, h.top[r].index) << r;
}

// Exact ties of the objective (repeated list values give identical points):
// the device's partial selection keeps the CPU's order, ties by the smaller
// index, across host chunks and device sub-chunks.
TEST(SweepGpuRun, TopKTiesKeepTheCpuOrder) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU";
  // 7 x 5 x 8 = 280 points: three blocks, the last one partial.
  workloads::SweepConfig c = config_for("coulomb-viscous",
                                        {"F_C=list:10,20,10,10,30,20,10", "f_v=list:50,0,50,100,50",
                                         "v_eps=list:0.001,0.001,0.002,0.001,0.001,0.002,0.001,0.001"},
                                        false);
  c.design = sweep::Design::kGrid;
  c.points = 0;
  c.keep_top_k_only = true;
  c.top_k = 9;
  const workloads::SweepPlan plan = workloads::plan_sweep(c);
  ASSERT_GT(plan.count, 128u);
  workloads::SweepRunOptions gpu, cpu;
  gpu.device = "gpu";
  gpu.chunk = 61;
  cpu.device = "cpu";
  for (bool maximize : {false, true}) {
    c.maximize = maximize;
    const workloads::SweepPlan p = workloads::plan_sweep(c);
    const workloads::SweepSummary g = workloads::run_sweep(p, c, gpu), h = workloads::run_sweep(p, c, cpu);
    ASSERT_EQ(g.top.size(), h.top.size());
    ASSERT_EQ(h.top.size(), 9u);
    int ties = 0;
    for (size_t r = 0; r < g.top.size(); ++r) {
      EXPECT_EQ(g.top[r].index, h.top[r].index) << r;
      // The same point's objective: FP64 agreement (1e-12; nvcc contracts
      // a * b + c into FMAs, so the last bits differ). The ties are exact
      // within each device: identical points, identical arithmetic.
      EXPECT_NEAR(g.top[r].objective, h.top[r].objective, 1e-12 * std::fabs(h.top[r].objective)) << r;
      if (r > 0 && h.top[r].objective == h.top[r - 1].objective) {
        EXPECT_EQ(g.top[r].objective, g.top[r - 1].objective) << r;
        ++ties;
      }
    }
    EXPECT_GT(ties, 0) << "the case holds no tie";
  }
}

// The device's top-K (top-K only mode: selected on the device in each
// sub-chunk, merged across chunks) is exactly the K best rows of the same
// device's full run, picked here by a plain sort (objective, ties by the
// smaller index), in FP64 and FP32, minimising and maximising; invalid
// points (F_brk < F_C) are never picked. 1250 points in host chunks of 375
// (the last one ragged), each split into at least two device sub-chunks
// (sub_chunk_points), so the K best are merged across both.
TEST(SweepGpuRun, DeviceTopKIsTheBestRowsOfTheFullRun) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU";
  workloads::SweepConfig c = config_for(
      "simscape-translational", {"F_brk=uniform:10:60", "F_C=uniform:5:40", "v_brk=loguniform:1e-3:1e-1"}, false, 1250);
  c.keep_top_k_only = true;
  c.top_k = 25;
  for (workloads::Precision precision : {workloads::Precision::kFp64, workloads::Precision::kFp32}) {
    for (bool maximize : {false, true}) {
      c.maximize = maximize;
      const workloads::SweepPlan plan = workloads::plan_sweep(c);
      data::SweepChunk rows;
      workloads::evaluate_chunk_gpu(plan, precision, 0, plan.count, rows);
      auto objective = [&](std::uint64_t j) { return rows.metrics[j * sweep::kNumMetrics + plan.objective]; };
      const double sign = maximize ? -1.0 : 1.0;
      std::vector<std::uint64_t> best;
      for (std::uint64_t j = 0; j < plan.count; ++j)
        if (rows.status[j] == kSimOk && !std::isnan(objective(j))) best.push_back(j);
      ASSERT_LT(best.size(), plan.count);
      std::sort(best.begin(), best.end(), [&](std::uint64_t a, std::uint64_t b) {
        return sign * objective(a) != sign * objective(b) ? sign * objective(a) < sign * objective(b) : a < b;
      });
      best.resize(25);
      workloads::SweepRunOptions o;
      o.device = "gpu";
      o.precision = precision;
      o.chunk = 375;  // several host chunks
      const workloads::SweepSummary s = workloads::run_sweep(plan, c, o);
      const std::string what = std::string(precision == workloads::Precision::kFp32 ? "fp32" : "fp64") +
                               (maximize ? " maximize" : " minimize");
      ASSERT_EQ(s.top.size(), best.size()) << what;
      for (size_t r = 0; r < best.size(); ++r) {
        EXPECT_EQ(s.top[r].index, best[r]) << what << " " << r;
        EXPECT_EQ(s.top[r].objective, objective(best[r])) << what << " " << r;
      }
    }
  }
}

}  // namespace
}  // namespace stribeck
