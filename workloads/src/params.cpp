#include "stribeck/workloads/params.hpp"

#include <set>

#include "stribeck/data/error.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::workloads {

const ModelInfo& require_model(const std::string& id) {
  const ModelInfo* m = find_model(id);
  if (!m) throw data::InputError("unknown model '" + id + "'; known models: " + model_ids());
  return *m;
}

std::vector<double> resolve_params(const ModelInfo& model, const std::vector<std::string>& assignments) {
  std::vector<double> p = model.defaults();
  std::set<std::string> seen;
  for (const auto& a : assignments) {
    const size_t eq = a.find('=');
    if (eq == std::string::npos) throw data::InputError("--param '" + a + "': expected NAME=VALUE");
    const std::string name = a.substr(0, eq);
    const int idx = model.param_index(name);
    if (idx < 0) {
      std::string names;
      for (const auto& q : model.params) names += (names.empty() ? "" : ", ") + std::string(q.name);
      throw data::InputError("--param '" + a + "': model " + model.id + " has no parameter '" + name +
                             "' (parameters: " + names + ")");
    }
    if (!seen.insert(name).second) throw data::InputError("--param: parameter " + name + " given twice");
    double value;
    if (!parse_double(a.substr(eq + 1), value))
      throw data::InputError("--param '" + a + "': '" + a.substr(eq + 1) + "' is not a finite number");
    p[idx] = value;
  }
  const auto errors = validate_params(model, p.data());
  if (!errors.empty()) throw data::InputError(errors.front());
  return p;
}

}  // namespace stribeck::workloads
