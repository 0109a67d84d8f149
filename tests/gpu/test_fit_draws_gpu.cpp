// Ensembles drawn from a fit (simulate [ensemble] from_fit) on the GPU
// against the CPU path: the joint-normal axes (mean and Cholesky factor in
// the space's list values, copied to the device) give every point the same
// drawn parameters, and the simulations the same metrics. Part of
// stribeck_gpu_tests and, through the block emulator, stribeck_gpu_emu_tests;
// skips without a usable GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "../unit/common/lugre_fit_json.hpp"
#include "../unit/common/temp_dir.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/kernels/integrators/status.hpp"
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/sweep_run.hpp"

namespace stribeck {
namespace {

using stribeck::test::write_temp_file;

bool gpu_usable() {
  try {
    return workloads::choose_device("gpu").gpu;
  } catch (const data::InputError&) {
    return false;
  }
}

// A LuGre fit as identify --json writes it: four correlated free parameters
// in every kind of internal coordinate (log, excess over F_C, identity),
// sigma0 and sigma1 held. Standard errors of 5-15 % put the rig (1 kg,
// 20 N/m, 0.1 m/s: a cycle of about 1.4 s) on both sides of its stick-slip
// border (about 60 % of the draws stick and slip within 8 s).
std::string lugre_fit() { return test::write_lugre_fit_json("gpu_lugre_fit.json"); }

// The same fit with 95 % intervals (identify's ci95 and interval kinds),
// asymmetric profile ones for F_C, F_s and sigma2, F_s's lower end on its
// bound F_s = F_C (draws held there), drawn from them (from_fit_draw =
// "profile-intervals": split normals in a Gaussian copula).
std::string lugre_interval_fit() {
  std::ifstream in(lugre_fit());
  nlohmann::json j = nlohmann::json::parse(in);
  const char* names[] = {"F_C", "F_s", "v_s", "sigma2"};
  const double lo[] = {0.85, 1.0, 0.000745, 0.3}, hi[] = {1.25, 1.95, 0.001342, 0.6};
  const char* kinds[] = {"profile", "profile", "wald", "profile"};
  for (int a = 0; a < 4; ++a) {
    j["parameters"][names[a]]["ci95"] = {lo[a], hi[a]};
    j["parameters"][names[a]]["interval"] = kinds[a];
  }
  return write_temp_file("gpu_lugre_interval_fit.json", j.dump(2));
}

// 300 draws: two full blocks of 128 and a partial one.
std::string from_fit_config(const char* device, const char* precision, const std::string& fit = lugre_fit(),
                            const std::string& draw = "covariance") {
  return write_temp_file(std::string("ens_fit_") + device + "_" + precision + "_" + draw + ".toml",
                         "[system]\nmass = 1.0\nstiffness = 20.0\ndrive_velocity = 0.1\n"
                         "[friction]\nmodel = \"lugre\"\n"
                         "[simulation]\nt_end = 8.0\ndt = 1e-3\n"
                         "[ensemble]\ndesign = \"random\"\nseed = 17\npoints = 300\ndevice = \"" +
                             std::string(device) + "\"\nprecision = \"" + precision + "\"\nfrom_fit = \"" + fit +
                             "\"\nfrom_fit_draw = \"" + draw + "\"\n");
}

TEST(FitDrawsGpu, DrawsAndMetricsEqualCpu) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU";
  const workloads::EnsembleResult gpu =
      workloads::run_ensemble(workloads::read_simulate_config(from_fit_config("gpu", "fp64")));
  const workloads::EnsembleResult cpu =
      workloads::run_ensemble(workloads::read_simulate_config(from_fit_config("cpu", "fp64")));
  ASSERT_EQ(gpu.names, cpu.names);
  ASSERT_EQ(cpu.names.size(), 4u);
  ASSERT_EQ(gpu.values.size(), cpu.values.size());
  ASSERT_EQ(cpu.metrics.size(), 300u);
  // The draws go through exp, log and the normal quantile on both sides:
  // the device's FP64 functions are within 2 ulp of the host's, and the
  // Cholesky product may be FMA-contracted (a few ulp more), far below 1e-12.
  for (size_t i = 0; i < cpu.values.size(); ++i)
    EXPECT_NEAR(gpu.values[i], cpu.values[i], 1e-12 * std::abs(cpu.values[i])) << cpu.names[i % 4] << " " << i / 4;
  int sticks = 0;
  for (size_t i = 0; i < cpu.metrics.size(); ++i) {
    const auto &g = gpu.metrics[i], &c = cpu.metrics[i];
    ASSERT_EQ(g.status, c.status) << i;
    EXPECT_EQ(g.stick_slip, c.stick_slip) << i;
    // Ensemble.GpuEqualsCpu's tolerances, for its reasons (FMA, device
    // exp/log: 1e-16 differences that shift a stick-slip cycle's phase).
    EXPECT_NEAR(g.dissipated, c.dissipated, 1e-9 * std::abs(c.dissipated)) << i;
    EXPECT_NEAR(g.breakaway_force, c.breakaway_force, 1e-9 * (std::abs(c.breakaway_force) + 1.0)) << i;
    EXPECT_NEAR(g.amp_spring_force, c.amp_spring_force, 1e-9 * (std::abs(c.amp_spring_force) + 1.0)) << i;
    EXPECT_NEAR(g.final_v, c.final_v, 1e-9 * (std::abs(c.final_v) + 1.0)) << i;
    sticks += c.stick_slip;
  }
  EXPECT_EQ(gpu.totals.stick_slip, cpu.totals.stick_slip);
  // Both sides of the border are exercised.
  EXPECT_GT(sticks, 0);
  EXPECT_LT(sticks, 300);
}

// FP32 simulations draw their parameters in FP64 as the CPU does (the space
// is evaluated in double, then rounded): the drawn coordinates agree to FP32
// rounding, and the stick-slip classification with the CPU's FP64 run but
// for at most 1 % of the draws: random draws can fall so near the border
// that FP32 rounding decides (none does in the emulator; a GPU's FMA and
// special functions may move one).
TEST(FitDrawsGpu, Fp32DrawsFollowCpuFp64) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU";
  const workloads::EnsembleResult gpu =
      workloads::run_ensemble(workloads::read_simulate_config(from_fit_config("gpu", "fp32")));
  const workloads::EnsembleResult cpu =
      workloads::run_ensemble(workloads::read_simulate_config(from_fit_config("cpu", "fp64")));
  ASSERT_EQ(gpu.values.size(), cpu.values.size());
  for (size_t i = 0; i < cpu.values.size(); ++i)
    EXPECT_NEAR(gpu.values[i], cpu.values[i], 1e-6 * std::abs(cpu.values[i])) << cpu.names[i % 4] << " " << i / 4;
  int differ = 0;
  for (size_t i = 0; i < cpu.metrics.size(); ++i) {
    EXPECT_EQ(gpu.metrics[i].status, kSimOk) << i;
    differ += gpu.metrics[i].stick_slip != cpu.metrics[i].stick_slip;
  }
  EXPECT_LE(differ, 3);
}

