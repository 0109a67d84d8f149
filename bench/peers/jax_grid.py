#!/usr/bin/env python3
"""jax.jit peer of bench/sweep_grid.cpp for the GPU benchmark: the same
simscape-cylinder grid and metrics over the same trace, on the same GPU.

    build/bin/sweep_grid --axis 16 --samples 16384 --device gpu --precision fp32 \
        --trace-out /tmp/trace.csv --repeat 3
    python3 bench/peers/jax_grid.py /tmp/trace.csv --axis 16 --precision fp32

The parameter sets are vectorised (one lane each); samples are scanned in
blocks (lax.scan) so memory stays at parameters x block. Prints the time of
the best of --repeat runs after a warm-up (compile) run, evaluations/s and
the best RMSE, which must match the engine's.

`--numpy` runs the same block step with NumPy in FP64 (no jax needed):
bench/peers/check_grid_peer.sh compares its RMSE with the engine's, so the
GPU comparison is between equal work."""
import argparse
import time

import numpy as np


def grid(axis):
    # Same axes and order as sweep_grid (first parameter slowest).
    F_pr = np.linspace(0.0, 60.0, axis)
    f_cfr = np.exp(np.linspace(np.log(1e-7), np.log(1e-5), axis))
    K_brk = np.linspace(1.0, 2.5, axis)
    c_v = np.exp(np.linspace(np.log(1.0), np.log(100.0), axis))
    return [x.ravel() for x in np.meshgrid(F_pr, f_cfr, K_brk, c_v, indexing="ij")]


def block_step(xp, g, carry, blk):
    """One block of samples for every parameter set (one row each): the model
    and the metric accumulators, written once for jax.numpy and NumPy."""
    F_pr, f_cfr, K_brk, c_v = g
    f_vfr, v_th = 200.0, 1e-4
    sse, maxe, peak, sp, sn, energy, loop, fprev, fvprev = carry
    dt, v, pa, pb, dx, fm = (blk[None, :, i] for i in range(6))
    av = xp.abs(v)
    fc = F_pr + f_cfr * (pa + pb)
    slope = (1 + (K_brk - 1) * xp.exp(-c_v * v_th)) / v_th
    coul = xp.where(av > v_th, (1 + (K_brk - 1) * xp.exp(-c_v * av)) * xp.sign(v), slope * v)
    F = fc * coul + f_vfr * v
    e = F - fm
    fv = F * v
    fvp = xp.concatenate([fvprev, fv[:, :-1]], axis=1)
    fp = xp.concatenate([fprev, F[:, :-1]], axis=1)
    return (sse + xp.sum(e * e, 1, keepdims=True),
            xp.maximum(maxe, xp.max(xp.abs(e), 1, keepdims=True)),
            xp.maximum(peak, xp.max(xp.abs(F), 1, keepdims=True)),
            sp + xp.sum(xp.where(v > 0, F, 0), 1, keepdims=True),
            sn + xp.sum(xp.where(v < 0, F, 0), 1, keepdims=True),
            energy + xp.sum(0.5 * (fvp + fv) * dt, 1, keepdims=True),
            loop + xp.sum(0.5 * (fp + F) * dx, 1, keepdims=True),
            F[:, -1:], fv[:, -1:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--axis", type=int, default=16)
    ap.add_argument("--precision", choices=["fp32", "fp64"], default="fp32")
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--numpy", action="store_true", help="check the arithmetic with NumPy (FP64), no jax needed")
    a = ap.parse_args()

    trace = np.loadtxt(a.trace, delimiter=",", skiprows=1)
    n = trace.shape[0] - trace.shape[0] % a.block  # whole blocks (reported)
    blocks = trace[:n].reshape(n // a.block, a.block, 6)
    if a.numpy:
        g = [x[:, None] for x in grid(a.axis)]
        carry = (np.zeros((g[0].shape[0], 1)),) * 9
        t0 = time.perf_counter()
        for blk in blocks:
            carry = block_step(np, g, carry, blk)
        t = time.perf_counter() - t0
        rmse = np.sqrt(carry[0] / n).min()
        print(f"numpy {np.__version__} (fp64, block {a.block}, {n} samples): {t:.4f} s, "
              f"{g[0].shape[0] * n / t:.3g} evaluations/s, best rmse {rmse:.10g}")
        return

    import jax
    if a.precision == "fp64":
        jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    dtype = jnp.float64 if a.precision == "fp64" else jnp.float32
    tr = jnp.asarray(blocks, dtype=dtype)
    g = [jnp.asarray(x, dtype=dtype)[:, None] for x in grid(a.axis)]

    @jax.jit
    def sweep(tr, F_pr, f_cfr, K_brk, c_v):
        z = jnp.zeros((F_pr.shape[0], 1), dtype)
        carry, _ = lax.scan(lambda c, blk: (block_step(jnp, (F_pr, f_cfr, K_brk, c_v), c, blk), None), (z,) * 9, tr)
        return carry

    out = sweep(tr, *g)
    jax.block_until_ready(out)  # compile + warm-up
    best_t = float("inf")
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        out = sweep(tr, *g)
        jax.block_until_ready(out)
        best_t = min(best_t, time.perf_counter() - t0)
    rmse = np.sqrt(np.asarray(out[0]) / n).min()
    evals = g[0].shape[0] * n
    print(f"jax {jax.__version__} jit on {jax.devices()[0].device_kind} ({a.precision}, block {a.block}, {n} samples): "
          f"{best_t:.4f} s, {evals / best_t:.3g} evaluations/s, best rmse {rmse:.10g}")


if __name__ == "__main__":
    main()
