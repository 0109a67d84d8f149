#!/usr/bin/env bash
# Checks that the C++/CUDA sources are formatted as .clang-format says
# (clang-format 14, Debian 12's; other versions format differently).
#
#   scripts/check-format.sh [SOURCE_DIR]          # dry run, exit 1 on any difference
#   scripts/check-format.sh --fix [SOURCE_DIR]    # formats in place
#
# Exit 77 (CTest: skipped) when clang-format 14 is not installed
# (scripts/install-deps.sh installs clang-format-14).
set -euo pipefail
fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
src=${1:-$(dirname "$0")/..}
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
  if command -v clang-format-14 >/dev/null; then cf=clang-format-14
  elif command -v clang-format >/dev/null && clang-format --version | grep -q "version 14\."; then cf=clang-format
  else echo "check-format: clang-format 14 not found (apt-get install clang-format-14); skipped" >&2; exit 77
  fi
fi
cd "$src"
files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(
  find kernels data engine workloads app identification report python tests bench -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) \
    -not -path 'tests/fuzz/corpus/*' -print0 | sort -z)
if [ "$fix" = 1 ]; then
  "$cf" -i "${files[@]}"
else
  "$cf" --dry-run --Werror "${files[@]}"
  echo "check-format: ${#files[@]} files formatted as .clang-format says"
fi
