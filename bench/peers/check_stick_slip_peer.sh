#!/usr/bin/env bash
# The stick-slip peer integrates the same system as the engine: its NumPy
# mode (the jax code's right-hand side and RK4 step, on NumPy arrays) and
# bench_ensemble (run_ensemble, FP64, CPU) must give the same sum of final
# velocities over a 16 x 16 grid of 4,000 steps, to 1e-9 relative (measured:
# equal to the 9 printed digits). Without this the GPU comparison in
# bench/RESULTS.md could time two different workloads.
# Usage: check_stick_slip_peer.sh BENCH_ENSEMBLE [PYTHON]
set -euo pipefail
BENCH=$1
PY=${2:-/usr/bin/python3}
DIR=$(cd "$(dirname "$0")" && pwd)
engine=$("$BENCH" 16 4000 2.5e-5 cpu fp64 | sed -n 's/.*checksum (sum of final velocities) \([^ ]*\).*/\1/p')
peer=$("$PY" "$DIR/stick_slip_jax.py" --numpy --trajectories 256 --steps 4000 --h 2.5e-5 |
       sed -n 's/.*checksum \([^ ]*\).*/\1/p')
[ -n "$engine" ] || { echo "no checksum from $BENCH" >&2; exit 1; }
[ -n "$peer" ] || { echo "no checksum from the peer" >&2; exit 1; }
echo "engine $engine, peer $peer"
"$PY" -c "import sys; e, p = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(e - p) <= 1e-9 * abs(e) else 1)" \
  "$engine" "$peer" || { echo "the peer's checksum differs from the engine's" >&2; exit 1; }
