#pragma once
// Ensembles of body simulations: point i of a sweep parameter space (the
// sweep engine's SpaceView, computed on the fly on whichever thread needs it)
// sets some model parameters and some system quantities of a base system;
// one thread simulates it with its state in registers and reduces it to
// StickSlipMetrics. The same function is the body of the CPU loop (OpenMP
// over points) and of the CUDA kernel (one thread per point).
#include <cstdint>

#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/integrators/status.hpp"
#include "stribeck/kernels/sweep/rules.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/kernels/systems/metrics.hpp"
#include "stribeck/kernels/systems/smooth_friction.hpp"
#include "stribeck/kernels/systems/stiction.hpp"
#include "stribeck/kernels/systems/stiction_breakaway.hpp"

namespace stribeck {

// System quantities an ensemble can vary (names as in the simulate config).
enum EnsembleField : int {
  kFieldMass,
  kFieldStiffness,
  kFieldDamping,
  kFieldDriveVelocity,   // drive_velocity.offset
  kFieldDriveAmplitude,  // drive_velocity.amplitude
  kFieldDriveFrequency,  // drive_velocity.frequency
  kFieldExternalForce,   // external_force.offset
  kFieldForceSlope,      // external_force.slope
  kFieldForceAmplitude,  // external_force.amplitude
  kFieldForceFrequency,  // external_force.frequency
  kFieldNormalForce,     // normal_force.offset
  kFieldPressureA,       // pressure_a.offset
  kFieldPressureB,       // pressure_b.offset
  kFieldAreaA,
  kFieldAreaB,
  kFieldBreakaway,  // stiction form's F_brk
  kFieldInitialVelocity,
  kFieldInitialElongation,
  kNumEnsembleFields
};

inline const char* ensemble_field_name(int f) {
  constexpr const char* kNames[kNumEnsembleFields] = {
      "mass",           "stiffness",   "damping",         "drive_velocity",  "drive_amplitude",  "drive_frequency",
      "external_force", "force_slope", "force_amplitude", "force_frequency", "normal_force",     "pressure_a",
      "pressure_b",     "area_a",      "area_b",          "breakaway",       "initial_velocity", "initial_elongation"};
  return (f >= 0 && f < kNumEnsembleFields) ? kNames[f] : "?";
}

// Everything a thread needs besides the space (trivially copyable: a kernel
// argument). Dimension d of the space sets model parameter target[d] when
// target[d] >= 0, else system field -1 - target[d].
template <class T>
struct EnsembleSpec {
  BodySystem<T> base;
  double params[sweep::kMaxParams];  // the model's parameters where the space does not set them
  T breakaway = T(0);                // stiction: both directions, where breakaway_from names no parameter
  BreakawayParams breakaway_from;    // stiction: the law's own breakaway parameters per side (-1: breakaway)
  bool stiction = false;
  SimOptions<T> sim;
  MetricsOptions<T> metrics;
  sweep::ParamRules rules;  // the model's ranges and relations
  int target[sweep::kMaxParams];
};

template <class T>
STRIBECK_HD_INLINE void set_field(BodySystem<T>& b, T& breakaway, int field, const T& x) {
  switch (field) {
    case kFieldMass: b.mass = x; break;
    case kFieldStiffness: b.stiffness = x; break;
    case kFieldDamping: b.damping = x; break;
    case kFieldDriveVelocity: b.drive_velocity.offset = x; break;
    case kFieldDriveAmplitude: b.drive_velocity.amplitude = x; break;
    case kFieldDriveFrequency: b.drive_velocity.frequency = x; break;
    case kFieldExternalForce: b.external_force.offset = x; break;
    case kFieldForceSlope: b.external_force.slope = x; break;
    case kFieldForceAmplitude: b.external_force.amplitude = x; break;
    case kFieldForceFrequency: b.external_force.frequency = x; break;
    case kFieldNormalForce: b.normal_force.offset = x; break;
    case kFieldPressureA: b.pressure_a.offset = x; break;
    case kFieldPressureB: b.pressure_b.offset = x; break;
    case kFieldAreaA: b.area_a = x; break;
    case kFieldAreaB: b.area_b = x; break;
    case kFieldBreakaway: breakaway = x; break;
    case kFieldInitialVelocity: b.v0 = x; break;
    case kFieldInitialElongation: b.s0 = x; break;
  }
}

// The normal force's profile stays >= 0 over [0, t_end] (a negative normal
// force would turn friction into a drive); measured tables are checked on
// input.
template <class T>
STRIBECK_HD_INLINE bool normal_force_valid(const Profile<T>& n, T t_end) {
  const T a = n.amplitude < T(0) ? -n.amplitude : n.amplitude;
  return n.offset - a >= T(0) && n.offset + n.slope * t_end - a >= T(0);
}

template <class T>
STRIBECK_HD_INLINE bool system_valid(const BodySystem<T>& b, T t_end) {
  return b.mass > T(0) && b.stiffness >= T(0) && b.damping >= T(0) && b.area_a >= T(0) && b.area_b >= T(0) &&
         b.drive_velocity.frequency >= T(0) && b.external_force.frequency >= T(0) &&
         normal_force_valid(b.normal_force, t_end);
}

// True when every point of the ensemble has affine inputs (no sine, no
// measured table): the base system's are, and no dimension of the space sets
// an amplitude. The GPU path then runs ensemble_point<M, T, true>, whose loop
// has no general profile evaluation compiled in (fewer registers, more
// threads per SM); the results are the same.
template <class T>
STRIBECK_HD_INLINE bool ensemble_affine(const EnsembleSpec<T>& e, int dims) {
  if (!body_inputs_affine(e.base).on) return false;
  for (int d = 0; d < dims; ++d)
    if (e.target[d] == -1 - kFieldDriveAmplitude || e.target[d] == -1 - kFieldForceAmplitude) return false;
  return true;
}

// Observer that only reduces (no time series): what an ensemble thread keeps.
template <class T>
struct MetricsOnly {
  MetricsAccumulator<T> acc;
  STRIBECK_HD_INLINE void operator()(const BodySnapshot<T>& s) { acc(s); }
};

// Point i of the space applied to the spec: its coordinates into `values`
// (space.dims), the model's n_params parameters into p, the system into b
// and the breakaway into brk. False when a model or system rule is broken
// (the point is not simulated: kSimInvalid). What ensemble_point and the
// CPU's SIMD lanes (ensemble_lanes.hpp) do first.
template <class T>
STRIBECK_HD_INLINE bool ensemble_point_system(const EnsembleSpec<T>& e, const sweep::SpaceView& space, std::uint64_t i,
                                              double* values, int n_params, double* p, BodySystem<T>& b, T& brk) {
  sweep::space_point(space, i, values);
  for (int k = 0; k < n_params; ++k) p[k] = e.params[k];
  b = e.base;
  brk = e.breakaway;
  for (int d = 0; d < space.dims; ++d) {
    if (e.target[d] >= 0) p[e.target[d]] = values[d];
    else set_field(b, brk, -1 - e.target[d], T(values[d]));
  }
  return sweep::params_valid(e.rules, p) && system_valid(b, e.sim.t_end);
}

// Simulates point i; `values` receives the point's coordinates (space.dims).
// kAffine (models with memory only): ensemble_affine(e, space.dims) holds.
template <class M, class T, bool kAffine = false>
STRIBECK_HD StickSlipMetrics<T> ensemble_point(const EnsembleSpec<T>& e, const sweep::SpaceView& space, std::uint64_t i,
                                               double* values) {
  double p[sweep::kMaxParams];
  BodySystem<T> b;
  T brk;
  const bool valid = ensemble_point_system(e, space, i, values, M::kNumParams, p, b, brk);
  MetricsOnly<T> obs{MetricsAccumulator<T>(e.metrics, e.sim.t_end)};
  if (!valid) return obs.acc.finish(kSimInvalid);
  T pt[sweep::kMaxParams];
  for (int k = 0; k < M::kNumParams; ++k) pt[k] = T(p[k]);
  const auto fc = M::prepare(pt);
  int st;
  long steps = 0;
  BodySnapshot<T> last;
  if constexpr (M::kDynamic) {
    st = simulate_smooth<M, kBodyNDissipation, kAffine>(fc, b, e.sim, obs, &steps, &last);
  } else {
    static_assert(!kAffine, "the affine-only path is compiled for models with memory");
    if (e.stiction) {
      // A breakaway below the law's force just off zero speed would chatter.
      const StictionBreakaway<T> slide0 = stiction_slide0<M>(fc, body_inputs(b, T(0)));
      const StictionBreakaway<T> both = stiction_breakaway(brk, e.breakaway_from, pt, slide0);
      if (stiction_short_side(both, slide0) != 0) return obs.acc.finish(kSimInvalid);
      st = simulate_stiction<M>(fc, both, b, e.sim, obs, &steps, &last);
    } else {
      st = simulate_smooth<M, kBodyNDissipation>(fc, b, e.sim, obs, &steps, &last);
    }
  }
  StickSlipMetrics<T> m = st == kSimInvalid ? obs.acc.finish(st) : obs.acc.finish(st, last);
  m.steps = steps;
  return m;
}

}  // namespace stribeck
