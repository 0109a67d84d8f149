#pragma once
// The progress line of long runs (sweeps, ensembles) on stderr: a line that
// updates itself (at most 5 times a second) with rate and ETA on a terminal,
// a plain line every 10 s otherwise (logs of batch jobs), and always a last
// line at 100 %.
#include <cstdint>
#include <functional>

namespace stribeck::cli {

// `unit` names what is counted ("points"). Call it with (done, total,
// seconds since the start); it decides itself whether to print. The rate
// (and so the ETA) is taken since the first call, so the points a resumed
// run found done do not count as this run's speed.
std::function<void(std::uint64_t, std::uint64_t, double)> progress_printer(const char* unit);

}  // namespace stribeck::cli
