#include "stribeck/workloads/threads.hpp"

#include <omp.h>

#include <algorithm>

namespace stribeck::workloads {

int job_threads() { return std::max(1, omp_get_max_threads()); }

}  // namespace stribeck::workloads
