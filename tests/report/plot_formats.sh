#!/usr/bin/env bash
# CTest Plot.EveryFigureInSvgPngPdf: `stribeck plot` writes every --what of
# every kind of result in all three formats; the SVG parses as XML and holds
# the plotted paths and the axis labels with units, the PNG has its
# signature and is not blank, the PDF has its header and trailer; --report
# on identify, sweep and simulate writes the page after the result; the
# ticks are axis_ticks' (log f_cfr at decades). A figure
# the result does not have, an unknown format and a file that is not a
# result are one line `stribeck: error: ...`, exit 2, and no output.
# Exit 77 (skipped) without gnuplot.
#   plot_formats.sh STRIBECK SOURCE_DIR
set -euo pipefail
exe=$1 src=$2
command -v gnuplot >/dev/null || { echo "gnuplot not installed (scripts/install-deps.sh); skipped" >&2; exit 77; }
for t in svg pngcairo pdfcairo; do
  gnuplot -e "set terminal $t" 2>/dev/null || { echo "gnuplot lacks the $t terminal" >&2; exit 1; }
done
py=/usr/bin/python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "plot_formats: $*" >&2; exit 1; }
"$src/tests/report/make_results.sh" "$exe" "$src" "$dir"

# kind:what:a label the figure must carry
for spec in "ident:fit:force [N]" "ident:force-velocity:velocity [m/s]" "ident:residuals:residual [N]" \
            "sweep:map:F_pr" "sweep:profile:rmse [N]" "sim:timeseries:time [s]" \
            "sim:force-velocity:friction_force [N]" "ens:map:stiffness [N/m]" "ident:stribeck:fitted law" \
            "batch:profile:F_brk [N]" "batch:map:mean_pressure_a [Pa]"; do
  IFS=: read -r k what label <<<"$spec"
  for ext in svg png pdf; do
    out="$dir/$k-$what.$ext"
    "$exe" plot "$dir/$k.h5" --what "$what" -o "$out" -q >/dev/null || fail "plot $k --what $what -o .$ext failed"
    [ -s "$out" ] || fail "$out: empty"
    case $ext in
      svg) $py - "$out" "$label" <<'PY' || fail "$out: bad SVG"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
paths = [p for p in root.iter(ns + "path") if len(p.get("d", "")) > 20]
text = " ".join("".join(t.itertext()) for t in root.iter(ns + "text"))
rects = list(root.iter(ns + "rect")) + list(root.iter(ns + "polygon"))
if len(paths) + len(rects) < 5:
    sys.exit(f"{sys.argv[1]}: only {len(paths)} paths, {len(rects)} rectangles")
if sys.argv[2] not in text:
    sys.exit(f"{sys.argv[1]}: no label '{sys.argv[2]}' in the text: {text[:300]}")
PY
        ;;
      png) $py "$src/tests/report/check_png.py" "$out" 8 >/dev/null || fail "$out: not a PNG or blank" ;;
      pdf) head -c 5 "$out" | grep -q '^%PDF-' || fail "$out: no PDF header"
           tail -c 64 "$out" | grep -q '%%EOF' || fail "$out: no PDF trailer" ;;
    esac
  done
done
# --experiment picks the experiment's figure (title names it).
"$exe" plot "$dir/ident.h5" --what fit --experiment p40bar -o "$dir/p40.svg" -q >/dev/null
grep -q "p40bar" "$dir/p40.svg" || fail "--experiment p40bar: not its figure"

# The ticks are the page's (axis_ticks): the log f_cfr axis at decades, not
# "0" at every tick; F_pr at 0, 10, ..., 60, not at the cells' edges.
$py - "$dir/sweep-map.svg" <<'PY' || fail "sweep-map.svg: ticks are not axis_ticks'"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
texts = ["".join(t.itertext()).strip() for t in ET.parse(sys.argv[1]).getroot().iter(ns + "text")]
missing = [w for w in ("1e-7", "1e-6", "1e-5", "0", "10", "60") if w not in texts]
if missing or texts.count("0") > 1:
    sys.exit(f"ticks {missing} missing or '0' repeated: {texts}")
