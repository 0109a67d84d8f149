// Ensembles of body simulations over a sweep parameter space.
#include <gtest/gtest.h>

#include "temp_dir.hpp"

#include <cmath>
#include <fstream>
#include <type_traits>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/kernels/integrators/status.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/systems/ensemble.hpp"

namespace stribeck {
namespace {

using stribeck::test::write_temp_file;

const char* kBase = R"(
[system]
mass = 1.0
drive_velocity = 0.1
[friction]
model = "coulomb-viscous"
form = "stiction"
breakaway = 1.5
[friction.params]
F_C = 1.0
f_v = 0.0
[simulation]
t_end = 40.0
dt = 1e-3
)";

TEST(Ensemble, StictionGridMatchesClosedFormPerPoint) {
  const std::string cfg = write_temp_file("ens1.toml", std::string(kBase) + R"(
[ensemble]
[ensemble.params]
stiffness = "list:2,5,20"
breakaway = "list:1.2,1.5"
)");
  const workloads::SimulateConfig c = workloads::read_simulate_config(cfg);
  const workloads::EnsembleResult r = workloads::run_ensemble(c);
  ASSERT_EQ(r.metrics.size(), 6u);
  ASSERT_EQ(r.names.size(), 2u);
  const int ik = r.names[0] == "stiffness" ? 0 : 1;
  for (size_t i = 0; i < 6; ++i) {
    const double k = r.values[i * 2 + ik], fbrk = r.values[i * 2 + 1 - ik];
    const double w = std::sqrt(k), y0 = (fbrk - 1.0) / k, A = std::hypot(y0, 0.1 / w);
    const double period = (M_PI + 2 * std::acos(y0 / A)) / w + 2 * y0 / 0.1;
    EXPECT_EQ(r.metrics[i].status, kSimOk);
    EXPECT_EQ(r.metrics[i].stick_slip, 1) << k << " " << fbrk;
    EXPECT_NEAR(r.metrics[i].period, period, 1e-5) << k << " " << fbrk;
    EXPECT_NEAR(r.metrics[i].amp_spring_force, k * A, 1e-6) << k << " " << fbrk;
  }
}

TEST(Ensemble, FloatPointsAgreeAndInvalidPointsAreFlagged) {
  auto text = [](const char* prec) {
    return std::string(R"(
[system]
mass = 1.0
stiffness = 20.0
[friction]
model = "lugre"
[simulation]
t_end = 6.0
dt = 1e-3
[ensemble]
design = "sobol"
points = 16
precision = ")") +
           prec + R"("
[ensemble.params]
drive_velocity = "uniform:0.05:0.2"
F_s = "uniform:0.8:2.0"
)";
  };
  const workloads::EnsembleResult d =
      workloads::run_ensemble(workloads::read_simulate_config(write_temp_file("ens2.toml", text("fp64"))));
  const workloads::EnsembleResult f =
      workloads::run_ensemble(workloads::read_simulate_config(write_temp_file("ens3.toml", text("fp32"))));
  ASSERT_EQ(d.metrics.size(), 16u);
  const int is = d.names[0] == "F_s" ? 0 : 1;
  int invalid = 0;
  for (size_t i = 0; i < 16; ++i) {
    const double fs = d.values[i * 2 + is];
    EXPECT_EQ(d.values[i * 2], f.values[i * 2]);  // same points whatever the precision
    if (fs < 1.0) {                               // F_s < F_C breaks the model's rule: not run
      ++invalid;
      EXPECT_EQ(d.metrics[i].status, kSimInvalid);
      continue;
    }
    EXPECT_EQ(d.metrics[i].status, kSimOk);
    EXPECT_EQ(f.metrics[i].status, kSimOk);
    EXPECT_NEAR(f.metrics[i].peak_velocity, d.metrics[i].peak_velocity, 1e-3 * d.metrics[i].peak_velocity);
    EXPECT_NEAR(f.metrics[i].dissipated, d.metrics[i].dissipated, 1e-3 * d.metrics[i].dissipated);
  }
  EXPECT_GT(invalid, 0);
  EXPECT_LT(invalid, 8);
  ASSERT_EQ(d.totals.invalid_examples.size(), std::min(invalid, 3));
  EXPECT_NE(d.totals.invalid_examples[0].find("lugre: F_s = "), std::string::npos) << d.totals.invalid_examples[0];
  EXPECT_NE(d.totals.invalid_examples[0].find("must be >= F_C = 1"), std::string::npos) << d.totals.invalid_examples[0];
}

