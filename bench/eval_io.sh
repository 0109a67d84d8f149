#!/usr/bin/env bash
# eval HDF5 -> HDF5 and import of a CSV, with peak RSS, next to the h5py +
# NumPy peer (bench/peers/eval_h5_numpy.py) in the same run; the model forces
# of both are compared.
#
#   bench/eval_io.sh [BUILD_DIR] [SAMPLES...]        (default: build 1000000 10000000)
#   ROUNDS=3 bench/eval_io.sh ...                      (3 interleaved rounds of eval and peer)
#   EVAL_ONLY=1 bench/eval_io.sh build 50000000        (Stribeck alone: the RSS at a length the peer cannot hold)
#   BASELINE=/path/to/old/stribeck bench/eval_io.sh ... (that binary's eval too, in every round: before/after)
#   NO_IMPORT=1 bench/eval_io.sh ...                   (skip export and import)
#   COMPRESSIONS="none deflate" bench/eval_io.sh ...    (eval's --compression values run in every round; default both)
#
# Each line: wall seconds, CPU seconds (user + system) and peak RSS; each
# round starts with the load average (the machine may be shared).
#
# Inputs are generated in a temporary directory (removed at the end): an HDF5
# log with time, velocity, pressure_a, pressure_b stored as Stribeck stores
# them (chunks of 65,536, shuffle, deflate 4); the CSV that `import` reads is
# what `stribeck export` makes of it (timed too). Needs python3-h5py and python3-numpy (scripts/install-deps.sh --bench).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
shift || true
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(1000000 10000000); fi
cli=$(cd "$build" && pwd)/bin/stribeck
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stribeck_eval_io_XXXXXX")
trap 'rm -rf "$tmp"' EXIT
params="K_brk=1.5 F_pr=50"
PY=${PYTHON:-/usr/bin/python3}

# /usr/bin/time -v: wall seconds, CPU seconds and peak RSS [MB] of one command.
measure() {
  local label=$1
  shift
  /usr/bin/time -v "$@" 2> "$tmp/time.txt" > /dev/null || { cat "$tmp/time.txt"; exit 1; }
  local wall cpu rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + a[i]; print s}' "$tmp/time.txt")
  cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ {s += $2} END {print s}' "$tmp/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$tmp/time.txt")
  printf '%-40s %9.2f s wall %7.2f s CPU %8s MB\n' "$label" "$wall" "$cpu" "$rss"
}

for n in "${sizes[@]}"; do
  echo "== $n samples, $(nproc) threads, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  "$PY" - "$tmp/in.h5" "$n" <<'PY'
import sys
import h5py
import numpy as np
h5, n = sys.argv[1], int(sys.argv[2])
opts = dict(chunks=(min(65536, n),), shuffle=True, compression="gzip", compression_opts=4)
with h5py.File(h5, "w") as f:
    g = f.create_group("run")
    dsets = {}
    for name, unit in (("time", "s"), ("velocity", "m/s"), ("pressure_a", "Pa"), ("pressure_b", "Pa")):
        dsets[name] = g.create_dataset(name, shape=(n,), dtype="f8", **opts)
        dsets[name].attrs["units"] = np.bytes_(unit)
    step = 1 << 20
    for b in range(0, n, step):
        t = np.arange(b, min(n, b + step)) * 1e-3
        v = 0.2 * np.sin(2 * np.pi * 0.05 * t) * (1 + 0.1 * np.sin(7.0 * t))
        cols = {"time": t, "velocity": v, "pressure_a": 5e6 + 2e6 * v, "pressure_b": 3e6 - 1e6 * v}
        for name, x in cols.items():
            dsets[name][b:b + t.size] = x
PY
  # ROUNDS=R: R interleaved rounds of the two (the machine is shared: read the best of each).
  for ((round = 1; round <= ${ROUNDS:-1}; ++round)); do
    echo "  round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    rm -f "$tmp"/out*.h5 "$tmp/peer.h5"
    for c in ${COMPRESSIONS:-none deflate}; do
      measure "stribeck eval h5 -> h5 --compression $c" "$cli" eval -m simscape-cylinder -p K_brk=1.5 -p F_pr=50 \
        --compression "$c" -i "$tmp/in.h5" -o "$tmp/out_$c.h5"
      ln -sf "out_$c.h5" "$tmp/out.h5"  # the forces checked below: the last compression's
    done
    if [ -n "${BASELINE:-}" ]; then
      rm -f "$tmp/base.h5"
      measure "baseline eval h5 -> h5" "$BASELINE" eval -m simscape-cylinder -p K_brk=1.5 -p F_pr=50 -i "$tmp/in.h5" -o "$tmp/base.h5"
      # The two binaries' forces, bit for bit.
      "$PY" -c "import sys, h5py, numpy as np; a = h5py.File(sys.argv[1]); b = h5py.File(sys.argv[2]); \
assert np.array_equal(a['eval/simscape-cylinder/model_force'][...].view(np.uint64), b['eval/simscape-cylinder/model_force'][...].view(np.uint64)), 'baseline forces differ'" "$tmp/out.h5" "$tmp/base.h5"
    fi
    [ -n "${EVAL_ONLY:-}" ] || measure "h5py + NumPy peer" "$PY" "$here/peers/eval_h5_numpy.py" "$tmp/in.h5" run "$tmp/peer.h5" $params
  done
  if [ -n "${EVAL_ONLY:-}" ]; then
    rm -f "$tmp"/*.h5
    continue
  fi
  # Every compression's file read by h5py: the same forces (bit for bit) and
  # channels, and within rounding of the peer's.
  "$PY" - "$tmp/peer.h5" "$tmp"/out_*.h5 <<'PY'
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1]) as b:
    fb = b["eval/simscape-cylinder/model_force"][...]
    first = None
    for path in sys.argv[2:]:
        with h5py.File(path) as a:
            fa = a["eval/simscape-cylinder/model_force"][...]
            assert fa.shape == fb.shape
            first = fa if first is None else first
            assert np.array_equal(fa.view(np.uint64), first.view(np.uint64)), path + ": forces differ"
            d = np.max(np.abs(fa - fb) / np.maximum(1.0, np.abs(fa)))
            same = all(np.array_equal(a["run"][k][...], b["run"][k][...]) for k in ("time", "velocity", "pressure_a", "pressure_b"))
            print(f"  {path.rsplit('/', 1)[-1]}: forces: max |difference| / max(1, |F|) = {d:.2e}; channels equal: {same}")
            assert d < 1e-12 and same
PY
  if [ -n "${NO_IMPORT:-}" ]; then
    rm -f "$tmp"/*.h5
    continue
  fi
  measure "stribeck export h5 -> csv" "$cli" export "$tmp/in.h5" -o "$tmp/in.csv"
  measure "stribeck import csv -> h5" "$cli" import "$tmp/in.csv" -o "$tmp/imported.h5"
  "$PY" -c "import sys, h5py, numpy as np; a = h5py.File(sys.argv[1]); b = h5py.File(sys.argv[2]); \
assert all(np.array_equal(a['run'][k][...], b['in'][k][...]) for k in ('time', 'velocity', 'pressure_a', 'pressure_b')); \
print('  export -> import round trip: channels equal')" "$tmp/in.h5" "$tmp/imported.h5"
  rm -f "$tmp"/*.h5 "$tmp"/*.csv
done
