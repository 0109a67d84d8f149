#pragma once
// The true stick-slip form (Karnopp 1985; the state machine of Modelica's
// friction elements): the contact is stuck, sliding forward or sliding
// backward.
//
//   stuck:    v_rel = 0 exactly; the friction is whatever keeps it so,
//             F_req = F_spring + F_ext - m a_ref (a_ref: acceleration of the
//             surface the body sticks to), as long as -F_brk_neg <= F_req <=
//             F_brk_pos (stiction_breakaway.hpp: a breakaway per direction).
//   forward / backward: the friction is the chosen static law M evaluated on
//             that side of zero (F_C, Stribeck dip, viscous part ...).
//   events:   stuck -> sliding when F_req reaches the breakaway of its
//             direction; sliding -> stuck or reverse when v_rel reaches 0
//             (stuck if F_req is within the breakaways there, else sliding
//             towards F_req).
//
// Events are located inside the RK4 sub-step by bisection on the step
// fraction (re-integrating the sub-step from its start), the state is put
// exactly on the switching surface (v = v_ref) and the rest of the output
// step continues in the new mode, cut into sub-steps by the new mode's bound
// (advance_output_step). While stuck on ground, v stays exactly 0.0:
// RK4 adds h/6 * (0 + 0 + 0 + 0).
#include "stribeck/kernels/integrators/rk4.hpp"
#include "stribeck/kernels/integrators/status.hpp"
#include "stribeck/kernels/systems/body.hpp"
#include "stribeck/kernels/systems/sim_options.hpp"
#include "stribeck/kernels/systems/smooth_friction.hpp"
#include "stribeck/kernels/systems/stiction_breakaway.hpp"

