#pragma once
// The CPU's SIMD form of an ensemble's smooth simulations (simulate_smooth
// with kBodyNDissipation states, as ensemble_point runs it): W trajectories
// advance together, one vector lane each, their parameters and states kept
// lane-major (a structure of arrays), so every RK4 stage of W trajectories is
// one pass of a loop over lanes that the compiler vectorises with the body,
// the friction model and the stage inlined (the pattern of the sweep's
// TrajectoryLanes, sweep/lanes.hpp).
//
// Each lane computes what simulate_smooth computes for its point: the same
// expressions in the same order (body_rhs_lane, friction_eval,
// friction_rate, rk4_step_k1), the same sub-step rule, status codes, step
// counts and final snapshot. Per-lane differences are masks:
//   - sub-steps: an output step where every live lane's stability rate
//     allows one RK4 step (the usual case) is one vector step; otherwise each
//     lane takes its own number of sub-steps of its own size, and a lane that
//     has finished its sub-steps keeps its state while the others go on;
//   - events: a lane whose state becomes non-finite or whose bound asks for
//     more than max_substeps stops there with that status and its snapshot,
//     as the scalar run would, and its lane idles (its state reset to its
//     initial one, so it computes harmless numbers) while the others go on;
//   - the metrics (MetricsAccumulator) see each live lane's snapshots in time
//     order, exactly as the scalar observer does.
// With o.integrator = kIntegratorEtdRk4 (etd_form<M> only) every step is
// simulate_smooth's ETDRK4 step with that path's step rule.
// Only the elementary functions differ: the vector exp of the C library
// (libmvec, within 4 ulp), or in FP64 with AVX-512 the inlined poly_exp
// (within 1 ulp), instead of the scalar one (docs/dynamics.md gives the bound
// this leaves on the metrics).
//
// Inputs must be affine in time (body_inputs_affine(b).on): the lanes hold
// the affine coefficients. Host only; built once per instruction set by
// workloads/src/lanes/, where everything is inlined.
#include <cstdint>
#include <utility>

#include "stribeck/kernels/integrators/rk4.hpp"
#include "stribeck/kernels/sweep/lanes.hpp"
#include "stribeck/kernels/systems/ensemble.hpp"

namespace stribeck {

template <class M, class T, int W>
struct SmoothLanes {
  // The body's dissipative states, then the model's extra friction states
  // (SmoothBody::kStates: GMS elements 2..N).
  static constexpr int NB = kBodyNDissipation;
  static constexpr int N = NB + friction_extra_states<M>();
  using Coeffs = typename M::template Coeffs<T>;
  sweep::LaneArray<Coeffs, T, W> fc;
  // The affine inputs (AffineInputs) and the mechanics of each lane.
  alignas(64) T v_d0[W], v_d1[W], f0[W], f1[W], p_a0[W], p_a1[W], p_b0[W], p_b1[W], f_n0[W], f_n1[W];
  alignas(64) T stiffness[W], damping[W], mass[W], inv_mass[W], mech_rate[W];
  alignas(64) T x0[N][W];  // initial states
  bool on_drive = false;   // the same for every point of an ensemble (not a varied quantity)

  // Lane l simulates system b (affine inputs) with friction coefficients c.
  STRIBECK_HD_INLINE void set(int l, const BodySystem<T>& b, const Coeffs& c) {
    fc.set(l, c);
    const AffineInputs<T> a = body_inputs_affine(b);
    v_d0[l] = a.v_d0;
    v_d1[l] = a.v_d1;
    f0[l] = a.f0;
    f1[l] = a.f1;
    p_a0[l] = a.p_a0;
    p_a1[l] = a.p_a1;
    p_b0[l] = a.p_b0;
    p_b1[l] = a.p_b1;
    f_n0[l] = a.f_n0;
    f_n1[l] = a.f_n1;
    stiffness[l] = b.stiffness;
    damping[l] = b.damping;
    mass[l] = b.mass;
    inv_mass[l] = T(1) / b.mass;  // body_rhs's 1/m
    mech_rate[l] = body_rate(b);
    on_drive = b.friction_on_drive;
    T x[N];
    body_initial_state(b, x);
    for (int i = 0; i < N; ++i) x0[i][l] = x[i];
  }
  // Lane `to` repeats lane `from` (padding of a group short of points).
  STRIBECK_HD_INLINE void copy_lane(int to, int from) {
    fc.set(to, fc.get(from));
    T* fields[] = {v_d0, v_d1, f0,        f1,      p_a0, p_a1,     p_b0,     p_b1,
                   f_n0, f_n1, stiffness, damping, mass, inv_mass, mech_rate};
    for (T* f : fields) f[to] = f[from];
    for (int i = 0; i < N; ++i) x0[i][to] = x0[i][from];
  }

