#pragma once
// The flags of a fit's options (`identify`): which parameters are free,
// fixed, started or bounded, the force balance, the derived kinematics, the
// loss and the search.
#include <CLI/CLI.hpp>
#include <functional>

#include "stribeck/identification/fit.hpp"

namespace stribeck::cli {

// Binds the flags to `fit` (which must outlive the parse) and returns what
// the parsed flags imply, to be called before the run: --offset-per-experiment
// implies --offset, --mass implies --inertia, --no-parallel-filter clears
// parallel_filter.
std::function<void()> add_fit_flags(CLI::App* cmd, ident::FitOptions& fit);

}  // namespace stribeck::cli
