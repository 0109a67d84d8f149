#pragma once
// The one-body friction system every experiment of issue 5 is a case of:
//
//   drive (prescribed velocity v_d(t)) --spring k, damper c--> body (mass m) --friction
//
//   m dv/dt = F_spring + F_ext(t) + A_a p_a(t) - A_b p_b(t) - F_f(v_rel, z)
//   F_spring = k s + c (v_d - v),  ds/dt = v_d - v   (s: spring elongation)
//   v_rel = v (friction against ground) or v - v_d (friction against the drive)
//
// - stick-slip test rig: k > 0, constant v_d, friction against ground (the
//   classic experiment) or against the drive (Simscape's rotational demo);
// - force-driven body: k = c = 0, F_ext a ramp (breakaway) or sine (presliding);
// - hydraulic cylinder: piston mass m, chamber pressures p_a/p_b as inputs
//   acting on areas A_a/A_b and on the seal friction (pressure-dependent
//   Coulomb force), load force in F_ext, optional load spring k with v_d = 0.
// Rotational systems use the same equations with inertia, torques and angles.
//
// The state also carries four energy integrals (drive work, external work,
// friction work, damper dissipation) integrated with the same scheme, so the
// energy balance is a by-product: W_drive + W_ext = dE_kin + dE_spring + W_fric + W_damp.
#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/scalar_math.hpp"
#include "stribeck/kernels/systems/profile.hpp"

