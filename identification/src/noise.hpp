#pragma once
// Private to identification/: the force noise of a log estimated from the
// data alone, before any model is fitted, so a fit can tell "the residual is
// the noise" from "the solver stopped in a wrong basin".
#include <vector>

#include "problem.hpp"

namespace stribeck::ident::detail {

// Standard deviation [N] of white noise on the fitted force (Prepared::y),
// from second differences d_i = y_(i-1) - 2 y_i + y_(i+1): for white noise
// of variance s^2, E[d^2] = 6 s^2. The friction force itself contributes
// little to d (it is smooth at the sample rate) except at reversals and
// steps, which are few: the largest 2 % of d^2 are dropped, and the mean of
// the rest is corrected for what that trimming removes from Gaussian noise.
// Returns 0 for noiseless smooth data.
double noise_estimate(const std::vector<Prepared>& data, const std::vector<int>& experiments);

// The same estimate for a log streamed in bounded memory: the second
// differences are cut into blocks of kNoiseBlock consecutive values (within
// an experiment; a shorter last block of at least kNoiseMinBlock values
// counts too), each block gets the trimmed estimate above, and the variance
// is the median of the blocks' variances, so a block full of reversals or
// steps cannot pull it. One block: exactly noise_estimate's value.
class NoiseAccumulator {
 public:
  static constexpr size_t kNoiseBlock = 65536, kNoiseMinBlock = 64;
  // Next sample of the current experiment.
  void add(double y);
  // The next sample starts a new experiment.
  void next_experiment();
  double estimate();

 private:
  void flush(bool last);
  std::vector<double> d2_, block_var_;
  double y1_ = 0, y2_ = 0;  // the previous two samples
  int have_ = 0;
};

}  // namespace stribeck::ident::detail
