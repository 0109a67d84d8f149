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

}  // namespace stribeck::ident::detail
