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
# A case joint:N is instead the robot-joint-like log of issue 31
# (bench/peers/make_joint_log.py, N samples; the two-stage start lies in
# another basin): `identify --model lugre --offset` by default (the joint
# stage's automatic search), and the peer as a multistart of as many starts
# as Stribeck's joint stage ran (--starts, its extra starts drawn from the
# same data-scaled ranges). Both with wall and CPU time (the machine is shared).
#
#   bash bench/bench_dynamic_fit.sh [STRIBECK] [REPEAT] [PEER_REPEAT] [RATE:SECONDS | joint:N ...]
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
cpu_of() { sed -n 's/^cpu //p' "$1"; }
for c in "${CASES[@]}"; do
  rate=${c%%:*}; secs=${c##*:}
  if [ "$rate" = joint ]; then
    $PY "$HERE/peers/make_joint_log.py" "$secs" "$DIR/joint.csv"
    best=1e9; bcpu=1e9
    for _ in $(seq "$REPEAT"); do
      /usr/bin/time -f 'wall %e\ncpu %U %S' -o "$DIR/t.txt" \
        "$CLI" identify "$DIR/joint.csv" --model lugre --offset --json "$DIR/fit.json" > /dev/null
      w=$(sed -n 's/^wall //p' "$DIR/t.txt"); u=$(cpu_of "$DIR/t.txt")
      best=$($PY -c "print(min($best, $w))"); bcpu=$($PY -c "print(min($bcpu, sum(map(float, '$u'.split()))))")
    done
    read -r srmse starts joint_s <<< "$($PY -c "import json; j = json.load(open('$DIR/fit.json')); print(j['rmse'], j['starts'], j['phase_seconds']['joint stage'])")"
    /usr/bin/time -f 'wall %e\ncpu %U %S' -o "$DIR/pt.txt" $PY "$HERE/peers/scipy_lugre_fit.py" "$DIR/joint.csv" \
      --start 30,1,0.05,0.25,0.3,0.05 --offset --fs-above-fc --starts "$starts" --repeat "$PEER_REPEAT" > "$DIR/peer.txt"
    prmse=$(sed -n 's/^rmse //p' "$DIR/peer.txt"); psec=$(sed -n 's/^seconds //p' "$DIR/peer.txt")
    pcpu=$($PY -c "print(sum(map(float, '$(cpu_of "$DIR/pt.txt")'.split())))")
    printf 'joint log, %d samples: stribeck %.3f s wall, %.3f s CPU (whole command; joint stage %.3f s, %d starts) rmse %.9g | scipy %d starts %.3f s wall (fits), %.3f s CPU (process) rmse %.9g | %.1fx wall, %.1fx CPU\n' \
      "$secs" "$best" "$bcpu" "$joint_s" "$starts" "$srmse" "$starts" "$psec" "$pcpu" "$prmse" \
      "$($PY -c "print($psec / $best)")" "$($PY -c "print($pcpu / $bcpu)")"
    continue
  fi
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
