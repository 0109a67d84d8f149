#pragma once
// The true stick-slip form (Karnopp 1985; the state machine of Modelica's
// friction elements): the contact is stuck, sliding forward or sliding
// backward.
//
//   stuck:    v_rel = 0 exactly; the friction is whatever keeps it so,
//             F_req = F_spring + F_ext - m a_ref (a_ref: acceleration of the
//             surface the body sticks to), as long as |F_req| <= F_brk.
//   forward / backward: the friction is the chosen static law M evaluated on
//             that side of zero (F_C, Stribeck dip, viscous part ...).
//   events:   stuck -> sliding when |F_req| reaches F_brk (direction of
//             F_req); sliding -> stuck or reverse when v_rel reaches 0
//             (stuck if |F_req| <= F_brk there, else sliding towards F_req).
//
// Events are located inside the RK4 sub-step by bisection on the step
// fraction (re-integrating the sub-step from its start), the state is put
// exactly on the switching surface (v = v_ref) and the rest of the sub-step
// continues in the new mode. While stuck on ground, v stays exactly 0.0:
// RK4 adds h/6 * (0 + 0 + 0 + 0).
#include "stribeck/kernels/integrators/rk4.hpp"
#include "stribeck/kernels/integrators/status.hpp"
#include "stribeck/kernels/systems/body.hpp"
#include "stribeck/kernels/systems/sim_options.hpp"
#include "stribeck/kernels/systems/smooth_friction.hpp"

namespace stribeck {

enum StickMode : int { kStuck = 0, kForward = 1, kBackward = -1 };

// Iterations of the event bisection: locates the switching time to 2^-40 of a
// sub-step (below double resolution of t for any practical step count).
constexpr int kEventBisections = 40;

template <class M, class T>
struct StictionBody {
  const BodySystem<T>& b;
  const typename M::template Coeffs<T>& fc;
  T f_brk;  // breakaway force: the most the stuck contact can hold
  const AffineInputs<T> affine = body_inputs_affine(b);

  STRIBECK_HD_INLINE BodyInputs<T> inputs(const T& t) const { return body_inputs(b, t, affine); }

  // Velocity of the surface the friction acts against, and its acceleration.
  STRIBECK_HD_INLINE T v_ref(const BodyInputs<T>& in) const { return b.friction_on_drive ? in.v_d : T(0); }
  STRIBECK_HD_INLINE T a_ref(const BodyInputs<T>& in) const { return b.friction_on_drive ? in.a_d : T(0); }

  // Friction force needed to keep v_rel = 0.
  STRIBECK_HD_INLINE T required(const BodyInputs<T>& in, const T* x) const {
    return body_spring_force(b, in, x) + in.f_ext - b.mass * a_ref(in);
  }
  // Sliding force: the law on the side of `dir`, also when v_rel is still 0
  // (just broke away) or has crossed zero inside a step being bisected.
  STRIBECK_HD_INLINE T slide(const BodyInputs<T>& in, const T& v_rel, int dir) const {
    const T d = T(dir);
    const T v = (v_rel * d > T(0)) ? v_rel : d * T(1e-12);
    return M::force(fc, friction_sample(in, v));
  }
  STRIBECK_HD_INLINE T friction(const T& t, const T* x, int mode, BodyInputs<T>& in, T& v_rel) const {
    in = inputs(t);
    v_rel = body_v_rel(b, in, x[kBodyV]);
    return mode == kStuck ? required(in, x) : slide(in, v_rel, mode);
  }
  STRIBECK_HD_INLINE void rhs(const T& t, const T* x, int mode, T* dx) const {
    BodyInputs<T> in;
    T v_rel;
    const T f = friction(t, x, mode, in, v_rel);
    body_rhs(b, in, x, f, T(0), dx);
  }
  // Mode at a point where v_rel = 0.
  STRIBECK_HD_INLINE int mode_at_rest(const T& t, const T* x) const {
    const BodyInputs<T> in = inputs(t);
    const T f = required(in, x);
    if (math::abs(f) <= f_brk) return kStuck;
    return f > T(0) ? kForward : kBackward;
  }
  STRIBECK_HD_INLINE T rate(const T& t, const T* x, int mode) const {
    T r = body_rate(b);
    if (mode != kStuck) {
      const BodyInputs<T> in = inputs(t);
      const T v_rel = body_v_rel(b, in, x[kBodyV]);
      const T d = T(mode), v = (v_rel * d > T(0)) ? v_rel : d * T(1e-12);
      const T dv = T(1e-3) * math::abs(v) + T(1e-7);
      r += math::abs(M::force(fc, friction_sample(in, v + d * dv)) - M::force(fc, friction_sample(in, v))) /
           (dv * b.mass);
    }
    return r;
  }

