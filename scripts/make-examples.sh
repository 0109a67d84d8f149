#!/usr/bin/env bash
# Regenerates the example logs under data/examples/ with `stribeck generate`
# (`make examples`). Seeded, so the channel data is identical on every run;
# only the provenance date changes.
set -euo pipefail
stribeck=${1:-build/bin/stribeck}
cd "$(dirname "$0")/.."
# A hydraulic cylinder seal on a plateau test at three chamber pressures: the
# Stribeck curve in both directions, load-cell noise, 1 µm encoder
# quantisation, 1.5 kg moving mass.
"$stribeck" generate --model simscape-cylinder \
  --param F_pr=20 --param f_cfr=2e-5 --param K_brk=1.6 --param f_vfr=150 --param c_v=40 --param v_th=2e-4 \
  --profile plateaus --vmax 0.2 --rate 100 --duration 24 \
  --pressure-levels 10bar,40bar,80bar \
  --mass 1.5 --noise force=0.8,pressure_a=2000,position=1um --quantisation position=1um \
  --seed 42 -o data/examples/cylinder_plateaus.h5