// A space whose results would not fit in memory is refused up front.
TEST(Ensemble, TooLargeForMemoryIsOneLineError) {
  const std::uint64_t gib = 1ull << 30;
  EXPECT_EQ(workloads::ensemble_result_bytes(1, 2), sizeof(StickSlipMetrics<double>) + 2 * 8);
  EXPECT_NO_THROW(workloads::check_ensemble_memory(1'000'000, 2, 16 * gib, "map.toml: [ensemble]"));
  EXPECT_NO_THROW(workloads::check_ensemble_memory(200'000'000, 2, 0, "map.toml: [ensemble]"));  // memory unknown
  try {
    workloads::check_ensemble_memory(200'000'000, 2, 16 * gib, "map.toml: [ensemble]");
    FAIL();
  } catch (const data::InputError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("map.toml: [ensemble]: 200000000 points need about ", 0), 0u) << m;
    EXPECT_NE(m.find("of this machine's 17.2 GB; write them to a file (-o OUT.h5)"), std::string::npos) << m;
  }
}

// Invalid points are reported with the rule they break (like a sweep's), for
// system quantities and the stiction form's breakaway too.
TEST(Ensemble, InvalidPointsNameTheirRule) {
  const std::string cfg = write_temp_file("ens_invalid.toml", std::string(kBase) + R"(
[ensemble]
[ensemble.params]
mass = "list:-1,1"
breakaway = "list:0.5,1.5"
)");
  const workloads::EnsembleResult r = workloads::run_ensemble(workloads::read_simulate_config(cfg));
  ASSERT_EQ(r.metrics.size(), 4u);
  // Keys in name order, the last fastest: (0.5, -1) (0.5, 1) (1.5, -1) (1.5, 1).
  ASSERT_EQ(r.names, (std::vector<std::string>{"breakaway", "mass"}));
  ASSERT_EQ(r.totals.invalid_examples.size(), 3u);
  EXPECT_EQ(r.totals.invalid_examples[0], "point 0: mass = -1 must be > 0");  // checked before the breakaway
  EXPECT_NE(r.totals.invalid_examples[1].find("point 1: breakaway = 0.5 is below the sliding force 1 "),
            std::string::npos)
      << r.totals.invalid_examples[1];
  EXPECT_EQ(r.totals.invalid_examples[2], "point 2: mass = -1 must be > 0");
  EXPECT_EQ(r.metrics[3].status, kSimOk);
}

TEST(Ensemble, WritesHdf5ResultsGroup) {
  const std::string cfg = write_temp_file("ens7.toml", std::string(kBase) + R"(
[ensemble]
[ensemble.params]
stiffness = "linear:2:20:4"
)");
  const workloads::SimulateConfig c = workloads::read_simulate_config(cfg);
  const workloads::EnsembleResult r = workloads::run_ensemble(c);
  const std::string out = stribeck::test::temp_dir() + "ens.h5";
  std::remove(out.c_str());
  workloads::EnsembleRunOptions o;
  o.output = out;
  o.chunk = 3;  // two chunks, the second short
  const workloads::EnsembleResult w = workloads::run_ensemble(c, o);
  EXPECT_TRUE(w.metrics.empty());  // streamed, not kept
  EXPECT_TRUE(w.finished);
  EXPECT_EQ(w.totals.completed, 4u);
  EXPECT_FALSE(std::ifstream(out + ".partial").good());
  data::h5::File f = data::h5::open_file(out);
  data::h5::Group g = data::h5::open_group(f.id(), "ensemble", "test");
  EXPECT_EQ(data::h5::read_string_attribute(g.id(), "names", "test"), "stiffness");
  const auto pts =
      data::h5::read_doubles(data::h5::open_dataset(g.id(), "stiffness", "test"), "test");  // a column per coordinate
  const auto period = data::h5::read_doubles(data::h5::open_dataset(g.id(), "period", "test"), "test");
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(pts[3], 20.0);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(period[i], r.metrics[i].period);
}

