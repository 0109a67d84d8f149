#pragma once
// Per-trajectory metrics of a body simulation, accumulated one snapshot at a
// time (constant memory, so a GPU thread keeps them in registers).
//
// "Steady state" is the part of the run after settle_fraction * t_end. There:
//   stick fraction   share of snapshots with |v_rel| <= v_stick (stiction
//                    form: the stuck mode, whose v_rel is exactly 0), over
//                    the whole cycles between the first and last crossing;
//   stick-slip       both stuck snapshots and snapshots sliding faster than
//                    10 v_stick occur, and the velocity oscillates (a period
//                    was found);
//   amplitudes       half the peak-to-peak of the spring force and of v;
//   period           mean time between upward crossings of v through v_d
//                    (with a hysteresis of v_stick, so noise does not count).
// Over the whole run:
//   breakaway force  largest |F_f| before |v_rel| first exceeds v_breakaway;
//   peak velocity    largest |v|;
//   dissipated       friction work + damper dissipation at the end (friction
//                    work includes what LuGre bristles still store, at most
//                    F_s^2 / (2 sigma0));
//   final state      s, v, z and the mode where the simulation stopped (the
//                    driver's last snapshot: see simulate_smooth);
//   steps            RK4 steps the integrator took (filled by the driver).
#include "stribeck/kernels/config.hpp"
#include "stribeck/kernels/scalar_math.hpp"
#include "stribeck/kernels/systems/body.hpp"

namespace stribeck {

template <class T>
struct MetricsOptions {
  T settle_fraction = T(0.5);  // steady state starts at settle_fraction * t_end
  // |v_rel| at or below this counts as stuck [m/s]. Must exceed the creep of
  // dynamic models while stuck (LuGre: about k v_d / sigma0).
  T v_stick = T(1e-4);
  T v_breakaway = T(1e-3);  // |v_rel| above this ends the breakaway phase [m/s]
};

// The one field table of StickSlipMetrics: X(member, type, column name,
// units (translational; rotational systems: N -> N*m, m -> rad, m/s ->
// rad/s), long name). The struct, its column names and units, packing to and
// from a row of doubles and conversion between scalars are all derived from
// it (engine/records.hpp), in this order. `type` is `int`, `long` or `T`
// (the working scalar); integer fields are stored as integers.
#define STRIBECK_STICK_SLIP_FIELDS(X)                                                                            \
  X(stick_slip, int, "stick_slip", "1", "stick-slip present in the steady state (0 or 1)")                       \
  X(stick_fraction, T, "stick_fraction", "1", "share of steady-state snapshots stuck")                           \
  X(amp_spring_force, T, "amp_spring_force", "N", "half the peak-to-peak spring force in the steady state")      \
  X(amp_velocity, T, "amp_velocity", "m/s", "half the peak-to-peak velocity in the steady state")                \
  X(period, T, "period", "s", "mean stick-slip period in the steady state")                                      \
  X(breakaway_force, T, "breakaway_force", "N", "largest friction force before the first breakaway")             \
  X(peak_velocity, T, "peak_velocity", "m/s", "largest absolute velocity")                                       \
  X(dissipated, T, "dissipated", "J", "friction work plus damper dissipation")                                   \
  X(final_s, T, "final_elongation", "m", "spring elongation at the end")                                         \
  X(final_v, T, "final_velocity", "m/s", "velocity at the end")                                                  \
  X(final_z, T, "final_state", "m", "friction state (bristle deflection) at the end")                            \
  X(final_mode, int, "final_mode", "1", "mode at the end: 0 stuck, 1 forward, -1 backward")                      \
  X(status, int, "status", "1", "trajectory status: 0 ok, 1 non-finite, 2 step limit, 3 event limit, 4 invalid") \
  X(steps, long, "steps", "1", "integrator (RK4) steps taken")

template <class T>
struct StickSlipMetrics {
#define STRIBECK_STICK_SLIP_MEMBER(member, type, name, units, long_name) type member = type(0);
  STRIBECK_STICK_SLIP_FIELDS(STRIBECK_STICK_SLIP_MEMBER)
#undef STRIBECK_STICK_SLIP_MEMBER
};

template <class T>
struct MetricsAccumulator {
  MetricsOptions<T> opt;
  T t_settle;
  T v_fast;  // 10 v_stick: sliding clearly
  // Running values. Counts are int: a simulation has at most 5e7 output
  // steps (simulate_config.cpp), and 64-bit adds cost two GPU instructions.
  int n_steady = 0, n_stuck = 0, n_fast = 0, n_cross = 0;
  // Extrema start at +-inf (a steady-state window that saw no snapshot
  // leaves the amplitudes 0, see finish), so each update is one min or max.
  T f_min, f_max, v_min, v_max;
  T t_first_cross = T(0), t_last_cross = T(0);
  int stuck_first = 0, steady_first = 0, stuck_last = 0, steady_last = 0;
  T u_prev = T(0), t_prev = T(0);
  bool below = false, broke_away = false;
  StickSlipMetrics<T> m;

