#pragma once
// A fit's JSON as identify --json writes it (the keys from_fit reads), for
// the tests of ensembles drawn from a fit (tests/unit/workloads/
// test_fit_prior_draws.cpp, tests/unit/cli/test_fit_propagation.cpp).
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace stribeck::test {

inline std::string fit_json(const std::string& model, const std::vector<std::string>& names,
                            const std::vector<std::string>& transforms, const std::vector<double>& values,
                            const std::vector<double>& se, const std::vector<std::vector<double>>& corr,
                            const std::vector<std::pair<std::string, double>>& fixed) {
  nlohmann::json j;
  j["model"] = model;
  for (size_t a = 0; a < names.size(); ++a)
    j["parameters"][names[a]] = {{"value", values[a]}, {"std_error", se[a]}, {"fixed", false}};
  for (const auto& [n, v] : fixed) j["parameters"][n] = {{"value", v}, {"std_error", nullptr}, {"fixed", true}};
  j["correlation"] = {{"parameters", names}, {"transforms", transforms}, {"matrix", corr}};
  return j.dump(2);
}

}  // namespace stribeck::test
