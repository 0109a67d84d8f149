#pragma once
// A body system with any friction model as a smooth ODE (static laws, LuGre,
// 20-sim LuGre, Dahl), integrated with RK4 sub-stepped by a stability bound.
//
// The bound adds the mechanical rate (body_rate) to the friction's own:
//   dynamic models: a + D/m + sqrt((K + D a)/m), with a = relax_rate (the
//     bristle relaxation rate |d(dz/dt)/dz|), K = stiffness (presliding
//     spring), D = damping (force per velocity);
//   static laws: |dF/dv|/m from a central difference of the law.
// A static law with an exact sign (no smoothing) has an infinite slope at
// v = 0: the trajectory then ends with kSimStepLimit; use the stiction form.
// A dynamic model whose ODE is not Lipschitz for the parameter set (Dahl with
// alpha < 1; M::ode_ok) is refused up front with kSimInvalid.
// A model with several states (the generalized Maxwell-slip elements, whose
// kElements states are z_1..z_N) gives their force and rates through
// M::rates(c, v, z, dz); z_1 is the body's kBodyZ and z_2..z_N are integrated
// after the body's N states (SmoothBody::kStates).
//
// With SimOptions::integrator = kIntegratorEtdRk4 a model whose bristle
// state has the form z' = v - a(v) z (etd_form<M>) is integrated with
// ETDRK4 (integrators/etd_rk4.hpp): a, frozen per step, is exact, so
// it leaves the bound, which becomes
//   mechanical rate + D/m + sqrt((K + D a)/m) + |a_n - a_(n-1)|,
// the last term the change of a over the previous output step, a bound on
// the explicitly integrated remainder (a(v) - a_n) z within a step no longer
// than that one (docs/dynamics.md). Other models run RK4 (the configs refuse
// the option for them).
#include <type_traits>

#include "stribeck/kernels/integrators/etd_rk4.hpp"
#include "stribeck/kernels/integrators/rk4.hpp"
#include "stribeck/kernels/integrators/status.hpp"
#include "stribeck/kernels/sample.hpp"
#include "stribeck/kernels/systems/body.hpp"
#include "stribeck/kernels/systems/sim_options.hpp"

namespace stribeck {

// Whether M's friction state is a vector (M::kElements states and M::rates).
template <class M, class = void>
struct VectorFrictionState : std::false_type {};
template <class M>
struct VectorFrictionState<M, std::void_t<decltype(M::kElements)>> : std::true_type {};
// Friction states integrated beyond the body's kBodyZ.
template <class M>
constexpr int friction_extra_states() {
  if constexpr (VectorFrictionState<M>::value) return M::kElements - 1;
  else return 0;
}

// Whether M's state obeys z' = v - M::relax_rate(v) z exactly (relax_rate
// independent of z; the law says so with M::kLinearRelaxation): the models
// ETDRK4 integrates.
template <class M, class = void>
struct LinearRelaxation : std::false_type {};
template <class M>
struct LinearRelaxation<M, std::void_t<decltype(M::kLinearRelaxation)>> : std::bool_constant<M::kLinearRelaxation> {};
template <class M>
constexpr bool etd_form() {
  return LinearRelaxation<M>::value;
}

template <class T>
STRIBECK_HD_INLINE Sample<T> friction_sample(const BodyInputs<T>& in, const T& v_rel) {
  return Sample<T>{v_rel, in.p_a, in.p_b, in.f_n};
}

// |dF/dv| of a static law by a central difference.
template <class M, class T>
STRIBECK_HD_INLINE T law_slope(const typename M::template Coeffs<T>& fc, Sample<T> s) {
  const T v = s.v, d = T(1e-3) * math::abs(v) + T(1e-7);
  s.v = v + d;
  const T fp = M::force(fc, s);
  s.v = v - d;
  const T fm = M::force(fc, s);
  return math::abs(fp - fm) / (T(2) * d);
}

// Friction force and state rate of model M at (sample, z).
template <class M, class T>
STRIBECK_HD_INLINE T friction_eval(const typename M::template Coeffs<T>& fc, const Sample<T>& s, const T& z, T& dz) {
  if constexpr (M::kDynamic) {
    dz = M::dzdt(fc, s, z);
    return M::output(fc, s, z, dz);
  } else {
    (void)z;
    dz = T(0);
    return M::force(fc, s);
  }
}

// Friction force of model M on the state vector x whose body part has NB
// states: kBodyZ's rate in dz and, for a vector state, the rates of
// z_2..z_N in dx[NB..NB + N - 1) (their states x[NB..]).
template <class M, int NB, class T>
STRIBECK_HD_INLINE T friction_eval_states(const typename M::template Coeffs<T>& fc, const Sample<T>& s, const T* x,
                                          T& dz, T* dx) {
  if constexpr (VectorFrictionState<M>::value) {
    T z[M::kElements], r[M::kElements];
    z[0] = x[kBodyZ];
    for (int j = 1; j < M::kElements; ++j) z[j] = x[NB + j - 1];
    const T f = M::rates(fc, s.v, z, r);
    dz = r[0];
    for (int j = 1; j < M::kElements; ++j) dx[NB + j - 1] = r[j];
    return f;
  } else {
    (void)dx;
    return friction_eval<M>(fc, s, x[kBodyZ], dz);
  }
}

template <class M, class T>
STRIBECK_HD_INLINE T friction_rate(const typename M::template Coeffs<T>& fc, const Sample<T>& s, const T& z,
                                   const T& mass) {
  if constexpr (M::kDynamic) {
    const T a = M::relax_rate(fc, s, z), K = M::stiffness(fc, s), D = M::damping(fc, s);
    const T inv_mass = T(1) / mass;  // loop-invariant: computed once per trajectory (see body_rhs)
    return a + D * inv_mass + math::fast_sqrt((K + D * a) * inv_mass);
  } else {
    (void)z;
    return law_slope<M>(fc, s) / mass;
  }
}

// friction_rate without the bristle's relaxation rate, which ETDRK4
// integrates exactly: D/m + sqrt((K + D a)/m); a (the rate to freeze over
// the step) in relax.
template <class M, class T>
STRIBECK_HD_INLINE T etd_friction_rate(const typename M::template Coeffs<T>& fc, const Sample<T>& s, const T& z,
                                       const T& mass, T& relax) {
  relax = M::relax_rate(fc, s, z);
  const T K = M::stiffness(fc, s), D = M::damping(fc, s);
  const T inv_mass = T(1) / mass;
  return D * inv_mass + math::fast_sqrt((K + D * relax) * inv_mass);
}

// The body with smooth friction model M, integrating its first N states
// (body_rhs) and the model's extra states after them (kStates in all);
// kAffine: every input is affine (body_inputs<true>).
template <class M, class T, int N = kBodyN, bool kAffine = false>
struct SmoothBody {
  static constexpr int kExtra = friction_extra_states<M>();
  static constexpr int kStates = N + kExtra;
  const BodySystem<T>& b;
  const typename M::template Coeffs<T>& fc;
  const AffineInputs<T> affine = body_inputs_affine(b);
  const T mech_rate = body_rate(b);  // the mechanical part of the stability rate: per trajectory

