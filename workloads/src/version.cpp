#include "stribeck/workloads/version.hpp"

namespace stribeck {
const char* version() { return STRIBECK_VERSION; }
}  // namespace stribeck
