#!/usr/bin/env python3
"""The peer a user would write for bench/fit_draws.sh: draw a fit's free
parameters with NumPy and run them through a numba ensemble of the
mass-spring-LuGre stick-slip rig (@njit(parallel=True, fastmath=True),
prange over draws, fixed-step RK4 in registers, NUMBA_NUM_THREADS threads).

The draws are stribeck's from_fit distribution (docs/dynamics.md, "Ensembles
drawn from a fit"): a multivariate normal in the fit's internal coordinates
(log: x = exp(u); excess:B: x = x_B + u; identity), whose covariance is the
fit's mapped through the inverse Jacobian, C_u = G^-1 C_x G^-T. The rig is
bench/fit_draws.sh's: m = 1 kg, spring --stiffness N/m pulled at --drive m/s,
LuGre against ground with sigma0 and sigma1 held at the fit's values, from
rest. Every draw takes --steps RK4 steps of t_end / steps (stribeck's mean
step count per draw, so both integrate as many steps). With --integrator
etd-rk4 every step is the exponential RK4 stribeck's [simulation] integrator =
"etd-rk4" takes (Cox & Matthews' ETDRK4 with the bristle's relaxation rate
sigma0 |v| / g(v) frozen at the step's start; docs/dynamics.md), written here
from its equations.

A draw sticks and slips when, in the second half of the run, the body's
velocity falls below 1 % of the drive velocity (the body stops against the
spring). Prints the wall time of the draws and of the runs (the JIT warm-up on
4 draws not timed), the RK4 steps per second and the fraction that sticks and
slips.
"""
import argparse
import json
import math
import time

import numpy as np
from numba import get_num_threads, njit, prange


def draw(fit, n, seed, dtype):
    names = fit["correlation"]["parameters"]
    transforms = fit["correlation"]["transforms"]
    corr = np.array(fit["correlation"]["matrix"], dtype=float)
    x = np.array([fit["parameters"][p]["value"] for p in names], dtype=float)
    se = np.array([fit["parameters"][p]["std_error"] for p in names], dtype=float)
    k = len(names)
    # u at the estimate and G = dx/du there.
    u = np.empty(k)
    G = np.zeros((k, k))
    for a, t in enumerate(transforms):
        if t == "log":
            u[a] = np.log(x[a])
            G[a, a] = x[a]
        elif t.startswith("excess:"):
            b = names.index(t.split(":", 1)[1])
            u[a] = x[a] - x[b]
            G[a, a] = 1.0
        else:
            u[a] = x[a]
            G[a, a] = 1.0
    for a, t in enumerate(transforms):  # an excess inherits its base's row
        if t.startswith("excess:"):
            G[a] += G[names.index(t.split(":", 1)[1])]
    Cx = corr * np.outer(se, se)
    Gi = np.linalg.inv(G)
    Cu = Gi @ Cx @ Gi.T
    rng = np.random.default_rng(seed)
    U = rng.multivariate_normal(u, Cu, size=n, method="cholesky")
    X = np.empty_like(U)
    for a, t in enumerate(transforms):  # bases before excesses
        if t == "log":
            X[:, a] = np.exp(U[:, a])
        elif not t.startswith("excess:"):
            X[:, a] = U[:, a]
    for a, t in enumerate(transforms):
        if t.startswith("excess:"):
            X[:, a] = X[:, names.index(t.split(":", 1)[1])] + U[:, a]
    values = {p: fit["parameters"][p]["value"] for p in fit["parameters"]}
    cols = {}
    for p in ("F_C", "F_s", "v_s", "sigma2", "sigma0", "sigma1"):
        cols[p] = (X[:, names.index(p)] if p in names else np.full(n, values[p])).astype(dtype)
    return cols


