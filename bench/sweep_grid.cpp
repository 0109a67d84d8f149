// The grid benchmark of the sweep engine (bench/RESULTS.md): simscape-cylinder
// over a 4-axis grid of axis^4 parameter sets along one measured trace of
// `samples` samples (1 Hz velocity sine, 5 MPa / 1 MPa, force from reference
// parameters plus 0.5 N noise). Full size: --axis 16 --samples 16384
// (65,536 x 16,384). Peers in the same run:
//   --peer scalar : a plain single-threaded double loop over points and
//                   samples computing the same metrics (no engine)
// and bench/peers/numpy_grid.py / jax_grid.py read the trace written by
// --trace-out, so every implementation sees the same numbers.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "stribeck/workloads/sweep_run.hpp"

using namespace stribeck;

namespace {

struct Args {
  int axis = 8;
  long samples = 4096;
  std::string device = "cpu", precision = "fp64", peer, trace_out;
  int repeat = 1;
  bool breakdown = false;
  bool top_k_only = false;
};

workloads::SweepConfig grid_config(const Args& a) {
  workloads::SweepConfig c;
  c.model = "simscape-cylinder";
  const std::string n = std::to_string(a.axis);
  workloads::apply_param_flag(c, "F_pr=linear:0:60:" + n);
  workloads::apply_param_flag(c, "f_cfr=log:1e-7:1e-5:" + n);
  workloads::apply_param_flag(c, "K_brk=linear:1:2.5:" + n);
  workloads::apply_param_flag(c, "c_v=log:1:100:" + n);
  workloads::apply_param_flag(c, "f_vfr=200");
  workloads::apply_param_flag(c, "v_th=1e-4");
  workloads::TraceSource t;
  t.kind = workloads::TraceSource::kProfile;
  t.name = "sine";
  t.profile.amplitude = 0.05;
  t.profile.frequency = 1.0;
  t.profile.duration = 2.0;
  t.profile.samples = a.samples;
  t.profile.p_a = 5e6;
  t.profile.p_b = 1e6;
  t.profile.reference = {"F_pr=30", "f_cfr=2e-6", "K_brk=1.5", "c_v=10", "f_vfr=200"};
  t.profile.noise = 0.5;
  t.profile.seed = 7;
  c.traces.push_back(t);
  c.device = a.device;
  c.precision = a.precision;
  // Only the best points leave the device (the GPU's top-K mode), as the
  // jax peer returns only its best RMSE; otherwise every row comes back.
  c.keep_top_k_only = a.top_k_only;
  return c;
}

// x_k - x_{k-1} (dx_0 = 0) of the built-in sine profile, from the exact
// position the profile's log carries (x = A/w (1 - cos w t), as make_profile
// writes it), which is the dx the engine integrates the loop area over.
std::vector<double> profile_dx(const workloads::ProfileSpec& p) {
  const double w = 2 * M_PI * p.frequency, n1 = static_cast<double>(p.samples - 1);
  auto x = [&](std::int64_t i) {
    return p.amplitude / w * (1 - std::cos(w * (p.duration * static_cast<double>(i) / n1)));
  };
  std::vector<double> dx(static_cast<std::size_t>(p.samples), 0.0);
  for (std::int64_t k = 1; k < p.samples; ++k) dx[static_cast<std::size_t>(k)] = x(k) - x(k - 1);
  return dx;
}

// The peer: what a careful engineer writes without the engine.
double scalar_loop(const workloads::SweepPlan& plan, const std::vector<double>& dx, double* best_rmse) {
  const workloads::SweepTrace& tr = plan.traces[0];
  const std::size_t n = tr.v.size();
  double best = INFINITY;
  const auto t0 = std::chrono::steady_clock::now();
  double p[6];
  for (std::uint64_t i = 0; i < plan.count; ++i) {
    plan.point(i, p);
    const double F_pr = p[0], f_cfr = p[1], K_brk = p[2], f_vfr = p[3], c_v = p[4], v_th = p[5];
    double sse = 0, maxe = 0, peak = 0, sp = 0, sn = 0, energy = 0, loop = 0, fprev = 0, fvprev = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const double v = tr.v[k], fc = F_pr + f_cfr * (tr.p_a[k] + tr.p_b[k]);
      double F;
      if (std::fabs(v) > v_th)
        F = fc * (1 + (K_brk - 1) * std::exp(-c_v * std::fabs(v))) * (v > 0 ? 1 : -1) + f_vfr * v;
      else F = ((fc * (1 + (K_brk - 1) * std::exp(-c_v * v_th)) + f_vfr * v_th) / v_th) * v;
      const double e = F - tr.f_meas[k];
      sse += e * e;
      maxe = std::max(maxe, std::fabs(e));
      peak = std::max(peak, std::fabs(F));
      if (v > 0) sp += F;
      if (v < 0) sn += F;
      energy += 0.5 * (fvprev + F * v) * tr.dt[k];
      loop += 0.5 * (fprev + F) * dx[k];
      fprev = F;
      fvprev = F * v;
    }
    const double rmse = std::sqrt(sse / static_cast<double>(n));
    if (rmse < best) best = rmse;
    if (maxe + peak + sp + sn + energy + loop == 1234.5) std::printf(" ");  // keep every sum alive
  }
  *best_rmse = best;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--axis") a.axis = std::atoi(v.c_str());
    else if (k == "--samples") a.samples = std::atol(v.c_str());
    else if (k == "--device") a.device = v;
    else if (k == "--precision") a.precision = v;
    else if (k == "--peer") a.peer = v;
    else if (k == "--trace-out") a.trace_out = v;
    else if (k == "--repeat") a.repeat = std::atoi(v.c_str());
    else if (k == "--breakdown") a.breakdown = v == "1";
    else if (k == "--top-k-only") a.top_k_only = v == "1";
    else {
      std::fprintf(stderr,
                   "usage: sweep_grid [--axis N] [--samples N] [--device cpu|gpu] [--precision fp64|fp32] "
                   "[--peer scalar] [--trace-out CSV] [--repeat N] [--breakdown 1] [--top-k-only 1]\n");
      return 2;
    }
  }
  try {
    const workloads::SweepConfig c = grid_config(a);
    const workloads::SweepPlan plan = workloads::plan_sweep(c);
    const double evals = static_cast<double>(plan.count) * static_cast<double>(a.samples);
    const std::vector<double> dx = profile_dx(c.traces[0].profile);
    if (!a.trace_out.empty()) {
      const workloads::SweepTrace& t = plan.traces[0];
      std::FILE* f = std::fopen(a.trace_out.c_str(), "w");
      std::fprintf(f, "dt,velocity,pressure_a,pressure_b,dx,force\n");
      for (std::size_t k = 0; k < t.v.size(); ++k)
        std::fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", t.dt[k], t.v[k], t.p_a[k], t.p_b[k], dx[k],
                     t.f_meas[k]);
      std::fclose(f);
    }
    std::printf("workload: simscape-cylinder grid %d^4 = %llu points x %ld samples = %.3g evaluations\n", a.axis,
                static_cast<unsigned long long>(plan.count), a.samples, evals);
    workloads::SweepRunOptions o;
    o.device = a.device;
    o.precision = a.precision == "fp32" ? workloads::Precision::kFp32 : workloads::Precision::kFp64;
    if (a.breakdown && a.device == "gpu") {
      // Where a run's time goes besides the kernels: the device probe each
      // run makes, and one chunk evaluated with a workspace of its own
      // (streams, device and pinned buffers, trace upload) as every chunk
      // was before runs held one.
      using clock = std::chrono::steady_clock;
      auto secs = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
      for (int r = 0; r < 3; ++r) {
        auto t0 = clock::now();
        const workloads::DeviceChoice d = workloads::choose_device("gpu");
        const double probe = secs(t0);
        data::SweepChunk chunk;
        t0 = clock::now();
        workloads::evaluate_chunk_gpu(plan, o.precision, 0, plan.count, chunk);
        std::printf("breakdown: probe %.4f s, one chunk with its own workspace %.4f s (%s)\n", probe, secs(t0),
                    d.name.c_str());
      }
    }
    for (int r = 0; r < a.repeat; ++r) {
      const workloads::SweepSummary s = workloads::run_sweep(plan, c, o);
      std::printf("stribeck %s %s: %.3f s, %.3g evaluations/s, best rmse %.10g\n", s.device.c_str(),
                  a.precision.c_str(), s.seconds, evals / s.seconds, s.top.empty() ? NAN : s.top[0].objective);
    }
    if (a.peer == "scalar") {
      double best = 0;
      const double secs = scalar_loop(plan, dx, &best);
      std::printf("scalar loop (1 thread, fp64): %.3f s, %.3g evaluations/s, best rmse %.10g\n", secs, evals / secs,
                  best);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sweep_grid: %s\n", e.what());
    return 1;
  }
  return 0;
}
