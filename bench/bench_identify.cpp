// Identification speed: a whole `ident::fit` of one static model (every law of
// the model table that `identify` fits: --model, default simscape-cylinder-il)
// to N noisy samples, timed end to end (data preparation, start points, Ceres
// solve, quality, covariance, intervals, warnings), with the time of each
// phase. Writes the samples to a CSV and the estimates next to it
// (CSV.params), so the SciPy peer (bench/peers/scipy_identify.py MODEL) fits
// identical data from the identical start and compares its parameters.
// See bench/RESULTS.md and bench/identify_models.sh.
//
//   bench_identify [--model ID] [--samples N] [--repeat R] [--threads T] [--starts S] [--csv PATH]
//
// --starts: Ceres refinements (default 1: the given start alone, as the peer
// runs; 0 = identify's default automatic search).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "stribeck/workloads/threads.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/registry.hpp"

namespace {

// Truth and start of each bench model (the peer's MODELS table holds the same
// starts); parameters not named keep the model's default and are held.
struct Case {
  std::vector<std::pair<const char*, double>> truth, start;
};

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> c = {
      {"simscape-translational",
       {{{"F_brk", 30}, {"v_brk", 0.02}, {"F_C", 20}, {"f_v", 100}},
        {{"F_brk", 20}, {"v_brk", 0.01}, {"F_C", 15}, {"f_v", 50}}}},
      {"simscape-rotational",
       {{{"T_brk", 30}, {"w_brk", 0.02}, {"T_C", 20}, {"f_v", 100}},
        {{"T_brk", 20}, {"w_brk", 0.01}, {"T_C", 15}, {"f_v", 50}}}},
      {"simscape-cylinder",
       {{{"F_pr", 50}, {"f_cfr", 2e-5}, {"K_brk", 1.5}, {"f_vfr", 200}, {"c_v", 40}},
        {{"F_pr", 30}, {"f_cfr", 1e-5}, {"K_brk", 1.2}, {"f_vfr", 100}, {"c_v", 20}}}},
      {"simscape-cylinder-il",
       {{{"F_pr", 50}, {"f_cfr", 2e-5}, {"R_brk", 1.5}, {"v_brk", 0.02}, {"f_v", 200}},
        {{"F_pr", 30}, {"f_cfr", 1e-5}, {"R_brk", 1.2}, {"v_brk", 0.01}, {"f_v", 100}}}},
      {"20sim-c", {{{"mu_c", 0.1}}, {{"mu_c", 0.05}}}},
      {"20sim-v", {{{"mu_v", 0.01}}, {{"mu_v", 0.005}}}},
      {"20sim-cv", {{{"mu_c", 0.1}, {"mu_v", 0.01}}, {{"mu_c", 0.05}, {"mu_v", 0.005}}}},
      {"20sim-scvs",
       {{{"mu_s", 0.15}, {"mu_c", 0.1}, {"mu_v", 0.01}, {"v_st", 0.01}},
        {{"mu_s", 0.12}, {"mu_c", 0.05}, {"mu_v", 0.005}, {"v_st", 0.02}}}},
      {"coulomb-viscous", {{{"F_C", 20}, {"f_v", 100}}, {{"F_C", 10}, {"f_v", 50}}}},
  };
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  long n = 100000;
  int repeat = 5, threads = 0, starts = 1;
  std::string model = "simscape-cylinder-il", csv;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--samples")) n = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeat")) repeat = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--starts")) starts = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--model")) model = argv[i + 1];
    else if (!std::strcmp(argv[i], "--csv")) csv = argv[i + 1];
  }
  if (csv.empty()) csv = "/tmp/stribeck_bench_identify_" + model + ".csv";
  const auto it = cases().find(model);
  if (it == cases().end()) {
    std::fprintf(stderr, "bench_identify: error: no bench case for model '%s' (static models only)\n", model.c_str());
    return 2;
  }
  const stribeck::ModelInfo& info = *stribeck::find_model(model);
  std::vector<double> truth;
  for (const auto& p : info.params) truth.push_back(p.default_value);
  for (const auto& [name, value] : it->second.truth)
    for (size_t j = 0; j < info.params.size(); ++j)
      if (info.params[j].name == name) truth[j] = value;

  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> U(0, 1);
  std::normal_distribution<double> noise(0, 1.0);
  stribeck::data::Experiment e;
  e.name = "bench";
  e.source = "bench";
  auto& v = e.channels["velocity"];
  auto& pa = e.channels["pressure_a"];
  auto& pb = e.channels["pressure_b"];
  auto& fn = e.channels["normal_force"];
  auto& f = e.channels["force"];
  for (long i = 0; i < n; ++i) {
    double vi = 1e-3 * std::pow(1e3, U(rng));  // |v| log-uniform in 1e-3 .. 1 m/s, both directions
    if (U(rng) < 0.5) vi = -vi;
    const double ps = 1e5 + 9e5 * U(rng);  // p_a + p_b in 1 .. 10 bar
    v.push_back(vi);
    pa.push_back(0.6 * ps);
    pb.push_back(0.4 * ps);
    fn.push_back(500 + 1000 * U(rng));  // normal force 500 .. 1500 N
  }
  bool found = stribeck::visit_model(stribeck::StaticModels{}, model.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    const auto c = M::prepare(truth.data());
    for (long i = 0; i < n; ++i)
      f.push_back(M::force(c, stribeck::Sample<double>{v[i], pa[i], pb[i], fn[i]}) + noise(rng));
  });
  if (!found) return 2;
  // Only the channels the model reads go to the CSV (and into the fit).
  std::vector<std::string> cols = {"velocity"};
  if (info.inputs & stribeck::kChannelPressureA) cols.push_back("pressure_a");
  if (info.inputs & stribeck::kChannelPressureB) cols.push_back("pressure_b");
  if (info.inputs & stribeck::kChannelNormalForce) cols.push_back("normal_force");
  cols.push_back("force");
  for (const char* ch : {"pressure_a", "pressure_b", "normal_force"})
    if (std::find(cols.begin(), cols.end(), ch) == cols.end()) e.channels.erase(ch);
  if (std::FILE* out = std::fopen(csv.c_str(), "w")) {
    for (size_t j = 0; j < cols.size(); ++j) std::fprintf(out, "%s%s", j ? "," : "", cols[j].c_str());
    std::fputs("\n", out);
    for (long i = 0; i < n; ++i)
      for (size_t j = 0; j < cols.size(); ++j)
        std::fprintf(out, "%.17g%s", e.channels[cols[j]][i], j + 1 < cols.size() ? "," : "\n");
    std::fclose(out);
  }
  stribeck::ident::FitOptions o;
  for (const auto& [name, value] : it->second.start) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s=%.17g", name, value);
    o.initial.push_back(buf);  // the peer's start
  }
  o.starts = starts;
  o.keep_signals = false;
  o.num_threads = threads > 0 ? threads : stribeck::workloads::job_threads();
  std::vector<double> times, cpu, solver;
  stribeck::ident::FitSummary s;
  std::map<std::string, std::vector<double>> phase;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();  // CPU time of the process, all threads
    s = stribeck::ident::fit({e}, model, o);
    cpu.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    solver.push_back(s.solver_seconds);
    std::map<std::string, double> sum;
    for (const auto& [name, t] : s.phase_seconds) sum[name] += t;
    for (const auto& [name, t] : sum) phase[name].push_back(t);
  }
  std::sort(times.begin(), times.end());
  std::sort(solver.begin(), solver.end());
  std::sort(cpu.begin(), cpu.end());
  std::printf(
      "stribeck %s (%d thread(s), starts %d): samples %ld, median %.4f s, min %.4f s over %d runs, "
      "cpu median %.4f s, min %.4f s (ceres::Solve alone: median %.4f s), iterations %d, rmse %.6f, status %s, "
      "starts run %d\n",
      model.c_str(), o.num_threads, starts, n, times[times.size() / 2], times[0], repeat, cpu[cpu.size() / 2], cpu[0],
      solver[solver.size() / 2], s.iterations, s.rmse, stribeck::ident::status_name(s.status), s.starts);
  std::printf("  phases (median s):");
  for (auto& [name, t] : phase) {
    std::sort(t.begin(), t.end());
    std::printf(" %s %.4f;", name.c_str(), t[t.size() / 2]);
  }
  std::printf("\n");
  std::FILE* params = std::fopen((csv + ".params").c_str(), "w");
  for (const auto& p : s.parameters) {
    if (p.fixed) continue;
    std::printf("  %-6s %.8g +/- %.3g (%s)\n", p.name.c_str(), p.value, p.std_error, p.interval.c_str());
    if (params) std::fprintf(params, "%s %.17g\n", p.name.c_str(), p.value);
  }
  if (params) std::fclose(params);
  for (const auto& w : s.warnings) std::printf("  warning: %s\n", w.c_str());
  std::printf("data written to %s\n", csv.c_str());
  return s.converged ? 0 : 1;
}
