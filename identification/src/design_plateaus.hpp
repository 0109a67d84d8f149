#pragma once
// The `levels` candidate of `stribeck design` (docs/identification.md, "The
// best test of the duration"): the time shares over (speed, pressure) that
// minimise the worst relative standard error of a static law, and the
// plateau test that realises them within the rig's stroke and acceleration.
#include <vector>

#include "design_support.hpp"
#include "stribeck/identification/design.hpp"

namespace stribeck::ident::detail {

// For a static law each sample's information depends only on its (v, p):
// M(w) = sum_j w_j g_j g_j^T with g_j the force's gradient in the relative
// free parameters of `at` (a prediction of the request's fit: its names and
// values; an offset is a nuisance). The shares over 120 log-spaced speeds
// (v_max down to 1e-5 v_max, those a pass of the stroke can reach) and the
// rig's pressures that minimise max_i [M^-1]_ii over the criterion's
// parameters, by the multiplicative algorithm of L-optimal designs for
// parameter weights u, alternated with u moved towards the worst
// parameters (a saddle point of min_w max_u). Empty for a law with memory,
// a layout with other nuisances, or one the support cannot determine.
std::vector<MeasurePoint> optimal_measure(const DesignRequest& r, const Prediction& at);

// The measure as a test: per pressure one experiment of the `levels` profile
// (the pressures of most time, at most r.experiments), its duration that
// pressure's share of the rig's: plateaus at the support speeds (shares
// under 0.1 % left out), fastest first, alternating in direction, in an even
// number of passes of at most 90 % of the stroke each, joined by ramps at
// a_max from rest and back to rest, whose time is taken from the plateaus
// in proportion. Empty when the ramps leave no time.
std::vector<workloads::DesignedExperiment> plateau_test(const DesignRequest& r, std::vector<MeasurePoint> m);

}  // namespace stribeck::ident::detail
