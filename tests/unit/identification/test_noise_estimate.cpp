// The force noise estimated from the data alone (identification/src/noise.hpp),
// which every fit's stopping rule compares its RMSE with: exact in expectation
// for Gaussian noise, near the noise on logs whose force has structure at the
// sample rate (GMS presliding at every reversal, a quarter of the second
// differences and more), not 0 on a quantised log whose differences are
// mostly exactly 0, 0 on a noiseless law that steps through a lattice, and
// the streamed estimate of one block equal to the one in memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "noise.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/workloads/generator.hpp"

namespace stribeck {
namespace {

using ident::detail::noise_estimate;
using ident::detail::NoiseAccumulator;
using ident::detail::Prepared;

double estimate_of(const std::vector<double>& y) {
  Prepared p;
  p.y = y;
  return noise_estimate({p}, {0});
}

// The force of a generated log (one experiment), noise and quantisation as given.
std::vector<double> force_of(const std::string& model, const std::string& profile, double rate, double v_max,
                             double noise, double quantum = 0.0) {
  workloads::GeneratorOptions g;
  g.model = model;
  g.params = find_model(model)->defaults();
  g.profile = profile;
  g.rate_hz = rate;
  g.duration = 8;
  g.v_max = v_max;
  if (noise > 0) g.noise["force"] = noise;
  if (quantum > 0) g.quantisation["force"] = quantum;
  g.seed = 3;
  const auto log = workloads::generate_log(g);
  EXPECT_EQ(log.size(), 1u);
  return log.front().channels.at("force");
}

double rms_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s / static_cast<double>(a.size()));
}

// Share of |second differences| of `y` above `threshold`.
double share_above(const std::vector<double>& y, double threshold) {
  long n = 0;
  for (size_t i = 1; i + 1 < y.size(); ++i) n += std::abs(y[i - 1] - 2 * y[i] + y[i + 1]) > threshold;
  return static_cast<double>(n) / static_cast<double>(y.size() - 2);
}

// Gaussian noise on a smooth force (a cubic, which third differences cancel
// exactly): the mean of 400 estimates is the noise's standard deviation to
// 0.5 %, four times their standard error; a wrong consistency constant is
// off by more (the clip's m(2) = 0.77374 taken as m(2.5) = 0.91126: 8 %).
TEST(NoiseEstimate, GaussianNoiseIsEstimatedWithoutBias) {
  std::mt19937_64 rng(11);
  constexpr double kSigma = 0.37;
  constexpr int kRuns = 400, kSamples = 4000;
  double sum = 0, sum2 = 0;
  for (int r = 0; r < kRuns; ++r) {
    std::normal_distribution<double> nd(0.0, kSigma);
    std::vector<double> y(kSamples);
    for (int i = 0; i < kSamples; ++i) {
      const double t = i / static_cast<double>(kSamples);
      y[i] = 20 + 3 * t - 40 * t * t + 25 * t * t * t + nd(rng);
    }
    const double s = estimate_of(y) / kSigma;
    sum += s;
    sum2 += s * s;
  }
  const double mean = sum / kRuns, sd = std::sqrt(sum2 / kRuns - mean * mean);
  EXPECT_NEAR(mean, 1.0, 0.005) << "standard error " << sd / std::sqrt(kRuns);
  EXPECT_LT(4 * sd / std::sqrt(kRuns), 0.005);  // the tolerance is four standard errors or more
  EXPECT_GT(sd, 0.01);                          // and the estimates do scatter (a real sample)
}

// Gaussian noise with a fifth of the differences carrying steps far above it
// (a Coulomb law reversing every 15 samples): the clipped moment leaves them
// out, the estimate stays within 3 % of the noise.
TEST(NoiseEstimate, StepsFarAboveTheNoiseAreLeftOut) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> nd(0.0, 0.1);
  std::vector<double> y(60000);
  for (size_t i = 0; i < y.size(); ++i) y[i] = ((i / 15) % 2 ? 20.0 : -20.0) + nd(rng);
  EXPECT_GT(share_above(y, 4 * 0.1 * std::sqrt(6.0)), 0.12);
  EXPECT_NEAR(estimate_of(y), 0.1, 0.003);
}

