#pragma once
// The progress line of long runs (sweeps, ensembles) on stderr: a line that
// updates itself (at most 5 times a second) with rate and ETA on a terminal,
// a plain line every 10 s otherwise (logs of batch jobs), and always a last
// line at 100 %; and the progress of a fit (`identify`).
#include <cstdint>
#include <functional>
#include <string>

#include "stribeck/identification/fit.hpp"

namespace stribeck::cli {

// `unit` names what is counted ("points"). Call it with (done, total,
// seconds since the start); it decides itself whether to print. The rate
// (and so the ETA) is taken since the first call, so the points a resumed
// run found done do not count as this run's speed.
std::function<void(std::uint64_t, std::uint64_t, double)> progress_printer(const char* unit);

// The progress of a fit of `model` on stderr: on a terminal one line that
// updates itself (at most 5 times a second) and is cleared by end_progress;
// otherwise a plain line every 10 s once a fit has run that long (logs of
// batch jobs), so short fits print nothing.
std::function<void(const ident::FitProgress&)> fit_progress(const std::string& model);
// Clears a terminal progress line before the report is printed.
void end_progress();

}  // namespace stribeck::cli
