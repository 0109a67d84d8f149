#!/usr/bin/python3
"""Independent reference values for the laws of issue 33 item 3 (test_new_laws.cpp).

Written from the equations in docs/models.md, not from kernels/:

  stribeck-delta:  F = (F_C + (F_s-F_C) exp(-(|v|/v_s)^delta)) dir(v) + f_v v
  elastoplastic (Dupont, Hayward, Armstrong, Altpeter, IEEE TAC 47(5), 2002):
      dz/dt = v (1 - alpha(z, v) z / z_ss(v)),  F = sigma0 z + sigma1 dz/dt + sigma2 v
      z_ss(v) = sign(v) g(v) / sigma0,  g(v) = F_C + (F_s-F_C) exp(-(v/v_s)^2)
      z_ba = r_ba F_C / sigma0
      alpha = 0 if sign(z) != sign(v) or |z| <= z_ba; 1 if |z| >= |z_ss|;
              1/2 + 1/2 sin(pi (|z| - (|z_ss|+z_ba)/2) / (|z_ss| - z_ba)) between.

The elasto-plastic traces are integrated with SciPy's Radau (rtol 1e-10) from
sample to sample, the velocity linear between samples (as the trace form
reads a log), z(0) = 0. Run: /usr/bin/python3 reference.py > golden.csv
"""
import math
import sys

import numpy as np
from scipy.integrate import solve_ivp


def sign(x):
    return int(x > 0) - int(x < 0)


def delta_law(f_c, f_s, v_s, delta, f_v, v_eps, v):
    x = abs(v) / v_s
    e = 1.0 if x == 0 else math.exp(-x**delta)
    d = math.tanh(v / v_eps) if v_eps > 0 else sign(v)
    return (f_c + (f_s - f_c) * e) * d + f_v * v


def ep_alpha(z, v, zss_mag, z_ba):
    if sign(z) != sign(v) or sign(v) == 0:
        return 0.0
    a = abs(z)
    if a >= zss_mag:
        return 1.0
    if a <= z_ba:
        return 0.0
    return 0.5 + 0.5 * math.sin(math.pi * (a - 0.5 * (zss_mag + z_ba)) / (zss_mag - z_ba))


def ep_rates(p, v, z):
    s0, s1, s2, f_c, f_s, v_s, r_ba = p
    g = f_c + (f_s - f_c) * math.exp(-(v / v_s) ** 2)
    zss_mag = g / s0
    z_ba = r_ba * f_c / s0
    zss = sign(v) * zss_mag
    dz = v if zss == 0 else v * (1 - ep_alpha(z, v, zss_mag, z_ba) * z / zss)
    return dz, s0 * z + s1 * dz + s2 * v


def ep_trace(p, t, v):
    z = 0.0
    out = [ep_rates(p, v[0], z)[1]]
    for i in range(1, len(t)):
        t0, t1, v0, v1 = t[i - 1], t[i], v[i - 1], v[i]
        vel = lambda tt: v0 + (v1 - v0) * (tt - t0) / (t1 - t0)
        sol = solve_ivp(lambda tt, y: [ep_rates(p, vel(tt), y[0])[0]], (t0, t1), [z], method="Radau",
                        rtol=1e-10, atol=1e-16, first_step=(t1 - t0) / 64)
        z = sol.y[0, -1]
        out.append(ep_rates(p, v1, z)[1])
    return out


def profiles(rate):
    t = np.arange(0, 2.0 + 0.5 / rate, 1.0 / rate)
    tri = 0.01 * (2 * np.abs(2 * ((t + 0.25) % 1.0) - 1) - 1)  # +-10 mm/s, period 1 s
    knots_t = [0, 0.1, 0.4, 0.5, 0.9, 1.0, 1.3, 1.4, 1.8, 2.0]
    knots_v = [0, 2e-3, 2e-3, 0.02, 0.02, -5e-4, -5e-4, -0.01, -0.01, 0]
    return {
        "sine": (t, 5e-3 * np.sin(2 * np.pi * t)),
        "presliding": (t, 9e-5 * np.sin(2 * np.pi * 5 * t)),  # x in [0, 5.7e-6] m: elastic for B (z_ba = 9e-6 m)
        "triangle": (t, tri),
        "plateau": (t, np.interp(t, knots_t, knots_v)),
        "reversal": (t, 0.01 * (1 - t)),
    }


EP_SETS = {
    "A": [1e5, 316.2277660168379, 0.4, 1.0, 1.5, 1e-3, 0.5],
    "B": [2e5, 0.0, 2.0, 2.0, 3.0, 5e-3, 0.9],
}
DELTA_SETS = {  # F_C, F_s, v_s, delta, f_v, v_eps
    "d1": [20.0, 25.0, 0.01, 1.0, 100.0, 0.0],
    "d2": [20.0, 25.0, 0.01, 2.0, 100.0, 0.0],
    "d05": [3.0, 7.0, 2e-3, 0.5, 10.0, 1e-4],
    "d8": [1.0, 1.5, 1e-3, 8.0, 0.0, 0.0],
}


def main():
    w = sys.stdout.write
    w("# kind,set,profile,time,velocity,state,force,dzdt  (reference.py; see its docstring)\n")
    for name, p in DELTA_SETS.items():
        for v in [0.0, 1e-9, -1e-5, 1e-3, -2e-3, 5e-3, -0.01, 0.01, 0.02, -0.05, 0.3, -3.0]:
            w("delta,%s,points,0,%.17g,0,%.17g,0\n" % (name, v, delta_law(*p, v)))
    rng = np.random.default_rng(33)
    for name, p in EP_SETS.items():
        zmax = 1.2 * p[4] / p[0]
        for _ in range(40):  # the ODE's right-hand side and output at random (v, z)
            v = float(rng.choice([-1, 1]) * 10 ** rng.uniform(-5, -1))
            z = float(rng.uniform(-zmax, zmax))
            dz, f = ep_rates(p, v, z)
            w("ep_rhs,%s,points,0,%.17g,%.17g,%.17g,%.17g\n" % (name, v, z, f, dz))
        for prof, (t, v) in profiles(1000.0).items():
            # 12 digits in the file, and the integration sees exactly those.
            t = [float("%.12g" % x) for x in t]
            v = [float("%.12g" % x) for x in v]
            for ti, vi, fi in zip(t, v, ep_trace(p, t, v)):
                w("ep_trace,%s,%s,%.12g,%.12g,0,%.12g,0\n" % (name, prof, ti, vi, fi))


if __name__ == "__main__":
    main()
