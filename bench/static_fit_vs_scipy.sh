#!/usr/bin/env bash
# The static fit of issue 35's first row against SciPy, whole processes side
# by side: a simscape-cylinder plateau log at four pressure levels (10, 40,
# 80, 120 bar; 4 x 18,001 samples at 1 kHz, force noise 0.5 N, velocity
# measured), fitted by `stribeck identify` with default options (the global
# search) and by bench/peers/scipy_identify_h5.py (h5py, least_squares trf,
# analytic Jacobian, one start). Each runs ROUNDS times (default 3), in
# turns; prints wall and CPU (user + sys) of every run, the best of each, and
# the load average before and after.
#
#   bash bench/static_fit_vs_scipy.sh BUILD_DIR [ROUNDS]
set -euo pipefail
build=${1:?usage: static_fit_vs_scipy.sh BUILD_DIR [ROUNDS]}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
stribeck="$build/bin/stribeck"
[ -x "$stribeck" ] || stribeck="$build/stribeck"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$tmp/cylinder4.h5"
"$stribeck" generate -m simscape-cylinder -p F_pr=20 -p f_cfr=2e-5 -p K_brk=1.6 -p f_vfr=150 -p c_v=40 -p v_th=1e-4 \
  --profile plateaus --rate 1000 --duration 18 --pressure-levels 10bar,40bar,80bar,120bar --noise force=0.5 \
  --omit position,acceleration -o "$log" > /dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$here/.." rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg)"
run() {  # label, command...: one timed run; appends "wall cpu" to $tmp/label
  local label=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$@" > "$tmp/out_$label.txt"
  read -r wall user sys < "$tmp/t"
  echo "$wall $(awk "BEGIN{print $user + $sys}")" >> "$tmp/$label"
  echo "  $label: wall $wall s, cpu $(awk "BEGIN{print $user + $sys}") s"
}
for r in $(seq "$rounds"); do
  echo "round $r"
  run stribeck "$stribeck" identify "$log" -m simscape-cylinder --fix v_th=1e-4
  run scipy /usr/bin/python3 "$here/peers/scipy_identify_h5.py" "$log"
done
best() { sort -n -k1 "$tmp/$1" | head -1; }
read -r sw sc <<< "$(best stribeck)"
read -r pw pc <<< "$(best scipy)"
echo "best of $rounds: stribeck wall $sw s (cpu $sc s), scipy wall $pw s (cpu $pc s), ratio $(awk "BEGIN{printf \"%.2f\", $pw / $sw}")x"
grep -E "search:|time by phase|rmse" "$tmp/out_stribeck.txt" | sed 's/^/  /'
grep -E "^scipy|^F_pr" "$tmp/out_scipy.txt" | sed 's/^/  /'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