namespace stribeck {

template <class T>
struct BodySystem {
  T mass = T(1);                   // [kg] or [kg m^2]
  T stiffness = T(0);              // spring between drive and body [N/m]
  T damping = T(0);                // damper between drive and body [N s/m]
  bool friction_on_drive = false;  // friction acts on v - v_d instead of v
  Profile<T> drive_velocity;       // v_d(t) [m/s]
  Profile<T> external_force;       // F_ext(t) on the body [N] (load forces enter here with a sign)
  Profile<T> normal_force;         // F_n(t) for friction laws with a normal-force input [N]
  Profile<T> pressure_a;           // chamber A gauge pressure [Pa]
  Profile<T> pressure_b;           // chamber B gauge pressure [Pa]
  T area_a = T(0);                 // piston area on the A side [m^2]
  T area_b = T(0);                 // piston area on the B side [m^2]
  T s0 = T(0);                     // initial spring elongation [m]
  T v0 = T(0);                     // initial body velocity [m/s]
  T z0 = T(0);                     // initial friction state (dynamic models)
};

// State layout. The dissipation integrals come first after the mechanical
// states so that a driver that needs only the total dissipation (an
// ensemble: its metrics read W_fric + W_damp) integrates the first
// kBodyNDissipation states: there the kBodyWFric state integrates the sum
// W_fric + W_damp (one state instead of two), and W_damp reads 0.
enum BodyState : int { kBodyS, kBodyV, kBodyZ, kBodyWFric, kBodyWDamp, kBodyWDrive, kBodyWExt, kBodyN };
constexpr int kBodyNDissipation = kBodyWDamp;

// The prescribed inputs at one instant.
template <class T>
struct BodyInputs {
  T v_d, a_d, f_ext, p_a, p_b, f_n;
};

template <class T>
STRIBECK_HD_HOT BodyInputs<T> body_inputs(const BodySystem<T>& b, const T& t) {
  const T p_a = b.pressure_a.value(t), p_b = b.pressure_b.value(t);
  return BodyInputs<T>{b.drive_velocity.value(t),
                       b.drive_velocity.rate(t),
                       b.external_force.value(t) + b.area_a * p_a - b.area_b * p_b,
                       p_a,
                       p_b,
                       b.normal_force.value(t)};
}

// The inputs as affine functions of t, set up once per trajectory when every
// input is affine (no sine, no measured table: constant drive speeds, force
// ramps, constant pressures). The body systems read their inputs at every RK4
// stage; this way that costs one multiply-add per input, with the external
// force and the two pressure forces folded into one (the general form takes
// six profile evaluations with two tests each). The folded force equals the
// general form's up to rounding.
template <class T>
struct AffineInputs {
  bool on = false;  // every input is affine; otherwise body_inputs(b, t)
  T v_d0 = T(0), v_d1 = T(0), f0 = T(0), f1 = T(0), p_a0 = T(0), p_a1 = T(0), p_b0 = T(0), p_b1 = T(0), f_n0 = T(0),
    f_n1 = T(0);
};

template <class T>
STRIBECK_HD_INLINE AffineInputs<T> body_inputs_affine(const BodySystem<T>& b) {
  AffineInputs<T> a;
  a.on = b.drive_velocity.affine() && b.external_force.affine() && b.normal_force.affine() && b.pressure_a.affine() &&
         b.pressure_b.affine();
  if (!a.on) return a;
  a.v_d0 = b.drive_velocity.offset;
  a.v_d1 = b.drive_velocity.slope;
  a.f0 = b.external_force.offset + b.area_a * b.pressure_a.offset - b.area_b * b.pressure_b.offset;
  a.f1 = b.external_force.slope + b.area_a * b.pressure_a.slope - b.area_b * b.pressure_b.slope;
  a.p_a0 = b.pressure_a.offset;
  a.p_a1 = b.pressure_a.slope;
  a.p_b0 = b.pressure_b.offset;
  a.p_b1 = b.pressure_b.slope;
  a.f_n0 = b.normal_force.offset;
  a.f_n1 = b.normal_force.slope;
  return a;
}

// kAlwaysAffine: the caller guarantees a.on (a GPU ensemble whose every point
// has affine inputs, see ensemble_affine), so the general form is not
// compiled in: it holds registers the affine loop does not need.
template <bool kAlwaysAffine = false, class T>
STRIBECK_HD_HOT BodyInputs<T> body_inputs(const BodySystem<T>& b, const T& t, const AffineInputs<T>& a) {
  if constexpr (!kAlwaysAffine) {
    if (!a.on) return body_inputs(b, t);
  }
  return BodyInputs<T>{a.v_d0 + a.v_d1 * t, a.v_d1, a.f0 + a.f1 * t, a.p_a0 + a.p_a1 * t, a.p_b0 + a.p_b1 * t,
                       a.f_n0 + a.f_n1 * t};
}

template <class T>
STRIBECK_HD_INLINE T body_v_rel(const BodySystem<T>& b, const BodyInputs<T>& in, const T& v) {
  return b.friction_on_drive ? v - in.v_d : v;
}

template <class T>
STRIBECK_HD_INLINE T body_spring_force_lane(const T& stiffness, const T& damping, const BodyInputs<T>& in, const T* x) {
  return stiffness * x[kBodyS] + damping * (in.v_d - x[kBodyV]);
}
template <class T>
STRIBECK_HD_INLINE T body_spring_force(const BodySystem<T>& b, const BodyInputs<T>& in, const T* x) {
  return body_spring_force_lane(b.stiffness, b.damping, in, x);
}

// Right-hand side for a given friction force f and friction-state rate dz,
// of the first N states (kBodyN: all; kBodyNDissipation: s, v, z and the
// total dissipation W_fric + W_damp, without the work of the drive and of the
// external force). The mechanics enter as k, c, 1/m and where the friction
// acts: the form the CPU ensemble's SIMD lanes call with one lane's values
// (systems/ensemble_lanes.hpp); body_rhs is it for a BodySystem.
template <int N = kBodyN, class T>
STRIBECK_HD_HOT void body_rhs_lane(const T& stiffness, const T& damping, const T& inv_mass, bool friction_on_drive,
                                   const BodyInputs<T>& in, const T* x, const T& f, const T& dz, T* dx) {
  static_assert(N == kBodyN || N == kBodyNDissipation, "body_rhs integrates all states or the dissipative ones");
  const T v = x[kBodyV], dv_d = in.v_d - v;
  const T f_spring = stiffness * x[kBodyS] + damping * dv_d;
  dx[kBodyS] = dv_d;
  dx[kBodyV] = (f_spring + in.f_ext - f) * inv_mass;
  dx[kBodyZ] = dz;
  const T p_fric = f * (friction_on_drive ? -dv_d : v), p_damp = damping * dv_d * dv_d;
  if constexpr (N == kBodyNDissipation) {
    dx[kBodyWFric] = p_fric + p_damp;
  } else {
    dx[kBodyWFric] = p_fric;
    dx[kBodyWDamp] = p_damp;
    // The drive holds the spring and, when friction acts against it, takes
    // the friction reaction: its power is (F_spring - F_f) v_d in that case.
    dx[kBodyWDrive] = (friction_on_drive ? f_spring - f : f_spring) * in.v_d;
    dx[kBodyWExt] = in.f_ext * v;
  }
}

template <int N = kBodyN, class T>
STRIBECK_HD_HOT void body_rhs(const BodySystem<T>& b, const BodyInputs<T>& in, const T* x, const T& f, const T& dz,
                              T* dx) {
  // Times 1/m rather than divided by m: 1/m is loop-invariant, so the
  // compiler computes it once per trajectory instead of dividing (about 14
  // GPU instructions) at every RK4 stage.
  body_rhs_lane<N>(b.stiffness, b.damping, T(1) / b.mass, b.friction_on_drive, in, x, f, dz, dx);
}

// Energy stored in the body and the spring (friction-internal storage such as
// the LuGre bristles is part of the friction work).
template <class T>
STRIBECK_HD_INLINE T body_stored_energy(const BodySystem<T>& b, const T* x) {
  return T(0.5) * (b.mass * x[kBodyV] * x[kBodyV] + b.stiffness * x[kBodyS] * x[kBodyS]);
}

// Spectral radius bound of the mechanical part alone: undamped frequency of
// mass and spring plus the damping rate.
template <class T>
STRIBECK_HD_INLINE T body_rate(const BodySystem<T>& b) {
  return math::sqrt(b.stiffness / b.mass) + b.damping / b.mass;
}

// What a simulation reports at each output step.
template <class T>
struct BodySnapshot {
  T t;
  T x[kBodyN];
  T f_fric;    // friction force on the body is -f_fric (f_fric opposes v_rel)
  T f_spring;  // spring + damper force on the body
  T v_rel;     // sliding velocity seen by the friction
  T v_drive;   // drive velocity v_d
  int mode;    // 0 stuck, +1 forward, -1 backward (smooth models: sign of v_rel)
};

}  // namespace stribeck
