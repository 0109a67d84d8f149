// The CPU ensemble's SIMD lanes (kernels/systems/ensemble_lanes.hpp) against
// the scalar path they replace (ensemble_point, one trajectory per thread):
// every level this processor runs (STRIBECK_CPU_ISA) against
// STRIBECK_CPU_ISA=scalar, point by point, for every friction model, FP64 and
// FP32, several drives, group sizes that leave lanes empty, trajectories that
// stop (step limit, non-finite state) at different times in different lanes,
// per-lane sub-steps, and points the lanes leave to the scalar path.
//
// Bounds: the lanes compute the scalar path's expressions in the same order;
// only exp (and tanh) are the vector library's (libmvec, within 4 ulp of the
// scalar ones). FP64: every floating metric within 1e-12 of the scalar one,
// relative to the larger of its own magnitude and its column's largest
// (docs/dynamics.md); integers (status, steps, mode, stick-slip) equal. FP32:
// the same with 2e-3 (a few float ulp of exp per stage over thousands of
// steps), status equal, RK4 step counts within 2e-3 (a sub-step count
// rounds a float rate up).
#include <gtest/gtest.h>

#include "temp_dir.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/sweep.hpp"
#include "stribeck/kernels/integrators/status.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck {
namespace {

using stribeck::test::write_temp_file;

// Sets STRIBECK_CPU_ISA for the scope (unset: the best level).
class IsaScope {
 public:
  explicit IsaScope(const std::string& level) {
    const char* old = std::getenv("STRIBECK_CPU_ISA");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("STRIBECK_CPU_ISA", level.c_str(), 1);
  }
  ~IsaScope() {
    if (had_) setenv("STRIBECK_CPU_ISA", old_.c_str(), 1);
    else unsetenv("STRIBECK_CPU_ISA");
  }

