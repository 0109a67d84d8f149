#pragma once
// Units as rig logs spell them, and their conversion to SI. A log channel
// stores SI values with its SI unit; files we import may use mm, bar, kN, ms,
// uN, rpm, N*m/rad, ... . Conversion is value_SI = factor * value + offset
// (the offset is only non-zero for temperatures in degC/degF).
//
// A unit is parsed by a small grammar over a table of base units
// (docs/data-format.md, "Units"): any SI prefix, q to Q with u, µ or μ for
// micro, on any SI base unit (m, g, s, K, rad, N, Pa, bar, Hz), powers
// (m/s^2, m/s2, m/s², s^-1), products and quotients (N*m, N·m, kN/(m/s)).
// Units outside SI (min, h, in, lbf, psi, atm, deg, rev, rpm, %) take no
// prefix; degC/degF (C/F) are affine and stand only alone.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace stribeck::data {

enum class Dimension {
  kDimensionless,
  kTime,
  kLength,
  kVelocity,
  kAcceleration,
  kForce,
  kPressure,
  kAngle,
  kAngularVelocity,
  kAngularAcceleration,
  kTorque,
  kTemperature,
  kOther,  // a quantity outside the log schema (N*s/m, N*m/rad, 1/s, ...): UnitInfo::si spells it
};

struct UnitInfo {
  Dimension dimension = Dimension::kDimensionless;
  double factor = 1.0;             // SI value per unit
  double offset = 0.0;             // added after scaling (degC -> K)
  bool absolute_pressure = false;  // spelled as absolute (bara, psia, "bar (abs)")
  std::string si = "1";            // the SI unit, as logs store it ("N*s/m" for kN/(m/s))
};

// How stored values become SI, one arithmetic for every reader (read_log,
// the HDF5 block reader, text columns): x -> factor * x + offset where
// `affine`, then minus `ambient` where `minus_ambient` (an absolute pressure
// in a gauge-less unit).
struct SiConversion {
  bool affine = false;
  double factor = 1.0, offset = 0.0;
  bool minus_ambient = false;
  double ambient = 0.0;
  void apply(double* v, std::size_t n) const {
    if (affine)
      for (std::size_t i = 0; i < n; ++i) v[i] = factor * v[i] + offset;
    if (minus_ambient)
      for (std::size_t i = 0; i < n; ++i) v[i] -= ambient;
  }
};

// Looks a unit up (case-sensitive: "mm" is millimetres, "Mm" megametres,
// "ms" milliseconds). Spaces, '·', '*', '^' and superscript spellings are
// normalised: "N*m", "N·m", "Nm"; "m/s^2", "m/s²", "m/s2". std::nullopt if
// unknown. "" is not a unit (callers decide what a missing unit means).
// N*m is a torque (energy, J, is not a unit here).
std::optional<UnitInfo> find_unit(std::string_view unit);

// A number with an optional unit: "3bar", "3 bar", "100 mm/s", "0.1" (SI).
// Returns the SI value; `dimension` receives the unit's dimension (unset for
// a bare number). Throws InputError naming `what` for malformed text or an
// unknown unit. Absolute-pressure units subtract `ambient` [Pa].
double parse_quantity(std::string_view text, const std::string& what, std::optional<Dimension>* dimension = nullptr,
                      double ambient = 101325.0);

// SI unit string for a dimension ("m/s", "Pa", "N*m", ...).
const char* si_unit(Dimension d);
const char* dimension_name(Dimension d);

// Schema channel names (time, position, velocity, acceleration, force,
// pressure_a, pressure_b, normal_force, temperature).
bool is_schema_channel(std::string_view name);
// The dimension a schema channel must have in a translational or rotational
// log (position: length or angle, force: force or torque, ...). nullopt for
// names outside the schema.
std::optional<Dimension> channel_dimension(std::string_view channel, bool rotational);

// The unit a translational quantity has in a rotational log, by dimension:
// force N -> N*m, displacement m -> rad, mass kg -> kg*m^2, so "m/s" ->
// "rad/s", "N/m" -> "N*m/rad", "N/(m/s)" -> "N*m/(rad/s)", "N^2" ->
// "(N*m)^2", "s/m" -> "s/rad". Other base units (s, Pa, "1") stay as they
// are; a law in pascals is no rotational law, so callers refuse it first.
std::string rotational_unit(std::string_view translational);

// What a channel holds, in words (CF `long_name`): "measured friction
// force", ... for schema channels and `generate`'s friction_true; "" for
// other names (a user's channel is described by its name alone: a name can
// be long, and an attribute repeating it could overflow the object header).
std::string channel_long_name(std::string_view channel, bool rotational);

// Maps the many ways rigs name channels onto schema names: "Time", "t",
// "pos", "x", "vel", "v", "F", "Force", "p_A", "pA", "p1", "Fn", "temp",
// "angle", "omega", "speed", "torque", ... . Comparison ignores case, spaces,
// '_', '-' and '.'. Returns the input unchanged when no alias matches.
std::string canonical_channel(std::string_view name);

}  // namespace stribeck::data
