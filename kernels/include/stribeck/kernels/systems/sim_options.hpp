#pragma once
// Options shared by every system simulation (Ceres-style: every default
// documented here).
#include "stribeck/kernels/config.hpp"

namespace stribeck {

// The smooth systems' integrator ([simulation] integrator).
enum SimIntegrator : int {
  kIntegratorRk4 = 0,     // classical RK4, sub-stepped by the whole system's stability bound
  kIntegratorEtdRk4 = 1,  // "etd-rk4": the bristle's relaxation exact (integrators/etd_rk4.hpp),
                          // sub-stepped by the mechanics; models with etd_form<M>() only
};

template <class T>
struct SimOptions {
  // Simulated time span [s]; the simulation takes round(t_end/dt) output steps.
  T t_end = T(1);
  // Output step [s]: the observer sees the state at every multiple of dt. The
  // integrator sub-divides each output step as its stability bound requires.
  T dt = T(1e-4);
  // Most sub-steps per output step before the trajectory stops with
  // kSimStepLimit (a very stiff parameter set: raise it or shrink dt).
  int max_substeps = 4096;
  // Most stick/slip switches inside one output step before kSimEventLimit
  // (stiction form only; a chattering parameter set).
  int max_events = 16;
  // SimIntegrator; the smooth form only (the stiction form ignores it).
  int integrator = kIntegratorRk4;
};

template <class T>
STRIBECK_HD_INLINE long sim_num_steps(const SimOptions<T>& o) {
  return static_cast<long>(o.t_end / o.dt + T(0.5));
}

}  // namespace stribeck
