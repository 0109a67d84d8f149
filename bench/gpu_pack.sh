#!/usr/bin/env bash
# Step 1 of the GPU benchmarks, run HERE (the build machine): the GPU machine
# has CUDA but none of Debian's -dev libraries (Ceres, HDF5, ...), so build
# with CUDA here for the H100/H200 (sm_90) and pack the binaries with their
# shared libraries into .devpack (git-ignored), which the device call carries.
# Step 2 is bench/run_gpu.sh, run THERE (see bench/README.md, "GPU runs").
# Usage: bash bench/gpu_pack.sh [BUILD_DIR]
set -euo pipefail
B=${1:-build-gpu}
PACK=${STRIBECK_PACK:-../shared/device/pack.sh}  # the device tool's packer, beside the main checkout
[ -x "$PACK" ] || { echo "gpu_pack.sh: $PACK not found (run from the repository root)" >&2; exit 2; }
EXCLUDE=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$EXCLUDE")"
grep -qx '/.devpack/' "$EXCLUDE" 2>/dev/null || echo '/.devpack/' >> "$EXCLUDE"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DSTRIBECK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$B" -j"$(nproc)" --target stribeck_gpu_tests sweep_grid bench_ensemble
rm -rf .devpack
# Not the CLI: with Ceres and its solvers the pack exceeds the 64 MiB a device
# call can carry (76 MiB measured); these three need only HDF5 and CUDA (~42 MiB
# measured; the ensemble GPU tests joining stribeck_gpu_tests added ~6 MB).
"$PACK" "$B"/tests/stribeck_gpu_tests "$B"/bin/sweep_grid "$B"/bin/bench_ensemble
# libmvec (the CPU lanes' vector exp/tanh) and libresolv are parts of glibc,
# which pack.sh otherwise leaves behind: the GPU machine's own copies match
# its libc and libm.
rm -f .devpack/lib/libmvec.so.* .devpack/lib/libresolv.so.*
du -sh .devpack
