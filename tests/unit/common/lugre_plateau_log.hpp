#pragma once
// The LuGre log of the identification tests (the library's fit:
// tests/unit/identification/test_lugre_fit.cpp; identify on it as a CSV:
// tests/unit/cli/test_identification_lugre.cpp): the kernels' LuGre with the
// paper's parameters (Canudas de Wit et al. 1995, the model defaults) along
// the plateau profile, with seeded noise.
#include <vector>

#include "plateau_profile.hpp"
#include "stribeck/data/experiment.hpp"
#include "stribeck/kernels/models/lugre.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::test::lugre_plateaus {

inline constexpr double kRate = 2000.0;  // samples per second
inline constexpr double kNoise = 0.01;   // N

// Truth: the paper's example (Canudas de Wit et al. 1995), the model defaults.
inline std::vector<double> truth() { return find_model("lugre")->defaults(); }

inline data::Experiment lugre_log(unsigned seed) {
  return test::plateau_log<LuGre>(truth(), seed, kNoise, kRate, "lugre");
}

}  // namespace stribeck::test::lugre_plateaus
