#!/bin/bash
# Replays libFuzzer findings (crash-*, timeout-*, oom-*, slow-unit-*) through
# the real CLI and classifies each: does `stribeck` end cleanly on it (one
# line "stribeck: error: ...", exit 2, nothing left in the directory but the
# input), or is it a crash, hang or other failure of the CLI (a bug of ours)?
#
#   tests/fuzz/replay_artifacts.sh hdf5|mat ARTIFACT_DIR STRIBECK [LIMIT_KIB]
#
# hdf5: each file is run as `import`, `report` and `map` (the readers
#       fuzz_hdf5 drives: rig logs, results groups, sweep files);
# mat:  as `import` of a .mat (v7.3 or v5, as the CLI sniffs it).
# Each run gets 120 s and an address-space limit (LIMIT_KIB, default 6 GiB:
# the out-of-memory findings would otherwise take the shared machine's
# memory). One line per run on stdout (tab-separated): class, artifact,
# command, exit code, peak RSS in MiB, seconds, the first stderr line; then a
# count per class on stderr. Classes: refused (one line, exit 2, nothing
# left), crash-caught (the same, the line saying the HDF5 library crashed),
# hang-caught (the same, "did not return from"), read (exit 0: the CLI read
# the file), BUG (anything else).
set -u
kind=$1
dir=$2
cli=$3
limit=${4:-6291456}
case $kind in
  hdf5) ext=h5 ;;
  mat) ext=mat ;;
  *) echo "usage: $0 hdf5|mat ARTIFACT_DIR STRIBECK [LIMIT_KIB]" >&2; exit 1 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A count
for f in "$dir"/crash-* "$dir"/timeout-* "$dir"/oom-* "$dir"/slow-unit-*; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  if [ $kind = hdf5 ]; then
    cmds=("import in.$ext -o out.h5" "report in.$ext -o out.html" "map in.$ext -o out.svg")
  else
    cmds=("import in.$ext -o out.h5")
  fi
  for c in "${cmds[@]}"; do
    rm -rf "$work"/* && cp "$f" "$work/in.$ext"
    start=$(date +%s.%N)
    (cd "$work" && ulimit -v "$limit" && exec /usr/bin/time -f '%M' -o time.txt timeout -s KILL 120 "$cli" $c \
        >stdout.txt 2>stderr.txt)
    rc=$?
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    rss=$(( $(tail -1 "$work/time.txt" 2>/dev/null | grep -E '^[0-9]+$' || echo 0) / 1024 ))
    lines=$(wc -l <"$work/stderr.txt")
    first=$(head -1 "$work/stderr.txt" | cut -c1-200)
    left=$(cd "$work" && ls | grep -v -x -e "in.$ext" -e stdout.txt -e stderr.txt -e time.txt | tr '\n' ' ')
    cls=BUG
    if [ $rc -eq 0 ]; then
      cls=read
    elif [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ -z "$left" ] && [[ $first == "stribeck: error: "* ]]; then
      cls=refused
      [[ $first == *"the HDF5 library crashed reading it"* ]] && cls=crash-caught
      [[ $first == *"the HDF5 library did not return from"* ]] && cls=hang-caught
    fi
    count[$cls]=$(( ${count[$cls]:-0} + 1 ))
    printf '%s\t%s\t%s\t%s\t%s\t%.1f\t%s%s\n' "$cls" "$name" "${c%% *}" "$rc" "$rss" "$secs" "$first" \
      "${left:+ [left: $left]}"
  done
done
for k in "${!count[@]}"; do echo "$k: ${count[$k]}" >&2; done
