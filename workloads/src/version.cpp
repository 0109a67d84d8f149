#include "stribeck/workloads/version.hpp"

namespace stribeck::workloads {
const char* version() { return STRIBECK_VERSION; }
}  // namespace stribeck::workloads
