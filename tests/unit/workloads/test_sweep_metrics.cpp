// Sweep metrics on the CPU path against a plain scalar reference written here
// from the published equations, in long double.
#include <gtest/gtest.h>

#include "temp_dir.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/workloads/sweep.hpp"

namespace stribeck {
namespace {

struct RefTrace {
  std::vector<long double> t, v, pa, pb, x, f;
};

// A two-tone stroke with varying pressures and a "measured" force unrelated
// to any model (so errors do not cancel).
RefTrace make_trace(int n, double f1, double phase) {
  RefTrace r;
  for (int k = 0; k < n; ++k) {
    const long double t = 2.0L * k / (n - 1);
    const long double w = 2 * M_PIl * f1;
    r.t.push_back(t);
    r.v.push_back(0.04L * std::sin(w * t + phase) + 0.01L * std::sin(3 * w * t));
    r.x.push_back(-0.04L / w * std::cos(w * t + phase) - 0.01L / (3 * w) * std::cos(3 * w * t));
    r.pa.push_back(4e6L + 1e6L * std::sin(0.7L * t));
    r.pb.push_back(1e6L + 5e5L * std::cos(1.3L * t));
    r.f.push_back(35.0L * std::tanh(r.v.back() / 0.002L) + 150.0L * r.v.back() + 3.0L * std::sin(17.0L * t));
  }
  return r;
}

std::string write_csv(const RefTrace& r, const std::string& name) {
  const std::string path = stribeck::test::temp_dir() + name;
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fprintf(f, "time,velocity,pressure_a,pressure_b,position,force\n");
  for (size_t k = 0; k < r.t.size(); ++k)
    std::fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", double(r.t[k]), double(r.v[k]), double(r.pa[k]),
                 double(r.pb[k]), double(r.x[k]), double(r.f[k]));
  std::fclose(f);
  return path;
}

// Simscape Fluids Cylinder Friction, from the block documentation.
long double cylinder_force(const double* p, long double v, long double pa, long double pb) {
  const long double F_pr = p[0], f_cfr = p[1], K_brk = p[2], f_vfr = p[3], c_v = p[4], v_th = p[5];
  const long double fc = F_pr + f_cfr * (pa + pb);
  if (std::fabs(v) > v_th) return fc * (1 + (K_brk - 1) * std::exp(-c_v * std::fabs(v))) * (v > 0 ? 1 : -1) + f_vfr * v;
  const long double K = (fc * (1 + (K_brk - 1) * std::exp(-c_v * v_th)) + f_vfr * v_th) / v_th;
  return K * v;
}

// sse, rmse, max err, peak, mean+, mean-, energy, loop area over all traces.
std::vector<long double> reference_metrics(const double* p, const std::vector<RefTrace>& traces) {
  long double sse = 0, maxe = 0, peak = 0, sp = 0, sn = 0, energy = 0, loop = 0;
  long double n = 0, np = 0, nn = 0;
  for (const auto& r : traces) {
    long double fprev = 0, fvprev = 0;
    for (size_t k = 0; k < r.t.size(); ++k) {
      const long double F = cylinder_force(p, r.v[k], r.pa[k], r.pb[k]);
      const long double e = F - r.f[k];
      sse += e * e;
      maxe = std::max(maxe, std::fabs(e));
      peak = std::max(peak, std::fabs(F));
      if (r.v[k] > 0) sp += F, ++np;
      if (r.v[k] < 0) sn += F, ++nn;
      if (k > 0) {
        energy += 0.5L * (fvprev + F * r.v[k]) * (r.t[k] - r.t[k - 1]);
        loop += 0.5L * (fprev + F) * (r.x[k] - r.x[k - 1]);
      }
      fprev = F;
      fvprev = F * r.v[k];
      ++n;
    }
  }
  return {sse, std::sqrt(sse / n), maxe, peak, sp / np, sn / nn, energy, loop};
}

workloads::SweepConfig cylinder_config(const std::vector<std::string>& csvs) {
  workloads::SweepConfig c;
  c.model = "simscape-cylinder";
  c.design = sweep::Design::kSobol;
  c.points = 40;
  c.seed = 3;
  workloads::apply_param_flag(c, "F_pr=uniform:5:60");
  workloads::apply_param_flag(c, "f_cfr=loguniform:1e-7:1e-5");
  workloads::apply_param_flag(c, "K_brk=uniform:1:3");
  workloads::apply_param_flag(c, "f_vfr=uniform:0:400");
  workloads::apply_param_flag(c, "c_v=loguniform:1:200");
  workloads::apply_param_flag(c, "v_th=loguniform:1e-5:1e-3");
  for (const auto& path : csvs) {
    workloads::TraceSource t;
    t.path = path;
    c.traces.push_back(t);
  }
  c.per_experiment = true;
  return c;
}

class SweepMetrics : public ::testing::Test {
 protected:
  void SetUp() override {
    traces_ = {make_trace(1500, 1.0, 0.3), make_trace(700, 2.5, 1.1)};
    csvs_ = {write_csv(traces_[0], "sweep_a.csv"), write_csv(traces_[1], "sweep_b.csv")};
  }
  std::vector<RefTrace> traces_;
  std::vector<std::string> csvs_;
};

void expect_close(double got, long double want, double rel, const std::string& what) {
  EXPECT_LE(std::fabs(static_cast<long double>(got) - want), rel * std::fabs(want) + 1e-300L)
      << what << ": got " << got << " want " << static_cast<double>(want);
}

TEST_F(SweepMetrics, CpuMatchesScalarReferenceInFp64AndFp32) {
  const workloads::SweepPlan plan = workloads::plan_sweep(cylinder_config(csvs_));
  for (workloads::Precision prec : {workloads::Precision::kFp64, workloads::Precision::kFp32}) {
    const double rel = prec == workloads::Precision::kFp64 ? 1e-12 : 1e-4;
    data::SweepChunk c;
    workloads::evaluate_chunk_cpu(plan, prec, 0, plan.count, c);
    for (std::uint64_t j = 0; j < plan.count; ++j) {
      ASSERT_EQ(c.status[j], kSimOk);
      const double* p = &c.params[j * 6];
      const auto ref = reference_metrics(p, traces_);
      for (int m = 0; m < sweep::kNumMetrics; ++m)
        expect_close(c.metrics[j * sweep::kNumMetrics + m], ref[m], rel,
                     std::string(sweep::kMetricInfo[m].name) + " point " + std::to_string(j));
      // Per-experiment metrics are each experiment on its own.
      for (int e = 0; e < 2; ++e) {
        const auto ref_e = reference_metrics(p, {traces_[e]});
        for (int m = 0; m < sweep::kNumMetrics; ++m)
          expect_close(c.exp_metrics[(j * 2 + e) * sweep::kNumMetrics + m], ref_e[m], rel,
                       std::string("experiment ") + std::to_string(e) + " " + sweep::kMetricInfo[m].name);
      }
    }
  }
}

TEST_F(SweepMetrics, ChunkingDoesNotChangeResults) {
  const workloads::SweepPlan plan = workloads::plan_sweep(cylinder_config(csvs_));
  data::SweepChunk all, a, b;
  workloads::evaluate_chunk_cpu(plan, workloads::Precision::kFp64, 0, 40, all);
  workloads::evaluate_chunk_cpu(plan, workloads::Precision::kFp64, 0, 17, a);
  workloads::evaluate_chunk_cpu(plan, workloads::Precision::kFp64, 17, 23, b);
  for (int m = 0; m < 17 * sweep::kNumMetrics; ++m) EXPECT_EQ(all.metrics[m], a.metrics[m]);
  for (int m = 0; m < 23 * sweep::kNumMetrics; ++m) EXPECT_EQ(all.metrics[17 * sweep::kNumMetrics + m], b.metrics[m]);
}

// The eight metrics of one point from its force at every sample of every
// trace (the definitions of docs/sweep.md, in long double).
std::vector<long double> metrics_of_forces(const std::vector<std::vector<long double>>& forces,
                                           const std::vector<RefTrace>& traces) {
  long double sse = 0, maxe = 0, peak = 0, sp = 0, sn = 0, energy = 0, loop = 0, n = 0, np = 0, nn = 0;
  for (size_t e = 0; e < traces.size(); ++e) {
    const RefTrace& r = traces[e];
    for (size_t k = 0; k < r.t.size(); ++k) {
      const long double F = forces[e][k], err = F - r.f[k];
      sse += err * err;
      maxe = std::max(maxe, std::fabs(err));
      peak = std::max(peak, std::fabs(F));
      if (r.v[k] > 0) sp += F, ++np;
      if (r.v[k] < 0) sn += F, ++nn;
      if (k > 0) {
        energy += 0.5L * (forces[e][k - 1] * r.v[k - 1] + F * r.v[k]) * (r.t[k] - r.t[k - 1]);
        loop += 0.5L * (forces[e][k - 1] + F) * (r.x[k] - r.x[k - 1]);
      }
      ++n;
    }
  }
  return {sse, std::sqrt(sse / n), maxe, peak, sp / np, sn / nn, energy, loop};
}

// Force at every sample of a trace for a friction ODE dz/dt = rate(v, z),
// F = out(v, z), integrated in long double with RK4 at `sub` steps per sample
// interval, the velocity linear between samples (as the engine reads a
// trace), z = 0 at the first sample: an independent reference for stateful
// models in the sweep engine.
template <class Rate, class Out>
std::vector<long double> ode_forces(const RefTrace& r, int sub, Rate rate, Out out) {
  std::vector<long double> f{out(r.v[0], 0.0L)};
  long double z = 0;
  for (size_t k = 1; k < r.t.size(); ++k) {
    const long double h = (r.t[k] - r.t[k - 1]) / sub, v0 = r.v[k - 1], dv = (r.v[k] - v0) / sub;
    for (int j = 0; j < sub; ++j) {
      const long double va = v0 + j * dv, vm = va + dv / 2, vb = va + dv;
      const long double k1 = rate(va, z), k2 = rate(vm, z + h / 2 * k1), k3 = rate(vm, z + h / 2 * k2),
                        k4 = rate(vb, z + h * k3);
      z += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    }
    f.push_back(out(r.v[k], z));
  }
  return f;
}

// Stateful models run through the same engine (issue 4 section 2): Dahl,
// whose trace update is exact, to 1e-9 (measured 7e-11, the reference's own
// RK4 error); LuGre, whose bristle stepper is second order in its sub-steps
// (docs/dynamics.md), to 2e-4 (measured worst 3.7e-5 relative over these
// points and metrics; the reference is converged to 1e-9 at 100 sub-steps).
TEST_F(SweepMetrics, StatefulModelsMatchAnOdeReference) {
  struct Case {
    const char* model;
    std::vector<std::string> params;
    double rel;
  };
  const Case cases[] = {
      {"dahl", {"sigma0=list:3e3,2e4", "F_C=list:10,30", "alpha=list:1,2"}, 1e-9},
      {"lugre", {"sigma0=list:1e4,1e5", "F_C=20", "F_s=list:20,30", "v_s=0.005", "sigma1=list:0,100"}, 2e-4},
  };
  for (const Case& cs : cases) {
    workloads::SweepConfig c;
    c.model = cs.model;
    for (const auto& p : cs.params) workloads::apply_param_flag(c, p);
    for (const auto& path : csvs_) {
      workloads::TraceSource t;
      t.path = path;
      c.traces.push_back(t);
    }
    const workloads::SweepPlan plan = workloads::plan_sweep(c);
    ASSERT_EQ(plan.count, 8u);
    data::SweepChunk out;
    workloads::evaluate_chunk_cpu(plan, workloads::Precision::kFp64, 0, plan.count, out);
    const int dims = plan.space.dims;
    for (std::uint64_t j = 0; j < plan.count; ++j) {
      ASSERT_EQ(out.status[j], kSimOk);
      const double* p = &out.params[j * dims];
      std::vector<std::vector<long double>> forces;
      for (const auto& r : traces_) {
        if (std::string(cs.model) == "dahl") {
          const long double s0 = p[0], fc = p[1], alpha = p[2];
          auto sgn = [](long double x) { return (x > 0) - (x < 0); };
          forces.push_back(ode_forces(
              r, 400,
              [&](long double v, long double z) {
                const long double u = 1 - z * sgn(v) / fc;
                return s0 * v * sgn(u) * std::pow(std::fabs(u), alpha);
              },
              [](long double, long double z) { return z; }));
        } else {  // lugre: sigma0 sigma1 sigma2 F_C F_s v_s
          const long double s0 = p[0], s1 = p[1], s2 = p[2], fc = p[3], fs = p[4], vs = p[5];
          auto zdot = [&](long double v, long double z) {
            const long double g = fc + (fs - fc) * std::exp(-(v / vs) * (v / vs));
            return v - s0 * std::fabs(v) * z / g;
          };
          forces.push_back(ode_forces(r, 100, zdot,
                                      [&](long double v, long double z) { return s0 * z + s1 * zdot(v, z) + s2 * v; }));
        }
      }
      const auto ref = metrics_of_forces(forces, traces_);
      for (int m = 0; m < sweep::kNumMetrics; ++m)
        expect_close(out.metrics[j * sweep::kNumMetrics + m], ref[m], cs.rel,
                     std::string(cs.model) + " " + sweep::kMetricInfo[m].name + " point " + std::to_string(j));
    }
  }
}

// Coulomb + viscous along whole sine cycles: the loop area and the energy are
// both F_C * 4A/w + f_v * pi A^2 / w per cycle (v = A sin wt).
TEST(SweepMetricsAnalytic, CoulombViscousEnergyOverFullCycles) {
  workloads::SweepConfig c;
  c.model = "coulomb-viscous";
  workloads::apply_param_flag(c, "F_C=list:10,25");
  workloads::apply_param_flag(c, "f_v=linear:0:300:3");
  workloads::TraceSource t;
  t.kind = workloads::TraceSource::kProfile;
  t.name = "sine";
  t.profile.amplitude = 0.1;
  t.profile.frequency = 2.0;
  t.profile.duration = 1.5;  // three cycles
  t.profile.samples = 200001;
  c.traces.push_back(t);
  const workloads::SweepPlan plan = workloads::plan_sweep(c);
  ASSERT_EQ(plan.count, 6u);
  data::SweepChunk r;
  workloads::evaluate_chunk_cpu(plan, workloads::Precision::kFp64, 0, plan.count, r);
  const double A = 0.1, w = 2 * M_PI * 2.0;
  for (int j = 0; j < 6; ++j) {
    const double fc = r.params[j * 3], fv = r.params[j * 3 + 1];
    const double want = 3 * (fc * 4 * A / w + fv * M_PI * A * A / w);
    EXPECT_NEAR(r.metrics[j * sweep::kNumMetrics + sweep::kEnergy], want, 1e-6 * want) << j;
    EXPECT_NEAR(r.metrics[j * sweep::kNumMetrics + sweep::kLoopArea], want, 1e-6 * want) << j;
    EXPECT_NEAR(r.metrics[j * sweep::kNumMetrics + sweep::kPeakForce], fc + fv * A, 1e-6 * (fc + fv * A)) << j;
    EXPECT_TRUE(std::isnan(r.metrics[j * sweep::kNumMetrics + sweep::kRmse]));  // no measured force
  }
}

TEST(SweepMetricsValidity, InvalidPointsAreCountedNotComputed) {
  workloads::SweepConfig c;
  c.model = "simscape-translational";
  workloads::apply_param_flag(c, "F_brk=list:10,30");
  workloads::apply_param_flag(c, "F_C=list:20,25,40");
  workloads::TraceSource t;
  t.kind = workloads::TraceSource::kProfile;
  t.name = "sine";
  t.profile.samples = 100;
  c.traces.push_back(t);
  const workloads::SweepPlan plan = workloads::plan_sweep(c);
  data::SweepChunk r;
  workloads::evaluate_chunk_cpu(plan, workloads::Precision::kFp64, 0, plan.count, r);
  // F_brk >= F_C holds only for (30, 20) and (30, 25): points 3 and 4.
  for (std::uint64_t j = 0; j < 6; ++j) {
    const bool ok = j == 3 || j == 4;
    EXPECT_EQ(r.status[j], ok ? kSimOk : kSimInvalid) << j;
    EXPECT_EQ(std::isnan(r.metrics[j * sweep::kNumMetrics + sweep::kEnergy]), !ok) << j;
  }
}

}  // namespace
}  // namespace stribeck

