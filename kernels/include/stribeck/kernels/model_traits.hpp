#pragma once
// Compile-time metadata every friction model carries next to its equation:
// parameter names, units, defaults and valid ranges, relations between
// parameters, and the input channels it reads. The host turns this into
// validation messages, `stribeck models` output and sweep-space checks, so the
// rules live in exactly one place.
#include <limits>

namespace stribeck {

constexpr double kInf = std::numeric_limits<double>::infinity();

// What a parameter does in its law. Identification derives from the role, not
// from the name, a parameter's starting guess, whether a fit holds it at its
// default, and whether only low-speed samples determine it; so a new model
// header gets sensible fits without an edit in identification/.
enum class ParamRole : unsigned char {
  kOther,                // no generic meaning: fits start it at its default
  kCoulomb,              // Coulomb level (force, torque, or per newton of normal force)
  kBreakaway,            // breakaway or static level, in the Coulomb level's unit
  kBreakawayRatio,       // breakaway level over Coulomb level (>= 1)
  kStribeckVelocity,     // velocity scale of the Stribeck decay
  kStribeckRate,         // its inverse: decay rate per unit velocity
  kViscous,              // viscous coefficient
  kPreload,              // pressure-independent part of a pressure-dependent Coulomb level
  kPressureCoefficient,  // Coulomb level per pascal of chamber pressure
  kSmoothing,            // width of the sign smoothing at v = 0: fits hold it at its default
  kBristleStiffness,     // dynamic models: stiffness of the bristle / rest stiffness
  kBristleDamping,       // dynamic models: damping of the bristle
  kShape,                // dynamic models: shape exponent of the approach to steady state
  kElasticFraction,      // dynamic models: purely elastic part of the steady deflection, in [0, 1)
  kAttraction,           // dynamic models: velocity at which a slipping element returns to its maximum (GMS C)
  kElementFraction,      // dynamic models: an element's share of what the elements before it left, in (0, 1)
};

// Range of one parameter. `lo_open`/`hi_open` make the bound strict.
struct ParamInfo {
  const char* name;
  const char* unit;
  double default_value;
  double lo;
  double hi;
  bool lo_open;
  bool hi_open;
  const char* description;
  ParamRole role = ParamRole::kOther;
};

// A rule between two parameters: params[a] >= params[b] (the only kind the
// reference tools need: breakaway above Coulomb, static above Coulomb).
struct ParamRelation {
  int a;
  int b;
  const char* why;
};

// A condition that is allowed but worth telling the user about (e.g. LuGre's
// passivity condition): `holds(p)` is evaluated on the full parameter vector
// (host only); when it returns false the message `why` is shown as a warning.
// Models without warnings simply do not declare `kWarnings`.
struct ParamWarning {
  bool (*holds)(const double* p);
  const char* why;
};

// Helpers that keep the model tables readable.
constexpr ParamInfo positive(const char* n, const char* u, double d, const char* desc,
                             ParamRole role = ParamRole::kOther) {
  return ParamInfo{n, u, d, 0.0, kInf, true, false, desc, role};
}
constexpr ParamInfo nonnegative(const char* n, const char* u, double d, const char* desc,
                                ParamRole role = ParamRole::kOther) {
  return ParamInfo{n, u, d, 0.0, kInf, false, false, desc, role};
}
constexpr ParamInfo at_least(const char* n, const char* u, double d, double lo, const char* desc,
                             ParamRole role = ParamRole::kOther) {
  return ParamInfo{n, u, d, lo, kInf, false, false, desc, role};
}

// Base for models with memory: one internal state z (bristle deflection or
// friction force) plus the previous velocity sample, which the trace stepper
// uses to interpolate the velocity linearly across a sample interval.
template <class T>
struct BristleState {
  T z;       // internal state (see the model's kEquation)
  T v_prev;  // velocity at the end of the previous step
};

// Base for memoryless laws: an empty state, so static and dynamic models share
// one stepping interface (see stepping.hpp).
struct StaticLaw {
  static constexpr bool kDynamic = false;
  template <class T>
  struct State {};
};

}  // namespace stribeck
