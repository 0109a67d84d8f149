#pragma once
// What `stribeck design` knows of a static law's samples (docs/
// identification.md, "The best test of the duration"): each sample's
// information depends only on its (speed, pressure), through the force's
// gradient in the fit's relative free parameters. Shared by the `levels`
// candidate (design_plateaus.hpp) and the certified bound (design_bound.hpp).
#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "stribeck/identification/design.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/sample.hpp"

namespace stribeck::ident::detail {

struct MeasurePoint {
  double v = 0, p = 0, share = 0;  // speed [m/s | rad/s], chamber-A pressure [Pa], share of the test's time
};

// Whether the law reads a chamber pressure (the rig's pressures are then
// part of each sample's point).
inline bool reads_pressure(const ModelInfo& m) { return m.needs(kChannelPressureA) || m.needs(kChannelPressureB); }

// Speed k of n log-spaced over kSpeedDecades below v_max, fastest first.
constexpr double kSpeedDecades = 5;
inline double log_speed(double v_max, int k, int n) { return v_max * std::pow(10.0, -kSpeedDecades * k / (n - 1)); }

// Row j: theta_i dF/dtheta_i at point j (the force's gradient in the
// relative free parameters of `at`, a prediction of the request's fit; 1
// for an offset) by central differences of the law at the prior, held
// parameters at their --fix values. No columns for a law with memory or a
// layout with a nuisance other than an offset (a mass).
Eigen::MatrixXd relative_gradients(const DesignRequest& r, const Prediction& at, const std::vector<MeasurePoint>& pts);

}  // namespace stribeck::ident::detail
