#!/usr/bin/env bash
# CTest Report.EveryKindDrawsInHeadlessChromium (label browser): writes a
# report of each kind of result (identification, sweep, simulation,
# ensemble, batch fit), loads each in Debian's chromium (headless) and fails on any
# error the page recorded (window.onerror, console.error: the <html>
# attribute data-errors) or any chart that did not mark itself drawn
# (data-chart without data-drawn="1"); a screenshot of each must not be
# blank. A page with an injected error must fail the same check (the check
# itself is tested). The drawn tick labels, axis ranges, units, colour bars
# and the Stribeck curve are checked against the data (check_ticks.py).
# Exit 77 (skipped) without chromium.
#   report_browser.sh STRIBECK SOURCE_DIR
set -euo pipefail
exe=$1 src=$2
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "chromium not installed (scripts/install-deps.sh); skipped" >&2; exit 77; }
py=/usr/bin/python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "report_browser: $*" >&2; exit 1; }
"$src/tests/report/make_results.sh" "$exe" "$src" "$dir"

chrome() {  # chrome ARGS... : headless, no profile left behind, quiet
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
    --user-data-dir="$dir/profile" --virtual-time-budget=5000 "$@" 2>/dev/null
}
# check_dom HTML MIN_CHARTS: loads the page, prints "charts drawn errors".
check_dom() {
  chrome --dump-dom "file://$1" >"$1.dom" || fail "$1: chromium failed"
  $py - "$1.dom" "$2" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
need = int(sys.argv[2])
html = re.search(r"<html[^>]*>", dom).group(0)
errors = re.search(r'data-errors="(\d+)"', html)
charts = re.findall(r"<div[^>]*data-chart=\"1\"[^>]*>", dom)
drawn = [c for c in charts if 'data-drawn="1"' in c]
undrawn = [re.search(r'id="([^"]*)"', c).group(1) for c in charts if c not in drawn]
msg = re.search(r'<pre id="report-errors"[^>]*>(.*?)</pre>', dom, re.S)
ms = re.search(r'data-draw-ms="(\d+)"', html)
print(f"{sys.argv[1]}: {len(charts)} charts, {len(drawn)} drawn, errors {errors.group(1) if errors else 0}, "
      f"script {ms.group(1) if ms else '?'} ms")
if errors:
    sys.exit("page errors: " + (msg.group(1) if msg else "?"))
if 'data-ready="1"' not in html:
    sys.exit("the page script did not finish (no data-ready)")
if undrawn:
    sys.exit("charts not drawn: " + ", ".join(undrawn))
if len(charts) < need:
    sys.exit(f"only {len(charts)} charts, expected at least {need}")
PY
}
# kind:minimum charts:a chart to photograph (identification: 3 experiments
# x 3 + force-velocity, zoom, Stribeck curve, histogram; sweep: 3 profiles, the map,
# distributions; simulation: 5 time series and the loop; ensemble: maps and
# distributions; batch fit: 4 parameters and the RMSE over the fits, 5 maps).
for spec in ident:13:fig-stribeck-curve sweep:5:fig-map sim:5:fig-friction-velocity ens:4:fig-map-stick-slip \
  batch:10:fig-over-F-C; do
  IFS=: read -r k n chart <<<"$spec"
  "$exe" report "$dir/$k.h5" -o "$dir/$k.html" -q
  [ -s "$dir/$k.html" ] || fail "$k.html not written"
  check_dom "$dir/$k.html" "$n" || fail "$k.html: the browser check failed"
  # The screenshot shows that chart alone (a copy of the page whose other
  # blocks are hidden: headless screenshots do not follow scrolling), so
  # "not blank" is about the plot, not the tables above it.
  grep -q "id=\"$chart\"" "$dir/$k.html" || fail "$k.html: no chart $chart"
  sed "s|</head>|<style>body > :not(#$chart) { display: none }</style>&|" "$dir/$k.html" >"$dir/$k-chart.html"
  chrome --screenshot="$dir/$k.png" --window-size=900,600 "file://$dir/$k-chart.html" >/dev/null ||
    fail "$k: no screenshot"
  $py "$src/tests/report/check_png.py" "$dir/$k.png" 32 500 || fail "$k.png: the chart $chart is blank"
done
# What the pages drew against the data: tick labels and ranges, log axes,
# units, colour bars, the Stribeck curve against `stribeck eval`
# (check_ticks.py reads the DOMs check_dom left).
$py "$src/tests/report/check_ticks.py" "$exe" "$dir" || fail "tick labels, units or the Stribeck curve are wrong"
# ... and fails where it must: f_cfr's ticks all reading "0".
cp "$dir/sweep.html.dom" "$dir/sweep-good.dom"
$py - "$dir/sweep.html.dom" <<'PY'
import re, sys
p = sys.argv[1]
d = open(p, encoding="utf-8").read()
d = re.sub(r'(id="fig-profile-f-cfr"[^>]*data-ticks-x=")[^"]*"', r'\1[&quot;0&quot;,&quot;0&quot;]"', d)
open(p, "w", encoding="utf-8").write(d)
PY
if $py "$src/tests/report/check_ticks.py" "$exe" "$dir" >/dev/null 2>&1; then fail "ticks reading 0 went unnoticed"; fi
mv "$dir/sweep-good.dom" "$dir/sweep.html.dom"
# The blank check fails where it must: the same chart with its canvas
# hidden (title, legend and axis labels left).
sed 's|</head>|<style>body > :not(#fig-friction-velocity) { display: none } canvas { visibility: hidden }</style>&|' \
  "$dir/sim.html" >"$dir/hidden.html"
chrome --screenshot="$dir/hidden.png" --window-size=900,600 "file://$dir/hidden.html" >/dev/null
if $py "$src/tests/report/check_png.py" "$dir/hidden.png" 32 500 >/dev/null 2>&1; then fail "a blank chart passed"; fi
# The check catches what it must: an error thrown by the page, and a chart
# that never draws.
sed 's|<script type="application/json" id="report-data">|<script>throw new Error("injected")</script>&|' \
  "$dir/sim.html" >"$dir/bad.html"
if check_dom "$dir/bad.html" 1 >/dev/null 2>&1; then fail "a page error went unnoticed"; fi
sed 's|<div class="plot"></div>|&<div data-chart="1" id="never"></div>|' "$dir/sim.html" >"$dir/undrawn.html"
if check_dom "$dir/undrawn.html" 1 >/dev/null 2>&1; then fail "an undrawn chart went unnoticed"; fi
echo "report_browser: every kind loads without errors and draws every chart"
