#!/bin/bash
# What one ensemble step (bench/ptx_ensemble_step.cu) costs on an H100, counted
# without a GPU or a disassembler: PTX instructions between the markers, and
# SASS instructions from the size of the kernel's code in the cubin (sm_90
# instructions are 16 bytes) with 6 unrolled steps minus 2, over 4. The SASS
# count is static (both arms of every branch); bench/RESULTS.md has the
# budget it is compared with.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nv=(nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Ikernels/include)
"${nv[@]}" -ptx bench/ptx_ensemble_step.cu -o "$tmp/step.ptx"
echo "PTX per step:  $(awk '/STEP BEGIN/,/STEP END/' "$tmp/step.ptx" | grep -c ';')"
text_bytes() {
  "${nv[@]}" -DSTEPS="$1" -cubin bench/ptx_ensemble_step.cu -o "$tmp/s$1.cubin"
  readelf -SW "$tmp/s$1.cubin" 2>/dev/null | awk '/\.text\..*one_step/ && !/rela/ {
    for (i = 1; i <= NF; i++) if ($i == "PROGBITS") print $(i + 3) }'
}
two=$((16#$(text_bytes 2))) six=$((16#$(text_bytes 6)))
echo "SASS per step: $(((six - two) / 4 / 16)) (static)"
