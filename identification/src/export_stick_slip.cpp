// The stick-slip check of an export: both laws in the same spring-mass rig
// (the stiction simulation of kernels/systems through simulate_series).
#include <algorithm>
#include <string>
#include <vector>

#include "export_internal.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/simulate.hpp"

namespace stribeck::ident::exporter {

// The spring-mass rig of the stick-slip check: a body on a spring pulled
// where the fitted law falls fastest on the check grid (a falling
// characteristic is what makes a contact stick-slip), at least a hundredth of
// the range's top speed and a tenth of it where the law does not fall; the
// spring stiff enough that it reaches the fitted breakaway after 50 ms of
// drive travel; 1 s, the second half the steady state the metrics read. The
// body is 1 kg (kg m^2), or heavier where a law's slope just above rest (a
// thin linear zone, a steep tanh) would need more than 256 RK4 sub-steps per
// 0.1 ms output step: the integrator resolves slope/mass, so a light body on
// such a law takes minutes. A run that still hits the limit says so (status
// step-limit) with the metrics up to where it stopped.
double check_drive_velocity(const std::vector<double>& v, const std::vector<double>& f) {
  double steepest = 0.0, at = 0.1 * v.back();
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    const double slope = (f[i + 1] - f[i]) / (v[i + 1] - v[i]);
    if (slope < steepest) steepest = slope, at = v[i];
  }
  return std::max(at, 0.01 * v.back());
}
void stick_slip_check(ExportConversion& c, double v_d, const std::string& src_model,
                      const std::vector<double>& src_params, double src_fn, bool rotational) {
  if (c.law.empty()) {
    c.stick.not_run = "a table has no law to simulate; its breakaway is the fit's";
    return;
  }
  const double scale = std::max(c.max_force, 1e-300);
  const double hold = std::max(c.breakaway_fit, 1e-3 * scale);
  c.stick.drive_velocity = v_d;
  c.stick.stiffness = hold / (0.05 * v_d);
  c.stick.t_end = 1.0;
  constexpr double kDt = 1e-4, kRho = 0.05;  // kStictionStepRho: h * slope / mass <= 0.05 while sliding
  constexpr int kSubsteps = 256;
  auto slope_at_rest = [&](const std::string& model, const std::vector<double>& p, double fn) {
    const double d = 1e-9 * c.v_hi;
    const std::vector<double> f = eval_law(model, p, {d, 2.0 * d}, c.at.pressure, fn);
    return std::abs(f[1] - f[0]) / d;
  };
  const double slope =
      std::max(slope_at_rest(src_model, src_params, src_fn), slope_at_rest(c.law, c.params, c.at.normal_force));
  c.stick.mass = std::max(1.0, 2.0 * slope * kDt / (kSubsteps * kRho));
  auto run = [&](const std::string& model, const std::vector<double>& p, double breakaway, double fn,
                 StickSlipMetrics<double>& out) {
    workloads::SimulateConfig s;
    s.source = "export-params: stick-slip check of " + model;
    s.model = model;
    s.params = p;
    s.stiction = true;
    // The contact must hold at least what the law gives just off rest, on
    // both sides (simulate refuses a breakaway below either).
    const std::vector<double> f0 = eval_law(model, p, {1e-12, -1e-12}, c.at.pressure, fn);
    s.breakaway = std::max({breakaway, std::abs(f0[0]), std::abs(f0[1]), 1e-9 * scale});
    s.rotational = rotational;
    s.body.mass = c.stick.mass;
    s.body.stiffness = c.stick.stiffness;
    s.body.drive_velocity.offset = v_d;
    s.body.pressure_a.offset = c.at.pressure;
    s.body.normal_force.offset = fn;
    s.sim.t_end = c.stick.t_end;
    s.sim.dt = kDt;
    s.sim.max_substeps = kSubsteps;
    s.metrics.v_stick = 1e-2 * v_d;
    s.metrics.v_breakaway = 0.1 * v_d;
    out = workloads::simulate_series(s).summary.metrics;
  };
  try {
    run(src_model, src_params, c.breakaway_fit, src_fn, c.stick.fitted);
    run(c.law, c.params, c.breakaway_export, c.at.normal_force, c.stick.exported);
  } catch (const data::InputError& e) {
    c.stick.not_run = e.what();
  }
}

}  // namespace stribeck::ident::exporter
