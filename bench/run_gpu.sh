#!/usr/bin/env bash
# The GPU benchmark of bench/RESULTS.md, for a session with a GPU machine:
# builds with CUDA, checks GPU/CPU agreement, then runs the 65,536 x 16,384
# simscape-cylinder grid on the engine (FP32 and FP64) and the jax.jit peer on
# the same trace. Usage: bash bench/run_gpu.sh [BUILD_DIR]
set -euo pipefail
B=${1:-build-gpu}
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DSTRIBECK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$B" -j"$(nproc)" --target sweep_grid stribeck_gpu_tests
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
date -u
"$B"/tests/stribeck_gpu_tests
TRACE=$(mktemp /tmp/stribeck_trace.XXXXXX.csv)
"$B"/bin/sweep_grid --axis 16 --samples 16384 --device gpu --precision fp32 --repeat 3 --trace-out "$TRACE"
"$B"/bin/sweep_grid --axis 16 --samples 16384 --device gpu --precision fp64 --repeat 3
python3 bench/peers/jax_grid.py "$TRACE" --axis 16 --precision fp32
python3 bench/peers/jax_grid.py "$TRACE" --axis 16 --precision fp64
