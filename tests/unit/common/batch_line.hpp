#pragma once
// A production line's experiments for batch fits (identify --batch): the
// truths of experiment k, simscape-translational with F_C, F_brk, v_brk, f_v
// spread over the line's scatter, and its generated log. Read by the
// library's batch-fit tests (tests/unit/identification/test_batch_fit.cpp)
// and the CLI's (tests/unit/cli/test_batch_fit.cpp).
#include <cstdint>
#include <map>
#include <string>

#include "stribeck/data/experiment.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/workloads/generator.hpp"

namespace stribeck::test {

// The truths of experiment k: simscape-translational with F_C, F_brk, v_brk,
// f_v spread over a production line's scatter.
inline std::map<std::string, double> truth(int k) {
  return {{"F_C", 20.0 + 3.0 * k}, {"F_brk", 30.0 + 4.0 * k}, {"v_brk", 0.01 + 0.002 * k}, {"f_v", 80.0 + 10.0 * k}};
}

inline data::Experiment synthetic(int k, std::uint64_t seed) {
  workloads::GeneratorOptions g;
  g.model = "simscape-translational";
  const ModelInfo* m = find_model(g.model);
  for (const auto& p : m->params) g.params.push_back(p.default_value);
  for (const auto& [name, value] : truth(k)) g.params[m->param_index(name)] = value;
  g.profile = "triangle";
  g.duration = 4;
  g.rate_hz = 500;
  g.v_max = 0.1;
  g.noise["force"] = 0.2;
  g.seed = seed;
  data::Experiment e = workloads::generate_log(g).front();
  e.name = "unit" + std::to_string(k);
  return e;
}

}  // namespace stribeck::test
