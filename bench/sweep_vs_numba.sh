#!/usr/bin/env bash
# The grid sweep against the strongest CPU peer a user would write: numba
# @njit(parallel=True, fastmath=True) with prange over parameter sets
# (bench/peers/numba_grid.py), on the same trace, grid and threads, FP64 and
# FP32, interleaved ROUNDS times so both see the same background load. Each
# line prints the best RMSE, which must agree (check_grid_numba_peer.sh
# asserts it in CTest).
# Usage: bash bench/sweep_vs_numba.sh [BUILD_DIR] [AXIS] [SAMPLES] [ROUNDS]
set -euo pipefail
B=${1:-build}
AXIS=${2:-16}
SAMPLES=${3:-16384}
ROUNDS=${4:-2}
G="$B/bin/sweep_grid --axis $AXIS --samples $SAMPLES --device cpu"
PY=/usr/bin/python3  # Debian's, with python3-numpy and python3-numba
TRACE=$(mktemp /tmp/stribeck_trace.XXXXXX.csv)
trap 'rm -f "$TRACE"' EXIT
echo "== $(date -u +%FT%TZ), $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d' ' -f1-3 /proc/loadavg)"
$G --trace-out "$TRACE" | head -1
for r in $(seq "$ROUNDS"); do
  for t in 1 2; do
    for p in fp64 fp32; do
      OMP_NUM_THREADS=$t $G --precision $p | tail -1
      NUMBA_NUM_THREADS=$t $PY bench/peers/numba_grid.py "$TRACE" --axis "$AXIS" --precision $p
    done
  done
done
echo "== end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
