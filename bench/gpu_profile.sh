#!/usr/bin/env bash
# Where the GPU time goes, run ON THE GPU MACHINE with .devpack carried (see
# bench/run_gpu.sh): Nsight Compute's speed-of-light, occupancy and warp-state
# sections for one launch of the sweep kernel (the 65,536 x 16,384 grid) and
# of the ensemble kernel (the stick-slip rig), the grid at 16x more points,
# and compute-sanitizer's memcheck and racecheck over the GPU tests.
set -uo pipefail
OUTDIR=${OUT:-/tmp}
export LD_LIBRARY_PATH="$PWD/.devpack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
P=.devpack/bin
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
T() { local s=$1; shift; echo "-- $* (limit ${s}s)"; timeout "$s" "$@" || echo "-- exit $?: $*"; }
SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section SchedulerStats"
{
  echo "== $(date -u +%FT%TZ) gpu_profile, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); ncu=$NCU sanitizer=$SAN"
  if [ -n "$NCU" ]; then
    T 90 "$NCU" -k regex:sweep_kernel -c 1 $SECTIONS "$P"/sweep_grid --axis 16 --samples 16384 --device gpu --precision fp32
    T 90 "$NCU" -k regex:ensemble_kernel -c 1 $SECTIONS "$P"/bench_ensemble 1024 2000 2.5e-5 gpu fp32
    T 60 "$NCU" --print-summary per-kernel "$P"/sweep_grid --axis 16 --samples 16384 --device gpu --precision fp32
  fi
  T 60 "$P"/sweep_grid --axis 32 --samples 16384 --device gpu --precision fp32 --repeat 3
  T 60 "$P"/sweep_grid --axis 16 --samples 65536 --device gpu --precision fp32 --repeat 3
  T 60 "$P"/bench_ensemble 1024 10000 2.5e-5 gpu fp32
  if [ -n "$SAN" ]; then
    T 90 "$SAN" --tool memcheck --error-exitcode 9 "$P"/stribeck_gpu_tests --gtest_filter='SweepGpuRun.*:Ensemble.*:Models/SweepGpu.AgreesWithCpu/lugre'
    T 60 "$SAN" --tool racecheck --error-exitcode 9 "$P"/stribeck_gpu_tests --gtest_filter='SweepGpuRun.ChunkedRunEqualsOneChunkAndKeepsTopK:Models/SweepGpu.AgreesWithCpu/simscape_cylinder'
  fi
  T 60 "$P"/stribeck_gpu_tests
  echo "== end $(date -u +%FT%TZ)"
} 2>&1 | tee "$OUTDIR/gpu_profile.log"
