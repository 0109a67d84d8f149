#!/usr/bin/env bash
# The stick-slip ensemble against its numba peer, side by side on this
# machine: bench_ensemble (run_ensemble on the CPU, the SIMD lanes of the
# best level, or STRIBECK_CPU_ISA) and bench/peers/stick_slip_numba.py
# (@njit(parallel=True, fastmath=True), prange, fixed-step RK4), the same
# mass-spring-LuGre rig over a SIDE x SIDE grid of STEPS RK4 steps, with 1 and
# 2 threads, FP64 and FP32. The two are interleaved ROUNDS times (the machine
# is shared) and the best rate of each is kept; numba's JIT warm-up is not
# timed. Prints one line per case with both rates, their ratio, both
# checksums and the load average.
# Usage: bench/stick_slip_vs_numba.sh BENCH_ENSEMBLE [SIDE=64] [STEPS=10000] [ROUNDS=3] [PYTHON]
set -euo pipefail
BENCH=$1
SIDE=${2:-64}
STEPS=${3:-10000}
ROUNDS=${4:-3}
PY=${5:-/usr/bin/python3}
DIR=$(cd "$(dirname "$0")" && pwd)
N=$((SIDE * SIDE))
rate() { sed -n "s/.*= \([0-9.e+]*\) steps\/s.*/\1/p; s/.*: \([0-9.e+]*\) RK4 steps\/s.*/\1/p" | head -1; }
sum() { sed -n 's/.*checksum (sum of final velocities) \([^ ]*\).*/\1/p; s/.*checksum \([^ ]*\)$/\1/p' | head -1; }
best() { "$PY" -c "import sys; print(max(float(x) for x in sys.argv[1:]))" "$@"; }
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); $(date -u '+%F %T UTC')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for prec in fp64 fp32; do
  for threads in 1 2; do
    e_rates=() n_rates=()
    for ((r = 0; r < ROUNDS; ++r)); do
      out=$(OMP_NUM_THREADS=$threads "$BENCH" "$SIDE" "$STEPS" 2.5e-5 cpu "$prec")
      e_rates+=("$(rate <<< "$out")")
      e_sum=$(sum <<< "$out")
      out=$(NUMBA_NUM_THREADS=$threads "$PY" "$DIR/peers/stick_slip_numba.py" --trajectories "$N" --steps "$STEPS" \
            --h 2.5e-5 --precision "$prec" --repeat 1)
      n_rates+=("$(rate <<< "$out")")
      n_sum=$(sum <<< "$out")
    done
    e=$(best "${e_rates[@]}")
    n=$(best "${n_rates[@]}")
    "$PY" -c "import sys; e, n = float(sys.argv[1]), float(sys.argv[2]); print(f'{sys.argv[3]} {sys.argv[4]} thread(s): stribeck {e:.3e} RK4 steps/s, numba {n:.3e}, ratio {e / n:.2f}x; checksums {sys.argv[5]} / {sys.argv[6]}')" \
      "$e" "$n" "$prec" "$threads" "$e_sum" "$n_sum"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
