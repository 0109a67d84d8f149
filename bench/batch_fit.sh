#!/bin/bash
# Batch fits, side by side (bench/RESULTS.md, "Batch fits"): fits per second
# of `stribeck identify --batch` (one fit per thread, the engine's runner)
# against SciPy least_squares in a loop and in a multiprocessing pool on the
# same cores, on one HDF5 log of N synthetic 2,000-sample simscape-cylinder
# experiments (written once by bench/peers/make_batch_log.py), with the
# parameters compared against the truths and each other.
#
#   bench/batch_fit.sh [N]        # default 10000; STRIBECK=path/to/stribeck, WORK=dir
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
S=${STRIBECK:-$here/../build/bin/stribeck}
N=${1:-10000}
W=${WORK:-/tmp/stribeck_bench_batch_fit}
P=/usr/bin/python3
mkdir -p "$W"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -f "$W/batch_$N.h5" ] || $P "$here/peers/make_batch_log.py" "$W/batch_$N.h5" "$N"
rm -f "$W"/fits_*.h5 "$W"/fits_*.h5.partial
run() {  # label, command...: wall and CPU seconds
  local label=$1
  shift
  local t0 t1 c
  t0=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$W/cpu.txt" "$@" > "$W/$label.out" 2>&1 || { cat "$W/$label.out"; exit 1; }
  t1=$(date +%s.%N)
  c=$(awk '{print $1 + $2}' "$W/cpu.txt")
  awk -v l="$label" -v n="$N" -v a="$t0" -v b="$t1" -v c="$c" \
    'BEGIN { printf "%-34s %8.1f s wall %8.1f s CPU %9.2f fits/s\n", l, b - a, c, n / (b - a) }'
  echo "  load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
FIX="--fix v_th=1e-4"
run "stribeck --batch, 2 threads" "$S" identify "$W/batch_$N.h5" --batch -m simscape-cylinder $FIX --threads 2 \
  -o "$W/fits_auto.h5" -q
run "stribeck --batch --starts 1, 2 thr" "$S" identify "$W/batch_$N.h5" --batch -m simscape-cylinder $FIX \
  --threads 2 --starts 1 -o "$W/fits_one.h5" -q
run "scipy least_squares, loop" $P "$here/peers/scipy_batch_fit.py" "$W/batch_$N.h5" --processes 1 -o "$W/scipy_1.npz"
run "scipy least_squares, 2 processes" $P "$here/peers/scipy_batch_fit.py" "$W/batch_$N.h5" --processes 2 \
  -o "$W/scipy_2.npz"
echo "# parameters against the truths (relative error) and each other"
$P "$here/peers/compare_batch_fits.py" "$W/batch_$N.h5" "$W/fits_auto.h5" "$W/scipy_2.npz" "stribeck"
$P "$here/peers/compare_batch_fits.py" "$W/batch_$N.h5" "$W/fits_one.h5" "$W/scipy_2.npz" "starts=1"
