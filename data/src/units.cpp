#include "stribeck/data/units.hpp"

#include <cctype>
#include <cmath>

namespace stribeck {
namespace {

struct UnitRow {
  const char* name;
  Dimension dim;
  double factor;
  double offset;
};

constexpr double kPi = 3.14159265358979323846;
constexpr double kPsi = 6894.757293168361;  // Pa per lbf/in^2 (exact by definition of lb, in, g0)

// Canonical spellings after normalise(); see find_unit().
constexpr UnitRow kUnits[] = {
    {"1", Dimension::kDimensionless, 1, 0},
    {"-", Dimension::kDimensionless, 1, 0},
    {"%", Dimension::kDimensionless, 0.01, 0},
    {"s", Dimension::kTime, 1, 0},
    {"sec", Dimension::kTime, 1, 0},
    {"ms", Dimension::kTime, 1e-3, 0},
    {"us", Dimension::kTime, 1e-6, 0},
    {"min", Dimension::kTime, 60, 0},
    {"h", Dimension::kTime, 3600, 0},
    {"m", Dimension::kLength, 1, 0},
    {"cm", Dimension::kLength, 1e-2, 0},
    {"mm", Dimension::kLength, 1e-3, 0},
    {"um", Dimension::kLength, 1e-6, 0},
    {"nm", Dimension::kLength, 1e-9, 0},
    {"in", Dimension::kLength, 0.0254, 0},
    {"m/s", Dimension::kVelocity, 1, 0},
    {"cm/s", Dimension::kVelocity, 1e-2, 0},
    {"mm/s", Dimension::kVelocity, 1e-3, 0},
    {"um/s", Dimension::kVelocity, 1e-6, 0},
    {"m/min", Dimension::kVelocity, 1.0 / 60, 0},
    {"mm/min", Dimension::kVelocity, 1e-3 / 60, 0},
    {"in/s", Dimension::kVelocity, 0.0254, 0},
    {"m/s^2", Dimension::kAcceleration, 1, 0},
    {"mm/s^2", Dimension::kAcceleration, 1e-3, 0},
    {"N", Dimension::kForce, 1, 0},
    {"mN", Dimension::kForce, 1e-3, 0},
    {"daN", Dimension::kForce, 10, 0},
    {"kN", Dimension::kForce, 1e3, 0},
    {"MN", Dimension::kForce, 1e6, 0},
    {"lbf", Dimension::kForce, 4.4482216152605, 0},
    {"Pa", Dimension::kPressure, 1, 0},
    {"hPa", Dimension::kPressure, 1e2, 0},
    {"kPa", Dimension::kPressure, 1e3, 0},
    {"MPa", Dimension::kPressure, 1e6, 0},
    {"mbar", Dimension::kPressure, 1e2, 0},
    {"bar", Dimension::kPressure, 1e5, 0},
    {"psi", Dimension::kPressure, kPsi, 0},
    {"atm", Dimension::kPressure, 101325, 0},
    {"N/m^2", Dimension::kPressure, 1, 0},
    {"N/mm^2", Dimension::kPressure, 1e6, 0},
    {"rad", Dimension::kAngle, 1, 0},
    {"mrad", Dimension::kAngle, 1e-3, 0},
    {"deg", Dimension::kAngle, kPi / 180, 0},
    {"rev", Dimension::kAngle, 2 * kPi, 0},
    {"rad/s", Dimension::kAngularVelocity, 1, 0},
    {"deg/s", Dimension::kAngularVelocity, kPi / 180, 0},
    {"rpm", Dimension::kAngularVelocity, 2 * kPi / 60, 0},
    {"rev/min", Dimension::kAngularVelocity, 2 * kPi / 60, 0},
    {"1/min", Dimension::kAngularVelocity, 2 * kPi / 60, 0},
    {"U/min", Dimension::kAngularVelocity, 2 * kPi / 60, 0},
    {"rev/s", Dimension::kAngularVelocity, 2 * kPi, 0},
    {"rad/s^2", Dimension::kAngularAcceleration, 1, 0},
    {"deg/s^2", Dimension::kAngularAcceleration, kPi / 180, 0},
    {"N*m", Dimension::kTorque, 1, 0},
    {"Nm", Dimension::kTorque, 1, 0},
    {"N*mm", Dimension::kTorque, 1e-3, 0},
    {"Nmm", Dimension::kTorque, 1e-3, 0},
    {"mN*m", Dimension::kTorque, 1e-3, 0},
    {"kN*m", Dimension::kTorque, 1e3, 0},
    {"kNm", Dimension::kTorque, 1e3, 0},
    {"K", Dimension::kTemperature, 1, 0},
    {"degC", Dimension::kTemperature, 1, 273.15},
    {"C", Dimension::kTemperature, 1, 273.15},
    {"degF", Dimension::kTemperature, 5.0 / 9.0, 459.67 * 5.0 / 9.0},
    {"F", Dimension::kTemperature, 5.0 / 9.0, 459.67 * 5.0 / 9.0},
};

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Spelling variants → the canonical forms of kUnits.
std::string normalise(std::string_view in) {
  std::string s;
  for (size_t i = 0; i < in.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(in[i]);
    // UTF-8: µ (C2 B5), μ (CE BC), ° (C2 B0), ² (C2 B2), · (C2 B7), ⋅ (E2 8B 85)
    if (c == 0xC2 && i + 1 < in.size()) {
      const unsigned char d = static_cast<unsigned char>(in[i + 1]);
      if (d == 0xB5) { s += 'u'; ++i; continue; }
      if (d == 0xB0) { s += "deg"; ++i; continue; }
      if (d == 0xB2) { s += "^2"; ++i; continue; }
      if (d == 0xB7) { s += '*'; ++i; continue; }
    }
    if (c == 0xCE && i + 1 < in.size() && static_cast<unsigned char>(in[i + 1]) == 0xBC) { s += 'u'; ++i; continue; }
    if (c == 0xE2 && i + 2 < in.size() && static_cast<unsigned char>(in[i + 1]) == 0x8B &&
        static_cast<unsigned char>(in[i + 2]) == 0x85) { s += '*'; i += 2; continue; }
    if (c == ' ' || c == '\t') continue;
    s += static_cast<char>(c);
  }
  if (s == "deg") return s;
  if (s.rfind("deg", 0) == 0 && s.size() > 3 && (s[3] == 'C' || s[3] == 'F') && s.size() == 4) return s;
  // "m/s2" -> "m/s^2"
  if (ends_with(s, "/s2")) s.insert(s.size() - 1, "^");
  if (ends_with(s, "/m2") || ends_with(s, "/mm2")) s.insert(s.size() - 1, "^");
  // "N.m" -> "N*m"
  for (size_t i = 1; i + 1 < s.size(); ++i)
    if (s[i] == '.' && std::isalpha(static_cast<unsigned char>(s[i - 1])) &&
        std::isalpha(static_cast<unsigned char>(s[i + 1])))
      s[i] = '*';
  if (s == "RPM" || s == "r/min") return "rpm";
  if (s == "sec" || s == "secs") return "s";
  return s;
}

std::string squash(std::string_view name) {
  std::string s;
  for (char c : name) {
    if (c == ' ' || c == '_' || c == '-' || c == '.' || c == '\t') continue;
    s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

struct Alias {
  const char* squashed;
  const char* channel;
};
constexpr Alias kAliases[] = {
    {"time", "time"}, {"t", "time"}, {"zeit", "time"}, {"timestamp", "time"},
    {"position", "position"}, {"pos", "position"}, {"x", "position"}, {"s", "position"},
    {"displacement", "position"}, {"disp", "position"}, {"stroke", "position"}, {"weg", "position"},
    {"pistonposition", "position"}, {"angle", "position"}, {"theta", "position"}, {"phi", "position"},
    {"angularposition", "position"},
    {"velocity", "velocity"}, {"vel", "velocity"}, {"v", "velocity"}, {"speed", "velocity"},
    {"xdot", "velocity"}, {"omega", "velocity"}, {"angularvelocity", "velocity"},
    {"acceleration", "acceleration"}, {"acc", "acceleration"}, {"accel", "acceleration"},
    {"a", "acceleration"}, {"xddot", "acceleration"}, {"alpha", "acceleration"},
    {"angularacceleration", "acceleration"},
    {"force", "force"}, {"f", "force"}, {"load", "force"}, {"loadcell", "force"},
    {"loadcellforce", "force"}, {"frictionforce", "force"}, {"ffric", "force"}, {"kraft", "force"},
    {"torque", "force"}, {"tau", "force"}, {"moment", "force"},
    {"pressurea", "pressure_a"}, {"pa", "pressure_a"}, {"p1", "pressure_a"}, {"pressure1", "pressure_a"},
    {"pressure", "pressure_a"}, {"p", "pressure_a"}, {"chamberpressure", "pressure_a"},
    {"pressureb", "pressure_b"}, {"pb", "pressure_b"}, {"p2", "pressure_b"}, {"pressure2", "pressure_b"},
    {"normalforce", "normal_force"}, {"fn", "normal_force"}, {"fnormal", "normal_force"},
    {"temperature", "temperature"}, {"temp", "temperature"}, {"oiltemperature", "temperature"},
};

constexpr const char* kSchema[] = {"time",       "position",   "velocity",     "acceleration", "force",
                                   "pressure_a", "pressure_b", "normal_force", "temperature"};

}  // namespace

std::optional<UnitInfo> find_unit(std::string_view unit) {
  std::string s = normalise(unit);
  if (s.empty()) return std::nullopt;
  bool absolute = false, gauge = false;
  // Pressure reference suffixes: bara, bar(a), bar(abs), barabs, psia, ...(g)
  auto strip = [&](std::string_view suf, bool& flag) {
    if (ends_with(s, suf) && s.size() > suf.size()) {
      const std::string base = s.substr(0, s.size() - suf.size());
      for (const auto& u : kUnits)
        if (base == u.name && u.dim == Dimension::kPressure) {
          s = base;
          flag = true;
          return true;
        }
    }
    return false;
  };
  strip("(abs)", absolute) || strip("abs", absolute) || strip("(a)", absolute) || strip("a", absolute) ||
      strip("(g)", gauge) || strip("g", gauge);
  for (const auto& u : kUnits) {
    if (s != u.name) continue;
    UnitInfo info;
    info.dimension = u.dim;
    info.factor = u.factor;
    info.offset = u.offset;
    info.absolute_pressure = absolute;
    info.si = si_unit(u.dim);
    return info;
  }
  return std::nullopt;
}

const char* si_unit(Dimension d) {
  switch (d) {
    case Dimension::kDimensionless: return "1";
    case Dimension::kTime: return "s";
    case Dimension::kLength: return "m";
    case Dimension::kVelocity: return "m/s";
    case Dimension::kAcceleration: return "m/s^2";
    case Dimension::kForce: return "N";
    case Dimension::kPressure: return "Pa";
    case Dimension::kAngle: return "rad";
    case Dimension::kAngularVelocity: return "rad/s";
    case Dimension::kAngularAcceleration: return "rad/s^2";
    case Dimension::kTorque: return "N*m";
    case Dimension::kTemperature: return "K";
  }
  return "?";
}

const char* dimension_name(Dimension d) {
  switch (d) {
    case Dimension::kDimensionless: return "dimensionless";
    case Dimension::kTime: return "time";
    case Dimension::kLength: return "length";
    case Dimension::kVelocity: return "velocity";
    case Dimension::kAcceleration: return "acceleration";
    case Dimension::kForce: return "force";
    case Dimension::kPressure: return "pressure";
    case Dimension::kAngle: return "angle";
    case Dimension::kAngularVelocity: return "angular velocity";
    case Dimension::kAngularAcceleration: return "angular acceleration";
    case Dimension::kTorque: return "torque";
    case Dimension::kTemperature: return "temperature";
  }
  return "?";
}

bool is_schema_channel(std::string_view name) {
  for (const char* c : kSchema)
    if (name == c) return true;
  return false;
}

std::optional<Dimension> channel_dimension(std::string_view ch, bool rotational) {
  if (ch == "time") return Dimension::kTime;
  if (ch == "position") return rotational ? Dimension::kAngle : Dimension::kLength;
  if (ch == "velocity") return rotational ? Dimension::kAngularVelocity : Dimension::kVelocity;
  if (ch == "acceleration") return rotational ? Dimension::kAngularAcceleration : Dimension::kAcceleration;
  if (ch == "force") return rotational ? Dimension::kTorque : Dimension::kForce;
  if (ch == "pressure_a" || ch == "pressure_b") return Dimension::kPressure;
  if (ch == "normal_force") return Dimension::kForce;
  if (ch == "temperature") return Dimension::kTemperature;
  return std::nullopt;
}

std::string canonical_channel(std::string_view name) {
  if (is_schema_channel(name)) return std::string(name);
  const std::string s = squash(name);
  for (const auto& a : kAliases)
    if (s == a.squashed) return a.channel;
  return std::string(name);
}

}  // namespace stribeck
