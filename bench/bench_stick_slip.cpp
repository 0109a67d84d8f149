// CPU throughput of the mass-spring-LuGre stick-slip ensemble (issue 5):
// this project's path (simulate_smooth<LuGre> with stability-bounded RK4
// sub-steps, energy integrals and per-trajectory metrics, OpenMP over
// trajectories) against a plain scalar loop of the same physics (3 states,
// fixed-step RK4, nothing else), in one run.
//
//   bench_stick_slip [trajectories=2048] [steps=10000] [dt=1e-3] [h_plain=2.5e-5]
//
// Both integrate the same horizon steps*dt. The project path takes output
// steps of dt and sub-divides them as its stability bound requires; the
// plain loop needs one fixed step h_plain that is stable everywhere (found
// by hand: 2.5e-5 s for these parameters; at 5e-5 the fast-drive corner
// goes unstable and the checksum is off by 0.8 %). Reported: RK4 steps/s and
// the wall time for the ensemble.
//
// Parameter sets: spring stiffness 1..50 N/m x drive velocity 0.01..0.3 m/s
// (a stick-slip map), LuGre with the paper's parameters, m = 1 kg.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/systems/metrics.hpp"
#include "stribeck/kernels/systems/smooth_friction.hpp"

using namespace stribeck;

namespace {

const double kLuGre[] = {1e5, 316.2277660168379, 0.4, 1.0, 1.5, 0.001};

void grid_point(long i, long n, double& k, double& vd) {
  const long side = std::lround(std::sqrt(double(n)));
  const long a = i % side, b = (i / side) % side;
  k = 1.0 + 49.0 * a / (side > 1 ? side - 1 : 1);
  vd = 0.01 + 0.29 * b / (side > 1 ? side - 1 : 1);
}

template <class T>
double run_project(long n, long steps, double dt, long& rk4_steps, long& stick_slip, int& bad, double& checksum) {
  std::vector<T> p(std::begin(kLuGre), std::end(kLuGre));
  const auto fc = LuGre::prepare(p.data());
  long total = 0, ss = 0;
  int nbad = 0;
  double sum = 0;
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : total, ss, nbad, sum)
  for (long i = 0; i < n; ++i) {
    double k, vd;
    grid_point(i, n, k, vd);
    BodySystem<T> b;
    b.mass = T(1);
    b.stiffness = T(k);
    b.drive_velocity = constant_profile(T(vd));
    SimOptions<T> o;
    o.dt = T(dt);
    o.t_end = T(dt * steps);
    MetricsAccumulator<T> acc(MetricsOptions<T>{}, o.t_end);
    long count = 0;
    BodySnapshot<T> end;
    const int st = simulate_smooth<LuGre>(fc, b, o, acc, &count, &end);
    const auto m = acc.finish(st, end);
    total += count;
    ss += m.stick_slip;
    nbad += st != kSimOk;
    sum += double(m.final_v);
  }
  checksum = sum;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rk4_steps = total;
  stick_slip = ss;
  bad = nbad;
  return s;
}

// The same physics written as the shortest correct loop: s, v, z; RK4 with
// a fixed step h = dt (no stability bound, no energies, no metrics).
double run_plain(long n, long steps, double dt, int threads, double& checksum) {
  // here `steps` fixed RK4 steps of `dt`
  const double s0 = kLuGre[0], s1 = kLuGre[1], s2 = kLuGre[2], fc = kLuGre[3], fs = kLuGre[4], vs = kLuGre[5];
  double sum = 0;
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : sum) num_threads(threads)
  for (long i = 0; i < n; ++i) {
    double k, vd;
    grid_point(i, n, k, vd);
    auto rhs = [&](const double* y, double* dy) {
      const double x = y[1] / vs;
      const double g = fc + (fs - fc) * std::exp(-x * x);
      const double zd = y[1] - s0 * std::fabs(y[1]) * y[2] / g;
      dy[0] = vd - y[1];
      dy[1] = k * y[0] - (s0 * y[2] + s1 * zd + s2 * y[1]);
      dy[2] = zd;
    };
    double y[3] = {0, 0, 0};
    for (long j = 0; j < steps; ++j) {
      double k1[3], k2[3], k3[3], k4[3], w[3];
      rhs(y, k1);
      for (int q = 0; q < 3; ++q) w[q] = y[q] + 0.5 * dt * k1[q];
      rhs(w, k2);
      for (int q = 0; q < 3; ++q) w[q] = y[q] + 0.5 * dt * k2[q];
      rhs(w, k3);
      for (int q = 0; q < 3; ++q) w[q] = y[q] + dt * k3[q];
      rhs(w, k4);
      for (int q = 0; q < 3; ++q) y[q] += dt / 6 * (k1[q] + 2 * (k2[q] + k3[q]) + k4[q]);
    }
    sum += y[1];
  }
  checksum = sum;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 2048;
  const long steps = argc > 2 ? std::atol(argv[2]) : 10000;
  const double dt = argc > 3 ? std::atof(argv[3]) : 1e-3;
  const double h_plain = argc > 4 ? std::atof(argv[4]) : 2.5e-5;
  const int threads = omp_get_max_threads();
  const long plain_n = std::lround(steps * dt / h_plain);
  std::printf(
      "mass-spring-LuGre stick-slip ensemble: %ld trajectories, horizon %g s (%ld output steps of %g s; "
      "plain loop %ld steps of %g s), %d threads\n",
      n, steps * dt, steps, dt, plain_n, h_plain, threads);
  double checksum;
  const double t_plain1 = run_plain(n, plain_n, h_plain, 1, checksum);
  const double plain_steps = double(n) * plain_n;
  std::printf("plain scalar loop, double, 1 thread      : %8.3f s  %.3e RK4 steps/s  (checksum %.6g)\n", t_plain1,
              plain_steps / t_plain1, checksum);
  const double t_plainN = run_plain(n, plain_n, h_plain, threads, checksum);
  std::printf("plain scalar loop, double, %d threads     : %8.3f s  %.3e RK4 steps/s\n", threads, t_plainN,
              plain_steps / t_plainN);
  long rk, ss;
  int bad;
  double sum_d, sum_f;
  double t = run_project<double>(n, steps, dt, rk, ss, bad, sum_d);
  std::printf(
      "stribeck simulate_smooth, double, %d thr. : %8.3f s  %.3e RK4 steps/s  (%ld RK4 steps, %.2f per "
      "output step; stick-slip in %ld, status != ok in %d)\n",
      threads, t, rk / t, rk, double(rk) / (double(n) * steps), ss, bad);
  t = run_project<float>(n, steps, dt, rk, ss, bad, sum_f);
  std::printf(
      "stribeck simulate_smooth, float,  %d thr. : %8.3f s  %.3e RK4 steps/s  (%ld RK4 steps; stick-slip "
      "in %ld, status != ok in %d)\n",
      threads, t, rk / t, rk, ss, bad);
  // Same physics, different step sequences: the final velocities must agree.
  std::printf("checksum (sum of final velocities): plain %.9g, project double %.9g, float %.9g\n", checksum, sum_d,
              sum_f);
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    char buf[128] = {0};
    if (std::fgets(buf, sizeof buf, f)) std::printf("load average after the run: %s", buf);
    std::fclose(f);
  }
  return 0;
}
