#!/usr/bin/env bash
# Step 2 of the GPU benchmarks, run ON THE GPU MACHINE from the repository root
# with .devpack carried (made by bench/gpu_pack.sh here). One call does it all:
#   run(command="bash bench/run_gpu.sh sweep", carry=[".devpack"])    ~5 min
#   run(command="bash bench/run_gpu.sh ensemble", carry=[".devpack"]) ~8 min
# Each part writes its whole log to $OUT (or /tmp without the device tool).
#   sweep:    GPU/CPU agreement tests (sweeps and ensembles: stribeck_gpu_tests);
#             the 65,536 x 16,384 simscape-cylinder
#             grid on the engine (FP32, FP64; best of 3 after a warm-up) and
#             the jax.jit peer on the same trace (issue 4's goals: >= 1.2e12
#             evaluations/s in FP32, >= 10x jax.jit)
#   all:      both, in one call that fits a 15-minute device budget: each
#             step under its own time limit, the most important first
#             (agreement tests, FP32 GPU figures and their jax peers, then
#             FP64, then the CPU path on a smaller ensemble), no diffrax
#   ensemble: 1,048,576 trajectories x 10,000 steps of the mass-spring-LuGre
#             rig on the GPU (FP32) and on all CPU cores, and the jax.jit+vmap
#             and diffrax peers (issue 5's goals: >= 1.7e11 steps/s, >= 30x
#             the peers, >= 50x the CPU path)
set -uo pipefail
PART=${1:-sweep}
OUTDIR=${OUT:-/tmp}
LOG="$OUTDIR/gpu_$PART.log"
export LD_LIBRARY_PATH="$PWD/.devpack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONUNBUFFERED=1
P=.devpack/bin
{
  echo "== $(date -u +%FT%TZ) part $PART, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
  echo "$(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  case "$PART" in
    sweep)
      "$P"/stribeck_gpu_tests
      TRACE=$(mktemp /tmp/stribeck_trace.XXXXXX.csv)
      "$P"/sweep_grid --axis 16 --samples 16384 --device gpu --precision fp32 --repeat 3 --trace-out "$TRACE"
      "$P"/sweep_grid --axis 16 --samples 16384 --device gpu --precision fp64 --repeat 3
      python3 bench/peers/jax_grid.py "$TRACE" --axis 16 --precision fp32
      python3 bench/peers/jax_grid.py "$TRACE" --axis 16 --precision fp64
      "$P"/sweep_grid --axis 16 --samples 16384 --device cpu --precision fp32
      ;;
    ensemble)
      "$P"/bench_ensemble 1024 10000 2.5e-5 gpu fp32
      "$P"/bench_ensemble 1024 10000 2.5e-5 gpu fp32 /tmp/stribeck_ensemble.h5  # streamed, as simulate -o
      "$P"/bench_ensemble 1024 10000 2.5e-5 gpu fp64
      python3 bench/peers/stick_slip_jax.py --trajectories 1048576 --steps 10000 --h 2.5e-5
      python3 bench/peers/stick_slip_jax.py --trajectories 1048576 --steps 10000 --h 2.5e-5 --diffrax
      "$P"/bench_ensemble 1024 10000 2.5e-5 cpu fp32
      ;;
    all)
      T() { local s=$1; shift; echo "-- $* (limit ${s}s)"; timeout "$s" "$@" || echo "-- exit $?: $*"; }
      T 150 "$P"/stribeck_gpu_tests
      TRACE=$(mktemp /tmp/stribeck_trace.XXXXXX.csv)
      for prec in fp32 fp64; do
        T 60 "$P"/sweep_grid --axis 16 --samples 16384 --device gpu --precision $prec --repeat 3 --trace-out "$TRACE"
        T 60 "$P"/sweep_grid --axis 16 --samples 16384 --device gpu --precision $prec --repeat 3 --top-k-only 1
        T 60 python3 bench/peers/jax_grid.py "$TRACE" --axis 16 --precision $prec
        T 60 "$P"/sweep_grid --axis 32 --samples 16384 --device gpu --precision $prec --repeat 3
        T 60 "$P"/sweep_grid --axis 32 --samples 16384 --device gpu --precision $prec --repeat 3 --top-k-only 1
        T 60 python3 bench/peers/jax_grid.py "$TRACE" --axis 32 --precision $prec
      done
      T 60 "$P"/bench_ensemble 1024 10000 2.5e-5 gpu fp32
      T 90 python3 bench/peers/stick_slip_jax.py --trajectories 1048576 --steps 10000 --h 2.5e-5
      T 60 "$P"/bench_ensemble 1024 10000 2.5e-5 gpu fp64
      T 90 python3 bench/peers/stick_slip_jax.py --trajectories 1048576 --steps 10000 --h 2.5e-5 --float64
      T 40 "$P"/sweep_grid --axis 16 --samples 16384 --device cpu --precision fp32 --repeat 2
      T 60 "$P"/bench_ensemble 256 10000 2.5e-5 cpu fp32
      ;;
    *) echo "run_gpu.sh: unknown part '$PART' (expected sweep, ensemble or all)" >&2; exit 2 ;;
  esac
  echo "== end $(date -u +%FT%TZ)"
} 2>&1 | tee "$LOG"
