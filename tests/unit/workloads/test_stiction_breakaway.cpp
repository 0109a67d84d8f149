// The stiction form's breakaway per direction (stiction_breakaway.hpp): a
// direction-asymmetric law is checked on both sides of zero speed, breaks
// away at its own static force on each side unless the config gives one, and
// simulate and the ensemble agree on both.
#include <gtest/gtest.h>

#include "asymmetric_law.hpp"
#include "temp_dir.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/simulate.hpp"
#include "stribeck/kernels/integrators/status.hpp"

namespace stribeck {
namespace {

using stribeck::test::write_temp_file;

// 1 kg on a 1e3 N/m spring whose end moves at drive_velocity: while stuck on
// the ground the spring force is exactly k v_d t, so the contact lets go at
// t = F_brk / (k |v_d|) of the direction it is pulled in. The law: exact
// sign, Gaussian Stribeck dip, a viscous term (so F(0+) = F_s + f_v 1e-12,
// just above F_s), static force 25 N forward and 30 N backward.
constexpr double kStiffness = 1e3, kDrive = 0.0123;
constexpr double kStaticPos = 25.0, kStaticNeg = 30.0;

std::string config(const std::string& name, double drive, const std::string& breakaway_line,
                   const std::string& ensemble = "") {
  return write_temp_file(name, R"(
[system]
mass = 1.0
stiffness = 1e3
drive_velocity = )" + std::to_string(drive) +
                                   R"(
[friction]
model = "stribeck-asymmetric"
form = "stiction"
)" + breakaway_line + "\n" + test::kAsymmetricStictionLaw +
                                   R"([simulation]
t_end = 2.6
dt = 1e-4
)" + ensemble);
}

const std::vector<double>& channel(const workloads::SimulationSeries& s, const std::string& name) {
  for (const auto& c : s.channels)
    if (c.name == name) return c.values;
  ADD_FAILURE() << "no channel " << name;
  static const std::vector<double> none;
  return none;
}

// The first release of a run: the last stuck sample's time and the first
// sliding one's.
struct Release {
  double last_stuck = -1, first_sliding = -1;
};

Release first_release(const workloads::SimulationSeries& s) {
  const std::vector<double>& t = channel(s, "time");
  const std::vector<double>& mode = channel(s, "stick_state");  // 0 stuck, +-1 sliding
  const std::vector<double>& spring = channel(s, "spring_force");
  const std::vector<double>& drive = channel(s, "drive_velocity");
  Release r;
  for (size_t i = 0; i < t.size(); ++i) {
    if (mode[i] == 0.0) {
      // Stuck on the ground from rest: the spring force is the drive's travel
      // times k, computed here independently of the simulation.
      EXPECT_NEAR(spring[i], kStiffness * drive[i] * t[i], 1e-9 * kStaticNeg) << t[i];
      r.last_stuck = t[i];
    } else {
      r.first_sliding = t[i];
      break;
    }
  }
  return r;
}

