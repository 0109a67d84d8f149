#!/bin/sh
# CTest Slurm.ArrayScriptMergesToOneRun: scripts/slurm/ under a faked Slurm.
# Fake `sbatch` and `srun` on the PATH record their arguments and run the job
# script at once, as Slurm would: an array task by task with
# SLURM_ARRAY_TASK_ID/_COUNT/_MIN/_MAX set, a job with
# --dependency=afterok:ID only if every task of ID succeeded, srun's ranks
# through mpirun. Checks: the merged file of the array (one task interrupted
# and requeued: it resumes its checkpointed partial file) and the MPI job's
# file equal an unsharded run, row for row (h5py); a failed task keeps the
# merge from running.
#
#   fake_slurm.sh STRIBECK SOURCE_DIR [MPIEXEC]   (MPIEXEC: the build has MPI)
set -eu
bin=$1
src=$2
mpiexec=${3:-}
config=$src/examples/sweep_translational_sobol.toml
work=$(mktemp -d "${TMPDIR:-/tmp}/stribeck_slurm.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
mkdir -p "$work/fake" "$work/spool"
echo 100 > "$work/next_job"

cat > "$work/fake/sbatch" <<'FAKE'
#!/bin/sh
# Fake sbatch: records its arguments, copies the script to a spool directory
# (as Slurm does: a job script cannot find its siblings through $0) and runs
# it now, every array task in turn.
set -u
work=$FAKE_SLURM_WORK
echo "sbatch $*" >> "$work/sbatch.log"
array= dependency= ntasks=1
while [ $# -gt 0 ]; do
  case $1 in
    --array=*) array=${1#--array=} ;;
    --dependency=*) dependency=${1#--dependency=} ;;
    --ntasks=*) ntasks=${1#--ntasks=} ;;
    --parsable | --job-name=* | --gpus-per-task=*) ;;
    -*) echo "fake sbatch: unexpected option $1" >&2; exit 1 ;;
    *) break ;;
  esac
  shift
done
id=$(cat "$work/next_job")
echo $((id + 1)) > "$work/next_job"
script=$work/spool/job$id
cp "$1" "$script"
chmod +x "$script"
shift
echo "$id"
case $dependency in
  '') ;;
  afterok:*)
    if [ -e "$work/failed_${dependency#afterok:}" ]; then
      echo "job $id: DependencyNeverSatisfied" >> "$work/sbatch.log"
      exit 0
    fi ;;
  *) echo "fake sbatch: unexpected dependency $dependency" >&2; exit 1 ;;