// The split-normal draws on the device: the same list values (mean,
// correlation factor, scales, bounds) give every point the same drawn
// parameters in FP64 as on the CPU, to 1e-12 relative, and the simulations
// the same status and stick-slip classification.
TEST(FitDrawsGpu, IntervalDrawsEqualCpu) {
  if (!gpu_usable()) GTEST_SKIP() << "no usable GPU";
  const std::string fit = lugre_interval_fit();
  const workloads::EnsembleResult gpu = workloads::run_ensemble(
      workloads::read_simulate_config(from_fit_config("gpu", "fp64", fit, "profile-intervals")));
  const workloads::EnsembleResult cpu = workloads::run_ensemble(
      workloads::read_simulate_config(from_fit_config("cpu", "fp64", fit, "profile-intervals")));
  const workloads::EnsembleResult cov =
      workloads::run_ensemble(workloads::read_simulate_config(from_fit_config("cpu", "fp64", fit)));
  ASSERT_EQ(gpu.names, cpu.names);
  ASSERT_EQ(gpu.values.size(), cpu.values.size());
  ASSERT_EQ(cpu.values.size(), 1200u);
  int differ_from_covariance = 0, on_bound = 0;
  for (size_t i = 0; i < cpu.values.size(); ++i) {
    EXPECT_NEAR(gpu.values[i], cpu.values[i], 1e-12 * std::abs(cpu.values[i])) << cpu.names[i % 4] << " " << i / 4;
    // v_s (component 2) has a Wald interval: the covariance's own scale.
    if (i % 4 == 2) EXPECT_NEAR(cpu.values[i], cov.values[i], 1e-12 * std::abs(cov.values[i])) << i / 4;
    else differ_from_covariance += cpu.values[i] != cov.values[i];
  }
  for (size_t i = 0; i < cpu.values.size(); i += 4) on_bound += cpu.values[i + 1] == cpu.values[i];  // F_s = F_C
  for (size_t i = 0; i < cpu.metrics.size(); ++i) {
    ASSERT_EQ(gpu.metrics[i].status, cpu.metrics[i].status) << i;
    EXPECT_EQ(gpu.metrics[i].stick_slip, cpu.metrics[i].stick_slip) << i;
  }
  // Another distribution than the covariance's for the profile intervals,
  // with draws held on F_s = F_C.
  EXPECT_GT(differ_from_covariance, 890);
  EXPECT_GT(on_bound, 0);
}

}  // namespace
}  // namespace stribeck
