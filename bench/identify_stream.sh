#!/usr/bin/env bash
# Streamed static fit (issue 23 item 4) against SciPy least_squares, side by
# side on the same HDF5 logs: wall time and peak RSS of each, from
# /usr/bin/time -v.
#
#   bash bench/identify_stream.sh BUILD_DIR DURATION... [-- PEER_MAX_DURATION]
#
# DURATION is the length [s] of each of the two experiments (10 and 40 bar,
# plateaus, 10 kHz, force noise 0.5 N, simscape-cylinder: F_pr 20, f_cfr 2e-5,
# K_brk 1.6, f_vfr 150, c_v 40, v_th 1e-4): 1000 s = 2 x 1e7 samples. The
# peer runs only up to PEER_MAX_DURATION (default 1000: at 2 x 1e7 it needs
# several GB). Logs go to $STREAMFIT_TMP (default /tmp/streamfit) and are
# deleted after each size.
set -euo pipefail
build=${1:?usage: identify_stream.sh BUILD_DIR DURATION... [-- PEER_MAX_DURATION]}
shift
durations=()
peer_max=1000
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then peer_max=$2; shift 2; continue; fi
  durations+=("$1"); shift
done
here=$(cd "$(dirname "$0")" && pwd)
stribeck="$build/bin/stribeck"
[ -x "$stribeck" ] || stribeck="$build/stribeck"
tmp=${STREAMFIT_TMP:-/tmp/streamfit}
mkdir -p "$tmp"
measure() {  # label, command...: prints "label: wall s, RSS MB" and the command's stdout
  local label=$1; shift
  /usr/bin/time -v "$@" > "$tmp/out.txt" 2> "$tmp/time.txt" || { cat "$tmp/time.txt" >&2; return 1; }
  local wall rss
  wall=$(grep "Elapsed (wall clock)" "$tmp/time.txt" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$tmp/time.txt" | awk '{print $NF}')
  echo "$label: wall $wall, peak RSS $((rss / 1024)) MB"
  grep -E "^ *(F_pr|f_cfr|K_brk|f_vfr|c_v) |^scipy|rmse|samples|time by phase|search:" "$tmp/out.txt" | head -14 | sed "s/^/    /"
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$here/.." rev-parse --short HEAD)"
for d in "${durations[@]}"; do
  log="$tmp/plateaus_$d.h5"
  "$stribeck" generate -m simscape-cylinder -p F_pr=20 -p f_cfr=2e-5 -p K_brk=1.6 -p f_vfr=150 -p c_v=40 \
    -p v_th=1e-4 --profile plateaus --rate 10000 --duration "$d" --pressure-levels 10bar,40bar \
    --noise force=0.5 --omit position,acceleration -o "$log" > /dev/null
  echo "== 2 x $d s at 10 kHz ($(du -h "$log" | cut -f1) on disk); load $(cut -d' ' -f1-3 /proc/loadavg)"
  measure "stribeck identify (streamed)" "$stribeck" identify "$log" -m simscape-cylinder --fix v_th=1e-4 -q
  if awk "BEGIN{exit !($d <= $peer_max)}"; then
    measure "scipy least_squares trf" /usr/bin/python3 "$here/peers/scipy_identify_h5.py" "$log"
  fi
  rm -f "$log"
done