esac
run() {
  if ! "$script" "$@" >> "$work/job$id.out" 2>&1; then
    touch "$work/failed_$id"
  fi
}
if [ -n "$array" ]; then
  min=${array%-*} max=${array#*-}
  i=$min
  while [ "$i" -le "$max" ]; do
    SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$((max - min + 1)) \
      SLURM_ARRAY_TASK_MIN=$min SLURM_ARRAY_TASK_MAX=$max run "$@"
    i=$((i + 1))
  done
else
  SLURM_JOB_ID=$id SLURM_NTASKS=$ntasks run "$@"
fi
FAKE

cat > "$work/fake/srun" <<'FAKE'
#!/bin/sh
# Fake srun: records its arguments and starts SLURM_NTASKS ranks via mpirun.
echo "srun $*" >> "$FAKE_SLURM_WORK/srun.log"
[ -n "$FAKE_MPIEXEC" ] || exit 0
exec "$FAKE_MPIEXEC" --allow-run-as-root --oversubscribe -np "$SLURM_NTASKS" "$@"
FAKE

# The program as the jobs see it: logs each command line, then runs.
cat > "$work/fake/stribeck" <<FAKE
#!/bin/sh
echo "stribeck \$*" >> "$work/stribeck.log"
exec "$bin" "\$@"
FAKE
chmod +x "$work/fake/sbatch" "$work/fake/srun" "$work/fake/stribeck"

# Unsharded reference.
"$bin" sweep "$config" --chunk 8192 -q -o "$work/one.h5" > /dev/null || fail "the unsharded reference run failed"

# Task 1 ran one chunk before its node failed: Slurm requeues it.
"$bin" sweep "$config" --chunk 8192 -q --shard 1/4 --max-chunks 1 -o "$work/out.shard1.h5" > /dev/null \
  || fail "the interrupted run of shard 1 failed"
[ -e "$work/out.shard1.h5.partial" ] || fail "no partial shard file to resume"

export FAKE_SLURM_WORK="$work" FAKE_MPIEXEC="$mpiexec" STRIBECK=stribeck PATH="$work/fake:$PATH"
cd "$work"
"$src/scripts/slurm/submit-array.sh" -n 4 -o out.h5 sweep "$config" --chunk 8192 -q > submit.out \
  || fail "submit-array.sh: $(cat submit.out)"
cat sbatch.log
grep -q "^sbatch --parsable --array=0-3 --job-name=stribeck-sweep .*/shard.sbatch out.h5 sweep $config --chunk 8192 -q\$" \
  sbatch.log || fail "the array job was not submitted as --array=0-3"
grep -q "^sbatch --parsable --dependency=afterok:100 --job-name=stribeck-merge .*/merge.sbatch out.h5 4\$" sbatch.log \
  || fail "the merge was not submitted as a job depending on the array (afterok:100)"
grep -q "submitted array job 100 (4 shards of stribeck sweep) and merge job 101 -> out.h5" submit.out \
  || fail "submit-array.sh said: $(cat submit.out)"
for f in failed_100 failed_101; do
  [ ! -e "$f" ] || fail "a job failed: $(cat job*.out)"
done
cat stribeck.log
grep -q -- "--shard auto -o out.shard0.h5\$" stribeck.log || fail "task 0 did not run --shard auto"
grep -q -- "--shard auto -o out.shard1.h5 --resume\$" stribeck.log || fail "the requeued task 1 did not resume"
grep -q "^stribeck merge out.shard0.h5 out.shard1.h5 out.shard2.h5 out.shard3.h5 -o out.h5\$" stribeck.log \
  || fail "the merge job did not merge the four shards"
ls out.shard* 2> /dev/null && fail "the merge job left the shard files"

compare() {
  /usr/bin/python3 - "$1" "$2" << 'PY'
import sys

import h5py
import numpy as np

got, want = (h5py.File(p, "r")["sweep"] for p in sys.argv[1:3])
names = []
want.visit(lambda n: names.append(n) if isinstance(want[n], h5py.Dataset) else None)
assert len(names) > 5, names
for n in names:
    a, b = got[n][()], want[n][()]
    same = np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    assert same, f"{sys.argv[1]}: sweep/{n} differs from the unsharded run"
for k in ("points", "first", "count", "shard_index", "shard_count", "count_ok", "count_invalid"):
    assert got.attrs[k] == want.attrs[k], f"{sys.argv[1]}: attribute {k}: {got.attrs[k]} != {want.attrs[k]}"
assert want.attrs["count_ok"] > 0 and want.attrs["count_invalid"] > 0
print(f"{sys.argv[1]}: {len(names)} datasets of {want.attrs['points']} points equal the unsharded run")
PY
}
compare out.h5 one.h5 || fail "the merged array run differs from the unsharded run"

# A failed task: the merge job never runs, and no output appears.
"$src/scripts/slurm/submit-array.sh" -n 2 -o bad.h5 sweep "$work/missing.toml" > /dev/null
grep -q "DependencyNeverSatisfied" sbatch.log || fail "the merge ran after a failed task"
[ ! -e bad.h5 ] || fail "bad.h5 written after a failed task"

# srun for MPI: one job, srun starting the ranks with --mpi.
sbatch --ntasks=2 "$src/scripts/slurm/mpi.sbatch" mpi.h5 sweep "$config" -q > /dev/null
grep -q "^srun stribeck sweep $config -q --mpi -o mpi.h5\$" srun.log || fail "mpi.sbatch ran: $(cat srun.log)"
if [ -n "$mpiexec" ]; then
  compare mpi.h5 one.h5 || fail "the MPI job's file differs from the unsharded run: $(cat job*.out)"
fi
echo "PASS"
