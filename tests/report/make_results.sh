#!/usr/bin/env bash
# Writes one small result file of each kind into DIR (used by the report
# and plot CTests): ident.h5 (identify -o on a copy of the bundled log),
# sweep.h5, sim.h5 (one stick-slip run), ens.h5 (a 6 x 5 ensemble map),
# batch.h5 (identify --batch: six fits over a 3 x 2 grid of pressures).
#   make_results.sh STRIBECK SOURCE_DIR DIR
set -euo pipefail
exe=$1 src=$2 dir=$3
cp "$src/data/examples/cylinder_plateaus.h5" "$dir/ident.h5"
"$exe" identify "$dir/ident.h5" --model simscape-cylinder --fix v_th=2e-4 --inertia --starts 2 -o "$dir/ident.h5" -q >/dev/null
cat >"$dir/sweep.toml" <<'TOML'
model = "simscape-cylinder"
[design]
type = "grid"
[params]
F_pr  = { linear = [0.0, 60.0], count = 12 }
f_cfr = { log = [1e-7, 1e-5], count = 10 }
K_brk = { linear = [1.0, 2.5], count = 4 }
c_v = 10.0
f_vfr = 200.0
v_th  = 1e-4
[[trace]]
profile = "sine"
name = "sine_1Hz"
amplitude = 0.05
frequency = 1.0
duration = 1.0
samples = 512
p_a = 5e6
p_b = 1e6
reference = { F_pr = 30.0, f_cfr = 2e-6, K_brk = 1.5, c_v = 10.0, f_vfr = 200.0 }
noise = 0.5
seed = 7
[metrics]
objective = "rmse"
top_k = 5
TOML
"$exe" sweep "$dir/sweep.toml" -o "$dir/sweep.h5" -q >/dev/null
cat >"$dir/sim.toml" <<'TOML'
[system]
mass = 1.0
stiffness = 2.0
drive_velocity = 0.1
[friction]
model = "lugre"
[friction.params]
sigma0 = 1e5
sigma1 = 316.2
sigma2 = 200.0
F_C = 1.0
F_s = 1.5
v_s = 0.001
[simulation]
t_end = 10.0
dt = 1e-3
TOML
"$exe" simulate "$dir/sim.toml" -o "$dir/sim.h5" -q >/dev/null
cat >"$dir/ens.toml" <<'TOML'
[system]
mass = 1.0
drive_velocity = 0.1
[friction]
model = "lugre"
[friction.params]
sigma0 = 1e5
sigma1 = 316.2
sigma2 = 200.0
F_C = 1.0
F_s = 1.5
v_s = 0.001
[simulation]
t_end = 4.0
dt = 1e-3
[ensemble]
design = "grid"
precision = "fp64"
device = "cpu"
[ensemble.params]
stiffness = "log:1:100:6"
drive_velocity = "linear:0.005:0.3:5"
TOML
"$exe" simulate "$dir/ens.toml" -o "$dir/ens.h5" -q >/dev/null
for b in 0 10; do
  "$exe" generate -m simscape-translational --profile triangle --duration 2 --rate 500 --noise force=0.1 \
    --pressure-levels 20bar,40bar,60bar --pressure-b ${b}bar --seed $((b + 1)) -o "$dir/batch$b.h5" -q >/dev/null
done
"$exe" identify "$dir/batch0.h5" "$dir/batch10.h5" --batch -m simscape-translational -o "$dir/batch.h5" -q >/dev/null