@njit(parallel=True, fastmath=True)
def ensemble(fc_, fs_, vs_, s2_, s0_, s1_, kk, vv, h, steps, c, stick):
    # c: 0.5, 1/6, 0, 0.01, 1 in the working precision (float32 runs hold no float64 arithmetic).
    half, sixth, zero, frac = c[0], c[1], c[2], c[3]
    h2 = h * half
    h6 = h * sixth
    for j in prange(fc_.size):
        fc = fc_[j]
        ds = fs_[j] - fc
        inv_vs = c[4] / vs_[j]
        sigma0 = s0_[j]
        sigma1 = s1_[j]
        sigma2 = s2_[j]
        s = zero
        v = zero
        z = zero
        stuck = False
        for i in range(steps):
            u = v * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd1 = v - sigma0 * abs(v) * z / g
            f = sigma0 * z + sigma1 * zd1 + sigma2 * v
            ds1 = vv - v
            dv1 = kk * s - f

            s2 = s + h2 * ds1
            v2 = v + h2 * dv1
            z2 = z + h2 * zd1
            u = v2 * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd2 = v2 - sigma0 * abs(v2) * z2 / g
            f = sigma0 * z2 + sigma1 * zd2 + sigma2 * v2
            ds2 = vv - v2
            dv2 = kk * s2 - f

            s3 = s + h2 * ds2
            v3 = v + h2 * dv2
            z3 = z + h2 * zd2
            u = v3 * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd3 = v3 - sigma0 * abs(v3) * z3 / g
            f = sigma0 * z3 + sigma1 * zd3 + sigma2 * v3
            ds3 = vv - v3
            dv3 = kk * s3 - f

            s4 = s + h * ds3
            v4 = v + h * dv3
            z4 = z + h * zd3
            u = v4 * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd4 = v4 - sigma0 * abs(v4) * z4 / g
            f = sigma0 * z4 + sigma1 * zd4 + sigma2 * v4
            ds4 = vv - v4
            dv4 = kk * s4 - f

            s = s + h6 * (ds1 + (ds2 + ds3) * 2 + ds4)
            v = v + h6 * (dv1 + (dv2 + dv3) * 2 + dv4)
            z = z + h6 * (zd1 + (zd2 + zd3) * 2 + zd4)
            if 2 * i >= steps and abs(v) < frac * vv:
                stuck = True
        stick[j] = stuck


@njit(fastmath=True, inline="always")
def phi(x, e, k, one, half):
    # phi_1..phi_3 at x <= 0 from e = exp(x): phi_3's series for |x| < 1
    # (k: 1/3!, 1/4!, ... in the working precision), else the closed forms.
    if x > -one:
        p3 = k[k.size - 1]
        for i in range(k.size - 2, -1, -1):
            p3 = p3 * x + k[i]
        p2 = half + x * p3
        return one + x * p2, p2, p3
    p1 = (e - one) / x
    p2 = (p1 - one) / x
    return p1, p2, (p2 - half) / x


