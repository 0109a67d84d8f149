#!/usr/bin/env bash
# The joint LuGre fit (`stribeck identify --model lugre`) against its SciPy
# simulation-error peer (bench/peers/scipy_lugre_fit.py) on the same
# `stribeck generate`d logs: sine sweeps 0.1-5 Hz of +-1.5 m/s, F_C 20 N,
# F_s 30 N, v_s 0.2 m/s, sigma0 1e5 N/m, sigma1 300 N s/m, sigma2 5 N s/m,
# force noise 0.1 N, at RATE Hz for SECONDS s (one log per RATE:SECONDS pair).
# Stribeck: wall time of the whole command (process start, reading the CSV,
# both stages, the joint stage, covariance, report), best of REPEAT. Peer:
# the fit alone (data in memory), best of PEER_REPEAT. Both print RMSE.
#
#   bash bench/bench_dynamic_fit.sh [STRIBECK] [REPEAT] [PEER_REPEAT] [RATE:SECONDS ...]
set -euo pipefail
CLI=${1:-build/bin/stribeck}
REPEAT=${2:-5}
PEER_REPEAT=${3:-1}
shift $(( $# < 3 ? $# : 3 ))
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(250:4 1000:10)
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
DIR=$(mktemp -d /tmp/stribeck_bench_dyn.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $(date -u +%F)"
echo "python $($PY -c 'import sys; print(sys.version.split()[0])'), scipy $($PY -c 'import scipy; print(scipy.__version__)'), numpy $($PY -c 'import numpy; print(numpy.__version__)')"
echo "load before: $(cat /proc/loadavg)"
for c in "${CASES[@]}"; do
  rate=${c%%:*}; secs=${c##*:}
  "$CLI" generate --model lugre --param sigma0=1e5 --param sigma1=300 --param sigma2=5 --param F_C=20 \
    --param F_s=30 --param v_s=0.2 --profile sine-sweep --vmax 1.5 --rate "$rate" --duration "$secs" \
    --noise force=0.1 --seed 3 -o "$DIR/log.h5" > /dev/null 2>&1
  "$CLI" export "$DIR/log.h5" -e run -o "$DIR/log.csv" 2> /dev/null
  n=$(( $(grep -vc '^#' "$DIR/log.csv") - 1 ))
  best=1e9
  for _ in $(seq "$REPEAT"); do
    t0=$(date +%s.%N)
    "$CLI" identify "$DIR/log.csv" --model lugre --json "$DIR/fit.json" > /dev/null
    t1=$(date +%s.%N)
    best=$($PY -c "print(min($best, $t1 - $t0))")
  done
  srmse=$($PY -c "import json; print(json.load(open('$DIR/fit.json'))['rmse'])")
  $PY "$HERE/peers/scipy_lugre_fit.py" "$DIR/log.csv" --start 7e4,500,3,15,35,0.1 --repeat "$PEER_REPEAT" > "$DIR/peer.txt"
  prmse=$(sed -n 's/^rmse //p' "$DIR/peer.txt")
  psec=$(sed -n 's/^seconds //p' "$DIR/peer.txt")
  pnfev=$(sed -n 's/^nfev //p' "$DIR/peer.txt")
  iters=$($PY -c "import json; print(json.load(open('$DIR/fit.json'))['iterations'])")
  printf '%d samples (%s Hz x %s s): stribeck %.3f s (%s iterations, all stages) rmse %.9g | scipy %.3f s (%s function evaluations) rmse %.9g | %.1fx\n' \
    "$n" "$rate" "$secs" "$best" "$iters" "$srmse" "$psec" "$pnfev" "$prmse" "$($PY -c "print($psec / $best)")"
done
echo "load after: $(cat /proc/loadavg)"
