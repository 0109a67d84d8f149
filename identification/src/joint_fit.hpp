#pragma once
// Private to identification/: the joint stage of a dynamic fit (LuGre, Dahl,
// 20-sim LuGre; docs/identification.md, "Dynamic models"). Every free
// parameter of the model (and the offsets) at once, by simulation error over
// every sample: one residual block per experiment runs the kernels' trace
// step M::step (the exact bristle update `eval` integrates) on ceres::Jet in
// time order, so the derivatives are those of the simulated force. Multistart
// from the two-stage result plus shifted-Halton points in a box around it;
// standard errors, intervals, correlations and warnings of the joint problem.
#include <vector>

#include "problem.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident::detail {

struct JointResult {
  FitSummary S;     // parameters, correlation, quality, experiments, status, warnings, starts, best_start
  int at_best = 0;  // starts whose final cost is within 1e-6 (relative) of the best
};

// L: the fit's unknowns (make_layout) with values at the start (the
// two-stage result). times[e]: experiment e's time stamps (strictly
// increasing). train: the experiments fitted (the others are validated).
template <class F>
JointResult joint_stage(const ModelInfo& model, const FitOptions& o, const std::vector<Prepared>& data,
                        const std::vector<std::vector<double>>& times, const std::vector<int>& train, Layout L);

}  // namespace stribeck::ident::detail
