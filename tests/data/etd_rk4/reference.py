#!/usr/bin/python3
"""Independent reference for the exponential RK4 (ETDRK4) of the smooth systems (test_etd_rk4.cpp).

Written from the equations in docs/dynamics.md and docs/models.md, not from kernels/: the
stick-slip rig of bench/fit_draws.sh (1 kg body, 20 N/m spring pulled at v_d = 0.1 m/s,
LuGre friction against ground, sigma0 1e5, sigma1 0.5, sigma2 0.4, F_C 1, F_s 1.5, v_s 1e-3):

  s' = v_d - v,  m v' = k s - F,  z' = v - sigma0 |v| z / g(v),
  g(v) = F_C + (F_s - F_C) exp(-(v/v_s)^2),  F = sigma0 z + sigma1 z' + sigma2 v,

from s = v = z = 0, integrated by SciPy's Radau (rtol 1e-10, atol 1e-14) over 6 s. Writes
the state every 0.01 s (t, v, spring force k s, z) and the stick-slip metrics of the samples
every 1e-3 s as docs/dynamics.md defines them (breakaway force: largest |F| before |v| first
exceeds 1e-3 m/s; peak |v|; over t >= 3 s: half the peak-to-peak spring force and velocity,
the mean time between upward crossings of v - v_d through +-1e-4 m/s, interpolated).
Run: /usr/bin/python3 reference.py > golden.csv
"""
import numpy as np
from scipy.integrate import solve_ivp

M, K, VD = 1.0, 20.0, 0.1
S0, S1, S2, FC, FS, VS = 1e5, 0.5, 0.4, 1.0, 1.5, 1e-3
T_END, DT = 6.0, 1e-3


def rhs(t, x):
    s, v, z = x
    g = FC + (FS - FC) * np.exp(-(v / VS) ** 2)
    dz = v - S0 * abs(v) * z / g
    f = S0 * z + S1 * dz + S2 * v
    return [VD - v, (K * s - f) / M, dz]


def friction(x):
    s, v, z = x
    g = FC + (FS - FC) * np.exp(-(v / VS) ** 2)
    return S0 * z + S1 * (v - S0 * abs(v) * z / g) + S2 * v


def main():
    n = int(round(T_END / DT))
    t = np.arange(n + 1) * DT
    sol = solve_ivp(rhs, (0.0, T_END), [0.0, 0.0, 0.0], method="Radau", t_eval=t, rtol=1e-10, atol=1e-14)
    assert sol.success, sol.message
    s, v, z = sol.y
    fs = K * s
    f = np.array([friction(sol.y[:, i]) for i in range(n + 1)])
    broke = np.argmax(np.abs(v) > 1e-3)
    breakaway = np.max(np.abs(f[:broke]))
    steady = t >= 0.5 * T_END
    amp_f = 0.5 * (fs[steady].max() - fs[steady].min())
    amp_v = 0.5 * (v[steady].max() - v[steady].min())
    crossings, below, u_prev, t_prev = [], False, 0.0, 0.0
    first = True
    for ti, ui in zip(t[steady], v[steady] - VD):
        if ui < -1e-4:
            below = True
        elif below and ui > 1e-4:
            below = False
            crossings.append(t_prev + (ti - t_prev) * (-u_prev) / (ui - u_prev) if not first else ti)
        u_prev, t_prev, first = ui, ti, False
    period = (crossings[-1] - crossings[0]) / (len(crossings) - 1)
    print("# metrics: breakaway_force,peak_velocity,amp_spring_force,amp_velocity,period")
    print(f"metrics,{breakaway:.17g},{np.abs(v).max():.17g},{amp_f:.17g},{amp_v:.17g},{period:.17g}")
    print("# t,v,spring_force,z every 0.01 s")
    for i in range(0, n + 1, 10):
        print(f"{t[i]:.17g},{v[i]:.17g},{fs[i]:.17g},{z[i]:.17g}")


if __name__ == "__main__":
    main()
