// Compiled to PTX only (never run): the FP32 per-sample loop of every model,
// checked by check_fp32_ptx.py to contain no double-precision arithmetic
// beyond the once-per-tile flush into the double accumulators.
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/sweep/trajectory.hpp"

namespace stribeck {

template <class M>
__global__ void fp32_tile(sweep::TraceView<float> t, const float* p, sweep::RawMetrics* out) {  // NOLINT
  sweep::Trajectory<M, float> tr;
  tr.coeffs = M::prepare(p);
  tr.start_experiment();
  sweep::RawMetrics raw;
  tr.run(t, 0, t.n, raw);
  *out = raw;
}

// Taking each kernel's address instantiates it for every model of the list.
template <class... M>
const void* const* kernel_table(ModelList<M...>) {
  static const void* const table[] = {reinterpret_cast<const void*>(&fp32_tile<M>)...};
  return table;
}
const void* const* all_fp32_kernels() { return kernel_table(AllModels{}); }

}  // namespace stribeck