TEST(Ensemble, ConfigErrors) {
  const std::string bad1 =
      write_temp_file("ens4.toml", std::string(kBase) + "[ensemble]\n[ensemble.params]\nstifness = 3\n");
  try {
    workloads::run_ensemble(workloads::read_simulate_config(bad1));
    FAIL();
  } catch (const data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("stifness: not a parameter of coulomb-viscous nor a system quantity"),
              std::string::npos)
        << e.what();
  }
  const std::string bad2 =
      write_temp_file("ens5.toml", std::string(kBase) + "[ensemble]\n[ensemble.params]\nstiffness = \"uniform:1:2\"\n");
  EXPECT_THROW(workloads::run_ensemble(workloads::read_simulate_config(bad2)),
               data::InputError);  // a grid cannot take a distribution
  const std::string bad3 = write_temp_file("ens6.toml", std::string(kBase) + "[ensemble]\n");
  EXPECT_THROW(workloads::read_simulate_config(bad3), data::InputError);  // no params
}

// A seal-parameter ensemble of the hydraulic cylinder driven by measured
// chamber pressures ([system] inputs): every point must equal a single
// `simulate` run of the same log with that point's parameters, and the
// pressures must matter (a ramp that breaks the piston loose).
TEST(Ensemble, MeasuredInputsDriveEveryPoint) {
  const std::string log = stribeck::test::temp_dir() + "ens_pressures.csv";
  {
    std::ofstream f(log);
    f << "time,pressure_a,pressure_b\n";
    for (int i = 0; i <= 50; ++i) f << i * 0.02 << "," << 5e5 + 2e6 * i * 0.02 + 1e5 * (i % 3) << ",1e6\n";
  }
  auto config = [&](const std::string& name, const std::string& params, const std::string& ensemble) {
    return workloads::read_simulate_config(
        write_temp_file(name,
                        "[system]\nmass = 12.0\narea_a = 2e-3\narea_b = 1e-3\n"
                        "external_force = -150.0\ninputs = \"" +
                            log +
                            "\"\n"
                            "[friction]\nmodel = \"simscape-cylinder\"\n[friction.params]\n"
                            "f_cfr = 1e-4\nK_brk = 1.3\nf_vfr = 2000.0\n" +
                            params + "[simulation]\nt_end = 1.0\ndt = 1e-3\n" + ensemble));
  };
  auto axes = [](const char* precision) {
    return std::string("[ensemble]\ndevice = \"cpu\"\nprecision = \"") + precision +
           "\"\n[ensemble.params]\nF_pr = \"list:20,50,120\"\n";
  };
  const workloads::EnsembleResult d = workloads::run_ensemble(config("ens_log.toml", "", axes("fp64")));
  const workloads::EnsembleResult f = workloads::run_ensemble(config("ens_log32.toml", "", axes("fp32")));
  ASSERT_EQ(d.metrics.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const double f_pr = d.values[i];
    const workloads::SimulateConfig one = config("ens_log_one.toml", "F_pr = " + std::to_string(f_pr) + "\n", "");
    const workloads::SimulateSummary s =
        workloads::run_simulation(one, stribeck::test::temp_dir() + "ens_log_one.csv", "test");
    EXPECT_EQ(d.metrics[i].status, kSimOk) << f_pr;
    EXPECT_GT(d.metrics[i].peak_velocity, 0.05) << f_pr;  // the measured ramp moved the piston
    EXPECT_NEAR(d.metrics[i].final_v, s.metrics.final_v, 1e-12 * std::abs(s.metrics.final_v)) << f_pr;
    EXPECT_NEAR(d.metrics[i].final_s, s.metrics.final_s, 1e-12 * std::abs(s.metrics.final_s)) << f_pr;
    EXPECT_NEAR(d.metrics[i].dissipated, s.metrics.dissipated, 1e-12 * s.metrics.dissipated) << f_pr;
    EXPECT_EQ(d.metrics[i].steps, s.metrics.steps) << f_pr;
    EXPECT_NEAR(f.metrics[i].dissipated, d.metrics[i].dissipated, 1e-3 * d.metrics[i].dissipated) << f_pr;
  }
  EXPECT_GT(d.metrics[0].peak_velocity, d.metrics[2].peak_velocity);  // more seal friction, slower piston
}

