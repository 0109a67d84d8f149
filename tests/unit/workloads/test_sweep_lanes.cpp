// The CPU sweep's SIMD lanes (kernels/sweep/lanes.hpp, workloads/src/lanes/)
// against the one-point-at-a-time path (STRIBECK_CPU_ISA=scalar, the code a
// GPU thread runs, itself checked against long-double references in
// test_sweep_metrics.cpp): every memoryless model, every vector level this
// processor runs, invalid points interleaved with valid ones, batches cut
// short at the end of a chunk, velocities of exactly 0 and inside the smooth
// zones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/workloads/sweep.hpp"
#include "stribeck/kernels/registry.hpp"
#include "temp_dir.hpp"

namespace stribeck {
namespace {

// Sets STRIBECK_CPU_ISA for the lifetime of the object.
class ScopedLevel {
 public:
  explicit ScopedLevel(const std::string& level) {
    const char* old = std::getenv("STRIBECK_CPU_ISA");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("STRIBECK_CPU_ISA", level.c_str(), 1);
  }
  ~ScopedLevel() {
    if (had_) setenv("STRIBECK_CPU_ISA", old_.c_str(), 1);
    else unsetenv("STRIBECK_CPU_ISA");
  }

 private:
  bool had_ = false;
  std::string old_;
};

// Every input channel, a stroke with dwell samples at exactly v = 0 and
// samples inside the linear and tanh zones (|v| of 1e-6), and a force to fit.
std::string write_trace(double* path_length) {
  const std::string file = test::temp_dir() + "lanes_trace.csv";
  std::FILE* f = std::fopen(file.c_str(), "w");
  std::fprintf(f, "time,velocity,pressure_a,pressure_b,normal_force,force\n");
  const int n = 700;  // two full tiles and a partial one
  *path_length = 0;
  for (int k = 0; k < n; ++k) {
    const double t = 0.002 * k;
    double v = 0.05 * std::sin(2 * M_PI * 1.3 * t) + 0.01 * std::sin(2 * M_PI * 4.1 * t);
    if (k % 50 == 7) v = 0.0;
    if (k % 50 == 19) v = (k % 100 < 50 ? 1e-6 : -1e-6);
    const double pa = 3e6 + 1e6 * std::sin(0.9 * t), pb = 1e6 + 4e5 * std::cos(2.1 * t);
    const double fn = 800 + 200 * std::sin(3.3 * t);
    const double force = 40 * std::tanh(v / 0.003) + 120 * v + 2 * std::sin(23 * t);
    std::fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", t, v, pa, pb, fn, force);
    *path_length += std::fabs(v) * 0.002;
  }
  std::fclose(f);
  return file;
}

// Each parameter over [0.5, 1.5] x its default (within its range); relations
// such as F_brk >= F_C then fail for part of the points. v_eps (coulomb-
// viscous) also takes 0, its exact-sign form.
workloads::SweepConfig lanes_config(const ModelInfo& m, const std::string& trace) {
  workloads::SweepConfig c;
  c.model = m.id;
  c.design = sweep::Design::kRandom;
  c.points = 203;  // not a multiple of any batch width
  c.seed = 11;
  char spec[256];
  for (const auto& p : m.params) {
    double lo = p.default_value > 0 ? 0.5 * p.default_value : p.lo;
    double hi = p.default_value > 0 ? 1.5 * p.default_value : p.lo + 1e-3;
    if (lo < p.lo || (p.lo_open && lo <= p.lo)) lo = p.lo_open ? p.lo + 1e-3 * (hi - p.lo) : p.lo;
    if (hi > p.hi) hi = p.hi;
    if (std::string(p.name) == "v_eps") std::snprintf(spec, sizeof spec, "%s=list:0,%.17g", p.name, hi);
    else std::snprintf(spec, sizeof spec, "%s=uniform:%.17g:%.17g", p.name, lo, hi);
    workloads::apply_param_flag(c, spec);
  }
  workloads::TraceSource t;
  t.path = trace;
  c.traces.push_back(t);
  return c;
}

data::SweepChunk run_at(const std::string& level, const workloads::SweepPlan& plan, workloads::Precision prec,
                        std::uint64_t first, std::uint64_t count) {
  ScopedLevel scoped(level);
  data::SweepChunk c;
  workloads::evaluate_chunk_cpu(plan, prec, first, count, c);
  return c;
}

class CpuLanes : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuLanes, EveryVectorLevelMatchesOnePointAtATime) {
  const ModelInfo& m = *find_model(GetParam());
  double path = 0;
  const workloads::SweepPlan plan = workloads::plan_sweep(lanes_config(m, write_trace(&path)));
  const std::uint64_t n = plan.count;
  const data::SweepChunk ref = run_at("scalar", plan, workloads::Precision::kFp64, 0, n);
  int invalid = 0;
  for (std::uint64_t j = 0; j < n; ++j) invalid += ref.status[j] == kSimInvalid;
  if (!m.relations.empty()) EXPECT_GT(invalid, 0) << "the space should mix invalid points in";
  EXPECT_LT(invalid, static_cast<int>(n));

