// Dispatch of an ensemble request to its model's launch, compiled in the
// ensemble_*.cu files (ensemble_kernel.cuh, entries.hpp).
#include <stdexcept>
#include <string>

#include "entries.hpp"

namespace stribeck::gpu {

void run_ensemble(const EnsembleRequest& r) {
  const int s = model_position(StaticModels{}, r.model_id), d = model_position(DynamicModels{}, r.model_id);
  if (s >= 0 && r.fp32) kEnsembleFp32Static[static_cast<std::size_t>(s)](r.spec32, r);
  else if (s >= 0) kEnsembleFp64Static[static_cast<std::size_t>(s)](r.spec64, r);
  else if (d >= 0 && r.fp32) kEnsembleFp32Dynamic[static_cast<std::size_t>(d)](r.spec32, r);
  else if (d >= 0) kEnsembleFp64Dynamic[static_cast<std::size_t>(d)](r.spec64, r);
  else throw std::runtime_error(std::string("run_ensemble: unknown model ") + r.model_id);
}

}  // namespace stribeck::gpu
