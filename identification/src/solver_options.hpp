#pragma once
// Private to identification/: the Ceres solver settings every fit uses, from
// the FitOptions (defaults documented in fit.hpp).
#include <ceres/ceres.h>

#include "stribeck/identification/fit.hpp"

namespace stribeck::ident::detail {

// `default_threads`: used when o.num_threads is 0 (the static fit's blocks
// run in parallel; a two-stage fit's stage 2 has one block per experiment).
inline ceres::Solver::Options solver_options(const FitOptions& o, int default_threads) {
  ceres::Solver::Options so;
  // P is small (<= a few dozen): the normal equations are P x P and cheap,
  // where DENSE_QR would factorise the whole N x P Jacobian every iteration.
  so.linear_solver_type = ceres::DENSE_NORMAL_CHOLESKY;
  so.max_num_iterations = o.max_iterations;
  so.function_tolerance = o.function_tolerance;
  so.gradient_tolerance = o.gradient_tolerance;
  so.parameter_tolerance = o.parameter_tolerance;
  so.num_threads = o.num_threads > 0 ? o.num_threads : default_threads;
  so.logging_type = ceres::SILENT;
  return so;
}

}  // namespace stribeck::ident::detail
