// Stiction form against independent event-located solutions (issue 15):
// piecewise closed forms written here in long double, their events found by
// a scan + bisection root finder on the closed forms, and (where no closed
// form exists: a Stribeck law) SciPy's solve_ivp with events. The position
// must agree within 1e-6 relative at output steps 1e-3, 1e-4 and 1e-5, i.e.
// not depend on the output step: every mode change is located inside the
// step, and the step after it is cut by the new mode's bound.
#include <gtest/gtest.h>

#include "temp_dir.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "stribeck/workloads/ensemble.hpp"
#include "stribeck/workloads/simulate.hpp"
#include "stribeck/kernels/models/coulomb_viscous.hpp"
#include "stribeck/kernels/models/simscape_cylinder.hpp"
#include "stribeck/kernels/models/simscape_translational.hpp"
#include "stribeck/kernels/models/twentysim.hpp"
#include "stribeck/kernels/systems/stiction.hpp"

namespace stribeck {
namespace {

using LD = long double;

// The body on ground friction, Coulomb F_C + viscous f_v (exact sign),
// breakaway F_brk, spring k to a drive at constant speed V, external force
// F(t) = a t + A sin(w t). State: position x, velocity v, spring elongation
// s (s' = V - v).
struct Rig {
  LD m = 1, k = 0, V = 0, a = 0, A = 0, w = 0, F_C = 1, f_v = 0, F_brk = 1.5, s0 = 0;
  LD force(LD t) const { return a * t + A * std::sin(w * t); }
};
struct State {
  LD x, v, s;
};

// Closed forms of one mode from (t0, y0) to t. Each case uses only the terms
// it has (the test asserts that combination): stuck (any), sliding with
// (k = 0, A = 0: ramp with viscous), (k = 0, f_v = 0: sine with Coulomb),
// (a = A = 0, f_v = 0: spring with Coulomb).
State stuck(const Rig& r, LD t0, const State& y0, LD t) { return {y0.x, 0, y0.s + r.V * (t - t0)}; }

State slide(const Rig& r, int d, LD t0, const State& y0, LD t) {
  const LD tau = t - t0, D = d;
  if (r.k == 0 && r.A == 0) {  // m v' + f_v v = a t - d F_C
    const LD al = r.a / r.f_v, be = (-D * r.F_C - r.m * al) / r.f_v, T = r.m / r.f_v;
    const LD C = y0.v - (al * t0 + be), e = std::exp(-tau / T);
    const LD v = al * t + be + C * e;
    const LD x = y0.x + al / 2 * (t * t - t0 * t0) + be * tau + C * T * (1 - e);
    return {x, v, y0.s + r.V * tau - (x - y0.x)};
  }
  if (r.k == 0 && r.f_v == 0) {  // m v' = a t + A sin(w t) - d F_C
    const LD c0 = std::cos(r.w * t0), s0 = std::sin(r.w * t0);
    const LD v = y0.v + (r.a / 2 * (t * t - t0 * t0) + r.A / r.w * (c0 - std::cos(r.w * t)) - D * r.F_C * tau) / r.m;
    const LD x = y0.x + y0.v * tau +
                 (r.a * (t * t * t - t0 * t0 * t0) / 6 - r.a * t0 * t0 / 2 * tau +
                  r.A / r.w * (c0 * tau - (std::sin(r.w * t) - s0) / r.w) - D * r.F_C * tau * tau / 2) /
                     r.m;
    return {x, v, y0.s + r.V * tau - (x - y0.x)};
  }
  // m v' = k s - d F_C, s' = V - v: y = s - d F_C / k oscillates at w0.
  const LD w0 = std::sqrt(r.k / r.m), Y = y0.s - D * r.F_C / r.k, Yd = r.V - y0.v;
  const LD y = Y * std::cos(w0 * tau) + Yd / w0 * std::sin(w0 * tau);
  const LD yd = -Y * w0 * std::sin(w0 * tau) + Yd * std::cos(w0 * tau);
  const LD s = y + D * r.F_C / r.k;
  return {y0.x + r.V * tau - (s - y0.s), r.V - yd, s};
}

// First t in (t0, t1] where g(t) > 0 (g(t0) <= 0 expected), by a scan at
// `scan` and 200 bisections in long double; t1 + 1 if none.
LD first_root(const std::function<LD(LD)>& g, LD t0, LD t1, LD scan) {
  LD lo = t0;
  for (LD hi = t0 + scan;; hi += scan) {
    if (hi > t1) hi = t1;
    if (g(hi) > 0) {
      for (int i = 0; i < 200; ++i) {
        const LD mid = (lo + hi) / 2;
        (g(mid) > 0 ? hi : lo) = mid;
      }
      return hi;
    }
    if (hi >= t1) return t1 + 1;
    lo = hi;
  }
}

struct Reference {
  State end;
  int stuck_events = 0, breakaways = 0, reversals = 0;
};

// The event-located solution over [0, t_end].
Reference reference(const Rig& r, LD t_end) {
  Reference out;
  LD t = 0;
  State y{0, 0, r.s0};
  auto req = [&](LD tt, const State& yy) { return r.k * yy.s + r.force(tt); };
  int mode = std::fabs(req(0, y)) > r.F_brk ? (req(0, y) > 0 ? 1 : -1) : 0;
  for (int n = 0; n < 10000; ++n) {
    const LD t0 = t;
    const State y0 = y;
    LD te;
    if (mode == 0) {
      te = first_root([&](LD tt) { return std::fabs(req(tt, stuck(r, t0, y0, tt))) - r.F_brk; }, t0, t_end, 1e-4L);
    } else {
      // Skip the start, where v = 0: d v > 0 just after it.
      te =
          first_root([&](LD tt) { return tt <= t0 ? LD(-1) : -mode * slide(r, mode, t0, y0, tt).v; }, t0, t_end, 1e-4L);
    }
    if (te > t_end) {
      out.end = mode == 0 ? stuck(r, t0, y0, t_end) : slide(r, mode, t0, y0, t_end);
      return out;
    }
    y = mode == 0 ? stuck(r, t0, y0, te) : slide(r, mode, t0, y0, te);
    t = te;
    if (mode == 0) {
      mode = req(t, y) > 0 ? 1 : -1;
      ++out.breakaways;
    } else {
      y.v = 0;
      const LD f = req(t, y);
      if (std::fabs(f) <= r.F_brk) {
        mode = 0;
        ++out.stuck_events;
      } else {
        mode = f > 0 ? 1 : -1;
        ++out.reversals;
      }
    }
  }
  ADD_FAILURE() << "reference: more than 10000 events";
  return out;
}

BodySystem<double> body_of(const Rig& r) {
  BodySystem<double> b;
  b.mass = double(r.m);
  b.stiffness = double(r.k);
  b.drive_velocity = constant_profile(double(r.V));
  b.external_force.slope = double(r.a);
  b.external_force.amplitude = double(r.A);
  b.external_force.frequency = double(r.w / LD(kTwoPi));
  b.s0 = double(r.s0);
  return b;
}

// Position of the body at t_end (x = V t - (s - s0)) and its status.
double simulated_position(const Rig& r, double t_end, double dt, int* status = nullptr) {
  const double par[] = {double(r.F_C), double(r.f_v), 0.0};
  SimOptions<double> o;
  o.t_end = t_end;
  o.dt = dt;
  BodySnapshot<double> last{};
  auto ignore = [](const BodySnapshot<double>&) {};
  const int st = simulate_stiction<CoulombViscous>(CoulombViscous::prepare(par), double(r.F_brk), body_of(r), o, ignore,
                                                   nullptr, &last);
  if (status) *status = st;
  return double(r.V) * last.t - (last.x[kBodyS] - double(r.s0));
}

void expect_agrees(const Rig& r, double t_end, const char* what) {
  const Reference ref = reference(r, t_end);
  const double x_ref = double(ref.end.x);
  for (double dt : {1e-3, 1e-4, 1e-5}) {
    int st = -1;
    const double x = simulated_position(r, t_end, dt, &st);
    EXPECT_EQ(st, kSimOk) << what << " dt " << dt;
    EXPECT_NEAR(x, x_ref, 1e-6 * std::fabs(x_ref)) << what << " dt " << dt;
  }
}

// Force ramp on Coulomb + viscous: stuck until a t = F_brk, then the
// exponential approach to the ramp's steady sliding.
TEST(StictionEvents, ForceRampMatchesClosedForm) {
  for (LD fv : {0.5L, 2.0L, 20.0L}) {
    Rig r;
    r.m = 0.5;
    r.a = 4;
    r.F_C = 4;
    r.f_v = fv;
    r.F_brk = 6.1;  // breakaway at 1.525 s: inside an output step at every dt tried
    const Reference ref = reference(r, 3);
    ASSERT_EQ(ref.breakaways, 1);
    expect_agrees(r, 3.0, "ramp");
  }
}

// Sine force on Coulomb friction: stuck phases, breakaways both ways and
// direct reversals (v crosses 0 while |F| > F_brk).
TEST(StictionEvents, SineForceMatchesClosedForm) {
  struct Case {
    LD A, f, F_C, F_brk;
  };
  for (const Case& c : {Case{25, 0.25, 10, 15}, Case{25, 0.5, 8, 12.3}, Case{4, 2.0, 1, 1.7}}) {
    Rig r;
    r.A = c.A;
    r.w = LD(kTwoPi) * c.f;
    r.F_C = c.F_C;
    r.F_brk = c.F_brk;
    const Reference ref = reference(r, 5);
    EXPECT_GE(ref.breakaways, 1);
    EXPECT_GE(ref.reversals + ref.stuck_events, 1);
    expect_agrees(r, 5.0, "sine");
  }
}

// A spring pulled at constant speed: the stick-slip rig, several cycles.
TEST(StictionEvents, SpringPulledAtConstantSpeedMatchesClosedForm) {
  for (LD k : {2.0L, 20.0L}) {
    Rig r;
    r.k = k;
    r.V = 0.1;
    r.F_C = 1;
    r.F_brk = 1.5;
    const Reference ref = reference(r, 20);
    EXPECT_GE(ref.stuck_events, 2);
    EXPECT_GE(ref.breakaways, 2);
    expect_agrees(r, 20.0, "spring");
  }
}

// A released spring with the drive at rest: the body swings through v = 0
// with |k s| > F_brk several times (direct reversals) before it sticks.
TEST(StictionEvents, DirectReversalsMatchClosedForm) {
  Rig r;
  r.k = 20;
  r.s0 = 0.5;
  r.F_C = 1;
  r.F_brk = 1.5;
  const Reference ref = reference(r, 5);
  EXPECT_EQ(ref.reversals, 4);  // amplitude -2 F_C / k per half swing: s = 0.5, -0.4, 0.3, -0.2, 0.1, 0
  EXPECT_EQ(ref.stuck_events, 1);
  expect_agrees(r, 5.0, "reversal");
}

// The same spring rig as an ensemble over stiffness and breakaway (CPU).
TEST(StictionEvents, EnsembleMatchesClosedFormPerPoint) {
  for (const char* dt : {"1e-3", "1e-4"}) {
    const std::string cfg = test::write_temp_file("stiction_events_ens.toml", std::string(R"(
[system]
mass = 1.0
drive_velocity = 0.1
[friction]
model = "coulomb-viscous"
form = "stiction"
breakaway = 1.5
[friction.params]
F_C = 1.0
f_v = 0.0
[simulation]
t_end = 10.0
dt = )") + dt + R"(
[ensemble]
[ensemble.params]
stiffness = "list:2,7,20"
breakaway = "list:1.2,1.9"
)");
    const workloads::EnsembleResult e = workloads::run_ensemble(workloads::read_simulate_config(cfg));
    ASSERT_EQ(e.metrics.size(), 6u);
    const int ik = e.names[0] == "stiffness" ? 0 : 1;
    for (size_t i = 0; i < 6; ++i) {
      Rig r;
      r.k = e.values[i * 2 + ik];
      r.F_brk = e.values[i * 2 + 1 - ik];
      r.V = 0.1;
      const Reference ref = reference(r, 10);
      const double x_ref = double(ref.end.x), x = 0.1 * 10.0 - e.metrics[i].final_s;
      EXPECT_EQ(e.metrics[i].status, kSimOk);
      EXPECT_NEAR(x, x_ref, 1e-6 * std::fabs(x_ref)) << "dt " << dt << " k " << double(r.k);
    }
  }
}

// The issue's case: a 1 kg body on a Stribeck law, breakaway 15 N,
// F = 25 sin(pi t / 2), 5 s; two laws: 20-sim SCVS with F_n = 100 N (10 N
// Coulomb, peak 15 N, steep tanh at v = 0) and Simscape Translational
// (F_brk = 15 N, F_C = 10 N, v_brk = 0.1 m/s, no viscous part), which
// reverses directly twice. Before events cut the rest of the output step by
// the new mode's bound, the SCVS case was 0.17 % off at dt = 5e-4. No closed
// form: SciPy's solve_ivp (DOP853, rtol 1e-13) with terminal events per mode.
double scipy_final_position(const char* law) {
  const std::string py = test::write_temp_file("stiction_ref.py", R"PY(
import math, sys
from scipy.integrate import solve_ivp
m, A, w, Fb, T = 1.0, 25.0, 2*math.pi*0.25, 15.0, 5.0
if sys.argv[1] == 'scvs':
    Fn, ms, mc, mv, sl, vst = 100.0, 0.15, 0.1, 0.01, 1e3, 0.01
    def law(v):
        return Fn*((mc + (ms*abs(math.tanh(sl*v)) - mc)*math.exp(-(v/vst)**2))*math.copysign(1.0, v) + mv*v)
else:
    Fbrk, vb, Fc, fv = 15.0, 0.1, 10.0, 0.0
    vst, vc = math.sqrt(2)*vb, vb/10
    def law(v):
        return math.sqrt(2*math.e)*(Fbrk - Fc)*math.exp(-(v/vst)**2)*v/vst + Fc*math.tanh(v/vc) + fv*v
t, x, v, mode = 0.0, 0.0, 0.0, 0
while t < T:
    if mode == 0:
        rhs = lambda tt, y: [0.0, 0.0]
        ev = lambda tt, y: abs(A*math.sin(w*tt)) - Fb
        ev.direction = 1
    else:
        d = mode
        rhs = lambda tt, y, d=d: [y[1], (A*math.sin(w*tt) - law(y[1] if y[1]*d > 0 else d*1e-300))/m]
        ev = lambda tt, y: y[1]
        ev.direction = -d
    ev.terminal = True
    s = solve_ivp(rhs, (t, T), [x, v], method='DOP853', rtol=1e-13, atol=1e-15, events=ev)
    if s.status == 1:
        t = s.t_events[0][0]; x = s.y_events[0][0][0]; v = 0.0
        f = A*math.sin(w*t)
        mode = (1 if f > 0 else -1) if (mode == 0 or abs(f) > Fb) else 0
    else:
        t = T; x = s.y[0][-1]
print('%.17g' % x)
)PY");
  FILE* p = ::popen(("/usr/bin/python3 " + py + " " + law).c_str(), "r");
  if (!p) return NAN;
  char line[128] = {};
  const bool got = std::fgets(line, sizeof line, p) != nullptr;
  const int rc = ::pclose(p);
  return got && rc == 0 ? std::stod(line) : NAN;
}

template <class M>
void expect_matches_scipy(const char* law, const double* par, const BodySystem<double>& b) {
  const double x_ref = scipy_final_position(law);
  ASSERT_TRUE(std::isfinite(x_ref)) << law;
  ASSERT_GT(x_ref, 1.0) << law;
  for (double dt : {1e-3, 5e-4, 1e-4, 1e-5}) {
    SimOptions<double> o;
    o.t_end = 5;
    o.dt = dt;
    BodySnapshot<double> last{};
    double first_sliding = -1;
    auto obs = [&](const BodySnapshot<double>& s) {
      if (first_sliding < 0 && s.mode != kStuck) first_sliding = s.t;
    };
    ASSERT_EQ(simulate_stiction<M>(M::prepare(par), 15.0, b, o, obs, nullptr, &last), kSimOk) << law;
    EXPECT_NEAR(-last.x[kBodyS], x_ref, 1e-6 * x_ref) << law << " dt " << dt;
    // The first sample off zero velocity is the first output step after
    // 2/pi asin(0.6) = 0.409666 s.
    EXPECT_NEAR(first_sliding, std::ceil(2 / M_PI * std::asin(0.6) / dt - 1e-9) * dt, 1e-9) << law << " dt " << dt;
  }
}

TEST(StictionEvents, StribeckLawsMatchScipy) {
  if (std::system("/usr/bin/python3 -c 'import scipy.integrate' > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 with SciPy not available";
  BodySystem<double> b;
  b.external_force.amplitude = 25;
  b.external_force.frequency = 0.25;
  b.normal_force = constant_profile(100.0);
  const double scvs[] = {0.15, 0.1, 0.01, 1e3, 0.01};  // mu_s, mu_c, mu_v, slope, v_st
  expect_matches_scipy<TwentySimSCVS>("scvs", scvs, b);
  const double simscape[] = {15.0, 0.1, 10.0, 0.0};  // F_brk, v_brk, F_C, f_v
  expect_matches_scipy<SimscapeTranslational>("simscape", simscape, b);
}

// Issue 31 item 8, the standard reference example: a 1 kg body under
// F = 25 sin(pi t / 2) on simscape-cylinder as a near-exact-sign law (10 N
// Coulomb, no Stribeck peak, no viscous part, a linear zone of v_th = 1e-6 m/s,
// slope 1e7 N/(m/s)), breakaway 15 N, 5 s at dt = 5e-4, default limits.
// Just after each breakaway and reversal the contact crosses the zone with
// the time constant m/K = 1e-7 s; the bound's sub-steps there (5e-9 s) would
// be 1e5 parts of an output step, and the run stopped with step-limit at the
// first breakaway (0.41 s), though the crossing takes a few tens of them.
const char* kNearExactSign = R"(
[system]
mass = 1.0
external_force = { amplitude = 25.0, frequency = 0.25 }

[friction]
model = "simscape-cylinder"
form = "stiction"
breakaway = 15.0
[friction.params]
F_pr = 10.0
f_cfr = 0.0
K_brk = 1.0
f_vfr = 0.0
v_th = 1e-6

[simulation]
t_end = 5.0
dt = 5e-4
)";

// The reference: SciPy's solve_ivp with terminal events for every mode
// change (breakaway, rest, reversal) and for every crossing of the zone's
// edge |v| = v_th (DOP853 outside the zone, Radau inside, where it is stiff),
// position and velocity at the output times from each segment's dense output.
// Rows "x v" for t = 0, dt, ..., or empty when it cannot run.
std::vector<std::array<double, 2>> scipy_zone_reference() {
  const std::string py = test::write_temp_file("zone_ref.py", R"PY(
import math, sys
import numpy as np
from scipy.integrate import solve_ivp
FC, vth, Fb, A, f, T, dt = 10.0, 1e-6, 15.0, 25.0, 0.25, 5.0, 5e-4
m, w = 1.0, 2*math.pi*f
K = FC/vth
N = int(round(T/dt))
out = np.full((N+1, 2), np.nan)
def fill(t0, t1, at):
    for k in range(max(0, math.ceil(t0/dt - 1e-9)), min(N, math.floor(t1/dt + 1e-9)) + 1):
        out[k] = at(k*dt)
force = lambda tt: A*math.sin(w*tt)
t, x, v, mode, inside = 0.0, 0.0, 0.0, 0, True
while t < T:
    if mode == 0:
        ev = lambda tt, y: abs(force(tt)) - Fb
        ev.direction, ev.terminal = 1, True
        s = solve_ivp(lambda tt, y: [0.0, 0.0], (t, T), [x, 0.0], method='DOP853', rtol=1e-13, atol=1e-15, events=ev)
        te = s.t_events[0][0] if s.status == 1 else T
        fill(t, te, lambda tt, x=x: (x, 0.0))
        t = te
        if s.status == 1:
            mode, inside = (1 if force(t) > 0 else -1), True
        continue
    d = mode
    if inside:
        rhs, meth = (lambda tt, y: [y[1], (force(tt) - K*y[1])/m]), 'Radau'
    else:
        rhs, meth = (lambda tt, y: [y[1], (force(tt) - d*FC)/m]), 'DOP853'
    edge = lambda tt, y: d*y[1] - vth
    edge.direction, edge.terminal = (1 if inside else -1), True
    rest = lambda tt, y: d*y[1]
    rest.direction, rest.terminal = -1, True
    s = solve_ivp(rhs, (t, T), [x, v], method=meth, rtol=1e-12, atol=1e-16, events=[edge, rest], dense_output=True)
    if s.status != 1:
        fill(t, T, lambda tt: tuple(s.sol(tt)))
        break
    hit = 0 if len(s.t_events[0]) else 1
    te = s.t_events[hit][0]
    fill(t, te, lambda tt: tuple(s.sol(tt)))
    t, x = te, s.sol(te)[0]
    if hit == 0:
        v, inside = d*vth, not inside
    else:
        v, inside = 0.0, True
        mode = (1 if force(t) > 0 else -1) if abs(force(t)) > Fb else 0
np.savetxt(sys.argv[1], out, fmt='%.17g')
)PY");
  const std::string out = test::temp_dir() + "zone_ref.txt";
  std::vector<std::array<double, 2>> rows;
  if (std::system(("/usr/bin/python3 " + py + " " + out).c_str()) != 0) return rows;
  std::ifstream in(out);
  std::array<double, 2> r;
  while (in >> r[0] >> r[1]) rows.push_back(r);
  return rows;
}

const std::vector<double>& channel_of(const workloads::SimulationSeries& s, const char* name) {
  for (const workloads::SeriesChannel& c : s.channels)
    if (c.name == name) return c.values;
  ADD_FAILURE() << "no channel " << name;
  static const std::vector<double> none;
  return none;
}

TEST(StictionEvents, NearExactSignLawFinishesUnderDefaultLimitsAndMatchesScipy) {
  if (std::system("/usr/bin/python3 -c 'import scipy.integrate' > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 with SciPy not available";
  const workloads::SimulateConfig c =
      workloads::read_simulate_config(test::write_temp_file("zone.toml", kNearExactSign));
  ASSERT_EQ(c.sim.max_substeps, SimOptions<double>{}.max_substeps);  // the defaults
  const workloads::SimulationSeries s = workloads::simulate_series(c);
  EXPECT_EQ(s.summary.metrics.status, kSimOk);
  const auto ref = scipy_zone_reference();
  ASSERT_EQ(ref.size(), 10001u);
  const std::vector<double>&t = channel_of(s, "time"), &x = channel_of(s, "position"), &v = channel_of(s, "velocity");
  ASSERT_EQ(x.size(), ref.size());
  // Position and velocity at every output time, each against the peak of
  // its reference (18.2 m and 14.0 m/s; a breakaway at 0.41 s, reversals at 2.61 s and 4.55 s).
  double x_peak = 0, v_peak = 0, dx = 0, dv = 0;
  for (size_t k = 0; k < ref.size(); ++k) {
    ASSERT_TRUE(std::isfinite(ref[k][0]) && std::isfinite(ref[k][1])) << k;
    x_peak = std::max(x_peak, std::fabs(ref[k][0]));
    v_peak = std::max(v_peak, std::fabs(ref[k][1]));
    dx = std::max(dx, std::fabs(x[k] - ref[k][0]));
    dv = std::max(dv, std::fabs(v[k] - ref[k][1]));
  }
  EXPECT_DOUBLE_EQ(t.back(), 5.0);
  EXPECT_GT(x_peak, 10.0);
  EXPECT_LE(dx, 2e-5 * x_peak);
  EXPECT_LE(dv, 2e-5 * v_peak);
  // Other output steps, default limits: the end agrees far closer (about
  // 1e-10 of the peak). Halved sub-steps accepted by the bound at their end
  // alone, whose last RK4 stages ran through the zone at a reversal, were
  // 6e-7 of it off at dt = 1e-4.
  for (double dt : {1e-3, 1e-4}) {
    SimOptions<double> o;
    o.t_end = 5;
    o.dt = dt;
    BodySnapshot<double> last{};
    auto ignore = [](const BodySnapshot<double>&) {};
    EXPECT_EQ(simulate_stiction<SimscapeCylinder>(SimscapeCylinder::prepare(c.params.data()), 15.0, c.body, o, ignore,
                                                  nullptr, &last),
              kSimOk)
        << dt;
    EXPECT_NEAR(-last.x[kBodyS], ref.back()[0], 1e-8 * x_peak) << dt;
  }
}

// The same rule in the ensemble's path (ensemble_point, which the GPU kernel
// runs too): the example as a CPU ensemble over the breakaway force, whose
// 15 N row is the single simulation's end state, bit for bit.
TEST(StictionEvents, NearExactSignEnsembleRowsEqualTheSimulation) {
  const workloads::SimulateConfig one =
      workloads::read_simulate_config(test::write_temp_file("zone1.toml", kNearExactSign));
  const workloads::SimulationSeries s = workloads::simulate_series(one);
  ASSERT_EQ(s.summary.metrics.status, kSimOk);
  const std::string ens = std::string(kNearExactSign) + R"(
[ensemble]
device = "cpu"
[ensemble.params]
breakaway = "list:15,17"
)";
  const workloads::EnsembleResult e =
      workloads::run_ensemble(workloads::read_simulate_config(test::write_temp_file("zone_ens.toml", ens)));
  ASSERT_EQ(e.metrics.size(), 2u);
  for (const auto& m : e.metrics) EXPECT_EQ(m.status, kSimOk);
  EXPECT_EQ(e.metrics[0].final_s, s.summary.metrics.final_s);
  EXPECT_EQ(e.metrics[0].final_v, s.summary.metrics.final_v);
  EXPECT_EQ(e.metrics[0].steps, s.summary.metrics.steps);
}

// The step limit stays for what explicit sub-steps cannot integrate: a
// contact held inside the zone. Sliding at 2e-7 m/s under a constant 5 N it
// creeps towards F/K = 5e-7 m/s and stays there, with the time constant
// m/K = 1e-7 s: every sub-step is 5e-9 s, 1e5 of them per output step.
TEST(StictionEvents, ContactHeldInTheSteepZoneStopsAtTheStepLimit) {
  std::string text = kNearExactSign;
  const std::string sine = "external_force = { amplitude = 25.0, frequency = 0.25 }";
  text.replace(text.find(sine), sine.size(), "external_force = 5.0\ninitial_velocity = 2e-7");
  const workloads::SimulateConfig c = workloads::read_simulate_config(test::write_temp_file("creep.toml", text));
  const workloads::SimulationSeries s = workloads::simulate_series(c);
  EXPECT_EQ(s.summary.metrics.status, kSimStepLimit);
  EXPECT_EQ(channel_of(s, "time").size(), 1u);  // stopped in the first output step
  EXPECT_EQ(s.summary.metrics.steps, c.sim.max_substeps);
}

}  // namespace
}  // namespace stribeck
