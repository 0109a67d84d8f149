#!/bin/bash
# What one ensemble step (bench/ptx_ensemble_step.cu) and one grid-sweep
# sample (bench/sass_sweep_sample.cu) cost on an H100, counted without a GPU
# or a disassembler: PTX instructions between the step's markers, and SASS
# instructions from the size of a kernel's code in the cubin (sm_90
# instructions are 16 bytes): 6 unrolled steps minus 2, over 4; 12 unrolled
# samples minus 4, over 8. The SASS counts are static (both arms of every
# branch); bench/RESULTS.md has the budgets they are compared with.
#
# Options: --max-step N, --max-sample N: exit 1 when a SASS count exceeds N
# (the CTest Kernels.Fp32SassWithinBudget). NVCC names the compiler (default:
# nvcc on PATH).
set -euo pipefail
max_step= max_sample=
while [ $# -gt 0 ]; do
  case "$1" in
    --max-step) max_step=$2; shift 2 ;;
    --max-sample) max_sample=$2; shift 2 ;;
    *) echo "usage: $0 [--max-step N] [--max-sample N]" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nv=("${NVCC:-nvcc}" -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Ikernels/include)
"${nv[@]}" -ptx bench/ptx_ensemble_step.cu -o "$tmp/step.ptx"
echo "PTX per step:  $(awk '/STEP BEGIN/,/STEP END/' "$tmp/step.ptx" | grep -c ';')"
text_bytes() {  # FILE KERNEL DEFINE: size in bytes of KERNEL's code
  "${nv[@]}" -Ikernels/cuda "-D$3" -cubin "$1" -o "$tmp/k.cubin"
  readelf -SW "$tmp/k.cubin" 2>/dev/null | awk -v k="$2" '$0 ~ "\\.text\\..*" k && !/rela/ {
    for (i = 1; i <= NF; i++) if ($i == "PROGBITS") print $(i + 3) }'
}
step=bench/ptx_ensemble_step.cu sample=bench/sass_sweep_sample.cu
two=$((16#$(text_bytes $step one_step STEPS=2))) six=$((16#$(text_bytes $step one_step STEPS=6)))
per_step=$(((six - two) / 4 / 16))
echo "SASS per step: $per_step (static)"
four=$((16#$(text_bytes $sample sweep_samples NS=4))) twelve=$((16#$(text_bytes $sample sweep_samples NS=12)))
per_sample=$(((twelve - four) / 8 / 16))
echo "SASS per sweep sample: $per_sample (static)"
over=0
if [ -n "$max_step" ] && [ "$per_step" -gt "$max_step" ]; then
  echo "over budget: an ensemble step is $per_step SASS instructions, at most $max_step allowed" >&2
  over=1
fi
if [ -n "$max_sample" ] && [ "$per_sample" -gt "$max_sample" ]; then
  echo "over budget: a sweep sample is $per_sample SASS instructions, at most $max_sample allowed" >&2
  over=1
fi
exit $over
