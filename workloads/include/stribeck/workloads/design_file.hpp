#pragma once
// The files of `stribeck design` (docs/identification.md, "Experiment
// design"): the rig's limits it designs within (RIG.toml, read), and the
// design it writes (DESIGN.toml: each experiment as the generator's options,
// in SI with the unit in every key, so a rig controller reads it without
// guessing), which `stribeck generate --design` reads back.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stribeck/workloads/generator.hpp"

namespace stribeck::workloads {

// What the rig can do. Lengths, speeds and accelerations are rad-based for a
// rotational model, the force a torque.
struct RigLimits {
  double stroke = 0;       // usable travel: max - min position of each experiment [m | rad]
  double v_max = 0;        // [m/s | rad/s]
  double a_max = 0;        // [m/s^2 | rad/s^2]
  double duration = 0;     // total test time over every experiment [s]
  double rate_hz = 0;      // sample rate [Hz]
  double force_noise = 0;  // standard deviation of the force sensor [N | N*m]
  // Chamber-A pressures an experiment may run at: the listed levels, or any
  // pressure in [pressure_min, pressure_max] (pressure_range). Empty and no
  // range: pressure 0 (models that read no pressure).
  std::vector<double> pressure_levels;
  bool pressure_range = false;
  double pressure_min = 0, pressure_max = 0;
  double pressure_b = 0;    // [Pa], held
  int max_experiments = 1;  // experiments the test may consist of
};

// Reads RIG.toml: numbers are SI, strings carry a unit ("200 mm", "50 bar").
// Every limit but the pressures and max_experiments is required and must be
// positive; the pressures are required when `needs_pressure`. One-line
// InputError "PATH:LINE:COLUMN: ..." otherwise (unknown keys included).
RigLimits read_rig_limits(const std::string& path, bool rotational, bool needs_pressure);

// One designed experiment: a generator profile with its free settings.
struct DesignedExperiment {
  std::string name;  // e1, e2, ...
  std::string profile;
  double duration = 0, rate_hz = 0, v_max = 0;
  bool has_pressure = false;  // the model reads pressure: pressure_a/_b are written
  double pressure_a = 0, pressure_b = 0;
  double band_lo_hz = 0.2, band_hi_hz = 2.0;  // multisine only
  int tones = 8;                              // multisine only
  std::uint64_t phase_seed = 1;               // multisine only: its phases
  // levels only (a plateau test with its own speeds and holds): the signed
  // speeds in turn, each held for its time, ramps at ramp_accel between.
  std::vector<double> levels, holds;
  double ramp_accel = 0;
  double stroke_used = 0, a_peak = 0;  // informational: what the trajectory uses
};

struct DesignFile {
  std::string model;
  bool rotational = false;
  std::vector<std::pair<std::string, double>> params;  // the prior, every model parameter in the model's order
  std::vector<DesignedExperiment> experiments;
};

// DESIGN.toml's text; `comment` (lines without '#') heads the file.
std::string design_toml(const DesignFile& d, const std::string& comment);

// Reads DESIGN.toml (format "stribeck-design", version 1); one-line
// InputError naming file, line and column for anything else.
DesignFile read_design_file(const std::string& path);

// The generator's options of experiment `e` (noiseless; the caller adds
// sensor settings), with `params` the full parameter vector of `model`.
GeneratorOptions generator_options(const DesignedExperiment& e, const std::string& model,
                                   const std::vector<double>& params);

// The log of a design (`generate --design`): one experiment per designed
// one, named as it, each with the sensor settings of `sensors` (noise,
// offset, quantisation, mass, areas, normal force, omitted channels) and
// its own noise stream: seed sensors.seed * 1000003 + k for experiment k, so
// the logs of consecutive seeds share no stream.
std::vector<data::Experiment> generate_design(const DesignFile& d, const std::vector<double>& params,
                                              const GeneratorOptions& sensors);

// What one trajectory uses of the rig: max - min position, and the peak
// |acceleration|, from the generator's channels of experiment `e`.
struct TrajectoryUse {
  double stroke = 0, a_peak = 0, v_peak = 0;
};
TrajectoryUse trajectory_use(const data::Experiment& e);

}  // namespace stribeck::workloads
