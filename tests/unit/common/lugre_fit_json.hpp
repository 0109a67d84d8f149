#pragma once
// A LuGre fit as identify --json writes it, written to a temporary file
// (its path returned): four correlated free parameters in every kind of
// internal coordinate (F_C log, F_s excess over F_C, v_s log, sigma2
// identity), sigma0 = 1e5 and sigma1 = 0.5 held. Standard errors of 10-15 %
// put the stick-slip rig of bench/fit_draws.sh (1 kg, 20 N/m, 0.1 m/s) on
// both sides of its stick-slip border.
#include <nlohmann/json.hpp>
#include <string>

#include "temp_dir.hpp"

namespace stribeck::test {

inline std::string write_lugre_fit_json(const std::string& file_name) {
  nlohmann::json j;
  j["model"] = "lugre";
  const char* names[] = {"F_C", "F_s", "v_s", "sigma2"};
  const double values[] = {1.0, 1.5, 1e-3, 0.4}, se[] = {0.1, 0.15, 1.5e-4, 0.05};
  for (int a = 0; a < 4; ++a)
    j["parameters"][names[a]] = {{"value", values[a]}, {"std_error", se[a]}, {"fixed", false}};
  j["parameters"]["sigma0"] = {{"value", 1e5}, {"std_error", nullptr}, {"fixed", true}};
  j["parameters"]["sigma1"] = {{"value", 0.5}, {"std_error", nullptr}, {"fixed", true}};
  j["correlation"] = {
      {"parameters", {"F_C", "F_s", "v_s", "sigma2"}},
      {"transforms", {"log", "excess:F_C", "log", "identity"}},
      {"matrix", {{1.0, 0.7, -0.3, 0.2}, {0.7, 1.0, -0.1, 0.0}, {-0.3, -0.1, 1.0, -0.4}, {0.2, 0.0, -0.4, 1.0}}}};
  return write_temp_file(file_name, j.dump(2));
}

}  // namespace stribeck::test
