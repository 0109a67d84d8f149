#!/usr/bin/env bash
# Monte Carlo validation of `stribeck design` (issue 33 item 1; goals: the
# predicted standard deviations within +-10 % of the empirical spread of the
# fitted parameters, identify's 95 % intervals covering 93-97 % of the truth,
# and the designed test shrinking the worst parameter's interval >= 3x
# against the reference plateau test of equal duration).
#
# Two cases (rig limits in bench/design_mc/CASE_rig.toml, laws and truths in
# bench/peers/design_mc.py): a hydraulic cylinder (simscape-cylinder) and a
# servo axis (simscape-rotational). For each, `stribeck design` at the truth,
# then N noise realisations of the design and of its reference through the
# command line, `stribeck generate --design D.toml --seed k --noise force=S`
# and `stribeck identify --json`, JOBS at a time. Prints a table per case and
# test (empirical std with its chi-square interval, predicted std, ratio, an
# independent NumPy Fisher prediction, identify's mean reported std error,
# coverage with its Clopper-Pearson interval, bias), the shrink, and which
# goals are met; writes every figure to OUT.json.
# Usage: [FIRST_SEED=1] bench/design_mc.sh [STRIBECK=build/bin/stribeck] [N=1000] [JOBS=2] [OUT=design_mc.json]
#                                           [CASES=cylinder,servo] [--profiles LIST] [--design CASE=DESIGN.toml ...]
# (--profiles: design's families, e.g. levels for the plateau test of the
# optimal measure; --design: that test, e.g. bench/peers/design_bound.py's
# best plateau test, in place of `stribeck design`'s for the case)
# (seeds FIRST_SEED .. FIRST_SEED+N-1: a second run from another first seed
# adds independent realisations)
set -euo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
STRIBECK=${1:-$DIR/../build/bin/stribeck}
N=${2:-1000}
JOBS=${3:-2}
OUT=${4:-design_mc.json}
CASES=${5:-cylinder,servo}
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); $(date -u '+%F %T UTC')"
echo "stribeck: $("$STRIBECK" --version 2>&1 | head -1); commit $(git -C "$DIR" rev-parse --short HEAD 2>/dev/null || echo ?)"
echo "$N realisations per test, $JOBS at a time; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 "$DIR/peers/design_mc.py" --stribeck "$STRIBECK" --cases "$CASES" --n "$N" --jobs "$JOBS" --json "$OUT" \
  --first-seed "${FIRST_SEED:-1}" "${@:6}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); figures in $OUT"