// Hysteretic logs (GMS presliding transitions at every reversal of a slow
// sine sweep at 250 Hz): 15 % or more of the second differences carry the
// force's structure above the noise, which put the former estimate (trimmed
// mean of squared second differences) at 1.5 to 3.9 times the noise. The
// estimate is within 15 % of the noise the generator added (the force of the
// same log without noise subtracted; 5 to 12 % above it here, where 17 to 30 %
// of the differences carry structure).
TEST(NoiseEstimate, HysteresisOfGmsLogsStaysNearTheNoise) {
  struct Case {
    const char* model;
    double v_max;
  };
  for (const Case& c : {Case{"gms3", 1e-3}, Case{"gms3", 5e-3}, Case{"gms4", 5e-3}, Case{"lugre", 5e-3}}) {
    SCOPED_TRACE(std::string(c.model) + " v_max " + std::to_string(c.v_max));
    const std::vector<double> clean = force_of(c.model, "sine-sweep", 250, c.v_max, 0.0);
    const std::vector<double> noisy = force_of(c.model, "sine-sweep", 250, c.v_max, 0.01);
    const double noise = rms_difference(noisy, clean);
    EXPECT_NEAR(noise, 0.01, 0.0005);                             // the realised noise
    EXPECT_GT(share_above(clean, noise * std::sqrt(6.0)), 0.15);  // structure above the noise
    EXPECT_NEAR(estimate_of(noisy), noise, 0.15 * noise);
  }
}

// A quantised log (force counts of 0.01 N, noise a tenth of a count): most
// differences are exactly 0, so the median absolute difference is 0 and a
// median-based scale with it. The estimate is the noise a fit meets there,
// the RMS of the rounded noisy force about the true force (the rounding
// noise and the noise together), to 25 %.
TEST(NoiseEstimate, QuantisedLogDoesNotCollapse) {
  for (const char* profile : {"plateaus", "triangle"}) {
    SCOPED_TRACE(profile);
    const std::vector<double> clean = force_of("lugre", profile, 1000, 5e-3, 0.0);
    const std::vector<double> counts = force_of("lugre", profile, 1000, 5e-3, 0.001, 0.01);
    long zeros = 0;
    for (size_t i = 3; i < counts.size(); ++i)
      zeros += std::abs(counts[i] - 3 * counts[i - 1] + 3 * counts[i - 2] - counts[i - 3]) < 1e-9;
    EXPECT_GT(2 * zeros, static_cast<long>(counts.size()));  // most third differences are 0
    const double target = rms_difference(counts, clean);
    EXPECT_NEAR(estimate_of(counts), target, 0.25 * target);
  }
}

// A noiseless law whose force steps through a lattice (Coulomb + viscous on a
// triangle: straight ramps, every third difference 0 but at the corners, and
// those multiples of one value) is not a quantised log: its level changes do
// not chatter back, and the estimate stays 0 as for any noiseless log.
TEST(NoiseEstimate, NoiselessLawOnALatticeIsNotQuantisation) {
  for (const double rate : {250.0, 1000.0}) {
    const std::vector<double> y = force_of("coulomb-viscous", "triangle", rate, 0.1, 0.0);
    EXPECT_EQ(estimate_of(y), 0.0) << rate << " Hz";
  }
}

// The streamed estimate of one block is exactly the estimate in memory, on
// continuous, quantised and hysteretic logs alike, and two experiments are
// blocks of their own.
TEST(NoiseEstimate, StreamedOneBlockEqualsTheEstimateInMemory) {
  const std::vector<std::vector<double>> logs = {force_of("gms3", "sine-sweep", 250, 1e-3, 0.01),
                                                 force_of("lugre", "plateaus", 1000, 5e-3, 0.001, 0.01),
                                                 force_of("simscape-translational", "steps", 1000, 0.1, 0.2)};
  for (const auto& y : logs) {
    ASSERT_LT(y.size(), NoiseAccumulator::kNoiseBlock);
    NoiseAccumulator acc;
    for (double v : y) acc.add(v);
    EXPECT_EQ(acc.estimate(), estimate_of(y));
  }
  // Two experiments: the median of their two variances (their mean).
  NoiseAccumulator acc;
  for (double v : logs[0]) acc.add(v);
  acc.next_experiment();
  for (double v : logs[2]) acc.add(v);
  const double a = estimate_of(logs[0]), b = estimate_of(logs[2]);
  EXPECT_DOUBLE_EQ(acc.estimate(), std::sqrt(0.5 * (a * a + b * b)));
}

}  // namespace
}  // namespace stribeck
