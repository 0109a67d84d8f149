#!/usr/bin/env bash
# Throughput of an ensemble drawn from a fit (issue 33 item 2; goal: 1e6
# draws of a LuGre stick-slip rig in <= 60 s on a 2-core machine, CPU lanes)
# against the peer a user would write: NumPy draws of the same distribution
# run through a numba ensemble (bench/peers/fit_draws_numba.py), side by side
# in one run, FP64 and FP32.
#
# The rig: examples/simulate_stick_slip_lugre.toml (1 kg, LuGre with sigma0
# 1e5, sigma1 0.5, pulled at 0.1 m/s) with a 20 N/m spring (a stick-slip
# cycle of about 1.4 s), T_END seconds; the fit: four correlated free
# parameters, F_C (log), F_s (excess over F_C), v_s (log), sigma2 (identity),
# standard errors of 10-15 %, about half of the draws on each side of the
# stick-slip border (tests/gpu/test_fit_draws_gpu.cpp's fit). Each case is
# an integrator ([simulation] integrator: "rk4", whose step the bristle's
# stability bound sets, or "etd-rk4", the exponential RK4 whose step the
# mechanics set; docs/dynamics.md) in a precision. stribeck chooses each
# draw's steps by its rule; the peer integrates with the same integrator at
# the mean step count stribeck reports (rk4_steps / draws) as a fixed step,
# so both integrate as many steps of the same scheme. The peer's stick-slip
# criterion is its own (docstring), so its probability is indicative only.
#
# Prints per case the wall time, CPU time and peak memory (/usr/bin/time -v),
# steps per second and P(stick-slip), and the load average before and after.
# Usage: bench/fit_draws.sh STRIBECK [DRAWS=1000000] [T_END=3] [PYTHON=/usr/bin/python3]
#          [INTEGRATORS="etd-rk4 rk4"] [PRECISIONS="fp64 fp32"] [PEER=1 (0: stribeck only)]
set -euo pipefail
STRIBECK=$1
DRAWS=${2:-1000000}
T_END=${3:-3}
PY=${4:-/usr/bin/python3}
INTEGRATORS=${5:-etd-rk4 rk4}
PRECISIONS=${6:-fp64 fp32}
PEER=${7:-1}
DIR=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/fit.json" << 'JSON'
{"model": "lugre",
 "parameters": {"F_C": {"value": 1.0, "std_error": 0.1, "fixed": false},
                "F_s": {"value": 1.5, "std_error": 0.15, "fixed": false},
                "v_s": {"value": 0.001, "std_error": 0.00015, "fixed": false},
                "sigma2": {"value": 0.4, "std_error": 0.05, "fixed": false},
                "sigma0": {"value": 100000.0, "std_error": null, "fixed": true},
                "sigma1": {"value": 0.5, "std_error": null, "fixed": true}},
 "correlation": {"parameters": ["F_C", "F_s", "v_s", "sigma2"],
                 "transforms": ["log", "excess:F_C", "log", "identity"],
                 "matrix": [[1.0, 0.7, -0.3, 0.2], [0.7, 1.0, -0.1, 0.0],
                            [-0.3, -0.1, 1.0, -0.4], [0.2, 0.0, -0.4, 1.0]]}}
JSON
# Wall time, CPU time (user + system: the measure on a machine shared with
# other work, where the wall time is a share of contended cores) and peak
# memory from /usr/bin/time -v's report.
timed() { sed -n 's/.*User time (seconds): \(.*\)/\1/p; s/.*System time (seconds): \(.*\)/\1/p;
    s/.*Elapsed (wall clock) time.*: \(.*\)/\1/p; s/.*Maximum resident set size (kbytes): \(.*\)/\1/p' "$1" |
  paste -sd' ' | awk '{printf "wall %s, CPU %.2f s, peak RSS %.0f MB", $3, $1 + $2, $4 / 1024}'; }
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); $(date -u '+%F %T UTC')"
echo "stribeck: $("$STRIBECK" --version 2>&1 | head -1); $DRAWS draws, t_end $T_END s"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for integrator in $INTEGRATORS; do
for prec in $PRECISIONS; do
  cat > "$WORK/rig.toml" << TOML
[system]
mass = 1.0
stiffness = 20.0
drive_velocity = 0.1
friction_on = "ground"
[friction]
model = "lugre"
[simulation]
t_end = $T_END
dt = 1e-3
integrator = "$integrator"
[ensemble]
design = "random"
seed = 1
device = "cpu"
precision = "$prec"
points = $DRAWS
from_fit = "$WORK/fit.json"
TOML
  /usr/bin/time -v "$STRIBECK" simulate "$WORK/rig.toml" -o "$WORK/draws.h5" --json "$WORK/draws.json" -q \
    2> "$WORK/time.txt" > /dev/null
  read -r steps p se secs <<< "$("$PY" -c "import json, sys; j = json.load(open(sys.argv[1])); p = j['from_fit']['stick_slip_probability']; print(j['rk4_steps'], p['value'], p['std_error'], j['seconds'])" "$WORK/draws.json")"
  per=$(( (steps + DRAWS / 2) / DRAWS ))
  "$PY" -c "import sys; s, t = float(sys.argv[1]), float(sys.argv[2]); print(f'stribeck {sys.argv[3]} (2 threads): {sys.argv[4]}, {s / t:.3e} steps/s ({sys.argv[5]} per draw), P(stick-slip) = {float(sys.argv[6]):.4f} +/- {float(sys.argv[7]):.4f}; ', end='')" \
    "$steps" "$secs" "$prec $integrator" "$DRAWS draws in ${secs} s" "$per" "$p" "$se"
  timed "$WORK/time.txt"
  echo
  rm -f "$WORK/draws.h5"
  [ "$PEER" = 1 ] || continue
  /usr/bin/time -v env NUMBA_NUM_THREADS=2 "$PY" "$DIR/peers/fit_draws_numba.py" --fit "$WORK/fit.json" --draws "$DRAWS" \
    --t-end "$T_END" --steps "$per" --precision "$prec" --integrator "$integrator" 2> "$WORK/time.txt" | tr -d '\n'
  echo -n "; "
  timed "$WORK/time.txt"
  echo
done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
