#pragma once
// Per-trajectory outcome of a simulation (Gpufit-style status codes): a
// trajectory that could not be integrated says so instead of returning
// silently wrong numbers. The trajectory stops at the first problem; its
// metrics then describe the part before it.
#include "stribeck/kernels/config.hpp"

namespace stribeck {

enum SimStatus : int {
  kSimOk = 0,
  kSimNonFinite = 1,   // a state became NaN or infinite
  kSimStepLimit = 2,   // the stability bound asked for more sub-steps than max_substeps
  kSimEventLimit = 3,  // more stick/slip events in one step than max_events (chattering)
  kSimInvalid = 4,     // the parameters break a model or system rule, or the model's ODE cannot be
                       // integrated explicitly for them (Dahl with alpha < 1): not run
};

inline const char* sim_status_name(int s) {
  switch (s) {
    case kSimOk: return "ok";
    case kSimNonFinite: return "non-finite";
    case kSimStepLimit: return "step-limit";
    case kSimEventLimit: return "event-limit";
    case kSimInvalid: return "invalid-parameters";
  }
  return "unknown";
}

}  // namespace stribeck
