#!/usr/bin/env bash
# `make demo`: evaluate the hydraulic cylinder friction law along the bundled
# trace and show the first rows of the result.
set -euo pipefail
stribeck=${1:-build/bin/stribeck}
out=${DEMO_OUT:-build/demo}
mkdir -p "$out"
echo "== models"
"$stribeck" models | grep -E '^[a-z0-9-]+  \('
echo "== eval: simscape-cylinder along data/examples/sine_trace.csv"
"$stribeck" eval --model simscape-cylinder --param K_brk=1.5 --param F_pr=50 \
  --input data/examples/sine_trace.csv --output "$out/sine_trace_force.csv"
head -n 6 "$out/sine_trace_force.csv"
echo "(full result: $out/sine_trace_force.csv)"
