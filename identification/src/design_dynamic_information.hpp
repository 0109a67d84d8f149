#pragma once
// Private to identification/: the information of a law with memory for
// `stribeck design` (design.hpp): that of identify's joint stage, the fit
// whose standard errors identify reports for such a law.
#include <Eigen/Core>
#include <vector>

#include "problem.hpp"
#include "stribeck/data/experiment.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident::detail {

// J_u^T J_u of the joint stage's problem (joint_information, joint_fit.hpp)
// on `data`, prepared from `logs`, at L's values: the simulated force's
// Jacobian in the internal coordinates of the unknowns it estimates, which
// it writes to *free. Throws InputError for a model without a dynamic fit,
// a log without strictly increasing time, or a model that cannot be
// simulated at L's values.
Eigen::MatrixXd dynamic_information(const ModelInfo& model, Layout& L, const std::vector<Prepared>& data,
                                    const std::vector<data::Experiment>& logs, std::vector<int>* free);

}  // namespace stribeck::ident::detail
