#!/usr/bin/env python3
"""jax.jit peer of bench/sweep_grid.cpp for the GPU benchmark: the same
simscape-cylinder grid and metrics over the same trace, on the same GPU.

    build/bin/sweep_grid --axis 16 --samples 16384 --device gpu --precision fp32 \
        --trace-out /tmp/trace.csv --repeat 3
    python3 bench/peers/jax_grid.py /tmp/trace.csv --axis 16 --precision fp32

The parameter sets are vectorised (one lane each); samples are scanned in
blocks (lax.scan) so memory stays at parameters x block. Prints the time of
the best of --repeat runs after a warm-up (compile) run, evaluations/s and
the best RMSE, which must match the engine's."""
import argparse
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--axis", type=int, default=16)
    ap.add_argument("--precision", choices=["fp32", "fp64"], default="fp32")
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()

    import jax
    if a.precision == "fp64":
        jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax

    dtype = jnp.float64 if a.precision == "fp64" else jnp.float32
    trace = np.loadtxt(a.trace, delimiter=",", skiprows=1)
    n = trace.shape[0] - trace.shape[0] % a.block  # whole blocks (reported)
    tr = jnp.asarray(trace[:n].reshape(n // a.block, a.block, 6), dtype=dtype)

    ax = a.axis
    F_pr = np.linspace(0.0, 60.0, ax)
    f_cfr = np.exp(np.linspace(np.log(1e-7), np.log(1e-5), ax))
    K_brk = np.linspace(1.0, 2.5, ax)
    c_v = np.exp(np.linspace(np.log(1.0), np.log(100.0), ax))
    g = [jnp.asarray(x.ravel(), dtype=dtype)[:, None] for x in np.meshgrid(F_pr, f_cfr, K_brk, c_v, indexing="ij")]
    f_vfr, v_th = dtype(200.0), dtype(1e-4)

    @jax.jit
    def sweep(tr, F_pr, f_cfr, K_brk, c_v):
        P = F_pr.shape[0]
        slope = (1 + (K_brk - 1) * jnp.exp(-c_v * v_th)) / v_th
        z = jnp.zeros((P, 1), dtype)

        def step(carry, blk):
            sse, maxe, peak, sp, sn, energy, loop, fprev, fvprev = carry
            dt, v, pa, pb, dx, fm = (blk[None, :, i] for i in range(6))
            av = jnp.abs(v)
            fc = F_pr + f_cfr * (pa + pb)
            coul = jnp.where(av > v_th, (1 + (K_brk - 1) * jnp.exp(-c_v * av)) * jnp.sign(v), slope * v)
            F = fc * coul + f_vfr * v
            e = F - fm
            fv = F * v
            fvp = jnp.concatenate([fvprev, fv[:, :-1]], axis=1)
            fp = jnp.concatenate([fprev, F[:, :-1]], axis=1)
            carry = (sse + jnp.sum(e * e, 1, keepdims=True),
                     jnp.maximum(maxe, jnp.max(jnp.abs(e), 1, keepdims=True)),
                     jnp.maximum(peak, jnp.max(jnp.abs(F), 1, keepdims=True)),
                     sp + jnp.sum(jnp.where(v > 0, F, 0), 1, keepdims=True),
                     sn + jnp.sum(jnp.where(v < 0, F, 0), 1, keepdims=True),
                     energy + jnp.sum(0.5 * (fvp + fv) * dt, 1, keepdims=True),
                     loop + jnp.sum(0.5 * (fp + F) * dx, 1, keepdims=True),
                     F[:, -1:], fv[:, -1:])
            return carry, None

        carry, _ = lax.scan(step, (z,) * 9, tr)
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