  STRIBECK_HD_INLINE MetricsAccumulator(const MetricsOptions<T>& o, const T& t_end)
      : opt(o),
        t_settle(o.settle_fraction * t_end),
        v_fast(T(10) * o.v_stick),
        f_min(T(HUGE_VAL)),
        f_max(-T(HUGE_VAL)),
        v_min(T(HUGE_VAL)),
        v_max(-T(HUGE_VAL)) {}

  STRIBECK_HD_INLINE void operator()(const BodySnapshot<T>& s) {
    const T v = s.x[kBodyV], av_rel = math::abs(s.v_rel);
    m.peak_velocity = math::running_max(math::abs(v), m.peak_velocity);
    if (!broke_away) {
      if (av_rel > opt.v_breakaway) broke_away = true;
      else m.breakaway_force = math::running_max(math::abs(s.f_fric), m.breakaway_force);
    }
    if (s.t < t_settle) return;
    ++n_steady;
    f_min = math::running_min(s.f_spring, f_min);
    f_max = math::running_max(s.f_spring, f_max);
    v_min = math::running_min(v, v_min);
    v_max = math::running_max(v, v_max);
    n_stuck += av_rel <= opt.v_stick;
    n_fast += av_rel > v_fast;
    // Upward crossings of v - v_d, with hysteresis; the crossing time is
    // interpolated linearly between snapshots.
    const T u = v - s.v_drive;
    if (u < -opt.v_stick) {
      below = true;
    } else if (below && u > opt.v_stick) {
      below = false;
      const T tc = (n_steady > 1 && u != u_prev) ? t_prev + (s.t - t_prev) * (-u_prev) / (u - u_prev) : s.t;
      if (n_cross == 0) {
        t_first_cross = tc;
        stuck_first = n_stuck;
        steady_first = n_steady;
      }
      t_last_cross = tc;
      stuck_last = n_stuck;
      steady_last = n_steady;
      ++n_cross;
    }
    u_prev = u;
    t_prev = s.t;
  }

  // The metrics of a simulation that ended with SimStatus `status` in the
  // snapshot `last` (the drivers' last argument): the final state and the
  // dissipated energy are read there, not copied at every step.
  STRIBECK_HD_INLINE StickSlipMetrics<T> finish(int status, const BodySnapshot<T>& last) {
    m.dissipated = last.x[kBodyWFric] + last.x[kBodyWDamp];
    m.final_s = last.x[kBodyS];
    m.final_v = last.x[kBodyV];
    m.final_z = last.x[kBodyZ];
    m.final_mode = last.mode;
    return finish(status);
  }
  // The metrics of a trajectory that was not simulated (kSimInvalid): the
  // final state and the dissipated energy stay 0.
  STRIBECK_HD_INLINE StickSlipMetrics<T> finish(int status) {
    if (n_steady > 0) {
      // Over whole cycles when there are any, so a partial cycle at either end
      // of the window does not bias it.
      m.stick_fraction =
          (n_cross >= 2) ? T(stuck_last - stuck_first) / T(steady_last - steady_first) : T(n_stuck) / T(n_steady);
      m.amp_spring_force = T(0.5) * (f_max - f_min);
      m.amp_velocity = T(0.5) * (v_max - v_min);
    }
    if (n_cross >= 2) m.period = (t_last_cross - t_first_cross) / T(n_cross - 1);
    m.stick_slip = (n_stuck > 0 && n_fast > 0 && n_cross >= 2) ? 1 : 0;
    m.status = status;
    return m;
  }
};

}  // namespace stribeck