@njit(parallel=True, fastmath=True)
def ensemble_etd(fc_, fs_, vs_, s2_, s0_, s1_, kk, vv, h, steps, c, k, stick):
    # The same rig, each step ETDRK4 on z (rate a = sigma0 |v| / g frozen at
    # the step's start), RK4 stages on s and v.
    half, sixth, zero, frac = c[0], c[1], c[2], c[3]
    h2 = h * half
    h6 = h * sixth
    for j in prange(fc_.size):
        fc = fc_[j]
        ds = fs_[j] - fc
        inv_vs = c[4] / vs_[j]
        sigma0 = s0_[j]
        sigma1 = s1_[j]
        sigma2 = s2_[j]
        s = zero
        v = zero
        z = zero
        stuck = False
        for i in range(steps):
            u = v * inv_vs
            g = fc + ds * np.exp(-u * u)
            a = sigma0 * abs(v) / g
            ch = -(a * h2)
            eh = np.exp(ch)
            e = eh * eh
            q1, q2, q3 = phi(ch, eh, k, c[4], half)
            p1, p2, p3 = phi(ch + ch, e, k, c[4], half)
            w = h2 * q1
            zd1 = v - a * z
            f = sigma0 * z + sigma1 * zd1 + sigma2 * v
            ds1 = vv - v
            dv1 = kk * s - f
            n1 = zd1 + a * z

            s2 = s + h2 * ds1
            v2 = v + h2 * dv1
            z2 = eh * z + w * n1
            u = v2 * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd2 = v2 - sigma0 * abs(v2) * z2 / g
            f = sigma0 * z2 + sigma1 * zd2 + sigma2 * v2
            ds2 = vv - v2
            dv2 = kk * s2 - f
            n2 = zd2 + a * z2

            s3 = s + h2 * ds2
            v3 = v + h2 * dv2
            z3 = eh * z + w * n2
            u = v3 * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd3 = v3 - sigma0 * abs(v3) * z3 / g
            f = sigma0 * z3 + sigma1 * zd3 + sigma2 * v3
            ds3 = vv - v3
            dv3 = kk * s3 - f
            n3 = zd3 + a * z3

            s4 = s + h * ds3
            v4 = v + h * dv3
            z4 = eh * z2 + w * (n3 + n3 - n1)
            u = v4 * inv_vs
            g = fc + ds * np.exp(-u * u)
            zd4 = v4 - sigma0 * abs(v4) * z4 / g
            f = sigma0 * z4 + sigma1 * zd4 + sigma2 * v4
            ds4 = vv - v4
            dv4 = kk * s4 - f
            n4 = zd4 + a * z4

            s = s + h6 * (ds1 + (ds2 + ds3) * 2 + ds4)
            v = v + h6 * (dv1 + (dv2 + dv3) * 2 + dv4)
            z = e * z + h * ((p1 - 3 * p2 + 4 * p3) * n1 + (2 * p2 - 4 * p3) * (n2 + n3) + (4 * p3 - p2) * n4)
            if 2 * i >= steps and abs(v) < frac * vv:
                stuck = True
        stick[j] = stuck


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fit", required=True)
    ap.add_argument("--draws", type=int, default=100000)
    ap.add_argument("--t-end", type=float, default=3.0)
    ap.add_argument("--steps", type=int, required=True, help="RK4 steps per draw")
    ap.add_argument("--stiffness", type=float, default=20.0)
    ap.add_argument("--drive", type=float, default=0.1)
    ap.add_argument("--precision", choices=("fp64", "fp32"), default="fp64")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--integrator", choices=("rk4", "etd-rk4"), default="rk4")
    a = ap.parse_args()
    dtype = np.float64 if a.precision == "fp64" else np.float32
    with open(a.fit) as f:
        fit = json.load(f)
    t0 = time.perf_counter()
    p = draw(fit, a.draws, a.seed, dtype)
    t_draw = time.perf_counter() - t0
    c = np.array([0.5, 1.0 / 6.0, 0.0, 0.01, 1.0], dtype=dtype)
    kk, vv, h = dtype(a.stiffness), dtype(a.drive), dtype(a.t_end / a.steps)
    args = [p[n] for n in ("F_C", "F_s", "v_s", "sigma2", "sigma0", "sigma1")]
    stick = np.zeros(a.draws, np.bool_)
    if a.integrator == "rk4":
        run = lambda n, steps, out: ensemble(*[x[:n] for x in args], kk, vv, h, steps, c, out)
    else:
        terms = 16 if a.precision == "fp64" else 9
        k = np.array([1.0 / math.factorial(j + 3) for j in range(terms)], dtype=dtype)
        run = lambda n, steps, out: ensemble_etd(*[x[:n] for x in args], kk, vv, h, steps, c, k, out)
    run(4, 10, stick[:4])  # JIT compile, not timed
    t0 = time.perf_counter()
    run(a.draws, a.steps, stick)
    t_run = time.perf_counter() - t0
    steps = a.draws * a.steps
    prob = float(np.mean(stick))
    print(f"numba {np.dtype(dtype).name} {a.integrator} on {get_num_threads()} threads: {a.draws} draws (NumPy {t_draw:.2f} s) x "
          f"{a.steps} RK4 steps in {t_run:.1f} s = {steps / t_run:.3e} steps/s; "
          f"P(stick-slip) = {prob:.4f} +/- {np.sqrt(prob * (1 - prob) / a.draws):.4f}")


if __name__ == "__main__":
    main()
