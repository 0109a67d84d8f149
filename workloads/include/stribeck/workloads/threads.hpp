#pragma once
// How many threads a job may use. Every thread count in the toolkit comes from
// here (or from omp_get_max_threads() directly in OpenMP code): OpenMP's count
// honours the CPU affinity the process was started with (taskset, Slurm,
// cgroup cpusets) and OMP_NUM_THREADS, where std::thread::hardware_concurrency()
// counts every CPU of the machine and oversubscribes a limited job.
namespace stribeck::workloads {

// omp_get_max_threads(), at least 1.
int job_threads();

}  // namespace stribeck::workloads
