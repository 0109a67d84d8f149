#include "stribeck/data/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

#include "stribeck/data/error.hpp"

namespace stribeck::data {
namespace {

// Exponents of a unit over the base quantities the toolkit tells apart:
// length, mass, time, temperature and plane angle (kept apart from 1 so that
// rad/s is an angular velocity and N*m/rad a torsional stiffness).
constexpr int kBases = 5;
using Exponents = std::array<int, kBases>;  // m, kg, s, K, rad

constexpr double kPi = 3.14159265358979323846;
constexpr double kPsi = 6894.757293168361;  // Pa per lbf/in^2 (exact by definition of lb, in, g0)

// The base-unit table: every symbol the grammar knows, its SI value, its
// exponents and the SI symbol it is written as in results. `prefix`: takes
// any SI prefix (SI units, and bar). Units that are whole spellings of one
// quantity only (degC, rpm, 1/min, ...) are in kWhole below.
struct BaseUnit {
  const char* name;
  double factor;
  Exponents exp;
  const char* si;
  bool prefix;
};
constexpr BaseUnit kBaseUnits[] = {
    {"m", 1, {1, 0, 0, 0, 0}, "m", true},
    {"g", 1e-3, {0, 1, 0, 0, 0}, "kg", true},
    {"s", 1, {0, 0, 1, 0, 0}, "s", true},
    {"K", 1, {0, 0, 0, 1, 0}, "K", true},
    {"rad", 1, {0, 0, 0, 0, 1}, "rad", true},
    {"N", 1, {1, 1, -2, 0, 0}, "N", true},
    {"Pa", 1, {-1, 1, -2, 0, 0}, "Pa", true},
    {"bar", 1e5, {-1, 1, -2, 0, 0}, "Pa", true},
    {"Hz", 1, {0, 0, -1, 0, 0}, "Hz", true},
    // N*m written without the operator ("Nm", "kNm", "Nmm"): a torque.
    {"Nm", 1, {2, 1, -2, 0, 0}, "N*m", true},
    {"Nmm", 1e-3, {2, 1, -2, 0, 0}, "N*m", false},
    {"sec", 1, {0, 0, 1, 0, 0}, "s", false},
    {"secs", 1, {0, 0, 1, 0, 0}, "s", false},
    {"min", 60, {0, 0, 1, 0, 0}, "s", false},
    {"h", 3600, {0, 0, 1, 0, 0}, "s", false},
    {"in", 0.0254, {1, 0, 0, 0, 0}, "m", false},
    {"lbf", 4.4482216152605, {1, 1, -2, 0, 0}, "N", false},
    {"psi", kPsi, {-1, 1, -2, 0, 0}, "Pa", false},
    {"atm", 101325, {-1, 1, -2, 0, 0}, "Pa", false},
    {"deg", kPi / 180, {0, 0, 0, 0, 1}, "rad", false},
    {"rev", 2 * kPi, {0, 0, 0, 0, 1}, "rad", false},
    {"rpm", 2 * kPi / 60, {0, 0, -1, 0, 1}, "rad/s", false},
    {"%", 0.01, {0, 0, 0, 0, 0}, "1", false},
    {"1", 1, {0, 0, 0, 0, 0}, "1", false},
};

// Whole spellings, matched before the grammar: the affine temperatures
// (no prefix, no powers, no products: 'mC' or 'degC/s' are not units) and
// the rotational speeds written as a count per minute.
struct WholeUnit {
  const char* name;
  Dimension dim;
  double factor;
  double offset;
};
constexpr WholeUnit kWhole[] = {
    {"-", Dimension::kDimensionless, 1, 0},
    {"degC", Dimension::kTemperature, 1, 273.15},
    {"C", Dimension::kTemperature, 1, 273.15},
    {"degF", Dimension::kTemperature, 5.0 / 9.0, 459.67 * 5.0 / 9.0},
    {"F", Dimension::kTemperature, 5.0 / 9.0, 459.67 * 5.0 / 9.0},
    {"1/min", Dimension::kAngularVelocity, 2 * kPi / 60, 0},
    {"U/min", Dimension::kAngularVelocity, 2 * kPi / 60, 0},
    {"r/min", Dimension::kAngularVelocity, 2 * kPi / 60, 0},
    {"RPM", Dimension::kAngularVelocity, 2 * kPi / 60, 0},
};

// SI prefixes (SI Brochure, 9th edition, with the 2022 additions r, q, R, Q).
// 'u' is micro; µ (U+00B5) and μ (U+03BC) are normalised to it.
struct Prefix {
  const char* symbol;
  double factor;
};
constexpr Prefix kPrefixes[] = {
    {"q", 1e-30}, {"r", 1e-27}, {"y", 1e-24}, {"z", 1e-21}, {"a", 1e-18}, {"f", 1e-15}, {"p", 1e-12}, {"n", 1e-9},
    {"u", 1e-6},  {"m", 1e-3},  {"c", 1e-2},  {"d", 1e-1},  {"da", 1e1},  {"h", 1e2},   {"k", 1e3},   {"M", 1e6},
    {"G", 1e9},   {"T", 1e12},  {"P", 1e15},  {"E", 1e18},  {"Z", 1e21},  {"Y", 1e24},  {"R", 1e27},  {"Q", 1e30},
};

// The exponents of each Dimension: how a parsed unit finds its quantity.
struct DimensionRow {
  Dimension dim;
  Exponents exp;
};
constexpr DimensionRow kDimensions[] = {
    {Dimension::kDimensionless, {0, 0, 0, 0, 0}},
    {Dimension::kTime, {0, 0, 1, 0, 0}},
    {Dimension::kLength, {1, 0, 0, 0, 0}},
    {Dimension::kVelocity, {1, 0, -1, 0, 0}},
    {Dimension::kAcceleration, {1, 0, -2, 0, 0}},
    {Dimension::kForce, {1, 1, -2, 0, 0}},
    {Dimension::kPressure, {-1, 1, -2, 0, 0}},
    {Dimension::kAngle, {0, 0, 0, 0, 1}},
    {Dimension::kAngularVelocity, {0, 0, -1, 0, 1}},
    {Dimension::kAngularAcceleration, {0, 0, -2, 0, 1}},
    // N*m is a torque: energy (J) is not in the table, so nothing else has
    // these exponents.
    {Dimension::kTorque, {2, 1, -2, 0, 0}},
    {Dimension::kTemperature, {0, 0, 0, 1, 0}},
};

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Spelling variants → the grammar's ASCII: µ/μ → u, ° → deg, superscripts
// → ^N, '·' and '⋅' → '*', "N.m" → "N*m", spaces dropped.
std::string normalise(std::string_view in) {
  std::string s;
  bool superscript = false;  // inside a run of superscript characters
  auto sup = [&](char c) {
    if (!superscript) s += '^';
    superscript = true;
    s += c;
  };
  for (size_t i = 0; i < in.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(in[i]);
    const unsigned char d = i + 1 < in.size() ? static_cast<unsigned char>(in[i + 1]) : 0;
    const unsigned char e = i + 2 < in.size() ? static_cast<unsigned char>(in[i + 2]) : 0;
    // UTF-8: µ (C2 B5), μ (CE BC), ° (C2 B0), ¹ ² ³ (C2 B9, B2, B3), · (C2 B7),
    // ⋅ (E2 8B 85), ⁰ ⁴..⁹ (E2 81 B0, B4..B9), ⁻ (E2 81 BB)
    if (c == 0xC2 && (d == 0xB9 || d == 0xB2 || d == 0xB3)) {
      sup(d == 0xB9 ? '1' : d == 0xB2 ? '2' : '3');
      ++i;
      continue;
    }
    if (c == 0xE2 && d == 0x81 && (e == 0xB0 || (e >= 0xB4 && e <= 0xB9) || e == 0xBB)) {
      sup(e == 0xBB ? '-' : e == 0xB0 ? '0' : static_cast<char>('4' + (e - 0xB4)));
      i += 2;
      continue;
    }
    superscript = false;
    if (c == 0xC2 && d == 0xB5) {
      s += 'u';
      ++i;
      continue;
    }
    if (c == 0xC2 && d == 0xB0) {
      s += "deg";
      ++i;
      continue;
    }
    if (c == 0xC2 && d == 0xB7) {
      s += '*';
      ++i;
      continue;
    }
    if (c == 0xCE && d == 0xBC) {
      s += 'u';
      ++i;
      continue;
    }
    if (c == 0xE2 && d == 0x8B && e == 0x85) {
      s += '*';
      i += 2;
      continue;
    }
    if (c == ' ' || c == '\t') continue;
    s += static_cast<char>(c);
  }
  // "N.m" -> "N*m"
  for (size_t i = 1; i + 1 < s.size(); ++i)
    if (s[i] == '.' && std::isalpha(static_cast<unsigned char>(s[i - 1])) &&
        std::isalpha(static_cast<unsigned char>(s[i + 1])))
      s[i] = '*';
  return s;
}

// A parsed unit: SI value per unit, exponents, and its SI spelling (the
// expression with every symbol replaced by its SI symbol, prefixes dropped).
struct Parsed {
  double factor = 1;
  Exponents exp{};
  std::string si;
  bool compound = false;  // holds an operator: parenthesised where it is a divisor or raised
};

// unit    := term (('*' | '/') term)*
// term    := primary [power]
// primary := '(' unit ')' | symbol
// power   := '^' ['-'] digits | digits          ("m/s2" is m/s^2)
// symbol  := [prefix] base, from kBaseUnits and kPrefixes
class Grammar {
 public:
  explicit Grammar(std::string_view s) : s_(s) {}

