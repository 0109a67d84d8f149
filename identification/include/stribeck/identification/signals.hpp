#pragma once
// The inputs a fit needs, taken from an experiment's channels: velocity (or
// derived from position and time), acceleration (or derived), pressures,
// normal force, measured force. Derivation is a local quadratic least-squares
// fit over a window of samples (Savitzky-Golay on the actual time stamps, so
// uneven sampling is fine).
#include <vector>

#include "stribeck/data/experiment.hpp"

namespace stribeck::ident {

// First and second derivative of x(t) by local quadratic fits over
// 2*half_width+1 samples (shrunk at the ends). Throws InputError when t is
// not strictly increasing or the vectors differ in length.
void differentiate(const std::vector<double>& t, const std::vector<double>& x, int half_width,
                   std::vector<double>* dx, std::vector<double>* ddx);

// Velocity of an experiment: the `velocity` channel, else derived from
// `position` and `time`. Throws InputError naming the experiment otherwise.
std::vector<double> velocity_of(const Experiment& e, int half_width = 5);
// Acceleration: the `acceleration` channel, else derived from velocity
// (channel) or position. Throws InputError when neither exists.
std::vector<double> acceleration_of(const Experiment& e, int half_width = 5);

}  // namespace stribeck::ident
