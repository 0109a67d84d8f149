#!/usr/bin/env bash
# bench/layer_checksums.sh BIN_DIR OUT_FILE
#
# The before/after proof of a refactor that must not change behaviour (issue 36):
# runs a fixed, deterministic set of representative commands with the binaries of
# BIN_DIR (stribeck, and bench_ensemble / sweep_grid where present), CPU only, and
# writes one line per output to OUT_FILE: its name and a sha256 of its content with
# the volatile fields left out (bench/content_digest.py: dates, versions, command
# lines, timings). Two builds that behave alike write the same file:
#   bench/layer_checksums.sh /tmp/before/bin before.txt
#   bench/layer_checksums.sh build/bin after.txt && diff before.txt after.txt
# A line "NAME exit N" records a command that failed. About 30 s on 2 cores.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BIN_DIR OUT_FILE" >&2
  exit 2
fi
BIN=$(cd "$1" && pwd)
OUT=$(realpath -m "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
EXAMPLES=$HERE/../examples
PY=/usr/bin/python3
S=$BIN/stribeck
[ -x "$S" ] || { echo "$0: $S: no stribeck binary" >&2; exit 2; }

# Same threads, locale and time zone for every run, so the outputs that name them
# (a device "cpu (2 threads)") do not depend on the machine.
export OMP_NUM_THREADS=2 LC_ALL=C TZ=UTC
WORK=$(mktemp -d /tmp/stribeck_layer_checksums.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
: >"$OUT"

# digest NAME FILE...: one line per file (NAME, or NAME/FILE for several).
digest() {
  local name=$1 f line
  shift
  for f in "$@"; do
    line=$name
    [ $# -eq 1 ] || line=$name/$(basename "$f")
    if [ -f "$f" ]; then
      echo "$line $("$PY" "$HERE/content_digest.py" "$f")" >>"$OUT"
    else
      echo "$line missing" >>"$OUT"
    fi
  done
}

# run NAME COMMAND...: runs it in WORK, records its stdout as NAME.stdout, or
# "NAME exit N" when it fails (its later digests then show what is missing).
run() {
  local name=$1
  shift
  local rc=0
  "$@" >"$name.stdout" 2>"$name.stderr" || rc=$?
  if [ $rc -ne 0 ]; then
    echo "$name exit $rc" >>"$OUT"
    sed 's/^/  /' "$name.stderr" | tail -3 >&2
  else
    digest "$name.stdout" "$name.stdout"
  fi
}

# The benchmarks' own checksums (their timing lines left out).
if [ -x "$BIN/bench_ensemble" ]; then
  for p in fp64 fp32; do
    run bench_ensemble.$p "$BIN/bench_ensemble" 16 4000 2.5e-5 cpu $p
    echo "bench_ensemble.$p.checksum $(grep -o 'checksum .*' bench_ensemble.$p.stdout)" >>"$OUT"
  done
  run bench_ensemble.h5 "$BIN/bench_ensemble" 8 2000 2.5e-5 cpu fp64 bench_ensemble.h5
  digest bench_ensemble.h5 bench_ensemble.h5
fi
if [ -x "$BIN/sweep_grid" ]; then
  for p in fp64 fp32; do
    run sweep_grid.$p "$BIN/sweep_grid" --axis 6 --samples 2048 --device cpu --precision $p --peer scalar
    echo "sweep_grid.$p.best_rmse $(grep -o 'best rmse [^ ]*' sweep_grid.$p.stdout | tr '\n' ' ')" >>"$OUT"
  done
fi

# generate: a 3-pressure cylinder log and a small LuGre log.
CYL_PARAMS=(-p F_pr=20 -p f_cfr=2e-5 -p K_brk=1.6 -p f_vfr=150 -p c_v=40 -p v_th=1e-4)
run generate.cyl "$S" generate -m simscape-cylinder --profile plateaus --pressure-levels 10bar,40bar,80bar \
  "${CYL_PARAMS[@]}" --noise force=0.5 --rate 500 --seed 3 -o cyl.h5
digest generate.cyl.h5 cyl.h5
run generate.lugre "$S" generate -m lugre --profile sine-sweep --vmax 1.5 --rate 250 --duration 4 \
  --noise force=0.1 --seed 5 -o lugre.h5
digest generate.lugre.h5 lugre.h5
run generate.multisine "$S" generate -m simscape-translational --profile multisine --omit velocity,acceleration \
  --noise force=0.2,position=1um --quantisation position=1um --rate 1000 --duration 4 --seed 9 -o multisine.h5
digest generate.multisine.h5 multisine.h5

# export / eval: HDF5 and CSV in and out.
run export.cyl "$S" export cyl.h5 -o cyl_csv
digest export.cyl cyl_csv/*.csv
run eval.h5 "$S" eval -i cyl.h5 -e p40bar -m simscape-cylinder -p F_pr=20 -p f_cfr=2e-5 -o eval.h5
digest eval.h5 eval.h5
run eval.h5.deflate "$S" eval -i cyl.h5 -e p80bar -m simscape-cylinder --vector-math --compression deflate \
  -o eval_deflate.h5
digest eval.h5.deflate eval_deflate.h5
run eval.csv "$S" eval -i cyl.h5 -e p10bar -m simscape-cylinder -p K_brk=1.4 -o eval.csv
digest eval.csv eval.csv
run eval.csv_in "$S" eval -i cyl_csv/p40bar.csv -m simscape-cylinder -p c_v=20 -o eval_from_csv.csv
digest eval.csv_in eval_from_csv.csv
run eval.lugre "$S" eval -i lugre.h5 -m lugre -z 1e-6 -o eval_lugre.csv
digest eval.lugre eval_lugre.csv

# sweep: a grid (every point, JSON summary, top-K table on stdout), top-K only,
# a Sobol' design over a log in FP32 per experiment, and two shards merged.
GRID=(-p F_pr=linear:0:60:6 -p f_cfr=log:1e-7:1e-5:6 -p K_brk=linear:1:2.5:4 -p c_v=log:1:100:4 --device cpu)
run sweep.grid "$S" sweep "$EXAMPLES/sweep_cylinder_grid.toml" "${GRID[@]}" -o sweep.h5 --json sweep.json
digest sweep.grid.h5 sweep.h5
digest sweep.grid.json sweep.json
run sweep.topk "$S" sweep "$EXAMPLES/sweep_cylinder_grid.toml" "${GRID[@]}" --top-k-only --top-k 5 -o sweep_topk.h5
digest sweep.topk.h5 sweep_topk.h5
run sweep.sobol "$S" sweep -m simscape-cylinder --trace cyl.h5 -p F_pr=uniform:0:60 -p f_cfr=loguniform:1e-6:1e-4 \
  -p K_brk=1.6 --design sobol --points 256 --seed 3 --per-experiment --device cpu --precision fp32 \
  --trajectory 0,7 -o sweep_sobol.h5
digest sweep.sobol.h5 sweep_sobol.h5
for i in 0 1; do
  run sweep.shard$i "$S" sweep "$EXAMPLES/sweep_cylinder_grid.toml" "${GRID[@]}" --shard $i/2 --chunk 100 \
    -o sweep_shard$i.h5
done
run sweep.merge "$S" merge sweep_shard0.h5 sweep_shard1.h5 -o sweep_merged.h5
digest sweep.merge.h5 sweep_merged.h5

# simulate: the stick-slip rig (HDF5, CSV, JSON metrics) and an 8 x 8 ensemble.
run simulate.stick "$S" simulate "$EXAMPLES/simulate_stick_slip_lugre.toml" -o stick.h5 --json stick.json
digest simulate.stick.h5 stick.h5
digest simulate.stick.json stick.json
run simulate.stick_csv "$S" simulate "$EXAMPLES/simulate_stick_slip_lugre.toml" -o stick.csv
digest simulate.stick.csv stick.csv
run simulate.cylinder "$S" simulate "$EXAMPLES/simulate_cylinder.toml" -o cylinder_sim.h5
digest simulate.cylinder.h5 cylinder_sim.h5
sed -e 's/^t_end = 20.0/t_end = 6.0/' -e 's/:32"/:8"/' "$EXAMPLES/simulate_ensemble_map.toml" >ens.toml
for p in fp64 fp32; do
  run ensemble.$p "$S" simulate ens.toml --device cpu --precision $p --chunk 24 -o ens_$p.h5 --json ens_$p.json
  digest ensemble.$p.h5 ens_$p.h5
  digest ensemble.$p.json ens_$p.json
done

# identify: static in memory and streamed, a small dynamic LuGre fit, a batch.
FIT=(-m simscape-cylinder --fix v_th=1e-4 --threads 2)
run identify.static "$S" identify cyl.h5 "${FIT[@]}" --json fit.json --table fit.csv -o fit.h5
digest identify.static.json fit.json
digest identify.static.table fit.csv
digest identify.static.h5 fit.h5
run identify.stream "$S" identify cyl.h5 "${FIT[@]}" --stream always --json fit_stream.json -o fit_stream.h5
digest identify.stream.json fit_stream.json
digest identify.stream.h5 fit_stream.h5
run identify.derived "$S" identify multisine.h5 -m simscape-translational --inertia --threads 2 --json fit_derived.json
digest identify.derived.json fit_derived.json
run identify.lugre "$S" identify lugre.h5 -m lugre --threads 2 --json fit_lugre.json
digest identify.lugre.json fit_lugre.json
run identify.batch "$S" identify cyl.h5 --batch "${FIT[@]}" --fix f_cfr=2e-5 -o batch.h5 --json batch.json
digest identify.batch.h5 batch.h5
digest identify.batch.json batch.json
run identify.batch_table "$S" identify cyl.h5 --batch "${FIT[@]}" --fix f_cfr=2e-5 --starts 1 --table batch.csv
digest identify.batch.table batch.csv

# export-params: every target (exact and approximate conversions).
run export-params.simscape "$S" export-params fit.json --to simscape --data cyl.h5 -o fit_simscape.m
digest export-params.simscape fit_simscape.m
run export-params.modelica "$S" export-params fit.json --to modelica --pressure 4e6 -o fit_modelica.mo
digest export-params.modelica fit_modelica.mo
run export-params.20sim "$S" export-params fit.json --to 20sim --data cyl.h5 --normal-force 1000 -o fit_20sim.txt
digest export-params.20sim fit_20sim.txt
run export-params.json "$S" export-params fit.json --to json -o fit_params.json
digest export-params.json fit_params.json
run export-params.lugre "$S" export-params fit_lugre.json --to json -o lugre_params.json
digest export-params.lugre lugre_params.json

# map and report: the cells (CSV, JSON summary) and the drawings.
run map.sweep "$S" map sweep.h5 -m rmse --x F_pr --y K_brk --reduce min -o sweep_map.csv --json sweep_map.json
digest map.sweep.csv sweep_map.csv
digest map.sweep.json sweep_map.json
run map.sweep_svg "$S" map sweep.h5 -m rmse --x F_pr --y K_brk --reduce min -o sweep_map.svg
digest map.sweep.svg sweep_map.svg
run map.ensemble "$S" map ens_fp64.h5 -m stick_slip -o ens_map.csv
digest map.ensemble.csv ens_map.csv
run map.ensemble_svg "$S" map ens_fp64.h5 -m amp_velocity -o ens_map.svg
digest map.ensemble.svg ens_map.svg
run map.batch "$S" map batch.h5 -m rmse --x mean_pressure_a --y mean_pressure_b -o batch_map.csv
digest map.batch.csv batch_map.csv
run report.fit "$S" report fit.h5 --log cyl.h5 -o fit_report.html
digest report.fit fit_report.html
run report.sweep "$S" report sweep.h5 -o sweep_report.html
digest report.sweep sweep_report.html
run report.ensemble "$S" report ens_fp64.h5 -o ens_report.html
digest report.ensemble ens_report.html
run report.batch "$S" report batch.h5 -o batch_report.html
digest report.batch batch_report.html

echo "$0: $(wc -l <"$OUT") checksums -> $OUT" >&2
