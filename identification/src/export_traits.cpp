// The export's view of a model: which block or submodel its law is, the
// force it holds at rest, its velocity scale. The one place model ids are
// compared.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "export_internal.hpp"
#include "stribeck/workloads/params.hpp"

namespace stribeck::ident::exporter {

Law law_of(const std::string& model_id) {
  static const std::pair<const char*, Law> kLaws[] = {
      {"simscape-translational", Law::kSimscapeTranslational},
      {"simscape-rotational", Law::kSimscapeRotational},
      {"simscape-cylinder", Law::kSimscapeCylinder},
      {"simscape-cylinder-il", Law::kSimscapeCylinderIl},
      {"20sim-c", Law::kTwentySimC},
      {"20sim-v", Law::kTwentySimV},
      {"20sim-cv", Law::kTwentySimCv},
      {"20sim-scvs", Law::kTwentySimScvs},
      {"20sim-lugre", Law::kTwentySimLugre},
      {"coulomb-viscous", Law::kCoulombViscous},
      {"lugre", Law::kLugre},
      {"dahl", Law::kDahl},
  };
  for (const auto& [id, law] : kLaws)
    if (model_id == id) return law;
  return Law::kOther;
}

bool is_twentysim(Law law) {
  return law == Law::kTwentySimC || law == Law::kTwentySimV || law == Law::kTwentySimCv || law == Law::kTwentySimScvs ||
         law == Law::kTwentySimLugre;
}

bool is_pressure_law(Law law) { return law == Law::kSimscapeCylinder || law == Law::kSimscapeCylinderIl; }

const char* twentysim_submodel(Law law) {
  switch (law) {
    case Law::kTwentySimC: return "C";
    case Law::kTwentySimV: return "V";
    case Law::kTwentySimCv: return "CV";
    case Law::kTwentySimScvs: return "SCVS";
    default: return "LuGre";
  }
}

// The breakaway parameter, else the Coulomb level (times the breakaway ratio
// for the cylinder laws), at the operating point.
double breakaway_of(const std::string& id, const std::vector<double>& p, double pressure, double f_n) {
  const ModelInfo& m = workloads::require_model(id);
  auto at = [&](const char* n) {
    const int i = m.param_index(n);
    return i < 0 ? 0.0 : p[static_cast<size_t>(i)];
  };
  switch (law_of(id)) {
    case Law::kSimscapeTranslational: return at("F_brk");
    case Law::kSimscapeRotational: return at("T_brk");
    case Law::kSimscapeCylinder: return (at("F_pr") + at("f_cfr") * pressure) * at("K_brk");
    case Law::kSimscapeCylinderIl: return (at("F_pr") + at("f_cfr") * pressure) * at("R_brk");
    case Law::kTwentySimScvs: return f_n * at("mu_s");
    case Law::kTwentySimC:
    case Law::kTwentySimCv: return f_n * at("mu_c");
    case Law::kCoulombViscous: return at("F_C");
    case Law::kOther: {  // a law no target has (stribeck-delta, ...): its largest static level, else Coulomb level
      double brk = 0.0, coulomb = 0.0;
      for (size_t i = 0; i < m.params.size(); ++i) {
        if (m.params[i].role == ParamRole::kBreakaway) brk = std::max(brk, p[i]);
        if (m.params[i].role == ParamRole::kCoulomb) coulomb = std::max(coulomb, p[i]);
      }
      return brk > 0.0 ? brk : coulomb;
    }
    default: return 0.0;  // 20sim-v: no Coulomb or static level
  }
}

// For the check of exact conversions when no range is given.
double law_velocity_scale(const ModelInfo& m, const std::vector<double>& p) {
  double s = 0.0;
  for (size_t i = 0; i < m.params.size(); ++i) {
    const std::string u = m.params[i].unit;
    if (u == "m/s" || u == "rad/s") s = std::max(s, p[i]);
    if (u == "s/m" && p[i] > 0.0) s = std::max(s, 1.0 / p[i]);
  }
  return s > 0.0 ? 100.0 * s : 1.0;
}

}  // namespace stribeck::ident::exporter