  STRIBECK_HD_INLINE BodyInputs<T> inputs(int l, const T& t) const {
    return BodyInputs<T>{v_d0[l] + v_d1[l] * t, v_d1[l],
                         f0[l] + f1[l] * t,     p_a0[l] + p_a1[l] * t,
                         p_b0[l] + p_b1[l] * t, f_n0[l] + f_n1[l] * t};
  }
  // SmoothBody::operator() for lane l. kOnDrive: on_drive, as a constant
  // (a select on a run-time flag keeps GCC from vectorising the loop).
  template <bool kOnDrive>
  STRIBECK_HD_INLINE void rhs(int l, const T& t, const T* y, T* dy) const {
    const BodyInputs<T> in = inputs(l, t);
    const T v_rel = kOnDrive ? y[kBodyV] - in.v_d : y[kBodyV];  // body_v_rel
    T dz;
    const T f = friction_eval_states<M, NB>(fc.get(l), friction_sample(in, v_rel), y, dz, dy);
    body_rhs_lane<NB>(stiffness[l], damping[l], inv_mass[l], kOnDrive, in, y, f, dz, dy);
  }
  // Lane l's right-hand side as rk4_step_k1 calls it (a named functor: a
  // lambda's call operator could be emitted out of line and shared between
  // the per-instruction-set builds).
  template <bool kOnDrive>
  struct LaneRhs {
    const SmoothLanes* s;
    int l;
    STRIBECK_HD_INLINE void operator()(const T& t, const T* y, T* dy) const { s->template rhs<kOnDrive>(l, t, y, dy); }
  };

  // Lane l's bristle relaxation rate at (t, y) (SmoothBody::relax).
  template <bool kOnDrive>
  STRIBECK_HD_INLINE T relax(int l, const T& t, const T* y) const {
    const BodyInputs<T> in = inputs(l, t);
    const T v_rel = kOnDrive ? y[kBodyV] - in.v_d : y[kBodyV];
    return M::relax_rate(fc.get(l), friction_sample(in, v_rel), y[kBodyZ]);
  }

  // What SmoothBody::at gives at one instant for every lane: the derivative
  // dx (the next step's first stage), the stability rate and the snapshot's
  // quantities; kEtd: the rate without the bristle's relaxation, which
  // goes to relax.
  struct Snapshots {
    alignas(64) T f_fric[W], f_spring[W], v_rel[W], v_drive[W];
  };
  template <bool kOnDrive, bool kEtd = false>
  STRIBECK_HD_INLINE void at(const T& t, const T (&x)[N][W], T (&dx)[N][W], T* rate, Snapshots& o,
                             T* relax_rate = nullptr) const {
    STRIBECK_LANES_IVDEP
    for (int l = 0; l < W; ++l) {
      T y[N], dy[N];
      for (int i = 0; i < N; ++i) y[i] = x[i][l];
      const Coeffs c = fc.get(l);
      const BodyInputs<T> in = inputs(l, t);
      const T v_rel = kOnDrive ? y[kBodyV] - in.v_d : y[kBodyV];
      T dz;
      const T f = friction_eval_states<M, NB>(c, friction_sample(in, v_rel), y, dz, dy);
      body_rhs_lane<NB>(stiffness[l], damping[l], inv_mass[l], kOnDrive, in, y, f, dz, dy);
      for (int i = 0; i < N; ++i) dx[i][l] = dy[i];
      o.f_fric[l] = f;
      o.f_spring[l] = body_spring_force_lane(stiffness[l], damping[l], in, y);
      o.v_rel[l] = v_rel;
      o.v_drive[l] = in.v_d;
      if constexpr (kEtd)
        rate[l] = mech_rate[l] + etd_friction_rate<M>(c, friction_sample(in, v_rel), y[kBodyZ], mass[l], relax_rate[l]);
      else rate[l] = mech_rate[l] + friction_rate<M>(c, friction_sample(in, v_rel), y[kBodyZ], mass[l]);
    }
  }
  // Lane l's snapshot at t (SmoothBody::at's BodySnapshot).
  STRIBECK_HD_INLINE BodySnapshot<T> snapshot(int l, const T& t, const T (&x)[N][W], const Snapshots& o) const {
    BodySnapshot<T> s;
    s.t = t;
    for (int i = 0; i < kBodyN; ++i) s.x[i] = i < NB ? x[i][l] : T(0);
    s.f_fric = o.f_fric[l];
    s.f_spring = o.f_spring[l];
    s.v_rel = o.v_rel[l];
    s.v_drive = o.v_drive[l];
    s.mode = static_cast<int>(s.v_rel > T(0)) - static_cast<int>(s.v_rel < T(0));
    return s;
  }

