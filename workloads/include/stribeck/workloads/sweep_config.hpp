#pragma once
// What a sweep is asked to do, as read from a TOML config (docs/sweep.md) and
// command-line flags. Parsing checks syntax and names; plan_sweep() checks the
// values against the model.
#include <cstdint>
#include <string>
#include <vector>

#include "stribeck/kernels/sweep/space.hpp"

namespace stribeck::workloads {

// One parameter's axis as the user wrote it.
struct ParamSpec {
  std::string name;
  sweep::AxisKind kind = sweep::AxisKind::kFixed;
  double a = 0, b = 0;                   // value / range ends / mean, sd
  double lo = -HUGE_VAL, hi = HUGE_VAL;  // normal truncation
  std::uint64_t count = 0;               // linear/log grid levels (0: not given)
  std::vector<double> values;            // list
  std::string where;                     // "file:line:col" or "--param" for messages
};

// A built-in input profile: a velocity sine with constant pressures/normal force.
// Built-in profile traces hold at most this many samples (the traces are
// held in memory, ~80 B per sample with their metric weights).
constexpr std::int64_t kMaxProfileSamples = 50'000'000;

struct ProfileSpec {
  std::string shape = "sine";  // only "sine" so far
  double amplitude = 0.05;     // velocity amplitude [m/s]
  double frequency = 1.0;      // [Hz]
  double duration = 2.0;       // [s]
  std::int64_t samples = 4096;
  double p_a = 0, p_b = 0, f_n = 0;  // constant channel values [Pa, Pa, N]
  // When non-empty: a "measured" force is synthesised from the model with the
  // defaults plus these NAME=VALUE assignments (a reference to fit against).
  std::vector<std::string> reference;
  double noise = 0;  // standard deviation of added Gaussian noise [N]
  std::uint64_t seed = 1;
};

// One source of experiments.
struct TraceSource {
  enum Kind { kFile, kProfile } kind = kFile;
  std::string path;                      // rig log: HDF5, MATLAB v7.3 or delimited text (read_any_log)
  std::vector<std::string> experiments;  // experiments of the log to use (empty: all)
  std::string name;                      // profile name
  ProfileSpec profile;
  std::string where;
};

struct SweepConfig {
  std::string model;
  sweep::Design design = sweep::Design::kGrid;
  std::uint64_t points = 0;  // non-grid designs
  std::uint64_t seed = 1;
  bool scramble = true;  // Sobol'
  std::vector<ParamSpec> params;
  std::vector<TraceSource> traces;

  std::vector<std::string> metrics;  // kept metrics (empty: all)
  std::string
      objective;  // ranks the top-K table (ascending unless maximize); "": rmse with a measured force, else energy
  bool maximize = false;
  int top_k = 10;
  bool per_experiment = false;  // keep per-experiment metrics too

  std::string device = "auto";     // auto | gpu | cpu
  std::string precision = "fp64";  // fp64 | fp32
  std::uint64_t chunk = 1u << 20;  // points per host chunk (bounds host memory)

  std::string output;  // HDF5 file (empty: summary only)
  bool keep_top_k_only = false;
  std::vector<std::uint64_t> trajectories;  // indices whose force traces are written

  std::string text;  // config text as read (provenance)
  std::string path;  // config file ("" when built from flags)
};

// Reads a TOML config; throws InputError "file:line:col: message".
SweepConfig parse_sweep_config(const std::string& text, const std::string& path);
SweepConfig read_sweep_config(const std::string& path);

// Applies a command-line parameter spec "NAME=SPEC" where SPEC is one of
//   VALUE | list:V1,V2,... | linear:LO:HI:COUNT | log:LO:HI:COUNT |
//   uniform:LO:HI | loguniform:LO:HI | normal:MEAN:SD[:LO:HI]
// replacing a config entry of the same name.
void apply_param_flag(SweepConfig& config, const std::string& flag);
// Adds a built-in profile trace from "sine[,KEY=VALUE...]" with keys name,
// amplitude, frequency, duration, samples, p_a, p_b, normal_force (no
// reference force: use a config for that).
void apply_profile_flag(SweepConfig& config, const std::string& flag);
sweep::Design parse_design(const std::string& name, const std::string& where);

}  // namespace stribeck::workloads
