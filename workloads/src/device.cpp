// The one device choice (engine/device.hpp).
#include "stribeck/workloads/device.hpp"

#include <omp.h>

#include "stribeck/data/error.hpp"
#include "stribeck/workloads/sweep.hpp"
#if STRIBECK_HAVE_CUDA
#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#endif

namespace stribeck::workloads {

DeviceChoice choose_device(const std::string& requested, const std::string& where, const std::string& cpu_name) {
  if (requested != "auto" && requested != "gpu" && requested != "cpu")
    throw data::InputError(where + " " + requested + ": expected auto, gpu or cpu");
  DeviceChoice d;
  std::string cpu = cpu_name;
  if (cpu.empty()) {
    const std::string level = cpu_vector_level();
    cpu = "CPU (" + std::to_string(omp_get_max_threads()) + (omp_get_max_threads() == 1 ? " thread, " : " threads, ") +
          (level == "scalar" ? std::string("no SIMD") : level + " SIMD") + ")";
  }
  if (requested == "cpu") {
    d.name = cpu;
    return d;
  }
  std::string name, reason;
#if STRIBECK_HAVE_CUDA
  const bool usable = gpu::probe_device(name, reason);
#else
  const bool usable = false;
  reason = "this build has no CUDA support";
#endif
  if (usable) {
    d.gpu = true;
    d.name = name;
    return d;
  }
  if (requested == "gpu") throw data::InputError(where + " gpu: no usable GPU (" + reason + ")");
  d.name = cpu;
  d.note = "no usable GPU (" + reason + "); running on the " + cpu;
  return d;
}

}  // namespace stribeck::workloads
