// In-memory eval (the engine `stribeck eval` runs on every block:
// evaluate_samples, the model chosen once, threads across the samples) next
// to a numba peer (bench/peers/eval_numba.py, @njit(parallel=True,
// fastmath=True)) on the same threads and the same inputs, in one run; the
// forces of both are compared.
//
//   OMP_NUM_THREADS=T NUMBA_NUM_THREADS=T build/bin/bench_eval_memory [--samples N] [--repeat R] [--no-peer]
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "stribeck/workloads/eval.hpp"
#include "stribeck/workloads/params.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  long n = 10000000;
  int repeat = 5;
  bool peer = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--samples") && i + 1 < argc) n = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--no-peer")) peer = false;
    else {
      std::fprintf(stderr, "usage: bench_eval_memory [--samples N] [--repeat R] [--no-peer]\n");
      return 2;
    }
  }
  // The trace of bench_eval: a 1 kHz velocity sweep through zero with
  // pressures following it.
  std::vector<double> in(3 * static_cast<size_t>(n));
  double *v = in.data(), *pa = v + n, *pb = pa + n;
  for (long i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) * 1e-3;
    v[i] = 0.2 * std::sin(2 * M_PI * 0.05 * t) * (1 + 0.1 * std::sin(7.0 * t));
    pa[i] = 5e6 + 2e6 * v[i];
    pb[i] = 3e6 - 1e6 * v[i];
  }
  const std::vector<std::string> assign = {"K_brk=1.5", "F_pr=50"};
  const auto& model = stribeck::workloads::require_model("simscape-cylinder");
  const std::vector<double> p = stribeck::workloads::resolve_params(model, assign);
  std::vector<double> force(static_cast<size_t>(n));
  stribeck::workloads::EvalInputs e;
  e.n = static_cast<size_t>(n);
  e.velocity = v;
  e.pressure_a = pa;
  e.pressure_b = pb;
  double best = 1e300;
  for (int r = 0; r < repeat + 1; ++r) {  // the first round warms pages and threads
    const auto t0 = std::chrono::steady_clock::now();
    stribeck::workloads::evaluate_samples(model.id, p, e, force.data());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) best = std::min(best, s);
  }
  std::vector<double> force_vm(static_cast<size_t>(n));
  e.vector_math = true;
  double best_vm = 1e300;
  for (int r = 0; r < repeat + 1; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    stribeck::workloads::evaluate_samples(model.id, p, e, force_vm.data());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) best_vm = std::min(best_vm, s);
  }
  const int threads = omp_get_max_threads();
  std::printf("samples %ld, threads %d, best of %d\n", n, threads, repeat);
  std::printf("%-28s %10.6f s %12.3e samples/s\n", "stribeck evaluate_samples", best, n / best);
  std::printf("%-28s %10.6f s %12.3e samples/s\n", "stribeck --vector-math", best_vm, n / best_vm);
  if (!peer) return 0;
  const fs::path dir = fs::temp_directory_path() / ("stribeck_bench_mem_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path inputs = dir / "in.f64", forces = dir / "force.f64", log = dir / "peer.txt";
  {
    std::FILE* f = std::fopen(inputs.c_str(), "wb");
    std::fwrite(in.data(), sizeof(double), in.size(), f);
    std::fclose(f);
  }
  const std::string cmd = "NUMBA_NUM_THREADS=" + std::to_string(threads) +
                          " /usr/bin/python3 " STRIBECK_SOURCE_DIR "/bench/peers/eval_numba.py " + inputs.string() +
                          " " + std::to_string(n) + " " + std::to_string(repeat) + " " + forces.string() +
                          " K_brk=1.5 F_pr=50 > " + log.string();
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "bench_eval_memory: peer failed: %s\n", cmd.c_str());
    fs::remove_all(dir);
    return 1;
  }
  double peer_s = 0;
  {
    std::FILE* f = std::fopen(log.c_str(), "r");
    if (!f || std::fscanf(f, "numba_seconds %lf", &peer_s) != 1) {
      std::fprintf(stderr, "bench_eval_memory: no timing from the peer\n");
      return 1;
    }
    std::fclose(f);
  }
  std::vector<double> pf(static_cast<size_t>(n));
  {
    std::FILE* f = std::fopen(forces.c_str(), "rb");
    if (!f || std::fread(pf.data(), sizeof(double), pf.size(), f) != pf.size()) {
      std::fprintf(stderr, "bench_eval_memory: no forces from the peer\n");
      return 1;
    }
    std::fclose(f);
  }
  fs::remove_all(dir);
  double worst = 0;
  for (long i = 0; i < n; ++i) {
    const double d =
        std::max(std::abs(force[i] - pf[i]), std::abs(force_vm[i] - pf[i])) / std::max(1.0, std::abs(force[i]));
    worst = std::max(worst, d);
  }
  std::printf("%-28s %10.6f s %12.3e samples/s\n", "numba parallel fastmath", peer_s, n / peer_s);
  std::printf("speed vs numba: default %.2fx, --vector-math %.2fx; max |difference| / max(1, |F|) = %.2e\n",
              peer_s / best, peer_s / best_vm, worst);
  return worst < 1e-12 ? 0 : 1;
}