namespace stribeck {

enum StickMode : int { kStuck = 0, kForward = 1, kBackward = -1 };

// Iterations of the event bisection: locates the switching time to 2^-40 of a
// sub-step (below double resolution of t for any practical step count).
constexpr int kEventBisections = 40;

// Sub-step bound of the stiction form while sliding: h * rho_law <=
// kStictionStepRho, rho_law the sliding law's slope / m (rate(); the
// mass-spring part keeps RK4's stability bound kRk4StableRho = 2, as in the
// smooth form). Stricter than the stability bound: near v = 0 a Stribeck or
// smoothed law is steep and the motion there is a fast transient that must
// be resolved, not merely kept stable, for the trajectory not to depend on
// the output step.
constexpr double kStictionStepRho = 0.05;

template <class M, class T>
struct StictionBody {
  const BodySystem<T>& b;
  const typename M::template Coeffs<T>& fc;
  StictionBreakaway<T> brk;  // the most the stuck contact can hold, per direction
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
    if (-brk.neg <= f && f <= brk.pos) return kStuck;
    return f > T(0) ? kForward : kBackward;
  }
  STRIBECK_HD_INLINE T rate(const T& t, const T* x, int mode) const {
    T r = body_rate(b);
    if (mode != kStuck) {
      const BodyInputs<T> in = inputs(t);
      const T v_rel = body_v_rel(b, in, x[kBodyV]);
      const T d = T(mode), v = (v_rel * d > T(0)) ? v_rel : d * T(1e-12);
      const T dv = T(1e-3) * math::abs(v) + T(1e-7);
      // The law's part, scaled from RK4's stability bound to the accuracy
      // bound kStictionStepRho.
      r += T(kRk4StableRho / kStictionStepRho) *
           math::abs(M::force(fc, friction_sample(in, v + d * dv)) - M::force(fc, friction_sample(in, v))) /
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
    if (mode == kStuck) {
      // With equal sides this is |F_req| - F_brk, bit for bit.
      const T f = required(in, x), above = f - brk.pos, below = -f - brk.neg;
      return above > below ? above : below;
    }
    return -T(mode) * body_v_rel(b, in, x[kBodyV]);
  }

  // Advances x from t over at most h in `mode` and stops at the first event
  // inside: the event time is found by bisection on the step fraction,
  // re-integrating from t (the RK4 step to the located time is the step's
  // own continuous extension, so the root is that of the integrated
  // trajectory, not of an interpolant), the state is put on the switching
  // surface and the mode switched. Returns the time advanced (h when no
  // event occurred; `switched` tells).
  STRIBECK_HD T advance_to_event(const T& t, T (&x)[kBodyN], const T& h, int& mode, bool& switched) const {
    T x1[kBodyN];
    for (int i = 0; i < kBodyN; ++i) x1[i] = x[i];
    step(t, x1, h, mode);
    switched = event(t + h, x1, mode) > T(0);
    if (!switched) {
      for (int i = 0; i < kBodyN; ++i) x[i] = x1[i];
      return h;
    }
    // Bisection on the step fraction: lo is before the event, hi after.
    T lo = T(0), hi = T(1);
    for (int k = 0; k < kEventBisections; ++k) {
      const T mid = T(0.5) * (lo + hi);
      for (int i = 0; i < kBodyN; ++i) x1[i] = x[i];
      step(t, x1, mid * h, mode);
      if (event(t + mid * h, x1, mode) > T(0)) hi = mid;
      else lo = mid;
    }
    const T done = hi * h;
    step(t, x, done, mode);
    const T te = t + done;
    if (mode == kStuck) {
      const T f = required(inputs(te), x);
      mode = f > T(0) ? kForward : kBackward;
    } else {
      x[kBodyV] = v_ref(inputs(te));  // exactly on the switching surface
      mode = mode_at_rest(te, x);
    }
    return done;
  }

  // Advances x over one output step [t0, t0 + dt], switching modes at
  // events. Each RK4 sub-step splits what is left of the output step into
  // equal parts by the step bound (rate(): RK4's stability bound for the
  // mechanical part, plus kStictionStepRho for the law's slope / m while
  // sliding) and takes the first part. The bound is checked again at the end of the
  // sub-step (in the mode the sub-step was taken in; at an event, at the
  // event): a sliding contact that runs into the steep part of a Stribeck or
  // smoothed law near v = 0 within the sub-step, or reaches v = 0 in it, is
  // stepped again from the start with the end's bound. So a contact
  // decelerating to rest, reversing, or just broken away gets the small steps
  // its fast transient needs wherever that falls in the output step. While
  // stuck the bound is constant: equal parts, no re-steps.
  //
  // The bound is the rate of one instant. Where it asks for more parts than
  // the sub-steps left, it is often steep only briefly: a near-exact-sign law
  // (a linear zone or tanh of 1e-6 m/s) just after breakaway or reversal is
  // crossed in a few tens of sub-steps of its bound, and a sub-step re-taken
  // because its end lay in that zone starts where the law is still flat.
  // Taking the rest of the output step in parts of the steep size would need
  // 1e5 of them, so there the sub-step is one part of the bound's own size,
  // or, re-taken, half the rejected one (approaching the zone in halvings,
  // not in parts of its size), and the bound is asked again at its end.
  // Bounded: at most max_substeps sub-steps and re-steps really taken
  // (kSimStepLimit: a contact held in a steep zone, a rate that is not
  // finite) and max_events events (kSimEventLimit) per output step. Adds the
  // RK4 steps kept to *rk4_steps (re-steps and event bisection not counted).
  // Returns a SimStatus.
  STRIBECK_HD int advance_output_step(const T& t0, T (&x)[kBodyN], const T& dt, int& mode, int max_substeps,
                                      int max_events, long* rk4_steps) const {
    const T t1 = t0 + dt;
    T t = t0;
    T rho = rate(t, x, mode);
    T rejected = T(0);  // the sub-step just re-taken from t (0: none)
    int events = 0;
    for (int taken = 0;; ++taken) {
      const T left = t1 - t;
      if (!(left > T(0))) return kSimOk;
      if (taken == max_substeps) return kSimStepLimit;
      const int sub = rk4_substeps(left, rho, max_substeps - taken);
      const bool last = sub == 1;
      T h = last ? left : left / T(sub);  // the usual single sub-step needs no division
      T sized = rho;                      // the rate h is cut for
      const bool own = sub > max_substeps - taken;
      if (own) {
        h = T(kRk4StableRho) / rho;
        if (rejected * T(0.5) > h) h = rejected * T(0.5);
        if (!(h > T(0))) return kSimStepLimit;
        sized = T(kRk4StableRho) / h;
      }
      T x1[kBodyN];
      for (int i = 0; i < kBodyN; ++i) x1[i] = x[i];
      int m1 = mode;
      bool switched = false;
      const T done = advance_to_event(t, x1, h, m1, switched);
      if (mode != kStuck) {
        // The bound at the end, in the sub-step's own mode: re-step when it
        // asks for more than twice the parts this sub-step was cut for.
        T rho_end = rate(t + done, x1, mode);
        if (own && !(rho_end * h > T(2 * kRk4StableRho))) {
          // A halved sub-step can end outside a zone that is steep only
          // near v = 0 while its last RK4 stages ran through it (the law's
          // force there pulls the end back out): the bound at the Euler
          // end x + h x'(t), which those stages lie around, tells.
          T dx[kBodyN], xe[kBodyN];
          rhs(t, x, mode, dx);
          for (int i = 0; i < kBodyN; ++i) xe[i] = x[i] + h * dx[i];
          const T rho_euler = rate(t + h, xe, mode);
          if (rho_euler > rho_end) rho_end = rho_euler;
        }
        if (rho_end * h > T(2 * kRk4StableRho) && rho_end > sized) {
          rho = rho_end;
          rejected = h;
          continue;
        }
      }
      rejected = T(0);
      for (int i = 0; i < kBodyN; ++i) x[i] = x1[i];
      if (rk4_steps) *rk4_steps += 1;
      if (switched) {
        if (events == max_events) return kSimEventLimit;
        ++events;
        mode = m1;
      } else if (last) {
        return kSimOk;  // ends exactly on t1
      }
      t += done;
      rho = rate(t, x, mode);
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
// brk per direction (each >= the law's force just off zero speed on its side,
// stiction_short_side, or the contact chatters). observer(snapshot),
// rk4_steps and last as in simulate_smooth (kSimEventLimit: last is the last
// output step reached). Returns a SimStatus.
template <class M, class T, class Observer>
STRIBECK_HD int simulate_stiction(const typename M::template Coeffs<T>& fc, const StictionBreakaway<T>& brk,
                                  const BodySystem<T>& b, const SimOptions<T>& o, Observer& observe,
                                  long* rk4_steps = nullptr, BodySnapshot<T>* last = nullptr) {
  const StictionBody<M, T> sys{b, fc, brk};
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
    const int st = sys.advance_output_step(T(i) * o.dt, x, o.dt, mode, o.max_substeps, o.max_events, rk4_steps);
    if (st != kSimOk) return stop(st, snap);
    snap = sys.snapshot(T(i + 1) * o.dt, x, mode);
    if (!all_finite(x)) return stop(kSimNonFinite, snap);
    observe(snap);
  }
  return stop(kSimOk, snap);
}

// The same breakaway f_brk in both directions.
template <class M, class T, class Observer>
STRIBECK_HD int simulate_stiction(const typename M::template Coeffs<T>& fc, const T& f_brk, const BodySystem<T>& b,
                                  const SimOptions<T>& o, Observer& observe, long* rk4_steps = nullptr,
                                  BodySnapshot<T>* last = nullptr) {
  return simulate_stiction<M>(fc, StictionBreakaway<T>{f_brk, f_brk}, b, o, observe, rk4_steps, last);
}

}  // namespace stribeck
