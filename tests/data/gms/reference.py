#!/usr/bin/python3
"""Independent reference values for the generalized Maxwell-slip model (test_gms.cpp).

Written from the equations in docs/models.md ("Generalized Maxwell-slip"), not from kernels/:

  s(v)    = F_C + (F_s - F_C) exp(-(|v|/v_s)^delta)
  kappa_i, alpha_i by stick-breaking: element i takes the fraction kf_i (af_i) of what the
          elements before it left, the last element the rest; k_i = sigma0 kappa_i
  m_i(v)  = alpha_i s(v) / k_i,  u_i = z_i sign(v)
  dz_i/dt = v min(1, (m_i - u_i) / (m_i/16))    if u_i < m_i
          = C (sign(v) - z_i / m_i)             if u_i >= m_i
          = 0                                   if v = 0
  F       = sum_i k_i z_i + sigma1/N sum_i dz_i/dt + sigma2 v

The traces are integrated with SciPy's Radau (rtol 1e-10) from sample to sample, the velocity
linear between samples (as the trace form reads a log), the interval split where v crosses 0,
z(0) = 0. Run: /usr/bin/python3 reference.py > golden.csv
"""
import math
import sys

import numpy as np
from scipy.integrate import solve_ivp


def sign(x):
    return float(x > 0) - float(x < 0)


def elements(p, n):
    """(k_i, alpha_i) from sigma0, kf_j, af_j by stick-breaking."""
    sigma0 = p["sigma0"]
    kf, af = p["kf"], p["af"]
    k, a = [], []
    k_left, a_left = sigma0, 1.0
    for j in range(n - 1):
        k.append(k_left * kf[j])
        a.append(a_left * af[j])
        k_left *= 1 - kf[j]
        a_left *= 1 - af[j]
    k.append(k_left)
    a.append(a_left)
    return k, a


def stribeck(p, v):
    x = abs(v) / p["v_s"]
    return p["F_C"] + (p["F_s"] - p["F_C"]) * (1.0 if x == 0 else math.exp(-x ** p["delta"]))


def rates(p, v, z):
    n = len(z)
    k, a = elements(p, n)
    sg = sign(v)
    s = stribeck(p, v)
    dz = []
    for i in range(n):
        m = a[i] * s / k[i]
        u = z[i] * sg
        if sg == 0:
            dz.append(0.0)
        elif u < m:
            dz.append(v * min(1.0, (m - u) / (m / 16.0)))
        else:
            dz.append(p["C"] * (sg - z[i] / m))
    f = sum(k[i] * z[i] for i in range(n)) + p["sigma1"] / n * sum(dz) + p["sigma2"] * v
    return dz, f


def trace(p, n, t, v):
    z = [0.0] * n
    out = [rates(p, v[0], z)[1]]
    for i in range(1, len(t)):
        t0, t1, v0, v1 = t[i - 1], t[i], v[i - 1], v[i]
        vel = lambda tt: v0 + (v1 - v0) * (tt - t0) / (t1 - t0)
        cuts = [t0]
        if v0 * v1 < 0:
            cuts.append(t0 + (t1 - t0) * v0 / (v0 - v1))
        cuts.append(t1)
        for a, b in zip(cuts[:-1], cuts[1:]):
            if not b > a:
                continue
            sol = solve_ivp(lambda tt, y: rates(p, vel(tt), y)[0], (a, b), z, method="Radau", rtol=1e-10,
                            atol=1e-17, first_step=(b - a) / 64)
            z = list(sol.y[:, -1])
        out.append(rates(p, v1, z)[1])
    return out


def moves(segments, rate):
    """Velocity of a position that moves by dx over each duration T as a half sine of
    velocity (v = 0 at both ends): reversals where dx changes sign."""
    total = sum(T for _, T in segments)
    t = np.arange(0, total + 0.5 / rate, 1.0 / rate)
    v = np.zeros_like(t)
    t0 = 0.0
    for dx, T in segments:
        inside = (t >= t0) & (t < t0 + T)
        v[inside] = dx * math.pi / (2 * T) * np.sin(math.pi * (t[inside] - t0) / T)
        t0 += T
    return t, v


# Presliding with nested reversals (x in um): up 40, down 25, up 22, down 22 (back to the
# reversal point at 15 um: the inner loop closes), up 60 (through 40: wiping out), down 90.
MEMORY = [(40e-6, 0.3), (-25e-6, 0.25), (22e-6, 0.2), (-22e-6, 0.2), (60e-6, 0.4), (-90e-6, 0.5)]


def profiles(rate):
    t = np.arange(0, 2.0 + 0.5 / rate, 1.0 / rate)
    return {
        "memory": moves(MEMORY, rate),
        "sine": (t, 5e-3 * np.sin(2 * np.pi * t)),
        "reversal": (t, 0.01 * (1 - t)),
    }


SETS = {
    # gms3 at its defaults with sigma1 = 0 (the hysteresis alone) and a faster attraction.
    "A": (3, dict(sigma0=1e5, sigma1=0.0, sigma2=0.4, F_C=1.0, F_s=1.5, v_s=1e-3, delta=2.0, C=0.05,
                  kf=[0.6, 0.6], af=[1 / 3, 0.5])),
    # gms2 with damping, an exponential (Tustin) decay and unequal elements.
    "B": (2, dict(sigma0=2e5, sigma1=50.0, sigma2=2.0, F_C=2.0, F_s=3.0, v_s=5e-3, delta=1.0, C=0.01,
                  kf=[0.3], af=[0.7])),
}


def main():
    w = sys.stdout.write
    w("# kind,set,profile,time,velocity,force,z_1..z_N|dz_1..dz_N  (reference.py; see its docstring)\n")
    rng = np.random.default_rng(33)
    for name, (n, p) in SETS.items():
        k, a = elements(p, n)
        for _ in range(60):  # the right-hand side and output at random (v, z), some exactly on the surface
            v = float(rng.choice([-1, 1]) * 10 ** rng.uniform(-5, -1))
            s = stribeck(p, v)
            z = []
            for i in range(n):
                m = a[i] * s / k[i]
                z.append(float(m * sign(v) if rng.uniform() < 0.15 else rng.uniform(-1.3 * m, 1.3 * m)))
            dz, f = rates(p, v, z)
            w("rhs,%s,points,0,%.17g,%.17g,%s,%s\n" % (name, v, f, ";".join("%.17g" % x for x in z),
                                                      ";".join("%.17g" % x for x in dz)))
        for prof, (t, v) in profiles(1000.0).items():
            # 12 digits in the file, and the integration sees exactly those.
            t = [float("%.12g" % x) for x in t]
            v = [float("%.12g" % x) for x in v]
            for ti, vi, fi in zip(t, v, trace(p, n, t, v)):
                w("trace,%s,%s,%.12g,%.12g,%.12g,,\n" % (name, prof, ti, vi, fi))


if __name__ == "__main__":
    main()
