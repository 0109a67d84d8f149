#pragma once
// The one device choice of every batch workload: `auto` uses a usable CUDA
// GPU, else says why in one note and runs on the CPU; `gpu` without one is a
// one-line InputError; `cpu` never probes.
#include <string>

namespace stribeck::workloads {

// Which backend runs, and why (the one line `--device auto` prints).
struct DeviceChoice {
  bool gpu = false;
  std::string name;  // the GPU's name, or `cpu_name`
  std::string note;  // non-empty when auto fell back to the CPU: "no usable GPU (...); running on the <cpu_name>"
};

// requested: "auto" | "gpu" | "cpu" (else InputError naming `where`).
// `where` names the setting in messages ("--device", "sim.toml: [ensemble]
// device"); `cpu_name` is what the workload calls the CPU backend. The
// default CPU name is the sweep's: "CPU (N threads, LEVEL SIMD)".
DeviceChoice choose_device(const std::string& requested, const std::string& where = "--device",
                           const std::string& cpu_name = "");

}  // namespace stribeck::workloads
