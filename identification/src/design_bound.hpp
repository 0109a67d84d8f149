#pragma once
// The certified bound of `stribeck design` (design.hpp: DesignBound): the
// optimal time shares of a static law's test over (speed, pressure) under
// the rig's stroke and acceleration, found by Frank-Wolfe, and the duality
// certificate that no test of the duration does better.
#include <Eigen/Dense>
#include <vector>

#include "design_support.hpp"
#include "stribeck/identification/design.hpp"

namespace stribeck::ident::detail {

// The largest share of ANY test's time at |v| >= v0: a trip from rest to
// rest within the stroke S at a_max spends at most (S - v0^2/a)/v0 at
// |v| >= v0 and at least 2 v0/a below it (0 where v0^2/a >= S).
double share_cap(const workloads::RigLimits& rig, double v0);

// True where the measure puts more of the time at |v| >= |v_j| than
// share_cap(|v_j|) allows, for one of its points j, by more than 0.1 % of
// the time (the shares plateau_test leaves out).
bool exceeds_caps(const workloads::RigLimits& rig, const std::vector<MeasurePoint>& m);

struct BoundSolution {
  DesignBound bound;
  // The optimal measure under the caps (the optimisation's grid; +v and -v
  // folded into |v|); empty when no bound is computed.
  std::vector<MeasurePoint> measure;
};

BoundSolution solve_bound(const DesignRequest& r, const Prediction& at);

}  // namespace stribeck::ident::detail
