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
PY=/usr/bin/python3  # Debian's, with python3-numpy (the first python3 on PATH may lack NumPy)
for r in $(seq "$ROUNDS"); do
  OMP_NUM_THREADS=1 $G --device cpu --peer scalar | tail -2
  OMP_NUM_THREADS=1 $G --device cpu --precision fp32 | tail -1
  # The engine's other vector levels, down to one point at a time (docs/sweep.md, "CPU path").
  for level in x86-64-v3 generic scalar; do
    echo -n "[$level] "; STRIBECK_CPU_ISA=$level OMP_NUM_THREADS=1 $G --device cpu | tail -1
  done
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $PY bench/peers/numpy_grid.py "$TRACE" --axis "$AXIS" --block 256
  $G --device cpu | tail -1
  $G --device cpu --precision fp32 | tail -1
done
echo "== end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$TRACE"
