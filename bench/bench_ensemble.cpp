// End-to-end throughput of `stribeck simulate` ensembles (issue 5's GPU
// target workload, runnable on CPU or GPU): the mass-spring-LuGre stick-slip
// rig over a grid of spring stiffness x drive velocity, `steps` output steps
// of dt each, through run_ensemble (the same code path as the CLI, without
// writing the output, or streaming it to a file).
//
//   bench_ensemble [points_per_axis=64] [steps=10000] [dt=2.5e-5] [device=auto] [precision=fp32] [output]
//
// With `output` (an HDF5 path) the results are streamed there chunk by chunk
// as `stribeck simulate -o` does, with a checkpoint per chunk; the wall time
// then includes the writing the writer thread does not hide.
//
// Issue 5's target is points_per_axis=1024 (1,048,576 trajectories) x 10,000
// steps in fp32 on an H100. With dt = 2.5e-5 the stability bound asks for one
// RK4 step per output step almost everywhere, so RK4 steps ~ output steps;
// the exact count is printed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "stribeck/workloads/ensemble.hpp"

int main(int argc, char** argv) {
  const long side = argc > 1 ? std::atol(argv[1]) : 64;
  const long steps = argc > 2 ? std::atol(argv[2]) : 10000;
  const double dt = argc > 3 ? std::atof(argv[3]) : 2.5e-5;
  const std::string device = argc > 4 ? argv[4] : "auto";
  const std::string precision = argc > 5 ? argv[5] : "fp32";
  const std::string output = argc > 6 ? argv[6] : "";
  // The rig as a config: side x side points, n_steps output steps of dt.
  auto config_text = [&](long n_side, long n_steps) {
    char t_end[64], dts[64];
    std::snprintf(t_end, sizeof t_end, "%.17g", n_steps * dt);
    std::snprintf(dts, sizeof dts, "%.17g", dt);
    return std::string("[system]\nmass = 1.0\n[friction]\nmodel = \"lugre\"\n[simulation]\nt_end = ") + t_end +
           "\ndt = " + dts + "\n[ensemble]\nprecision = \"" + precision + "\"\ndevice = \"" + device +
           "\"\n[ensemble.params]\nstiffness = \"linear:1:50:" + std::to_string(n_side) +
           "\"\ndrive_velocity = \"linear:0.01:0.3:" + std::to_string(n_side) + "\"\n";
  };
  const std::string path = "/tmp/stribeck_bench_ensemble.toml", warm_path = "/tmp/stribeck_bench_ensemble_warm.toml";
  std::ofstream(path) << config_text(side, steps);
  std::ofstream(warm_path) << config_text(2, 10);
  try {
    // A 4-point, 10-step run first: the process's one-time costs (CUDA
    // context, module loading, first allocations) are reported apart, as
    // the peers' compilation is, and not counted in the rate.
    {
      const auto w0 = std::chrono::steady_clock::now();
      stribeck::workloads::run_ensemble(stribeck::workloads::read_simulate_config(warm_path),
                                        stribeck::workloads::EnsembleRunOptions{});
      std::printf("warm-up (4 trajectories x 10 steps, first call of the process): %.3f s\n",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
    }
    const stribeck::workloads::SimulateConfig c = stribeck::workloads::read_simulate_config(path);
    stribeck::workloads::EnsembleRunOptions o;
    o.output = output;
    if (!output.empty()) std::remove((output + ".partial").c_str());
    const stribeck::workloads::EnsembleResult r = stribeck::workloads::run_ensemble(c, o);
    double sum_v = 0;
    long bad = static_cast<long>(r.totals.completed - r.totals.status_counts[0]);
    for (const auto& m : r.metrics) sum_v += m.final_v;
    const double n = static_cast<double>(r.totals.completed);
    std::printf("ensemble: %.0f trajectories x %ld output steps (dt %g s), %s on %s%s\n", n, steps, dt,
                precision.c_str(), r.device.c_str(), output.empty() ? "" : (", streamed to " + output).c_str());
    // The rate is the simulations' (GPU: launch, copies and unpacking
    // included); the wall time adds setup and keeping the results.
    const double t = r.simulate_seconds;
    std::printf(
        "  %.3f s (wall %.3f s), %lld RK4 steps (%.3f per output step): %.3e RK4 steps/s, %.3e output steps/s\n", t,
        r.seconds, r.rk4_steps, double(r.rk4_steps) / (n * steps), r.rk4_steps / t, n * steps / t);
    if (output.empty()) std::printf("  status != ok: %ld; checksum (sum of final velocities) %.9g\n", bad, sum_v);
    else std::printf("  status != ok: %ld\n", bad);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_ensemble: %s\n", e.what());
    return 2;
  }
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    char buf[128] = {0};
    if (std::fgets(buf, sizeof buf, f)) std::printf("load average after the run: %s", buf);
    std::fclose(f);
  }
  return 0;
}