  // One RK4 step of the given mode; a stuck step re-pins v to the surface.
  STRIBECK_HD_INLINE void step(const T& t, T (&x)[kBodyN], const T& h, int mode) const {
    auto f = [&](const T& tt, const T* y, T* dy) { rhs(tt, y, mode, dy); };
    rk4_step<kBodyN>(f, t, x, h);
    if (mode == kStuck) x[kBodyV] = v_ref(inputs(t + h));
  }
  // Event function of a step taken in `mode` (switch when it becomes > 0).
  STRIBECK_HD_INLINE T event(const T& t, const T* x, int mode) const {
    const BodyInputs<T> in = inputs(t);
    if (mode == kStuck) return math::abs(required(in, x)) - f_brk;
    return -T(mode) * body_v_rel(b, in, x[kBodyV]);
  }

  // Advances x over [t, t+h], switching modes at events. Returns a SimStatus.
  STRIBECK_HD int advance(const T& t, T (&x)[kBodyN], const T& h, int& mode, int max_events) const {
    T tt = t, left = h;
    for (int events = 0;; ++events) {
      T x1[kBodyN];
      for (int i = 0; i < kBodyN; ++i) x1[i] = x[i];
      step(tt, x1, left, mode);
      if (!(event(tt + left, x1, mode) > T(0))) {
        for (int i = 0; i < kBodyN; ++i) x[i] = x1[i];
        return kSimOk;
      }
      if (events == max_events) return kSimEventLimit;
      // Bisection on the step fraction: lo is before the event, hi after.
      T lo = T(0), hi = T(1);
      for (int k = 0; k < kEventBisections; ++k) {
        const T mid = T(0.5) * (lo + hi);
        for (int i = 0; i < kBodyN; ++i) x1[i] = x[i];
        step(tt, x1, mid * left, mode);
        if (event(tt + mid * left, x1, mode) > T(0)) hi = mid; else lo = mid;
      }
      for (int i = 0; i < kBodyN; ++i) x1[i] = x[i];
      step(tt, x1, hi * left, mode);
      for (int i = 0; i < kBodyN; ++i) x[i] = x1[i];
      tt += hi * left;
      left -= hi * left;
      if (mode == kStuck) {
        const T f = required(inputs(tt), x);
        mode = f > T(0) ? kForward : kBackward;
      } else {
        x[kBodyV] = v_ref(inputs(tt));  // exactly on the switching surface
        mode = mode_at_rest(tt, x);
      }
      if (!(left > T(0))) return kSimOk;
    }
  }

  STRIBECK_HD_INLINE BodySnapshot<T> snapshot(const T& t, const T (&x)[kBodyN], int mode) const {
    BodySnapshot<T> o;
    o.t = t;
    for (int i = 0; i < kBodyN; ++i) o.x[i] = x[i];
    BodyInputs<T> in;
    o.f_fric = friction(t, x, mode, in, o.v_rel);
    o.f_spring = body_spring_force(b, in, x);
    o.v_drive = in.v_d;
    o.mode = mode;
    return o;
  }
};

// Simulates the body with the stiction form over static law M and breakaway
// force f_brk (>= the law's force just above zero velocity, or the contact
// chatters). observer(snapshot), rk4_steps and last as in simulate_smooth
// (kSimEventLimit: last is the last output step reached). Returns a
// SimStatus.
template <class M, class T, class Observer>
STRIBECK_HD int simulate_stiction(const typename M::template Coeffs<T>& fc, const T& f_brk,
                                  const BodySystem<T>& b, const SimOptions<T>& o, Observer& observe,
                                  long* rk4_steps = nullptr, BodySnapshot<T>* last = nullptr) {
  const StictionBody<M, T> sys{b, fc, f_brk};
  T x[kBodyN];
  body_initial_state(b, x);
  const BodyInputs<T> in0 = body_inputs(b, T(0));
  const T v_rel0 = body_v_rel(b, in0, x[kBodyV]);
  int mode = v_rel0 > T(0) ? kForward : v_rel0 < T(0) ? kBackward : sys.mode_at_rest(T(0), x);
  BodySnapshot<T> snap = sys.snapshot(T(0), x, mode);
  observe(snap);
  auto stop = [&](int status, const BodySnapshot<T>& at) {
    if (last) *last = at;
    return status;
  };
  const long n = sim_num_steps(o);
  for (long i = 0; i < n; ++i) {
    const T t0 = T(i) * o.dt;
    const int sub = rk4_substeps(o.dt, sys.rate(t0, x, mode), o.max_substeps);
    if (sub > o.max_substeps) return stop(kSimStepLimit, snap);
    const T h = sub == 1 ? o.dt : o.dt / T(sub);  // the usual single sub-step needs no division
    if (rk4_steps) *rk4_steps += sub;  // sub-steps; event bisection re-steps are not counted
    for (int j = 0; j < sub; ++j) {
      const int st = sys.advance(t0 + T(j) * h, x, h, mode, o.max_events);
      if (st != kSimOk) return stop(st, snap);
    }
    snap = sys.snapshot(T(i + 1) * o.dt, x, mode);
    if (!all_finite(x)) return stop(kSimNonFinite, snap);
    observe(snap);
  }
  return stop(kSimOk, snap);
}

}  // namespace stribeck
