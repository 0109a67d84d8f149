// Compiled to PTX only, never run: one output step of the mass-spring-LuGre
// stick-slip rig as an ensemble thread takes it in the common case (affine
// inputs, one RK4 sub-step, the dissipative states only), between two marker
// comments, to count what a step costs on the GPU without one:
//
//   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Ikernels/include \
//       -ptx bench/ptx_ensemble_step.cu -o /tmp/step.ptx
//   awk '/STEP BEGIN/,/STEP END/' /tmp/step.ptx | grep -c ';'
//
// The markers order the step against the loads and stores around it, not
// every instruction, so the count is an estimate (bench/RESULTS.md).
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/systems/ensemble.hpp"

using namespace stribeck;

__global__ void one_step(const float* __restrict__ in, float* __restrict__ out, MetricsAccumulator<float>* accs) {
  BodySystem<float> b;
  b.mass = 1.0f;
  b.stiffness = in[0];
  b.drive_velocity.offset = in[1];
  // LuGre's defaults as constants: like the loop-invariant set-up that the
  // real loop hoists, what depends only on them folds away here.
  const float p[LuGre::kNumParams] = {1e5f, 316.2277660f, 0.4f, 1.0f, 1.5f, 0.001f};
  const auto fc = LuGre::prepare(p);
  const SmoothBody<LuGre, float, kBodyNDissipation> sys{b, fc};
  float x[kBodyNDissipation], k1[kBodyNDissipation];
  for (int i = 0; i < kBodyNDissipation; ++i) {
    x[i] = in[2 + i];
    k1[i] = in[9 + i];
  }
  const float dt = in[16], t0 = in[17];
  MetricsAccumulator<float> acc = accs[threadIdx.x];
  auto f = [&](const float& t, const float* y, float* dy) { sys(t, y, dy); };
  asm volatile("// STEP BEGIN");
  rk4_step_k1<kBodyNDissipation>(f, t0, x, dt, k1);
  if (all_finite(x)) {
    float rate;
    acc(sys.at(t0 + dt, x, k1, rate));
    out[0] = rate;
  }
  asm volatile("// STEP END");
  for (int i = 0; i < kBodyNDissipation; ++i) out[1 + i] = x[i] + k1[i];
  accs[threadIdx.x] = acc;
}