 private:
  bool had_ = false;
  std::string old_;
};

workloads::EnsembleResult run_at(const std::string& level, const workloads::SimulateConfig& c) {
  IsaScope isa(level);
  return workloads::run_ensemble(c);
}

std::vector<std::string> vector_levels() {
  std::vector<std::string> v;
  for (const auto& l : workloads::cpu_vector_levels())
    if (l != "scalar") v.push_back(l);
  return v;
}

struct Compared {
  int lane_points = 0;  // points whose status is not invalid
  int statuses[kSimInvalid + 1] = {};
  long long fewest_steps = -1;  // fewest RK4 steps of those points on the scalar path (-1: none)
  double worst = 0;             // largest relative difference seen
};

// Every level against the scalar path, point by point.
Compared expect_lanes_equal_scalar(const std::string& text, double rel, const std::string& what) {
  const workloads::SimulateConfig c = workloads::read_simulate_config(write_temp_file("lanes.toml", text));
  const workloads::EnsembleResult want = run_at("scalar", c);
  Compared out;
  for (const auto& m : want.metrics) {
    ++out.statuses[m.status];
    if (m.status == kSimInvalid) continue;
    ++out.lane_points;
    const long long steps = m.steps;
    if (out.fewest_steps < 0 || steps < out.fewest_steps) out.fewest_steps = steps;
  }
  const auto levels = vector_levels();
  EXPECT_FALSE(levels.empty());
  for (const std::string& level : levels) {
    const workloads::EnsembleResult have = run_at(level, c);
    SCOPED_TRACE(what + " at " + level);
    EXPECT_EQ(have.values, want.values);
    EXPECT_EQ(have.metrics.size(), want.metrics.size());
    if (have.metrics.size() != want.metrics.size()) return out;
    const bool fp64 = rel <= 1e-9;
    if (fp64) EXPECT_EQ(have.rk4_steps, want.rk4_steps);
    // Each floating column's scale: its largest magnitude over the points.
    auto floats = [](const StickSlipMetrics<double>& m) {
      return std::vector<double>{m.stick_fraction, m.amp_spring_force, m.amp_velocity, m.period,  m.breakaway_force,
                                 m.peak_velocity,  m.dissipated,       m.final_s,      m.final_v, m.final_z};
    };
    std::vector<double> scale(10, 0.0);
    for (const auto& m : want.metrics) {
      const auto f = floats(m);
      for (size_t k = 0; k < f.size(); ++k)
        if (std::isfinite(f[k])) scale[k] = std::max(scale[k], std::abs(f[k]));
    }
    for (size_t i = 0; i < want.metrics.size(); ++i) {
      const auto& a = have.metrics[i];
      const auto& b = want.metrics[i];
      SCOPED_TRACE("point " + std::to_string(i));
      EXPECT_EQ(a.status, b.status);
      if (fp64) {
        EXPECT_EQ(a.steps, b.steps);
        EXPECT_EQ(a.final_mode, b.final_mode);
        EXPECT_EQ(a.stick_slip, b.stick_slip);
      } else {
        // FP32: a sub-step count rounds up a float rate, which moves with it
        EXPECT_LE(std::abs(static_cast<double>(a.steps - b.steps)), rel * static_cast<double>(b.steps));
      }
      const auto fa = floats(a), fb = floats(b);
      for (size_t k = 0; k < fa.size(); ++k) {
        if (std::isnan(fb[k])) {
          EXPECT_TRUE(std::isnan(fa[k])) << "column " << k;
          continue;
        }
        const double d = std::abs(fa[k] - fb[k]), s = std::max(std::abs(fb[k]), scale[k]);
        if (s > 0) out.worst = std::max(out.worst, d / s);
        EXPECT_LE(d, rel * s) << "column " << k << ": " << fa[k] << " vs " << fb[k];
      }
    }
  }
  return out;
}

std::string rig(const std::string& model, const std::string& precision, const std::string& extra_system,
                const std::string& params, const std::string& sim, const std::string& axes) {
  return "[system]\nmass = 1.0\n" + extra_system + "\n[friction]\nmodel = \"" + model + "\"\n" + params +
         "\n[simulation]\n" + sim + "\n[ensemble]\nprecision = \"" + precision + "\"\ndevice = \"cpu\"\n" +
         "[ensemble.params]\n" + axes + "\n";
}

double tolerance(const std::string& precision) { return precision == "fp64" ? 1e-12 : 2e-3; }

// Every model (static laws in the smooth form), both precisions: a spring
// pulled at constant speed with normal force and chamber pressures for the
// laws that read them, 4 x 5 = 20 points (no multiple of any lane width).
// The chamber forces balance (50 N each way) but for a ramp of 20 N/s, so the
// body creeps or breaks away and slides at up to 0.9 m/s: the models with
// memory sub-step their bristles by a different count in each lane (1.4e3 to
// 1.2e5 RK4 steps a point), the static laws run near v = 0 where they are
// steep (600 to 1.6e4). (A net 150 N flung the body to 45 m/s, where the
// bristles took ~600 sub-steps an output step: 3e5 RK4 steps a point, most of
// the test's time.) Sign-smoothing velocities that default to an exact sign
// (v_eps = 0 of coulomb-viscous, stribeck-delta, stribeck-asymmetric) are
// set to 1 mm/s: the smooth form of an exact sign stops with step-limit at
// step 0, which would compare nothing. Every point must integrate to t_end.
TEST(EnsembleLanes, EveryModelEqualsTheScalarPath) {
  for (const ModelInfo& m : all_models()) {
    std::string params;
    for (const ParamInfo& p : m.params)
      if (p.role == ParamRole::kSmoothing && p.default_value == 0) params += std::string(p.name) + " = 1e-3\n";
    if (!params.empty()) params = "[friction.params]\n" + params;
    for (const std::string prec : {"fp64", "fp32"}) {
      const std::string text =
          rig(m.id, prec,
              "normal_force = 20.0\narea_a = 1e-3\narea_b = 5e-4\npressure_a = { offset = 0.5e5, slope = 2e4 }\n"
              "pressure_b = 1e5",
              params, "t_end = 0.3\ndt = 5e-4", "stiffness = \"linear:1:60:4\"\ndrive_velocity = \"log:0.003:0.1:5\"");
      const Compared c = expect_lanes_equal_scalar(text, tolerance(prec), m.id + " " + prec);
      EXPECT_EQ(c.lane_points, 20) << m.id << " " << prec;
      EXPECT_EQ(c.statuses[kSimOk], 20) << m.id << " " << prec << ": every point runs to t_end";
      EXPECT_GE(c.fewest_steps, 600) << m.id << " " << prec << ": at least one RK4 step per output step";
    }
  }
}

// Friction against the drive, a force ramp, an initial velocity and
// elongation, damping: the drive and mechanics every lane reads.
TEST(EnsembleLanes, DriveProfilesEqualTheScalarPath) {
  for (const std::string prec : {"fp64", "fp32"}) {
    for (const std::string model : {"lugre", "dahl", "simscape-translational"}) {
      const std::string text =
          rig(model, prec,
              "friction_on = \"drive\"\ndamping = 0.5\nexternal_force = { offset = 0.2, "
              "slope = -0.5 }\ninitial_velocity = 0.05\ninitial_elongation = 0.01",
              "", "t_end = 0.5\ndt = 2.5e-4", "stiffness = \"list:3,10,30\"\ndrive_velocity = \"linear:-0.2:0.2:6\"");
      expect_lanes_equal_scalar(text, tolerance(prec), model + " on the drive, " + prec);
    }
  }
}

// Lanes that stop at different times: coulomb-viscous with an exact sign in
// the smooth form reaches its step limit when its velocity first crosses 0,
// which depends on the point, smoothed points (v_eps > 0) run on; a huge
// initial velocity overflows the dissipation (non-finite) in some lanes.
TEST(EnsembleLanes, LanesStoppingAtDifferentTimesEqualTheScalarPath) {
  for (const std::string prec : {"fp64", "fp32"}) {
    const std::string text = rig("coulomb-viscous", prec, "", "[friction.params]\nF_C = 1.0\nf_v = 0.2",
                                 "t_end = 1.0\ndt = 1e-3\nmax_substeps = 64",
                                 "stiffness = \"linear:2:40:5\"\nv_eps = \"list:0,0.001,0.01\"\n"
                                 "drive_velocity = \"list:0.05,0.2\"");
    const Compared c = expect_lanes_equal_scalar(text, tolerance(prec), "step limits " + prec);
    EXPECT_GT(c.statuses[kSimStepLimit], 0);
    EXPECT_GT(c.statuses[kSimOk], 0);
    const std::string huge = rig("lugre", prec, "", "", "t_end = 0.2\ndt = 1e-3",
                                 std::string("initial_velocity = \"list:0.1,") + (prec == "fp64" ? "1e200" : "1e30") +
                                     ",-0.2,1e3\"\nstiffness = \"list:1,5,9\"");
    const Compared h = expect_lanes_equal_scalar(huge, tolerance(prec), "non-finite " + prec);
    EXPECT_GT(h.statuses[kSimNonFinite] + h.statuses[kSimStepLimit], 0);
    EXPECT_GT(h.statuses[kSimOk], 0);
  }
}

// Points the lanes do not run go through the scalar path inside the same
// groups: invalid parameter sets (F_s < F_C; Dahl with alpha < 1), the
// stiction form, sine drives (not affine), and a single point.
TEST(EnsembleLanes, PointsLeftToTheScalarPathAreUnchanged) {
  const Compared inv =
      expect_lanes_equal_scalar(rig("lugre", "fp64", "stiffness = 10.0", "", "t_end = 1.0\ndt = 5e-4",
                                    "F_s = \"list:0.5,1.5,3\"\ndrive_velocity = \"linear:0.01:0.3:13\""),
                                1e-12, "invalid lugre");
  EXPECT_GT(inv.statuses[kSimInvalid], 0);
  EXPECT_GT(inv.lane_points, 0);
  const Compared dahl =
      expect_lanes_equal_scalar(rig("dahl", "fp64", "stiffness = 10.0", "", "t_end = 1.0\ndt = 5e-4",
                                    "alpha = \"list:0.5,1,2\"\ndrive_velocity = \"linear:0.01:0.3:11\""),
                                1e-12, "dahl alpha");
  EXPECT_GT(dahl.statuses[kSimInvalid], 0);
  expect_lanes_equal_scalar(
      rig("coulomb-viscous", "fp64", "",
          "form = \"stiction\"\nbreakaway = 1.5\n[friction.params]\nF_C = 1.0\nf_v = 0.0", "t_end = 5.0\ndt = 1e-3",
          "stiffness = \"list:2,5,20\"\ndrive_velocity = \"list:0.1,0.2\""),
      0.0, "stiction form");
  expect_lanes_equal_scalar(rig("lugre", "fp64",
                                "stiffness = 10.0\ndrive_velocity = { offset = 0.1, amplitude = 0.05, "
                                "frequency = 2 }",
                                "", "t_end = 1.0\ndt = 5e-4", "F_s = \"list:1.2,1.5,2\""),
                            0.0, "sine drive");
  expect_lanes_equal_scalar(rig("lugre", "fp32", "", "", "t_end = 1.0\ndt = 5e-4", "stiffness = \"list:7\""),
                            tolerance("fp32"), "one point");
}

// The exponential RK4 ([simulation] integrator = "etd-rk4") of the models
// with a bristle state, both precisions, friction against ground and against
// the drive: stick-slip points whose step rule sub-steps some output steps
// (the relaxation rate changing fast at a breakaway, dt 4e-3 s) beside
// points that never do.
TEST(EnsembleLanes, EtdRk4EqualsTheScalarPath) {
  for (const std::string prec : {"fp64", "fp32"}) {
    for (const std::string model : {"lugre", "20sim-lugre"}) {
      for (const std::string on : {"ground", "drive"}) {
        const std::string text = rig(model, prec, "normal_force = 1.0\nfriction_on = \"" + on + "\"", "",
                                     "t_end = 2.0\ndt = 4e-3\nintegrator = \"etd-rk4\"",
                                     "stiffness = \"linear:5:40:4\"\ndrive_velocity = \"log:0.01:0.2:5\"");
        const Compared c =
            expect_lanes_equal_scalar(text, tolerance(prec), model + " etd-rk4 on the " + on + " " + prec);
        EXPECT_EQ(c.statuses[kSimOk], 20) << model;
      }
    }
  }
}

// A 17-point sobol ensemble of long runs in FP64: the stick-slip cycles'
// metrics (period, amplitudes, stick fraction) and final states after 2e4
// steps stay within the bound.
TEST(EnsembleLanes, LongStickSlipRunsStayWithinTheBound) {
  const Compared c = expect_lanes_equal_scalar(
      "[system]\nmass = 1.0\n[friction]\nmodel = \"lugre\"\n[simulation]\nt_end = 5.0\ndt = 2.5e-4\n"
      "[ensemble]\ndesign = \"sobol\"\npoints = 17\ndevice = \"cpu\"\n[ensemble.params]\n"
      "stiffness = \"uniform:1:50\"\ndrive_velocity = \"uniform:0.01:0.3\"\n",
      1e-12, "long lugre");
  EXPECT_EQ(c.statuses[kSimOk], c.lane_points);
}

}  // namespace
}  // namespace stribeck
