// Uses one thing from each installed layer: a model's metadata and equation
// (kernels), a unit (data), the version (host), a Ceres fit (identification).
#include <cmath>
#include <cstdio>

#include "stribeck/data/experiment.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/workloads/version.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/kernels/models/coulomb_viscous.hpp"
#include "stribeck/kernels/registry.hpp"

int main() {
  using stribeck::CoulombViscous;
  const stribeck::ModelInfo* m = stribeck::find_model("coulomb-viscous");
  if (!m) return 1;
  const auto uN = stribeck::data::find_unit("uN");
  if (!uN) return 1;

  // F = F_C sign(v) + f_v v with F_C = 20 N, f_v = 100 N/(m/s), sampled on a
  // velocity ramp, then fitted back.
  const double p[] = {20.0, 100.0, 0.0};
  const auto c = CoulombViscous::prepare(p);
  stribeck::data::Experiment e;
  e.name = "ramp";
  for (int i = 0; i < 400; ++i) {
    const double v = -0.2 + 0.001 * i + 0.0005;
    e.channels["velocity"].push_back(v);
    e.channels["force"].push_back(CoulombViscous::force(c, stribeck::Sample<double>{v, 0, 0, 0}));
  }
  e.units = {{"velocity", "m/s"}, {"force", "N"}};
  stribeck::ident::FitOptions o;
  o.free = {"F_C", "f_v"};
  const auto s = stribeck::ident::fit({e}, m->id, o);

  std::printf("stribeck %s (%s)\n", stribeck::workloads::version(), STRIBECK_EXECUTABLE);
  std::printf("model %s: %zu parameters, force at 0.25 m/s: %.6g N\n", m->id.c_str(), m->params.size(),
              CoulombViscous::force(c, stribeck::Sample<double>{0.25, 0, 0, 0}));
  std::printf("1 uN = %g %s\n", uN->factor, uN->si.c_str());
  for (const auto& q : s.parameters)
    if (!q.fixed) std::printf("fit %s = %.6g %s\n", q.name.c_str(), q.value, q.unit.c_str());
  return s.converged ? 0 : 1;
}
