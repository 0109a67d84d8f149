#pragma once
// Private to identification/: the force noise of a log estimated from the
// data alone, before any model is fitted, so a fit can tell "the residual is
// the noise" from "the solver stopped in a wrong basin".
#include <limits>
#include <vector>

#include "problem.hpp"

namespace stribeck::ident::detail {

// Standard deviation [N] of white noise on the fitted force (Prepared::y),
// from third differences d_i = y_(i+3) - 3 y_(i+2) + 3 y_(i+1) - y_i: for
// white noise of variance s^2, d_i ~ N(0, 20 s^2). Third differences, not
// second: the force's own curvature at the sample rate (a slow sine sweep at
// 250 Hz, presliding transitions) cancels one order further.
// Robust to what remains of the force in them (steps, reversals, presliding
// loops: a third of the differences on a hysteretic log): the scale is the
// clipped second moment iterated from the median absolute difference,
//   s_0 = median |d| / Phi^-1(3/4),
//   s_(k+1)^2 = mean(d^2 over |d| <= 2 s_k) / m(2),
//   m(c) = E[x^2 | |x| <= c] = 1 - 2 c phi(c) / (2 Phi(c) - 1), x ~ N(0, 1),
// up to its fixed point, which for Gaussian noise is its standard deviation
// whatever share of differences lies beyond the clip (those under it bias it
// up: within 10 % on the generated logs of every law and profile).
// Quantised logs (an ADC's counts; noise below a count makes most
// differences exactly 0, and the median with them): where every nonzero |d|
// is a multiple of the smallest, q, the force spans at least 64 q, and at
// least a tenth of its level changes return to the level before (noise
// chattering across a boundary, not a noiseless law stepping through a
// lattice), the estimate is at least the rounding noise q / sqrt(12).
// Differences within the rounding of their terms count as 0; noiseless data
// give 0 or about 0.
double noise_estimate(const std::vector<Prepared>& data, const std::vector<int>& experiments);

// What the quantisation rule reads of the samples themselves: their range
// and how often a change of level reverses the one before.
struct LevelChanges {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  long changes = 0, returns = 0;
  int last = 0;  // the sign of the last change in this experiment (0: none yet)
  // The next sample; `from`: the one before it in the experiment.
  void add(double y);
  void add(double from, double y);
};

// The same estimate for a log streamed in bounded memory: the differences
// are cut into blocks of kNoiseBlock consecutive values (within an
// experiment; a shorter last block of at least kNoiseMinBlock values counts
// too), each block gets the estimate above, and the variance is the median
// of the blocks' variances, so a block full of reversals or steps cannot
// pull it. One block: exactly noise_estimate's value.
class NoiseAccumulator {
 public:
  static constexpr size_t kNoiseBlock = 65536, kNoiseMinBlock = 64;
  // Next sample of the current experiment.
  void add(double y);
  // The next sample starts a new experiment.
  void next_experiment();
  double estimate();

 private:
  void flush(bool last);               // the block's variance where it counts; then start_block
  void start_block();                  // empty, but for the samples carried over (have_)
  std::vector<double> d_, block_var_;  // |d| of the current block; the blocks' variances
  double y_[3] = {0, 0, 0};            // the previous three samples, the latest last
  int have_ = 0;
  LevelChanges levels_;  // of the current block's samples
};

}  // namespace stribeck::ident::detail