  for (const std::string& level : workloads::cpu_vector_levels()) {
    if (level == "scalar") continue;
    SCOPED_TRACE("level " + level);
    for (workloads::Precision prec : {workloads::Precision::kFp64, workloads::Precision::kFp32}) {
      // FP64: the vector exp/tanh are within 4 ulp of the scalar ones, so the
      // sums agree to the GPU/CPU standard. FP32 against the FP64 reference:
      // the documented FP32 error.
      const double rel = prec == workloads::Precision::kFp64 ? 1e-12 : 1e-4;
      const data::SweepChunk got = run_at(level, plan, prec, 0, n);
      ASSERT_EQ(got.status, ref.status);
      ASSERT_EQ(got.params, ref.params);
      for (std::uint64_t j = 0; j < n; ++j) {
        if (ref.status[j] != kSimOk) {
          for (int k = 0; k < sweep::kNumMetrics; ++k) EXPECT_TRUE(std::isnan(got.metrics[j * sweep::kNumMetrics + k]));
          continue;
        }
        const double* want = &ref.metrics[j * sweep::kNumMetrics];
        const double* have = &got.metrics[j * sweep::kNumMetrics];
        for (int k = 0; k < sweep::kNumMetrics; ++k) {
          // Integrals of F can cancel towards 0: their scale is peak force x path.
          const double scale = k == sweep::kEnergy || k == sweep::kLoopArea ? want[sweep::kPeakForce] * path
                               : k == sweep::kSse                           ? want[k]
                                                                            : want[sweep::kPeakForce];
          EXPECT_LE(std::fabs(have[k] - want[k]), rel * (std::fabs(want[k]) + scale))
              << sweep::kMetricInfo[k].name << " of point " << j
              << (prec == workloads::Precision::kFp32 ? " fp32" : " fp64") << ": " << have[k] << " vs " << want[k];
        }
      }
      // A point's result does not depend on the batch it shares: cut the
      // chunk where batches do not line up and compare bit for bit.
      const data::SweepChunk a = run_at(level, plan, prec, 0, 37), b = run_at(level, plan, prec, 37, n - 37);
      for (std::uint64_t j = 0; j < n; ++j)
        for (int k = 0; k < sweep::kNumMetrics; ++k) {
          const double x = got.metrics[j * sweep::kNumMetrics + k];
          const double y =
              j < 37 ? a.metrics[j * sweep::kNumMetrics + k] : b.metrics[(j - 37) * sweep::kNumMetrics + k];
          EXPECT_TRUE(x == y || (std::isnan(x) && std::isnan(y))) << "point " << j << " metric " << k;
        }
    }
  }
}

std::vector<std::string> static_model_ids() {
  std::vector<std::string> ids;
  for (const auto& m : all_models())
    if (!m.dynamic) ids.push_back(m.id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(StaticModels, CpuLanes, ::testing::ValuesIn(static_model_ids()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string s = i.param;
                           for (char& ch : s)
                             if (ch == '-') ch = '_';
                           return s;
                         });

TEST(CpuLanesLevel, UnknownOrUnsupportedLevelIsNamed) {
  const std::vector<std::string> levels = workloads::cpu_vector_levels();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.back(), "scalar");
  {
    ScopedLevel scoped("generic");
    EXPECT_EQ(workloads::cpu_vector_level(), "generic");
  }
  ScopedLevel scoped("avx9000");
  try {
    workloads::cpu_vector_level();
    FAIL() << "an unknown level was accepted";
  } catch (const data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("STRIBECK_CPU_ISA=avx9000: expected one of"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace stribeck
