#pragma once
// The static fit's diagnostics tests' pieces (the library's:
// tests/unit/identification/test_fit_diagnostics.cpp; through the CLI:
// tests/unit/cli/test_identification_diagnostics.cpp): a model's parameters
// with some set, warnings counted, and issue 31's stroke of a cylinder
// without a breakaway.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "stribeck/kernels/registry.hpp"
#include "stribeck/workloads/generator.hpp"

namespace stribeck::test {

inline std::vector<double> params_of(const std::string& model, const std::map<std::string, double>& over) {
  const ModelInfo& m = *find_model(model);
  std::vector<double> p = m.defaults();
  for (const auto& [n, x] : over) p[m.param_index(n)] = x;
  return p;
}

inline void expect_each_warning_once(const std::vector<std::string>& warnings) {
  for (size_t i = 0; i < warnings.size(); ++i)
    EXPECT_EQ(std::count(warnings.begin(), warnings.end(), warnings[i]), 1) << warnings[i];
}

inline std::size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Issue 31's row: an inertia-dominated stroke of a cylinder without a
// breakaway (K_brk = 1), recorded as position only, so the fit derives the
// kinematics by parallel filtering and keeps few samples, none near a
// reversal. Seed 6 fitted K_brk = 61443 with c_v = 19533 "not determined":
// a law that predicts 1.2 MN at v -> 0 and that every export carried on.
inline workloads::GeneratorOptions stroke(std::uint64_t seed, bool position_only) {
  workloads::GeneratorOptions g;
  g.model = "simscape-cylinder";
  g.params = params_of(g.model, {{"F_pr", 20}, {"K_brk", 1}, {"f_vfr", 100}});
  g.profile = "multisine";
  g.mass = 200;
  g.pressure_levels = {5e5};
  g.noise["force"] = 1.0;
  g.duration = 10;
  g.rate_hz = 200;
  g.seed = seed;
  if (position_only) g.omit = {"velocity", "acceleration"};
  return g;
}

}  // namespace stribeck::test
