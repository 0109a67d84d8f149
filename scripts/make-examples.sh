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
# The same rig's 40 bar run as an instrument would write it (README's first
# hour, `import --columns`): no header, time in ms, position in mm, pressure
# in bar, force in N.
"$stribeck" export data/examples/cylinder_plateaus.h5 -e p40bar -o - |
  awk -F, '/^#/ { next }
    !header { for (i = 1; i <= NF; ++i) { split($i, w, " "); col[w[1]] = i }; header = 1; next }
    { printf "%.1f,%.4f,%.5f,%.3f\n", $col["time"] * 1e3, $col["position"] * 1e3, $col["pressure_a"] / 1e5, $col["force"] }' \
  > data/examples/rig.csv.tmp
mv data/examples/rig.csv.tmp data/examples/rig.csv
