#!/usr/bin/env python3
"""Peer for bench/bench_stick_slip.cpp on a GPU: the mass-spring-LuGre
stick-slip ensemble written with jax.jit + vmap (fixed-step RK4 in lax.scan)
and with diffrax (diffrax.RK4, constant step), in FP32 by default.

Same physics and parameter grid as the C++ benchmark: m = 1 kg, LuGre with
the paper's parameters (sigma0 1e5, sigma1 sqrt(1e5), sigma2 0.4, F_C 1,
F_s 1.5, v_s 1e-3), spring stiffness 1..50 N/m x drive velocity 0.01..0.3
m/s, friction against ground, state (s, v, z) from rest.

Issue 5's target ensemble: 1,048,576 trajectories x 10,000 RK4 steps.

    python3 bench/peers/stick_slip_jax.py --trajectories 1048576 --steps 10000 --h 2.5e-5
    python3 bench/peers/stick_slip_jax.py --diffrax ...

Prints RK4 steps per second (trajectories x steps / wall time of the second,
compiled call) and a checksum (sum of final velocities) to compare with the
C++ run. Needs jax[cuda] (and diffrax for --diffrax) on the GPU machine.

`--numpy` runs the same right-hand side and RK4 step with NumPy arrays (in
FP64, vectorised over trajectories), which needs no jax: tests/peers checks
through it that the peer integrates the same system as bench_ensemble, so the
GPU comparison is between equal work.
"""
import argparse
import time

SIGMA0, SIGMA1, SIGMA2 = 1e5, 316.2277660168379, 0.4
F_C, F_S, V_S = 1.0, 1.5, 1e-3


def grid(xp, n, dtype):
    side = int(round(n ** 0.5))
    i = xp.arange(n)
    a, b = i % side, (i // side) % side
    den = max(side - 1, 1)
    k = 1.0 + 49.0 * a / den
    vd = 0.01 + 0.29 * b / den
    return k.astype(dtype), vd.astype(dtype)


def rhs(xp, y, k, vd):
    """d(s, v, z)/dt of the body on a spring (elongation s) pulled at vd,
    LuGre friction against ground; y stacks the states on its first axis."""
    s, v, z = y
    x = v / V_S
    g = F_C + (F_S - F_C) * xp.exp(-x * x)
    zd = v - SIGMA0 * xp.abs(v) * z / g
    f = SIGMA0 * z + SIGMA1 * zd + SIGMA2 * v
    return xp.stack([vd - v, k * s - f, zd])


def rk4_step(xp, y, k, vd, h):
    k1 = rhs(xp, y, k, vd)
    k2 = rhs(xp, y + 0.5 * h * k1, k, vd)
    k3 = rhs(xp, y + 0.5 * h * k2, k, vd)
    k4 = rhs(xp, y + h * k3, k, vd)
    return y + h / 6 * (k1 + 2 * (k2 + k3) + k4)


def rk4_trajectory(k, vd, h, steps, dtype):
    import jax
    import jax.numpy as jnp

    y0 = jnp.zeros(3, dtype)
    y, _ = jax.lax.scan(lambda y, _: (rk4_step(jnp, y, k, vd, h), None), y0, None, length=steps)
    return y[1]


def diffrax_trajectory(k, vd, h, steps, dtype):
    import diffrax
    import jax.numpy as jnp

    term = diffrax.ODETerm(lambda t, y, args: rhs(jnp, y, *args))
    sol = diffrax.diffeqsolve(term, diffrax.RK4(), t0=0.0, t1=h * steps, dt0=h, y0=jnp.zeros(3, dtype),
                              args=(k, vd), saveat=diffrax.SaveAt(t1=True), max_steps=steps + 1)
    return sol.ys[-1, 1]


def run_numpy(a):
    import numpy as np

    k, vd = grid(np, a.trajectories, np.float64)
    y = np.zeros((3, a.trajectories))
    t0 = time.perf_counter()
    for _ in range(a.steps):
        y = rk4_step(np, y, k, vd, a.h)
    t = time.perf_counter() - t0
    steps = a.trajectories * a.steps
    print(f"numpy float64 on the CPU: {a.trajectories} x {a.steps} RK4 steps in {t:.3f} s = {steps / t:.3e} steps/s, "
          f"checksum {np.sum(y[1]):.9g}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trajectories", type=int, default=1 << 20)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--h", type=float, default=2.5e-5)
    ap.add_argument("--float64", action="store_true")
    ap.add_argument("--diffrax", action="store_true")
    ap.add_argument("--numpy", action="store_true", help="check the physics with NumPy (FP64), no jax needed")
    a = ap.parse_args()
    if a.numpy:
        return run_numpy(a)
    import jax
    import jax.numpy as jnp

    if a.float64:
        jax.config.update("jax_enable_x64", True)
    dtype = jnp.float64 if a.float64 else jnp.float32
    k, vd = grid(jnp, a.trajectories, dtype)
    traj = diffrax_trajectory if a.diffrax else rk4_trajectory
    run = jax.jit(jax.vmap(lambda kk, vv: traj(kk, vv, dtype(a.h), a.steps, dtype)))
    run(k, vd).block_until_ready()  # compile
    t0 = time.perf_counter()
    v = run(k, vd).block_until_ready()
    t = time.perf_counter() - t0
    steps = a.trajectories * a.steps
    print(f"{'diffrax' if a.diffrax else 'jax.jit+vmap'} {jnp.dtype(dtype).name} on {jax.devices()[0]}: "
          f"{a.trajectories} x {a.steps} RK4 steps in {t:.3f} s = {steps / t:.3e} steps/s, "
          f"checksum {float(jnp.sum(v)):.9g}")


if __name__ == "__main__":
    main()