  // The friction force, kBodyZ's rate in dz and the extra states' rates in
  // dx[N..kStates).
  STRIBECK_HD_HOT T friction(const T& t, const T* x, BodyInputs<T>& in, T& v_rel, T& dz, T* dx) const {
    in = body_inputs<kAffine>(b, t, affine);
    v_rel = body_v_rel(b, in, x[kBodyV]);
    return friction_eval_states<M, N>(fc, friction_sample(in, v_rel), x, dz, dx);
  }
  STRIBECK_HD_HOT void operator()(const T& t, const T* x, T* dx) const {
    BodyInputs<T> in;
    T v_rel, dz;
    const T f = friction(t, x, in, v_rel, dz, dx);
    body_rhs<N>(b, in, x, f, dz, dx);
  }
  // The bristle's relaxation rate at (t, x) (ETDRK4's frozen rate).
  STRIBECK_HD_INLINE T relax(const T& t, const T* x) const {
    const BodyInputs<T> in = body_inputs<kAffine>(b, t, affine);
    return M::relax_rate(fc, friction_sample(in, body_v_rel(b, in, x[kBodyV])), x[kBodyZ]);
  }
  // Everything the driver needs at one instant, from one friction
  // evaluation: the output snapshot, the derivative dx (the first RK4 stage
  // of the step that starts here) and the stability rate for that step;
  // kEtd: the rate without the bristle's relaxation, which goes to
  // *relax_rate.
  template <bool kEtd = false>
  STRIBECK_HD_HOT BodySnapshot<T> at(const T& t, const T (&x)[kStates], T (&dx)[kStates], T& rate,
                                     T* relax_rate = nullptr) const {
    BodySnapshot<T> o;
    o.t = t;
    for (int i = 0; i < kBodyN; ++i) o.x[i] = i < N ? x[i] : T(0);
    BodyInputs<T> in;
    T dz;
    o.f_fric = friction(t, x, in, o.v_rel, dz, dx);
    body_rhs<N>(b, in, x, o.f_fric, dz, dx);
    o.f_spring = body_spring_force(b, in, x);
    o.v_drive = in.v_d;
    o.mode = static_cast<int>(o.v_rel > T(0)) - static_cast<int>(o.v_rel < T(0));  // sign(v_rel)
    if constexpr (kEtd)
      rate = mech_rate + etd_friction_rate<M>(fc, friction_sample(in, o.v_rel), x[kBodyZ], b.mass, *relax_rate);
    else rate = mech_rate + friction_rate<M>(fc, friction_sample(in, o.v_rel), x[kBodyZ], b.mass);
    return o;
  }
};

template <class T, int N>
STRIBECK_HD_INLINE void body_initial_state(const BodySystem<T>& b, T (&x)[N]) {
  for (int i = 0; i < N; ++i) x[i] = T(0);
  x[kBodyS] = b.s0;
  x[kBodyV] = b.v0;
  x[kBodyZ] = b.z0;
}

// Simulates the body with smooth friction model M; observer(snapshot) is
// called at t = 0 and after every output step. Returns a SimStatus. When
// rk4_steps is given, the number of RK4 steps taken is added to it; when
// last is given, it receives the snapshot where the simulation stopped (at
// t_end; at the last output step reached when the step limit stops it; the
// non-finite state after the failing step for kSimNonFinite; kSimInvalid
// leaves it unwritten). N is the number of states integrated (body_rhs):
// the snapshots of kBodyNDissipation carry the total dissipation in
// W_fric, and zero damper, drive and external work. kAffine: the caller
// guarantees affine inputs (SmoothBody). kEtd: ETDRK4 (etd_form<M>
// only); simulate_smooth picks it from o.integrator.
template <class M, int N, bool kAffine, bool kEtd, class T, class Observer>
STRIBECK_HD int simulate_smooth_with(const typename M::template Coeffs<T>& fc, const BodySystem<T>& b,
                                     const SimOptions<T>& o, Observer& observe, long* rk4_steps,
                                     BodySnapshot<T>* last) {
  static_assert(!kEtd || etd_form<M>(), "ETDRK4 integrates a bristle state z' = v - a(v) z");
  using Sys = SmoothBody<M, T, N, kAffine>;
  constexpr int kX = Sys::kStates;
  const Sys sys{b, fc};
  T x[kX], k1[kX], rate;
  // ETDRK4: the relaxation rate frozen over the step that starts here, and
  // at the previous output instant (their difference bounds the remainder).
  T relax = T(0), relax_prev = T(0);
  body_initial_state(b, x);
  if constexpr (M::kDynamic) {
    if (!M::ode_ok(fc)) return kSimInvalid;
  }
  const long n_steps = sim_num_steps(o);
  // An int step counter (64-bit counters cost two GPU instructions per
  // step); the configs allow at most 5e7 steps (simulate_config.cpp).
  if (n_steps > 2147483647L) return kSimInvalid;
  const int n = static_cast<int>(n_steps);
  // Each output instant is evaluated once: its snapshot, the first stage of
  // the next step and that step's stability rate come from one call.
  observe(sys.template at<kEtd>(T(0), x, k1, rate, &relax));
  relax_prev = relax;
  // A step whose rate is at most rate_one needs one RK4 step: the usual
  // case, decided with one comparison (rk4_substeps would give 1 there).
  const T rate_one = T(kRk4StableRho) / o.dt;
  int status = kSimOk;
  long steps = n, extra = 0;  // output steps taken; RK4 steps beyond one per output step
  T t0 = T(0);
  for (int i = 0; i < n; ++i) {
    const T t1 = T(i + 1) * o.dt;
    if constexpr (kEtd) {
      rate += math::abs(relax - relax_prev);
      relax_prev = relax;
    }
    if (rate <= rate_one) {
      if constexpr (kEtd) etd_rk4_step_k1<kBodyZ, kX>(sys, t0, x, o.dt, k1, relax);
      else rk4_step_k1<kX>(sys, t0, x, o.dt, k1);
    } else {
      const int sub = rk4_substeps(o.dt, rate, o.max_substeps);
      if (sub > o.max_substeps) {
        status = kSimStepLimit;
        steps = i;
        break;
      }
      const T h = o.dt / T(sub);
      for (int j = 0; j < sub; ++j) {
        if (j > 0) sys(t0 + T(j) * h, x, k1);
        if constexpr (kEtd) {
          // Each sub-step freezes the rate at its own start.
          const T a = j > 0 ? sys.relax(t0 + T(j) * h, x) : relax;
          etd_rk4_step_k1<kBodyZ, kX>(sys, t0 + T(j) * h, x, h, k1, a);
        } else {
          rk4_step_k1<kX>(sys, t0 + T(j) * h, x, h, k1);
        }
      }
      extra += sub - 1;
    }
    t0 = t1;
    if (!all_finite(x)) {
      status = kSimNonFinite;
      steps = i + 1;
      break;
    }
    observe(sys.template at<kEtd>(t1, x, k1, rate, &relax));
  }
  if (rk4_steps) *rk4_steps += steps + extra;
  // The final snapshot is computed once where the run stopped (x, t0)
  // rather than remembered from every step, which costs copies in the GPU
  // loop.
  if (last) {
    T dx[kX], r;
    *last = sys.at(t0, x, dx, r);
  }
  return status;
}

// simulate_smooth_with the integrator o.integrator names (RK4 for a model
// without etd_form).
template <class M, int N = kBodyN, bool kAffine = false, class T, class Observer>
STRIBECK_HD int simulate_smooth(const typename M::template Coeffs<T>& fc, const BodySystem<T>& b,
                                const SimOptions<T>& o, Observer& observe, long* rk4_steps = nullptr,
                                BodySnapshot<T>* last = nullptr) {
  if constexpr (etd_form<M>()) {
    if (o.integrator == kIntegratorEtdRk4)
      return simulate_smooth_with<M, N, kAffine, true>(fc, b, o, observe, rk4_steps, last);
  }
  return simulate_smooth_with<M, N, kAffine, false>(fc, b, o, observe, rk4_steps, last);
}

}  // namespace stribeck
