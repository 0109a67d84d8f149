#include "stribeck/host/version.hpp"

namespace stribeck {
const char* version() { return STRIBECK_VERSION; }
}  // namespace stribeck
