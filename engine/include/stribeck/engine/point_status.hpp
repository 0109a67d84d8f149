#pragma once
// The one outcome code of a point of any batch workload (sweep point,
// ensemble trajectory, batch fit), Gpufit-style: what the engine counts,
// summarises, gives examples of and writes in every results file's `status`
// column. Its values are the kernels' SimStatus codes, which the sweep and
// simulation kernels write, so no code is ever translated.
#include <cstdint>

#include "stribeck/kernels/integrators/status.hpp"

namespace stribeck::engine {

enum class PointStatus : std::uint8_t {
  kOk = kSimOk,                  // computed
  kNonFinite = kSimNonFinite,    // NaN or Inf along the way: results describe the part before
  kStepLimit = kSimStepLimit,    // an integrator needed more sub-steps than allowed
  kEventLimit = kSimEventLimit,  // more stick/slip events in one step than allowed (chattering)
  kInvalid = kSimInvalid,        // the point breaks a rule of its model or system: not computed
};
constexpr int kPointStatusCount = 5;

inline const char* point_status_name(PointStatus s) {
  switch (s) {
    case PointStatus::kOk: return "ok";
    case PointStatus::kNonFinite: return "non-finite";
    case PointStatus::kStepLimit: return "step-limit";
    case PointStatus::kEventLimit: return "event-limit";
    case PointStatus::kInvalid: return "invalid";
  }
  return "unknown";
}

// A simulation's SimStatus (an unknown code counts as invalid: not trusted).
inline PointStatus from_sim_status(int s) {
  return s >= 0 && s <= kSimInvalid ? static_cast<PointStatus>(s) : PointStatus::kInvalid;
}

}  // namespace stribeck::engine
