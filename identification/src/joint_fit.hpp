#pragma once
// Private to identification/: the joint stage of a dynamic fit (LuGre, Dahl,
// 20-sim LuGre; docs/identification.md, "Dynamic models"). Every free
// parameter of the model (and the offsets) at once, by simulation error over
// every sample: one residual block per experiment runs the kernels' trace
// step M::step (the exact bristle update `eval` integrates) on ceres::Jet in
// time order, so the derivatives are those of the simulated force. Rounds of
// starts (the two-stage result, then points drawn across the model's ranges
// scaled by the data and screened by one simulation each) until the best two
// agree; standard errors, intervals, correlations and warnings of the joint
// problem, each timed as a phase of the fit.
#include <Eigen/Core>
#include <vector>

#include "phases.hpp"
#include "problem.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident::detail {

struct JointResult {
  FitSummary S;          // parameters, correlation, quality, experiments, status, warnings, starts, best_start
  int at_best = 0;       // starts whose final cost is the best's (same_optimum)
  bool settled = false;  // the best two refinements agree (automatic search)
  int rounds = 0;        // rounds of refinements run
};

// L: the fit's unknowns (make_layout) with values at the start (the
// two-stage result). times[e]: experiment e's time stamps (strictly
// increasing). train: the experiments fitted (the others are validated).
// more_starts: internal coordinates (one per L parameter) refined in the
// first round after the two-stage start, before drawn points (GMS: the
// fit of one element fewer, split; gms_elements.hpp). A GMS fit's
// refinements have their elements in order of break displacement.
template <class F>
JointResult joint_stage(const ModelInfo& model, const FitOptions& o, const std::vector<Prepared>& data,
                        const std::vector<std::vector<double>>& times, const std::vector<int>& train, Layout L,
                        const std::vector<std::vector<double>>& more_starts, Phases& phases);

// The information of the joint problem at L's values (internal
// coordinates set): the unknowns it estimates (those of L's free ones that
// a training experiment depends on) in *free, and J_u^T J_u of its
// residuals over the samples of `train` in *jtj, J_u the Jacobian of the
// simulated force in their internal coordinates from the Jets of the joint
// stage's own residual blocks (the product its covariance is made of).
// False where the simulation is not finite. Throws InputError when there
// are no more samples than unknowns. `stribeck design` predicts a dynamic
// fit with it (design_dynamic_information.cpp).
template <class F>
bool joint_information(Layout& L, const std::vector<Prepared>& data, const std::vector<std::vector<double>>& times,
                       const std::vector<int>& train, int threads, std::vector<int>* free, Eigen::MatrixXd* jtj);

}  // namespace stribeck::ident::detail
