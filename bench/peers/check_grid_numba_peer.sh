#!/usr/bin/env bash
# The numba grid peer (numba_grid.py) evaluates the engine's workload: over a
# 4^4 grid on a 2,048-sample trace it must find sweep_grid's best RMSE, to
# 1e-9 relative in FP64 and 1e-5 in FP32 (two float programs, numba's with
# fastmath; measured 1.4e-7), so that bench/RESULTS.md times equal work.
# Skips (exit 77) where numba is missing (scripts/install-deps.sh --bench).
# Usage: check_grid_numba_peer.sh SWEEP_GRID [PYTHON]
set -euo pipefail
GRID=$1
PY=${2:-/usr/bin/python3}
DIR=$(cd "$(dirname "$0")" && pwd)
"$PY" -c "import numba" 2> /dev/null || { echo "numba missing: skipped"; exit 77; }
TRACE=$(mktemp /tmp/stribeck_peer_trace.XXXXXX.csv)
trap 'rm -f "$TRACE"' EXIT
best='s/.*best rmse \([^ ]*\).*/\1/p'
"$GRID" --axis 4 --samples 2048 --device cpu --trace-out "$TRACE" > /dev/null
for prec in fp64 fp32; do
  tol=$([ "$prec" = fp64 ] && echo 1e-9 || echo 1e-5)
  engine=$("$GRID" --axis 4 --samples 2048 --device cpu --precision "$prec" | sed -n "$best")
  peer=$(NUMBA_NUM_THREADS=2 "$PY" "$DIR/numba_grid.py" "$TRACE" --axis 4 --precision "$prec" --repeat 1 | sed -n "$best")
  [ -n "$engine" ] || { echo "no best rmse from $GRID ($prec)" >&2; exit 1; }
  [ -n "$peer" ] || { echo "no best rmse from the numba peer ($prec)" >&2; exit 1; }
  echo "$prec: engine $engine, numba $peer (tolerance $tol relative)"
  "$PY" -c "import sys; e, p, t = map(float, sys.argv[1:]); sys.exit(0 if abs(e - p) <= t * abs(e) else 1)" \
    "$engine" "$peer" "$tol" || { echo "the numba peer's $prec best rmse differs from the engine's" >&2; exit 1; }
done
