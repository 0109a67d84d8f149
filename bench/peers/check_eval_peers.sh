#!/usr/bin/env bash
# The eval peers compute the engine's forces: the numba peer (eval_numba.py,
# through bench_eval_memory) and the h5py + NumPy peer (eval_h5_numpy.py,
# against `stribeck eval` on an HDF5 log) must agree with Stribeck to 1e-12
# relative on 100,000 samples, so that the timings in bench/RESULTS.md compare
# equal work. Skips (exit 77) where numba or h5py is missing: they are
# installed by `scripts/install-deps.sh --bench` only.
# Usage: check_eval_peers.sh BENCH_EVAL_MEMORY STRIBECK [PYTHON]
set -euo pipefail
MEM=$1
CLI=$2
PY=${3:-/usr/bin/python3}
DIR=$(cd "$(dirname "$0")" && pwd)
"$PY" -c "import numba, h5py" 2> /dev/null || { echo "numba or h5py missing: skipped"; exit 77; }
OMP_NUM_THREADS=2 "$MEM" --samples 100000 --repeat 1
TMP=$(mktemp -d /tmp/stribeck_eval_peer.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
"$PY" - "$TMP/in.h5" <<'PY'
import sys
import h5py
import numpy as np
n = 100000
t = np.arange(n) * 1e-3
v = 0.2 * np.sin(2 * np.pi * 0.05 * t) * (1 + 0.1 * np.sin(7.0 * t))
with h5py.File(sys.argv[1], "w") as f:
    g = f.create_group("run")
    for name, x, u in (("time", t, "s"), ("velocity", v, "m/s"), ("pressure_a", 5e6 + 2e6 * v, "Pa"),
                       ("pressure_b", 3e6 - 1e6 * v, "Pa")):
        g.create_dataset(name, data=x).attrs["units"] = np.bytes_(u)
PY
"$CLI" eval -m simscape-cylinder -p K_brk=1.5 -p F_pr=50 -i "$TMP/in.h5" -o "$TMP/out.h5"
(cd "$DIR" && "$PY" eval_h5_numpy.py "$TMP/in.h5" run "$TMP/peer.h5" K_brk=1.5 F_pr=50)
"$PY" - "$TMP/out.h5" "$TMP/peer.h5" <<'PY'
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1]) as a, h5py.File(sys.argv[2]) as b:
    fa, fb = a["eval/simscape-cylinder/model_force"][...], b["eval/simscape-cylinder/model_force"][...]
    d = np.max(np.abs(fa - fb) / np.maximum(1.0, np.abs(fa)))
    print(f"h5py + NumPy peer: max |difference| / max(1, |F|) = {d:.2e}")
    sys.exit(0 if fa.shape == fb.shape and d < 1e-12 else 1)
PY