namespace stribeck {
namespace {

data::Experiment log_experiment(const std::string& name, const RefTrace& r, bool pressures) {
  data::Experiment e;
  e.name = name;
  auto put = [&](const char* ch, const std::vector<long double>& v, const char* unit) {
    e.channels[ch].assign(v.begin(), v.end());
    e.units[ch] = unit;
  };
  put("time", r.t, "s");
  put("velocity", r.v, "m/s");
  put("position", r.x, "m");
  put("force", r.f, "N");
  if (pressures) {
    put("pressure_a", r.pa, "Pa");
    put("pressure_b", r.pb, "Pa");
  }
  return e;
}

TEST_F(SweepMetrics, TracesFromAnHdf5LogMatchTheReference) {
  const std::string log = stribeck::test::temp_dir() + "sweep_log.h5";
  write_log(log,
            {log_experiment("slow", traces_[0], true), log_experiment("fast", traces_[1], true),
             log_experiment("no_pressure", traces_[1], false)},
            data::Provenance{});
  const std::string cfg_text =
      "model = \"simscape-cylinder\"\n[design]\ntype = \"random\"\npoints = 9\n"
      "[params]\nF_pr = { uniform = [5.0, 60.0] }\n"
      "[[trace]]\nfile = \"" +
      log + "\"\nexperiments = [\"fast\", \"slow\"]\n";
  const workloads::SweepPlan plan = workloads::plan_sweep(workloads::parse_sweep_config(cfg_text, "log.toml"));
  ASSERT_EQ(plan.traces.size(), 2u);
  EXPECT_EQ(plan.traces[0].name, "fast");
  EXPECT_EQ(plan.traces[1].name, "slow");
  data::SweepChunk c;
  workloads::evaluate_chunk_cpu(plan, workloads::Precision::kFp64, 0, plan.count, c);
  for (std::uint64_t j = 0; j < plan.count; ++j) {
    const auto ref = reference_metrics(&c.params[j * 6], {traces_[1], traces_[0]});
    for (int m = 0; m < sweep::kNumMetrics; ++m)
      expect_close(c.metrics[j * sweep::kNumMetrics + m], ref[m], 1e-12, sweep::kMetricInfo[m].name);
  }
  // Every experiment of the log by default: the one without pressures is named.
  try {
    workloads::plan_sweep(workloads::parse_sweep_config(cfg_text.substr(0, cfg_text.find("experiments")), "log.toml"));
    FAIL() << "a log without the pressures the model needs was accepted";
  } catch (const data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'no_pressure' has no channel 'pressure_a'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace stribeck
