#!/usr/bin/env bash
# The numba stick-slip peer (stick_slip_numba.py) integrates the engine's
# system: its checksum (sum of final velocities over a 16 x 16 grid of 4,000
# RK4 steps) must equal bench_ensemble's on the CPU, to 1e-9 relative in FP64
# and 1e-4 in FP32 (two float programs that round differently: measured
# differences are in bench/RESULTS.md), so that the timings in
# bench/RESULTS.md compare equal work. Skips (exit 77) where numba is
# missing (Debian python3-numba: scripts/install-deps.sh --bench).
# Usage: check_stick_slip_numba_peer.sh BENCH_ENSEMBLE [PYTHON]
set -euo pipefail
BENCH=$1
PY=${2:-/usr/bin/python3}
DIR=$(cd "$(dirname "$0")" && pwd)
"$PY" -c "import numba" 2> /dev/null || { echo "numba missing: skipped"; exit 77; }
for prec in fp64 fp32; do
  tol=$([ "$prec" = fp64 ] && echo 1e-9 || echo 1e-4)
  engine=$(OMP_NUM_THREADS=2 "$BENCH" 16 4000 2.5e-5 cpu "$prec" |
           sed -n 's/.*checksum (sum of final velocities) \([^ ]*\).*/\1/p')
  peer=$(NUMBA_NUM_THREADS=2 "$PY" "$DIR/stick_slip_numba.py" --trajectories 256 --steps 4000 --h 2.5e-5 \
         --precision "$prec" --repeat 1 | sed -n 's/.*checksum \([^ ]*\).*/\1/p')
  [ -n "$engine" ] || { echo "no checksum from $BENCH ($prec)" >&2; exit 1; }
  [ -n "$peer" ] || { echo "no checksum from the numba peer ($prec)" >&2; exit 1; }
  echo "$prec: engine $engine, numba $peer (tolerance $tol relative)"
  "$PY" -c "import sys; e, p, t = map(float, sys.argv[1:]); sys.exit(0 if abs(e - p) <= t * abs(e) else 1)" \
    "$engine" "$peer" "$tol" || { echo "the numba peer's $prec checksum differs from the engine's" >&2; exit 1; }
done
