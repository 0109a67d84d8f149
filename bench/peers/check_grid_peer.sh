#!/usr/bin/env bash
# The grid peer evaluates the engine's workload: jax_grid.py's block step,
# run with NumPy in FP64, and sweep_grid (FP64, CPU) must find the same best
# RMSE over a 4^4 grid on a 2,048-sample trace, to 1e-9 relative (measured:
# equal to the 10 printed digits). Without this the GPU comparison in
# bench/RESULTS.md could time two different workloads.
# Usage: check_grid_peer.sh SWEEP_GRID [PYTHON]
set -euo pipefail
GRID=$1
PY=${2:-/usr/bin/python3}
DIR=$(cd "$(dirname "$0")" && pwd)
TRACE=$(mktemp /tmp/stribeck_peer_trace.XXXXXX.csv)
trap 'rm -f "$TRACE"' EXIT
best='s/.*best rmse \([^ ]*\).*/\1/p'
engine=$("$GRID" --axis 4 --samples 2048 --device cpu --precision fp64 --trace-out "$TRACE" | sed -n "$best")
peer=$("$PY" "$DIR/jax_grid.py" "$TRACE" --axis 4 --numpy | sed -n "$best")
[ -n "$engine" ] || { echo "no best rmse from $GRID" >&2; exit 1; }
[ -n "$peer" ] || { echo "no best rmse from the peer" >&2; exit 1; }
echo "engine $engine, peer $peer"
"$PY" -c "import sys; e, p = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(e - p) <= 1e-9 * abs(e) else 1)" \
  "$engine" "$peer" || { echo "the peer's best rmse differs from the engine's" >&2; exit 1; }