  std::optional<Parsed> parse() {
    auto u = unit();
    if (!u || pos_ != s_.size()) return std::nullopt;
    return u;
  }

 private:
  std::optional<Parsed> unit() {
    auto left = term();
    if (!left) return std::nullopt;
    while (pos_ < s_.size() && (s_[pos_] == '*' || s_[pos_] == '/')) {
      const char op = s_[pos_++];
      auto right = term();
      if (!right) return std::nullopt;
      const int sign = op == '*' ? 1 : -1;
      left->factor = op == '*' ? left->factor * right->factor : left->factor / right->factor;
      for (int b = 0; b < kBases; ++b) left->exp[b] += sign * right->exp[b];
      left->si += op;
      left->si += op == '/' && right->compound ? "(" + right->si + ")" : right->si;
      left->compound = true;
    }
    return left;
  }

  std::optional<Parsed> term() {
    auto p = primary();
    if (!p) return std::nullopt;
    const bool caret = pos_ < s_.size() && s_[pos_] == '^';
    if (caret) ++pos_;
    const bool negative = caret && pos_ < s_.size() && s_[pos_] == '-';
    if (negative) ++pos_;
    const size_t digits = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ == digits) {
      if (caret) return std::nullopt;  // '^' without a power
      return p;
    }
    if (pos_ - digits > 2) return std::nullopt;
    const int n = std::stoi(std::string(s_.substr(digits, pos_ - digits)));
    if (n == 0) return std::nullopt;
    if (p->si == "1") return std::nullopt;  // "1^2", "%^2": a power of a number
    double f = 1;
    for (int k = 0; k < n; ++k) f *= p->factor;
    p->factor = negative ? 1 / f : f;
    for (int b = 0; b < kBases; ++b) p->exp[b] *= negative ? -n : n;
    p->si = (p->compound ? "(" + p->si + ")" : p->si) + "^" + (negative ? "-" : "") + std::to_string(n);
    p->compound = false;
    return p;
  }

