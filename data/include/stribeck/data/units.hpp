#pragma once
// Units as rig logs spell them, and their conversion to SI. A log channel
// stores SI values with its SI unit; files we import may use mm, bar, kN, ms,
// rpm, ... . Conversion is value_SI = factor * value + offset (the offset is
// only non-zero for temperatures in degC/degF).
#include <optional>
#include <string>
#include <string_view>

namespace stribeck {

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
};

struct UnitInfo {
  Dimension dimension = Dimension::kDimensionless;
  double factor = 1.0;  // SI value per unit
  double offset = 0.0;  // added after scaling (degC -> K)
  bool absolute_pressure = false;  // spelled as absolute (bara, psia, "bar (abs)")
  const char* si = "1";            // the SI unit of this dimension, as logs store it
};

// Looks a unit up (case-sensitive where it matters: "mm" vs "Mm" is not
// accepted, "ms" is milliseconds). Spaces, '·', '*', '^' and '²' spellings are
// normalised: "N*m", "N·m", "Nm"; "m/s^2", "m/s²", "m/s2". std::nullopt if
// unknown. "" is not a unit (callers decide what a missing unit means).
std::optional<UnitInfo> find_unit(std::string_view unit);

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

// Maps the many ways rigs name channels onto schema names: "Time", "t",
// "pos", "x", "vel", "v", "F", "Force", "p_A", "pA", "p1", "Fn", "temp",
// "angle", "omega", "speed", "torque", ... . Comparison ignores case, spaces,
// '_', '-' and '.'. Returns the input unchanged when no alias matches.
std::string canonical_channel(std::string_view name);

}  // namespace stribeck