  // One RK4 step of size h from t for every lane (first stages k1);
  // kEtd: ETDRK4 with lane l's relaxation rate relax_rate[l].
  template <bool kOnDrive, bool kEtd = false>
  STRIBECK_HD_INLINE void step_all(const T& t, T (&x)[N][W], const T& h, const T (&k1)[N][W],
                                   const T* relax_rate = nullptr) const {
    STRIBECK_LANES_IVDEP
    for (int l = 0; l < W; ++l) {
      T y[N], k[N];
      for (int i = 0; i < N; ++i) {
        y[i] = x[i][l];
        k[i] = k1[i][l];
      }
      if constexpr (kEtd) etd_rk4_step_k1<kBodyZ, N>(LaneRhs<kOnDrive>{this, l}, t, y, h, k, relax_rate[l]);
      else rk4_step_k1<N>(LaneRhs<kOnDrive>{this, l}, t, y, h, k);
      for (int i = 0; i < N; ++i) x[i][l] = y[i];
    }
  }
  // Sub-step j of every lane: lane l takes its step of size h[l] from
  // t0 + j h[l] when j < sub[l] (with its first stage evaluated there for
  // j > 0, as simulate_smooth does), and keeps its state otherwise;
  // kEtd: ETDRK4, the relaxation rate frozen at each sub-step's start
  // (relax_rate[l] at j = 0).
  template <bool kOnDrive, bool kEtd = false>
  STRIBECK_HD_INLINE void substep(int j, const T& t0, T (&x)[N][W], const T* h, const int* sub, T (&k1)[N][W],
                                  const T* relax_rate = nullptr) const {
    for (int l = 0; l < W; ++l) {
      if (j >= sub[l]) continue;
      const T tj = t0 + T(j) * h[l];
      T y[N], k[N];
      for (int i = 0; i < N; ++i) {
        y[i] = x[i][l];
        k[i] = k1[i][l];
      }
      if (j > 0) rhs<kOnDrive>(l, tj, y, k);
      if constexpr (kEtd) {
        const T a = j > 0 ? relax<kOnDrive>(l, tj, y) : relax_rate[l];
        etd_rk4_step_k1<kBodyZ, N>(LaneRhs<kOnDrive>{this, l}, tj, y, h[l], k, a);
      } else {
        rk4_step_k1<N>(LaneRhs<kOnDrive>{this, l}, tj, y, h[l], k);
      }
      for (int i = 0; i < N; ++i) {
        x[i][l] = y[i];
        k1[i][l] = k[i];
      }
    }
  }

  // A fixed array of accumulators (MetricsAccumulator has no default
  // constructor).
  struct Accumulators {
    MetricsAccumulator<T> a[W];
  };
  template <std::size_t... I>
  STRIBECK_HD_INLINE static Accumulators make_accumulators(const MetricsOptions<T>& mo, const T& t_end,
                                                           std::index_sequence<I...>) {
    return Accumulators{{(static_cast<void>(I), MetricsAccumulator<T>(mo, t_end))...}};
  }

  // Lane l stops at t: its status, steps and final snapshot are kept, and
  // its state restarts from the initial one (it idles on harmless numbers).
  STRIBECK_HD_INLINE void stop(int l, int st, long done, const T& t, T (&x)[N][W], const Snapshots& snap, int* status,
                               long* steps, BodySnapshot<T>* last, int* alive, int& n_alive) const {
    status[l] = st;
    steps[l] = done;
    last[l] = snapshot(l, t, x, snap);
    alive[l] = 0;
    --n_alive;
    for (int i = 0; i < N; ++i) x[i][l] = x0[i][l];
  }

