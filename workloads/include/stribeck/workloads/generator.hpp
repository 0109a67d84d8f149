#pragma once
// Synthetic rig logs: a velocity profile driven through any friction model of
// the kernel library (static or dynamic, via model_step), at one or more
// pressure levels, with the sensor effects of a real rig (noise, offset,
// quantisation, inertia, pressure-area force). Deterministic for a seed on
// every platform (own xoshiro256** + Box-Muller, no std:: distributions).
//
// Measured force (what a load cell between drive and specimen reads):
//   force = F_friction(v, p_a, p_b, F_n) + mass * a + p_a * area_a - p_b * area_b
//           + offset + noise, then quantised.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "stribeck/data/experiment.hpp"

namespace stribeck::workloads {

struct GeneratorOptions {
  std::string model;           // model id (kernels registry)
  std::vector<double> params;  // full parameter vector (defaults + overrides, validated by the caller)
  // triangle | sine-sweep | ramps | steps | plateaus | creep | multisine (see docs/data-format.md)
  std::string profile = "plateaus";
  double rate_hz = 1000;                // sample rate
  double duration = 0;                  // [s]; 0 = the profile's default length
  double v_max = 0.1;                   // peak velocity [m/s] (rad/s for rotational models)
  std::vector<double> pressure_levels;  // p_a [Pa] per experiment; empty: one experiment at p_a = 0
  double pressure_b = 0;                // [Pa]
  double normal_force = 0;              // [N], for models that read F_n
  double mass = 0;                      // [kg] moving mass: adds mass * acceleration
  double area_a = 0, area_b = 0;        // [m^2] piston areas: adds the pressure force
  // Per channel (time excluded): Gaussian noise std, constant offset,
  // quantisation step, all in SI.
  std::map<std::string, double> noise, offset, quantisation;
  std::uint64_t seed = 1;
  // multisine: position = sum of `tones` sines at log-spaced frequencies from
  // band_lo_hz to band_hi_hz, equal velocity amplitudes, phases drawn from
  // the seed, scaled to a peak velocity of v_max: the smooth, reversing
  // motion of a closed-loop positioning drive, with exact v and a.
  double band_lo_hz = 0.2, band_hi_hz = 2.0;
  int tones = 8;
  // multisine: seed of the phases; 0 = `seed` (a designed test keeps its
  // phases whatever the noise seed: `generate --design`).
  std::uint64_t phase_seed = 0;
  // levels (a designed plateau test, `generate --design` only): from rest,
  // each speed of `levels` [m/s | rad/s, signed] reached by a linear ramp at
  // `ramp_accel` and held for `holds` [s], then a ramp to rest, at rest for
  // the rest of `duration`; v_max is not used.
  std::vector<double> levels, holds;
  double ramp_accel = 0;
  // Channels left out of the log (e.g. velocity, acceleration: a rig that
  // records position only). Default: none.
  std::vector<std::string> omit;
};

// Names the profiles `generate` knows.
const std::vector<std::string>& generator_profiles();

// One experiment per pressure level (named p<bar>bar, or "run"). Channels:
// time, position, velocity, acceleration, force, pressure_a/_b (when a model
// reads them or levels are given), normal_force (when read), and
// friction_true (the noiseless model force, for checking fits). Attributes
// record model, parameters, profile, seed and sensor settings. Throws
// InputError for an unknown model/profile or unusable settings.
std::vector<data::Experiment> generate_log(const GeneratorOptions& options);

}  // namespace stribeck::workloads
