#!/bin/sh
# Submits a sharded stribeck run to Slurm: an array of N tasks, task i running
# `stribeck COMMAND ARGS... --shard auto -o OUT.shardI.h5` (shard.sbatch), and
# the merge into OUT.h5 as a job that starts only once every task has
# succeeded (merge.sbatch, --dependency=afterok). docs/sweep.md, "Clusters
# (Slurm)".
#
#   submit-array.sh -n N -o OUT.h5 COMMAND ARGS...
#   submit-array.sh -n 8 -o sobol.h5 sweep examples/sweep_translational_sobol.toml
#   submit-array.sh -n 16 -o fits.h5 identify rig.h5 --batch -m simscape-cylinder
#
# OUT must be on a file system every node sees (the shards and the merge may
# run on different nodes). Options for sbatch: its SBATCH_* variables
# (SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_ACCOUNT, ...) or #SBATCH lines
# in the two job scripts. STRIBECK names the program (default: stribeck on
# the PATH); sbatch passes the environment on to the jobs.
set -eu
usage() {
  echo "usage: $0 -n SHARDS -o OUT.h5 COMMAND ARGS...  (COMMAND: sweep, simulate, identify --batch)" >&2
  exit 1
}
here=$(cd "$(dirname "$0")" && pwd)
n=
out=
while [ $# -gt 0 ]; do
  case $1 in
    -n | -o) [ $# -ge 2 ] || usage ;;
  esac
  case $1 in
    -n) n=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] && [ -n "$out" ] || usage
case $n in
  '' | *[!0-9]* | 0) echo "$0: -n '$n': expected a positive number of shards" >&2; exit 1 ;;
esac
case $out in
  *.h5) ;;
  *) echo "$0: -o '$out': shard files and the merged file are HDF5; name it .h5" >&2; exit 1 ;;
esac

# --parsable prints "JOBID" or "JOBID;CLUSTER".
array=$(sbatch --parsable --array="0-$((n - 1))" --job-name="stribeck-$1" "$here/shard.sbatch" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --job-name="stribeck-merge" "$here/merge.sbatch" "$out" "$n")
echo "submitted array job $array ($n shards of stribeck $1) and merge job ${merge%%;*} -> $out"
