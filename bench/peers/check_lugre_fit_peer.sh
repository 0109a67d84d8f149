#!/usr/bin/env bash
# The SciPy simulation-error peer (scipy_lugre_fit.py) fits what
# `stribeck identify --model lugre` fits: on one `stribeck generate`d LuGre
# log (a 0.1-5 Hz sine sweep of +-1.5 m/s at 250 Hz, 1,001 samples, noise
# 0.1 N), both must reach the same RMSE (1e-6 relative) and the same six
# parameters (within 2 % of Stribeck's standard error of each; the cost is
# only piecewise smooth in v_s, whose value sets the bristle sub-steps, so two
# optimisers end a few 1e-7 apart). Without this
# the benchmark in bench/RESULTS.md could time two different fits.
# Exit 77 (CTest: skipped) when SciPy is missing.
# Usage: check_lugre_fit_peer.sh STRIBECK [PYTHON]
set -euo pipefail
CLI=$1
PY=${2:-/usr/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
"$PY" -c "import scipy.optimize" 2>/dev/null || { echo "SciPy is missing (python3-scipy): skipped"; exit 77; }
DIR=$(mktemp -d /tmp/stribeck_lugre_peer.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
"$CLI" generate --model lugre --param sigma0=1e5 --param sigma1=300 --param sigma2=5 --param F_C=20 \
  --param F_s=30 --param v_s=0.2 --profile sine-sweep --vmax 1.5 --rate 250 --duration 4 \
  --noise force=0.1 --seed 3 -o "$DIR/log.h5" > /dev/null
"$CLI" export "$DIR/log.h5" -e run -o "$DIR/log.csv"
"$CLI" identify "$DIR/log.csv" --model lugre --json "$DIR/fit.json" > "$DIR/report.txt"
"$PY" "$HERE/scipy_lugre_fit.py" "$DIR/log.csv" --start 7e4,500,3,15,35,0.1 > "$DIR/peer.txt"
cat "$DIR/peer.txt"
"$PY" - "$DIR/fit.json" "$DIR/peer.txt" <<'PYEOF'
import json, sys
fit = json.load(open(sys.argv[1]))
peer = {}
for line in open(sys.argv[2]):
    w = line.split()
    if w[0] == "param":
        peer[w[1]] = float(w[2])
    elif w[0] == "rmse":
        peer["rmse"] = float(w[1])
ok = abs(fit["rmse"] - peer["rmse"]) <= 1e-6 * fit["rmse"]  # measured: 1.2e-7
print(f"rmse stribeck {fit['rmse']:.10g} peer {peer['rmse']:.10g}")
for name in ["sigma0", "sigma1", "sigma2", "F_C", "F_s", "v_s"]:
    p = fit["parameters"][name]
    se = p["std_error"]
    d = abs(p["value"] - peer[name])
    good = se is not None and d <= 0.02 * se
    ok &= good
    print(f"{name}: stribeck {p['value']:.8g} +/- {se}, peer {peer[name]:.8g}: {'same' if good else 'DIFFERENT'}")
sys.exit(0 if ok else 1)
PYEOF