  // Simulates lanes [0, lanes) (the others are padding: copies, not
  // observed) over o; out[l] receives lane l's metrics as ensemble_point
  // returns them. The caller checks sim_num_steps(o) <= INT_MAX.
  STRIBECK_HD_INLINE void run(const SimOptions<T>& o, const MetricsOptions<T>& mo, int lanes,
                              StickSlipMetrics<T>* out) const {
    if constexpr (etd_form<M>()) {
      if (o.integrator == kIntegratorEtdRk4) {
        if (on_drive) run<true, true>(o, mo, lanes, out);
        else run<false, true>(o, mo, lanes, out);
        return;
      }
    }
    if (on_drive) run<true, false>(o, mo, lanes, out);
    else run<false, false>(o, mo, lanes, out);
  }
  template <bool kOnDrive, bool kEtd>
  STRIBECK_HD_INLINE void run(const SimOptions<T>& o, const MetricsOptions<T>& mo, int lanes,
                              StickSlipMetrics<T>* out) const {
    Accumulators acc = make_accumulators(mo, o.t_end, std::make_index_sequence<W>{});
    BodySnapshot<T> last[W];
    int status[W], alive[W], n_alive = 0;
    long steps[W], extra[W];
    alignas(64) T x[N][W], k1[N][W], rate[W];
    // ETDRK4: each lane's relaxation rate now and at the previous output
    // instant (simulate_smooth's relax, relax_prev).
    [[maybe_unused]] alignas(64) T relax[W], relax_prev[W];
    Snapshots snap;
    for (int l = 0; l < W; ++l) {
      for (int i = 0; i < N; ++i) x[i][l] = x0[i][l];
      status[l] = kSimOk;
      alive[l] = l < lanes;
      n_alive += alive[l];
      steps[l] = 0;
      extra[l] = 0;
    }
    const int n = static_cast<int>(sim_num_steps(o));
    at<kOnDrive, kEtd>(T(0), x, k1, rate, snap, relax);
    for (int l = 0; l < lanes; ++l) acc.a[l](snapshot(l, T(0), x, snap));
    if constexpr (kEtd)
      for (int l = 0; l < W; ++l) relax_prev[l] = relax[l];
    const T rate_one = T(kRk4StableRho) / o.dt;
    T t0 = T(0);
    for (int i = 0; i < n && n_alive > 0; ++i) {
      const T t1 = T(i + 1) * o.dt;
      if constexpr (kEtd) {
        for (int l = 0; l < W; ++l) {
          rate[l] += math::abs(relax[l] - relax_prev[l]);
          relax_prev[l] = relax[l];
        }
      }
      int one = 1;
      for (int l = 0; l < W; ++l) one &= !alive[l] | (rate[l] <= rate_one);
      if (one) {
        step_all<kOnDrive, kEtd>(t0, x, o.dt, k1, relax);
      } else {
        int sub[W], max_sub = 0;
        T h[W];
        for (int l = 0; l < W; ++l) {
          sub[l] = 0;
          h[l] = o.dt;
          if (!alive[l]) continue;
          const int s = rate[l] <= rate_one ? 1 : rk4_substeps(o.dt, rate[l], o.max_substeps);
          if (s > o.max_substeps) {
            stop(l, kSimStepLimit, i, t0, x, snap, status, steps, last, alive, n_alive);
            continue;
          }
          sub[l] = s;
          h[l] = o.dt / T(s);
          extra[l] += s - 1;
          max_sub = s > max_sub ? s : max_sub;
        }
        for (int j = 0; j < max_sub; ++j) substep<kOnDrive, kEtd>(j, t0, x, h, sub, k1, relax);
      }
      t0 = t1;
      at<kOnDrive, kEtd>(t1, x, k1, rate, snap, relax);
      for (int l = 0; l < lanes; ++l) {
        if (!alive[l]) continue;
        T probe = x[0][l] * T(0);  // all_finite
        for (int k = 1; k < N; ++k) probe += x[k][l] * T(0);
        if (!(probe == T(0))) stop(l, kSimNonFinite, i + 1, t1, x, snap, status, steps, last, alive, n_alive);
        else acc.a[l](snapshot(l, t1, x, snap));
      }
    }
    for (int l = 0; l < lanes; ++l) {
      if (alive[l]) {
        steps[l] = n;
        last[l] = snapshot(l, t0, x, snap);
      }
      StickSlipMetrics<T> m = acc.a[l].finish(status[l], last[l]);
      m.steps = steps[l] + extra[l];
      out[l] = m;
    }
  }
};

}  // namespace stribeck
