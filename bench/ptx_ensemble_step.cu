// Compiled only, never run: output steps of the mass-spring-LuGre stick-slip
// rig as an ensemble thread takes them in the common case (affine inputs, one
// RK4 sub-step, the dissipative states only), to count what a step costs on
// the GPU without one. Two counts (bench/sass_per_step.sh runs both):
//
// PTX between two marker comments, one step (STEPS=1):
//   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Ikernels/include \
//       -ptx bench/ptx_ensemble_step.cu -o /tmp/step.ptx
//   awk '/STEP BEGIN/,/STEP END/' /tmp/step.ptx | grep -c ';'
// The markers order the step against the loads and stores around it, not
// every instruction, so the count is an estimate.
//
// SASS, the machine code: the kernel's size in the cubin with STEPS=4 minus
// with STEPS=2 (the steps are unrolled), over 2. A static count: both arms of
// every branch, rare ones included (bench/RESULTS.md).
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/systems/ensemble.hpp"

#ifndef STEPS
#define STEPS 1
#endif

using namespace stribeck;

__global__ void one_step(const float* __restrict__ in, float* __restrict__ out, MetricsAccumulator<float>* accs) {
  // Every system quantity is a run-time value, as in the ensemble kernel
  // (where the space sets them), so that nothing folds here that would not
  // fold there; the inputs are affine (constant drive speed, constant force).
  BodySystem<float> b;
  b.mass = in[20];
  b.stiffness = in[0];
  b.damping = in[21];
  b.drive_velocity.offset = in[1];
  b.drive_velocity.slope = in[22];
  b.external_force.offset = in[23];
  b.external_force.slope = in[24];
  b.area_a = in[25];
  b.area_b = in[26];
  b.pressure_a.offset = in[27];
  b.pressure_b.offset = in[28];
  // LuGre's defaults as constants: like the loop-invariant set-up that the
  // real loop hoists, what depends only on them folds away here.
  const float p[LuGre::kNumParams] = {1e5f, 316.2277660f, 0.4f, 1.0f, 1.5f, 0.001f};
  const auto fc = LuGre::prepare(p);
  // The affine-only body, as the GPU runs the benchmark's ensemble
  // (ensemble_affine).
  const SmoothBody<LuGre, float, kBodyNDissipation, true> sys{b, fc};
  float x[kBodyNDissipation], k1[kBodyNDissipation];
  for (int i = 0; i < kBodyNDissipation; ++i) {
    x[i] = in[2 + i];
    k1[i] = in[9 + i];
  }
  const float dt = in[16], t0 = in[17];
  MetricsAccumulator<float> acc = accs[threadIdx.x];
  auto f = [&](const float& t, const float* y, float* dy) { sys(t, y, dy); };
  const float rate_one = in[18];
  float rate = in[19];
  // Per-trajectory values the real loop hoists, computed before the steps.
  asm volatile("" ::"f"(sys.mech_rate), "f"(1.0f / b.mass));
  asm volatile("// STEP BEGIN");
#pragma unroll
  for (int k = 0; k < STEPS; ++k) {
    const float t = k == 0 ? t0 : t0 + float(k) * dt;
    if (rate <= rate_one) rk4_step_k1<kBodyNDissipation>(f, t, x, dt, k1);
    if (all_finite(x)) acc(sys.at(t + dt, x, k1, rate));
  }
  asm volatile("// STEP END");
  out[0] = rate;
  for (int i = 0; i < kBodyNDissipation; ++i) out[1 + i] = x[i] + k1[i];
  accs[threadIdx.x] = acc;
}