PY

# Bad input: one line, exit 2, nothing written.
bad() {  # bad OUT ARGS...
  local out=$1; shift
  set +e
  "$exe" "$@" 2>"$dir/err"
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$* exited $rc, not 2"
  [ "$(wc -l <"$dir/err")" -eq 1 ] || fail "$*: not one line: $(cat "$dir/err")"
  grep -q '^stribeck: error: ' "$dir/err" || fail "$*: $(cat "$dir/err")"
  grep -q -- "$BAD_NAMES" "$dir/err" || fail "$*: the message does not name '$BAD_NAMES': $(cat "$dir/err")"
  [ ! -e "$out" ] || fail "$*: left $out behind"
  ls "$dir" | grep -q '\.tmp\.' && fail "$*: left a temporary behind"
  return 0
}
printf 'time,force\n0,1\n' >"$dir/notes.csv"
BAD_NAMES="notes.csv" bad "$dir/x.html" report "$dir/notes.csv" -o "$dir/x.html"
BAD_NAMES="notes.csv" bad "$dir/x.svg" plot "$dir/notes.csv" --what fit -o "$dir/x.svg"
BAD_NAMES="missing.h5" bad "$dir/x.html" report "$dir/missing.h5" -o "$dir/x.html"
cp "$src/data/examples/cylinder_plateaus.h5" "$dir/log.h5"
BAD_NAMES="log.h5" bad "$dir/x.html" report "$dir/log.h5" -o "$dir/x.html"
BAD_NAMES="has no figure 'map'" bad "$dir/x.svg" plot "$dir/ident.h5" --what map -o "$dir/x.svg"
BAD_NAMES="x.eps" bad "$dir/x.eps" plot "$dir/ident.h5" --what fit -o "$dir/x.eps"
BAD_NAMES="experiment 'nope'" bad "$dir/x.svg" plot "$dir/ident.h5" --what fit --experiment nope -o "$dir/x.svg"
BAD_NAMES="name it .html" bad "$dir/x.txt" report "$dir/sim.h5" -o "$dir/x.txt"
# --report on the run commands writes the page after the result: identify
# into another file (the page takes the run's log: force-velocity drawn),
# sweep, simulate; without an HDF5 result it is refused before the run.
"$exe" identify "$src/data/examples/cylinder_plateaus.h5" --model simscape-cylinder --fix v_th=2e-4 --starts 1 \
  -o "$dir/fit.h5" --report "$dir/fit.html" -q >/dev/null
grep -q 'id="fig-force-velocity"' "$dir/fit.html" || fail "identify --report: no force-velocity chart"
grep -q 'data-chart="1"' "$dir/fit.html" || fail "identify --report: no chart"
"$exe" sweep "$dir/sweep.toml" -o "$dir/sweep2.h5" --report "$dir/sweep2.html" -q >/dev/null
grep -q 'id="fig-top-k"' "$dir/sweep2.html" || fail "sweep --report: no top-K table"
"$exe" simulate "$dir/sim.toml" -o "$dir/sim2.h5" --report "$dir/sim2.html" -q >/dev/null
grep -q 'id="fig-friction-velocity"' "$dir/sim2.html" || fail "simulate --report: no friction-velocity loop"
BAD_NAMES="give --output too" bad "$dir/nofit.html" identify "$src/data/examples/cylinder_plateaus.h5" \
  --model simscape-cylinder --report "$dir/nofit.html"
BAD_NAMES="s.csv" bad "$dir/s.html" simulate "$dir/sim.toml" -o "$dir/s.csv" --report "$dir/s.html"
[ ! -e "$dir/s.csv" ] || fail "simulate --report with a CSV output ran anyway"
echo "plot_formats: every figure in SVG, PNG and PDF; bad input refused in one line"
