#pragma once
namespace stribeck::workloads {
// The toolkit version (CMake project version), e.g. "0.1.0".
const char* version();
}  // namespace stribeck::workloads
