#pragma once
// A fit's parameters as the reference tools take them (`stribeck
// export-params`, `stribeck.export_params`): Simscape (a set_param script),
// Modelica MSL (records), 20-sim (a parameters section) or plain JSON, and the
// reader of parameter files that `eval --params` shares.
//
// Where the target's law is the fitted one, the values carry over; where it
// differs, the target's parameters are fitted (fit_curve) to the fitted curve
// over the data's velocity range. Either way both laws are then evaluated
// through the kernels on the same velocities, and the largest force
// difference, the breakaway each holds and a stick-slip simulation of both
// are stated in the file and in the result.
#include <optional>
#include <string>
#include <vector>

#include "stribeck/kernels/systems/metrics.hpp"

namespace stribeck::ident {

// A parameter set read from a file: a fit report (`identify --json`; with
// several fits, entry `fit_index`, 0-based) or `export-params --to json`.
// Force-balance terms (mass, offset) are skipped and named in `ignored`.
// Throws InputError (one line naming the file) for malformed JSON, an
// unknown model, a missing, unknown, asymmetric or per-experiment parameter,
// or values that break the model's rules.
struct ParamFile {
  std::string model;
  std::vector<double> values;  // every parameter of the model, in its order
  std::vector<std::string> ignored;
  // Fitted to a rotational log (the fit report's force_unit is N*m): the
  // law's numbers are torques and angular velocities.
  bool rotational = false;
};
ParamFile read_param_file(const std::string& path, int fit_index = 0);

enum class ExportTarget { kSimscape, kModelica, kTwentySim, kJson };
// "simscape", "modelica", "20sim", "json".
const char* export_target_name(ExportTarget t);
// The target a name stands for; false for any other name.
bool parse_export_target(const std::string& name, ExportTarget* out);

struct ExportOptions {
  ExportTarget to = ExportTarget::kJson;
  // The fit report or parameter set (read_param_file); named in the file.
  std::string fit;
  // With a report of several fits (--compare, --batch): which one, 1 = first.
  int fit_index = 1;
  // A rig log the fit came from: its velocity channel gives the range, its
  // experiments the operating points (p_A + p_B, F_n). Empty: none.
  std::string data;
  // "LO:HI", |v| in m/s (rad/s for rotational laws) over which an
  // approximate conversion is fitted and checked; empty: from `data`, else
  // (exact conversions only) from the law's own velocity scale. Its syntax
  // is checked where a conversion uses it.
  std::string velocity_range;
  // p_A + p_B [Pa] a pressure-dependent law is taken at (else each
  // experiment's of `data`). Must be finite.
  std::optional<double> pressure;
  // F_n [N] between 20-sim's coefficients and the other tools' forces (else
  // each experiment's of `data`); must be > 0 where a conversion uses it.
  std::optional<double> normal_force;

  // True when the options can run; else false with `error` (if not null)
  // naming the wrong option, as the CLI spells it. Checked by
  // export_params before it reads anything.
  bool IsValid(std::string* error) const;
};

// Where a pressure- or normal-force-dependent law is taken: one operating
// point of the data (its experiments, each at its mean p_A + p_B and F_n;
// experiments at the same point share one) or the point the options state.
// The forces differ from point to point, so each point gets its own
// parameter set.
struct OperatingPoint {
  std::string label;              // experiment name(s), or the option that stated it; empty: no dependence
  double pressure = 0.0;          // p_A + p_B [Pa] the conversion is taken at
  double p_lo = 0.0, p_hi = 0.0;  // the data's span of p_A + p_B there (the check covers it)
  double normal_force = 1.0;      // F_n [N]
  double fn_lo = 1.0, fn_hi = 1.0;
};

// Both laws in the same spring-mass rig (the stiction form of
// kernels/systems, each with its own breakaway), driven at one speed of the
// data's range: what a simulation with the exported values does differently.
struct StickSlipCheck {
  std::string not_run;  // why it was not run (empty: it was)
  double mass = 1.0, stiffness = 0.0, drive_velocity = 0.0, t_end = 0.0;
  StickSlipMetrics<double> fitted, exported;
};

// What the file sets at one operating point: a kernel model's parameter
// vector (the target's law written as a model the toolkit runs), or for MSL
// rotational elements a table of the sliding characteristic and its peak.
struct ExportConversion {
  OperatingPoint at;
  std::string law;                       // kernel model id of the target's law (empty for a table)
  std::vector<double> params;            // its parameters
  std::vector<double> table_v, table_f;  // table nodes (MSL BearingFriction)
  double peak = 1.0;                     // BearingFriction: breakaway = peak * tau_pos(0)
  bool exact = false;
  std::string how;         // one line: how the values were obtained
  double max_error = 0.0;  // largest |F_target - F_fit| on the check grid (and the data's span of inputs)
  double max_force = 0.0;  // largest |F_fit| there
  double v_lo = 0.0, v_hi = 0.0;
  double breakaway_fit = 0.0, breakaway_export = 0.0;  // the force each holds at rest before it slides
  StickSlipCheck stick;
};

struct ExportResult {
  ParamFile source;
  std::vector<ExportConversion> conversions;  // one per operating point
  std::string text;                           // the file for the target tool
};

// Reads the fit (and the log), converts and writes the text. Throws
// InputError (one line) for invalid options or input.
ExportResult export_params(const ExportOptions& options);

// The summary of conversion `i`: the target, exactness, error, range and
// breakaway, and on a second line the stick-slip check; `output` names the
// file written (empty: standard output).
std::string export_summary(const ExportResult& r, const ExportOptions& options, size_t i, const std::string& output);
// Conversion `i`'s warning (its export breaks away at another force than the
// fit), one line; empty when none.
std::string export_warning(const ExportResult& r, size_t i);

}  // namespace stribeck::ident