  std::optional<Parsed> primary() {
    if (pos_ < s_.size() && s_[pos_] == '(') {
      ++pos_;
      auto u = unit();
      if (!u || pos_ >= s_.size() || s_[pos_] != ')') return std::nullopt;
      ++pos_;
      return u;
    }
    // A symbol: a run of letters, or '%', or the number 1 (as in 1/s).
    const size_t start = pos_;
    if (pos_ < s_.size() && (s_[pos_] == '%' || s_[pos_] == '1')) {
      ++pos_;
    } else {
      while (pos_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    if (pos_ == start) return std::nullopt;
    return symbol(s_.substr(start, pos_ - start));
  }

  static std::optional<Parsed> from(const BaseUnit& b, double scale) {
    Parsed p;
    p.factor = scale * b.factor;
    p.exp = b.exp;
    p.si = b.si;
    p.compound = std::string_view(b.si).find_first_of("*/") != std::string_view::npos;
    return p;
  }

  // A base unit as written, else a prefix and a base unit that takes one.
  static std::optional<Parsed> symbol(std::string_view sym) {
    for (const auto& b : kBaseUnits)
      if (sym == b.name) return from(b, 1);
    for (const auto& pre : kPrefixes) {
      const std::string_view ps(pre.symbol);
      if (sym.size() <= ps.size() || sym.substr(0, ps.size()) != ps) continue;
      for (const auto& b : kBaseUnits)
        if (b.prefix && sym.substr(ps.size()) == b.name) return from(b, pre.factor);
    }
    return std::nullopt;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::optional<UnitInfo> lookup(const std::string& s) {
  for (const auto& w : kWhole) {
    if (s != w.name) continue;
    UnitInfo info;
    info.dimension = w.dim;
    info.factor = w.factor;
    info.offset = w.offset;
    info.si = si_unit(w.dim);
    return info;
  }
  const auto p = Grammar(s).parse();
  if (!p) return std::nullopt;
  UnitInfo info;
  info.factor = p->factor;
  info.dimension = Dimension::kOther;
  for (const auto& d : kDimensions)
    if (d.exp == p->exp) info.dimension = d.dim;
  info.si = info.dimension == Dimension::kOther ? p->si : si_unit(info.dimension);
  return info;
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
    {"time", "time"},
    {"t", "time"},
    {"zeit", "time"},
    {"timestamp", "time"},
    {"position", "position"},
    {"pos", "position"},
    {"x", "position"},
    {"s", "position"},
    {"displacement", "position"},
    {"disp", "position"},
    {"stroke", "position"},
    {"weg", "position"},
    {"pistonposition", "position"},
    {"angle", "position"},
    {"theta", "position"},
    {"phi", "position"},
    {"angularposition", "position"},
    {"velocity", "velocity"},
    {"vel", "velocity"},
    {"v", "velocity"},
    {"speed", "velocity"},
    {"xdot", "velocity"},
    {"omega", "velocity"},
    {"angularvelocity", "velocity"},
    {"acceleration", "acceleration"},
    {"acc", "acceleration"},
    {"accel", "acceleration"},
    {"a", "acceleration"},
    {"xddot", "acceleration"},
    {"alpha", "acceleration"},
    {"angularacceleration", "acceleration"},
    {"force", "force"},
    {"f", "force"},
    {"load", "force"},
    {"loadcell", "force"},
    {"loadcellforce", "force"},
    {"frictionforce", "force"},
    {"ffric", "force"},
    {"kraft", "force"},
    {"friction", "force"},
    {"frictionalforce", "force"},
    {"torque", "force"},
    {"tau", "force"},
    {"moment", "force"},
    {"pressurea", "pressure_a"},
    {"pa", "pressure_a"},
    {"p1", "pressure_a"},
    {"pressure1", "pressure_a"},
    {"pressure", "pressure_a"},
    {"p", "pressure_a"},
    {"chamberpressure", "pressure_a"},
    {"pressureb", "pressure_b"},
    {"pb", "pressure_b"},
    {"p2", "pressure_b"},
    {"pressure2", "pressure_b"},
    {"normalforce", "normal_force"},
    {"fn", "normal_force"},
    {"fnormal", "normal_force"},
    {"normal", "normal_force"},
    {"normalload", "normal_force"},  // microtribometers: "Normal [uN]"
    {"temperature", "temperature"},
    {"temp", "temperature"},
    {"oiltemperature", "temperature"},
};

constexpr const char* kSchema[] = {"time",       "position",   "velocity",     "acceleration", "force",
                                   "pressure_a", "pressure_b", "normal_force", "temperature"};

}  // namespace

std::optional<UnitInfo> find_unit(std::string_view unit) {
  const std::string s = normalise(unit);
  if (s.empty()) return std::nullopt;
  // Pressure reference suffixes: bara, bar(a), bar(abs), barabs, psia, ...(g);
  // only where what is left is a pressure ("Pa" is not P + a).
  struct Suffix {
    std::string_view text;
    bool absolute;
  };
  constexpr Suffix kSuffixes[] = {{"(abs)", true}, {"abs", true},  {"(a)", true},
                                  {"a", true},     {"(g)", false}, {"g", false}};
  for (const auto& suf : kSuffixes) {
    if (!ends_with(s, suf.text) || s.size() == suf.text.size()) continue;
    auto base = lookup(s.substr(0, s.size() - suf.text.size()));
    if (base && base->dimension == Dimension::kPressure) {
      base->absolute_pressure = suf.absolute;
      return base;
    }
  }
  return lookup(s);
}

double parse_quantity(std::string_view text, const std::string& what, std::optional<Dimension>* dimension,
                      double ambient) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double x = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || !std::isfinite(x))
    throw InputError(what + ": '" + std::string(text) + "' is not a number (with an optional unit)");
  std::string_view unit(ptr, static_cast<size_t>(s.data() + s.size() - ptr));
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.remove_prefix(1);
  if (dimension) dimension->reset();
  if (unit.empty()) return x;
  const auto u = find_unit(unit);
  if (!u) throw InputError(what + ": unknown unit '" + std::string(unit) + "' in '" + std::string(text) + "'");
  if (dimension) *dimension = u->dimension;
  return u->factor * x + u->offset - (u->absolute_pressure ? ambient : 0.0);
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
    case Dimension::kOther: return "?";
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
    case Dimension::kOther: return "another quantity";
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

std::string channel_long_name(std::string_view ch, bool rotational) {
  if (ch == "time") return "time";
  if (ch == "position") return rotational ? "angle of the drive" : "position of the drive";
  if (ch == "velocity") return rotational ? "angular velocity of the drive" : "velocity of the drive";
  if (ch == "acceleration") return rotational ? "angular acceleration of the drive" : "acceleration of the drive";
  if (ch == "force") return rotational ? "measured friction torque" : "measured friction force";
  if (ch == "pressure_a") return "pressure in chamber A (gauge)";
  if (ch == "pressure_b") return "pressure in chamber B (gauge)";
  if (ch == "normal_force") return "normal force on the contact";
  if (ch == "temperature") return "temperature";
  if (ch == "friction_true") return "friction without sensor effects (synthetic log)";
  return "";
}

std::string rotational_unit(std::string_view u) {
  std::string out;
  for (std::size_t i = 0; i < u.size();) {
    if (!std::isalpha(static_cast<unsigned char>(u[i]))) {
      out += u[i++];
      continue;
    }
    std::size_t j = i;
    while (j < u.size() && std::isalpha(static_cast<unsigned char>(u[j]))) ++j;
    const std::string_view word = u.substr(i, j - i);
    // A product stands in parentheses where a power or a division applies to
    // all of it: N^2 -> (N*m)^2, 1/N -> 1/(N*m); "N/m" needs none (N*m/rad).
    const bool group = (j < u.size() && u[j] == '^') || (i > 0 && u[i - 1] == '/');
    if (word == "N") out += group ? "(N*m)" : "N*m";
    else if (word == "kg") out += group ? "(kg*m^2)" : "kg*m^2";
    else if (word == "m") out += "rad";
    else out += word;
    i = j;
  }
  return out;
}

std::string canonical_channel(std::string_view name) {
  if (is_schema_channel(name)) return std::string(name);
  const std::string s = squash(name);
  for (const auto& a : kAliases)
    if (s == a.squashed) return a.channel;
  return std::string(name);
}

}  // namespace stribeck::data
