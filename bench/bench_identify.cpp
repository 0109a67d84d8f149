// Identification speed: a 5-parameter fit (simscape-cylinder-il: F_pr, f_cfr,
// R_brk, v_brk, f_v) to N noisy samples, timed end to end (data preparation,
// Ceres solve, covariance, report). Writes the same samples to a CSV so the
// SciPy peer (bench/peers/scipy_identify.py) fits identical data from the
// identical start. See bench/RESULTS.md.
//
//   bench_identify [--samples N] [--repeat R] [--threads T] [--csv PATH]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>

#include "stribeck/host/threads.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/models/simscape_cylinder_il.hpp"
#include "stribeck/kernels/stepping.hpp"

int main(int argc, char** argv) {
  long n = 100000;
  int repeat = 5, threads = 0;
  std::string csv = "/tmp/stribeck_bench_identify.csv";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--samples")) n = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeat")) repeat = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--csv")) csv = argv[i + 1];
  }
  using M = stribeck::SimscapeCylinderIL;
  const double truth[M::kNumParams] = {50.0, 2e-5, 1.5, 0.02, 200.0};
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> U(0, 1);
  std::normal_distribution<double> noise(0, 1.0);
  stribeck::Experiment e;
  e.name = "bench";
  e.source = "bench";
  auto& v = e.channels["velocity"];
  auto& pa = e.channels["pressure_a"];
  auto& pb = e.channels["pressure_b"];
  auto& f = e.channels["force"];
  const auto c = M::prepare(truth);
  for (long i = 0; i < n; ++i) {
    double vi = 1e-3 * std::pow(1e3, U(rng));
    if (U(rng) < 0.5) vi = -vi;
    const double ps = 1e5 + 9e5 * U(rng);
    v.push_back(vi);
    pa.push_back(0.6 * ps);
    pb.push_back(0.4 * ps);
    f.push_back(M::force(c, stribeck::Sample<double>{vi, 0.6 * ps, 0.4 * ps, 0.0}) + noise(rng));
  }
  if (std::FILE* out = std::fopen(csv.c_str(), "w")) {
    std::fputs("velocity,pressure_a,pressure_b,force\n", out);
    for (long i = 0; i < n; ++i) std::fprintf(out, "%.17g,%.17g,%.17g,%.17g\n", v[i], pa[i], pb[i], f[i]);
    std::fclose(out);
  }
  stribeck::ident::FitOptions o;
  o.initial = {"F_pr=30", "f_cfr=1e-5", "R_brk=1.2", "v_brk=0.01", "f_v=100"};  // same start as the peer
  o.keep_signals = false;
  o.num_threads = threads > 0 ? threads : stribeck::job_threads();
  std::vector<double> times, solver;
  stribeck::ident::FitSummary s;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    s = stribeck::ident::fit({e}, M::kId, o);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    solver.push_back(s.solver_seconds);
  }
  std::sort(times.begin(), times.end());
  std::sort(solver.begin(), solver.end());
  std::printf(
      "stribeck (Ceres %s, %d thread(s)): samples %ld, median %.4f s, min %.4f s over %d runs, "
      "(ceres::Solve alone: median %.4f s), iterations %d, rmse %.6f, status %s\n",
      "DENSE_NORMAL_CHOLESKY, Jet Jacobians", o.num_threads, n, times[times.size() / 2], times[0], repeat,
      solver[solver.size() / 2], s.iterations, s.rmse, stribeck::ident::status_name(s.status));
  for (const auto& p : s.parameters) std::printf("  %-6s %.8g +/- %.3g\n", p.name.c_str(), p.value, p.std_error);
  std::printf("data written to %s\n", csv.c_str());
  return s.converged ? 0 : 1;
}
