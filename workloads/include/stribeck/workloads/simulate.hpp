#pragma once
// `stribeck simulate`: one body system (stick-slip rig, force-driven body,
// hydraulic cylinder; see kernels/systems/body.hpp) with one friction model,
// described by a TOML file (docs/dynamics.md), written as time series.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stribeck/workloads/fit_prior.hpp"
#include "stribeck/workloads/sweep_config.hpp"
#include "stribeck/kernels/systems/body.hpp"
#include "stribeck/kernels/systems/metrics.hpp"
#include "stribeck/kernels/systems/sim_options.hpp"
#include "stribeck/kernels/systems/stiction_breakaway.hpp"

namespace stribeck::workloads {

// A measured input: samples of one log channel, added to the profile of the
// same name (pressure_a, pressure_b, normal_force, external_force).
struct InputTable {
  std::string channel;
  std::vector<double> t, y;
};

// The profile of `b` a measured channel adds to (nullptr for other channels).
template <class T>
Profile<T>* measured_input_profile(BodySystem<T>& b, const std::string& channel) {
  return channel == "pressure_a"       ? &b.pressure_a
         : channel == "pressure_b"     ? &b.pressure_b
         : channel == "normal_force"   ? &b.normal_force
         : channel == "external_force" ? &b.external_force
                                       : nullptr;
}

struct SimulateConfig {
  std::string source;          // config file path (for messages)
  std::string text;            // full config text (provenance)
  std::string model;           // friction model id
  std::vector<double> params;  // validated parameter vector of the model
  std::vector<std::string> warnings;
  bool stiction = false;           // form = "stiction": Karnopp state machine over a static law
  double breakaway = 0.0;          // stiction: breakaway force F_brk [N] (or torque), both directions
  BreakawayParams breakaway_from;  // stiction without 'breakaway': the law's own, per side
  bool rotational = false;         // units only: rad, rad/s, N*m, kg*m^2
  BodySystem<double> body;         // profiles without their tables (see tables)
  std::vector<InputTable> tables;  // [system] inputs = "log": measured inputs
  SimOptions<double> sim;
  MetricsOptions<double> metrics;

  // [ensemble] (optional): vary model parameters and system quantities over a
  // sweep parameter space instead of running one simulation.
  bool ensemble = false;
  sweep::Design design = sweep::Design::kGrid;
  std::uint64_t points = 0;  // random, lhs, sobol designs
  std::uint64_t seed = 1;
  bool scramble = true;
  bool fp32 = false;
  std::string device = "auto";  // auto (GPU when usable, else CPU) | cpu | gpu
  std::vector<ParamSpec> axes;  // parsed with the sweep's NAME=SPEC syntax
  FitPrior prior;               // from_fit: the fit's free parameters, drawn jointly (prior.file "" otherwise)
};

// Parses and validates a config; every problem is an InputError naming the
// file, line and column (or key).
SimulateConfig read_simulate_config(const std::string& path);
// The same from config text already in memory (the Python module);
// `path` names it in messages.
SimulateConfig parse_simulate_config(const std::string& text, const std::string& path);

// One line: the stiction form's breakaway `brk` on `side` (+1: v > 0, -1:
// v < 0) is below the sliding force `slide0` of law `id` there.
std::string stiction_breakaway_message(const std::string& id, int side, double brk, double slide0);

// The stiction form's breakaway of law M over body b with parameters p (the
// config's, or the law's own per side: stiction_breakaway) into brk; "" when
// it holds at least the law's force just off zero speed on both sides, else
// why not (stiction_breakaway_message). simulate and the ensemble's reasons
// for invalid points both check it here.
template <class M>
std::string stiction_breakaway_problem(const SimulateConfig& c, const BodySystem<double>& b, const double* p,
                                       StictionBreakaway<double>& brk) {
  const auto fc = M::prepare(p);
  const StictionBreakaway<double> slide0 = stiction_slide0<M>(fc, body_inputs(b, 0.0));
  brk = stiction_breakaway(c.breakaway, c.breakaway_from, p, slide0);
  const int side = stiction_short_side(brk, slide0);
  if (side == 0) return "";
  return stiction_breakaway_message(M::kId, side, side > 0 ? brk.pos : brk.neg, side > 0 ? slide0.pos : slide0.neg);
}

struct SimulateSummary {
  long samples = 0;
  StickSlipMetrics<double> metrics;
};

// One output signal of a simulation: name, unit, what it is (CF long_name),
// one value per output sample.
struct SeriesChannel {
  std::string name, unit, long_name;
  std::vector<double> values;
};

// A simulation run in memory: its time series (the channels the output file
// holds, in its order) and metrics.
struct SimulationSeries {
  std::vector<SeriesChannel> channels;
  SimulateSummary summary;
};

// Runs the simulation and keeps the time series in memory (what
// run_simulation writes). Throws InputError as run_simulation does.
SimulationSeries simulate_series(const SimulateConfig& config);

// Runs the simulation and writes `output`: HDF5 (experiment "simulation"
// with one channel per signal plus a results group "results/metrics"), or
// CSV when the name ends in ".csv". Atomic. `command_line` goes into the
// HDF5 provenance.
SimulateSummary run_simulation(const SimulateConfig& config, const std::string& output,
                               const std::string& command_line);

// The stick-slip metrics of one run as named columns, in the order simulate
// and ensemble outputs write them.
std::vector<std::pair<std::string, double>> stick_slip_metric_columns(const StickSlipMetrics<double>& r);

}  // namespace stribeck::workloads
