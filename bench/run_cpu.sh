#!/usr/bin/env bash
# The CPU benchmark of bench/RESULTS.md: the grid workload scaled to this
# machine, engine vs plain scalar loop vs NumPy, interleaved ROUNDS times so
# every implementation sees the same background load; report the best of each.
# Usage: bash bench/run_cpu.sh [BUILD_DIR] [AXIS] [SAMPLES] [ROUNDS]
set -euo pipefail
B=${1:-build}
AXIS=${2:-10}
SAMPLES=${3:-16384}
ROUNDS=${4:-3}
G="$B/bin/sweep_grid --axis $AXIS --samples $SAMPLES"
TRACE=$(mktemp /tmp/stribeck_trace.XXXXXX.csv)
echo "== $(date -u +%FT%TZ), $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load $(cut -d' ' -f1-3 /proc/loadavg)"
$G --trace-out "$TRACE" --device cpu | head -1
for r in $(seq "$ROUNDS"); do
  OMP_NUM_THREADS=1 $G --device cpu --peer scalar | tail -2
  OMP_NUM_THREADS=1 $G --device cpu --precision fp32 | tail -1
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python3 bench/peers/numpy_grid.py "$TRACE" --axis "$AXIS" --block 256
  $G --device cpu | tail -1
  $G --device cpu --precision fp32 | tail -1
done
echo "== end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$TRACE"