TEST(StictionBreakaway, ANegativeSideBelowTheLawIsRefusedInOneLineNamingIt) {
  // 26 N holds the forward side (25 N) but not the backward one (30 N).
  const std::string cfg = config("brk_neg_short.toml", -kDrive, "breakaway = 26.0");
  try {
    workloads::simulate_series(workloads::read_simulate_config(cfg));
    FAIL() << "a breakaway below F_s_neg was accepted";
  } catch (const data::InputError& e) {
    const std::string m = e.what();
    // F_s_neg + f_v_neg 1e-12: the law's force at the speed the contact slides off with.
    EXPECT_NE(m.find("[friction]: breakaway = 26 is below the sliding force 30.0000000001 of stribeck-asymmetric "
                     "just below zero velocity, on the negative side (v < 0)"),
              std::string::npos)
        << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  // The ensemble's CPU path refuses the same point with the same line.
  const std::string ens = config("brk_neg_short_ens.toml", -kDrive, "breakaway = 26.0",
                                 "[ensemble]\ndevice = \"cpu\"\n[ensemble.params]\nstiffness = \"list:1e3,2e3\"\n");
  const workloads::EnsembleResult r = workloads::run_ensemble(workloads::read_simulate_config(ens));
  ASSERT_EQ(r.metrics.size(), 2u);
  for (const auto& m : r.metrics) EXPECT_EQ(m.status, kSimInvalid);
  ASSERT_FALSE(r.totals.invalid_examples.empty());
  EXPECT_NE(r.totals.invalid_examples[0].find("just below zero velocity, on the negative side (v < 0)"),
            std::string::npos)
      << r.totals.invalid_examples[0];
}

TEST(StictionBreakaway, ABreakawayHoldingBothSidesIsAccepted) {
  for (const double drive : {kDrive, -kDrive}) {
    const workloads::SimulationSeries s =
        workloads::simulate_series(workloads::read_simulate_config(config("brk_both.toml", drive, "breakaway = 31.0")));
    EXPECT_EQ(s.summary.metrics.status, kSimOk) << drive;
    // One breakaway for both sides: 31 N either way.
    const Release r = first_release(s);
    const double t_brk = 31.0 / (kStiffness * kDrive);
    EXPECT_LT(r.last_stuck, t_brk) << drive;
    EXPECT_GE(r.first_sliding, t_brk) << drive;
  }
}

// Without 'breakaway' the law's own static force binds on each side: pulled
// backward the contact holds until 30 N, forward only until 25 N.
TEST(StictionBreakaway, TheLawsOwnStaticForceBindsPerDirection) {
  for (const double drive : {-kDrive, kDrive}) {
    const workloads::SimulationSeries s =
        workloads::simulate_series(workloads::read_simulate_config(config("brk_law.toml", drive, "")));
    ASSERT_EQ(s.summary.metrics.status, kSimOk) << drive;
    const double f_brk = drive < 0 ? kStaticNeg : kStaticPos, t_brk = f_brk / (kStiffness * kDrive);
    const Release r = first_release(s);
    EXPECT_LT(r.last_stuck, t_brk) << drive;
    EXPECT_GE(r.first_sliding, t_brk) << drive;
    EXPECT_LT(r.first_sliding - r.last_stuck, 1.5e-4) << drive;  // adjacent samples: F_brk to 1.2e-3 N
  }
}

// The ensemble (the kernel every device runs) gives the simulation's end
// state bit for bit, backward and forward, with the law's own breakaway.
TEST(StictionBreakaway, EnsembleRowsEqualTheSimulation) {
  const std::string ens =
      config("brk_law_ens.toml", kDrive, "",
             "[ensemble]\ndevice = \"cpu\"\n[ensemble.params]\ndrive_velocity = \"list:" + std::to_string(-kDrive) +
                 "," + std::to_string(kDrive) + "\"\n");
  const workloads::EnsembleResult r = workloads::run_ensemble(workloads::read_simulate_config(ens));
  ASSERT_EQ(r.metrics.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const double drive = i == 0 ? -kDrive : kDrive;
    const workloads::SimulationSeries s =
        workloads::simulate_series(workloads::read_simulate_config(config("brk_law_one.toml", drive, "")));
    ASSERT_EQ(r.metrics[i].status, kSimOk) << drive;
    EXPECT_EQ(r.metrics[i].final_v, s.summary.metrics.final_v) << drive;
    EXPECT_EQ(r.metrics[i].breakaway_force, s.summary.metrics.breakaway_force) << drive;
    EXPECT_EQ(r.metrics[i].steps, s.summary.metrics.steps) << drive;
  }
  EXPECT_GT(r.metrics[0].breakaway_force, kStaticPos + 1);  // backward held past the forward side's 25 N
}

}  // namespace
}  // namespace stribeck
