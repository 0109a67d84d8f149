#!/usr/bin/env bash
# `make demo`: the main jobs on the bundled examples.
#  1. identify the seal friction of a hydraulic cylinder from a rig log
#     (data/examples/cylinder_plateaus.h5: plateau test at 10, 40 and 80 bar),
#  2. sweep a parameter grid of the same law against a trace, and map its cost,
#  3. evaluate a law along a CSV trace.
set -euo pipefail
stribeck=${1:-build/bin/stribeck}
out=${DEMO_OUT:-build/demo}
mkdir -p "$out"
# A fresh run each time: also an interrupted earlier demo's grid.h5.partial, which a
# new sweep would otherwise refuse to overwrite (it is for --resume).
rm -f "$out"/fit.h5 "$out"/fit.json "$out"/grid.h5 "$out"/grid.h5.partial

echo "== 1. identify: simscape-cylinder, jointly over the three pressure levels of the example log"
"$stribeck" identify data/examples/cylinder_plateaus.h5 --model simscape-cylinder \
  --fix v_th=2e-4 --inertia --starts 8 --json "$out/fit.json" -o "$out/fit.h5"
echo "(the log was generated with F_pr=20 N, f_cfr=2e-5 N/Pa, K_brk=1.6, f_vfr=150 N/(m/s), c_v=40 s/m, mass 1.5 kg)"
echo "(JSON report: $out/fit.json; fitted force and residuals: $out/fit.h5)"

echo
echo "== 2. sweep: 16,384-point grid of simscape-cylinder against a noisy reference trace"
"$stribeck" sweep examples/sweep_cylinder_grid.toml -o "$out/grid.h5"
"$stribeck" map "$out/grid.h5" --metric rmse --x F_pr --y f_cfr --reduce min --value-scale log -o "$out/grid_rmse.svg"
echo "(open $out/grid_rmse.svg in a browser: the best RMSE over K_brk and c_v for each F_pr, f_cfr)"

echo
echo "== 3. eval: simscape-cylinder along data/examples/sine_trace.csv"
"$stribeck" eval --model simscape-cylinder --param K_brk=1.5 --param F_pr=50 \
  --input data/examples/sine_trace.csv --output "$out/sine_trace_force.csv"
head -n 4 "$out/sine_trace_force.csv"
echo
echo "More: '$stribeck models', '$stribeck --help', README.md and docs/."