// The GPU runs ensemble_point<M, T, true> (no general profile evaluation)
// when ensemble_affine holds: the predicate sees every way a point can leave
// the affine form, and the affine-only path gives the general path's results
// bit for bit (run here on the CPU, in float as the GPU does).
TEST(Ensemble, AffineOnlyPathIsExactAndChosenOnlyWhenEveryPointIsAffine) {
  EnsembleSpec<float> e{};
  e.base.mass = 1.0f;
  e.base.stiffness = 20.0f;
  e.base.drive_velocity.offset = 0.1f;
  e.base.external_force.slope = 0.05f;  // a ramp is affine
  e.base.pressure_a.offset = 1e5f;
  e.base.area_a = 1e-5f;
  e.target[0] = -1 - kFieldStiffness;
  e.target[1] = -1 - kFieldDriveFrequency;  // a frequency without an amplitude changes nothing
  EXPECT_TRUE(ensemble_affine(e, 2));
  EnsembleSpec<float> amp = e;
  amp.target[1] = -1 - kFieldDriveAmplitude;
  EXPECT_FALSE(ensemble_affine(amp, 2));
  amp.target[1] = -1 - kFieldForceAmplitude;
  EXPECT_FALSE(ensemble_affine(amp, 2));
  EXPECT_TRUE(ensemble_affine(amp, 1));  // the amplitude dimension is not part of this space
  EnsembleSpec<float> sine = e;
  sine.base.normal_force.amplitude = 1.0f;
  EXPECT_FALSE(ensemble_affine(sine, 2));
  EnsembleSpec<float> table = e;
  const float tt[2] = {0.0f, 1.0f}, ty[2] = {0.0f, 1.0f};
  table.base.pressure_b.table_t = tt;
  table.base.pressure_b.table_y = ty;
  table.base.pressure_b.table_n = 2;
  EXPECT_FALSE(ensemble_affine(table, 2));

  const auto d = workloads::require_model("lugre").defaults();
  std::vector<float> pf(d.begin(), d.end());
  const auto fc = LuGre::prepare(pf.data());
  SimOptions<float> o;
  o.t_end = 3.0f;
  o.dt = 1e-3f;
  auto run = [&](auto affine_only) {
    MetricsAccumulator<float> acc(MetricsOptions<float>{}, o.t_end);
    BodySnapshot<float> end;
    long steps = 0;
    const int st =
        simulate_smooth<LuGre, kBodyNDissipation, decltype(affine_only)::value>(fc, e.base, o, acc, &steps, &end);
    StickSlipMetrics<float> m = acc.finish(st, end);
    m.steps = steps;
    return m;
  };
  const StickSlipMetrics<float> general = run(std::false_type{}), affine = run(std::true_type{});
  EXPECT_EQ(general.status, kSimOk);
  EXPECT_GT(general.peak_velocity, 0.05f);  // it moved
  EXPECT_EQ(affine.status, general.status);
  EXPECT_EQ(affine.steps, general.steps);
  EXPECT_EQ(affine.peak_velocity, general.peak_velocity);
  EXPECT_EQ(affine.amp_spring_force, general.amp_spring_force);
  EXPECT_EQ(affine.dissipated, general.dissipated);
  EXPECT_EQ(affine.final_s, general.final_s);
  EXPECT_EQ(affine.final_v, general.final_v);
  EXPECT_EQ(affine.final_z, general.final_z);
}

}  // namespace
}  // namespace stribeck
