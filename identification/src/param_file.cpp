// The reader of parameter files (fit reports, `export-params --to json`)
// that export_params and `eval --params` share.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "stribeck/data/config_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/identification/export_params.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident {
namespace {

bool is_force_balance_name(const std::string& n) { return n == "mass" || n == "offset" || n.rfind("offset@", 0) == 0; }

}  // namespace

ParamFile read_param_file(const std::string& path, int fit_index) {
  const std::string text = data::read_config_file(path, "parameter file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw data::InputError(path + ": malformed JSON at byte " + std::to_string(e.byte) +
                           " (expected a fit report from `identify --json` or `export-params --to json`)");
  }
  if (j.is_object() && (j.contains("ranking") || j.contains("fits"))) {
    const auto& list = j.contains("ranking") ? j["ranking"] : j["fits"];
    if (!list.is_array() || list.empty()) throw data::InputError(path + ": the list of fits is empty");
    if (fit_index < 0 || static_cast<size_t>(fit_index) >= list.size())
      throw data::InputError(path + ": holds " + std::to_string(list.size()) + " fits; --fit " +
                             std::to_string(fit_index + 1) + " is not among them");
    j = list[static_cast<size_t>(fit_index)];
  }
  if (!j.is_object()) throw data::InputError(path + ": expected a JSON object with \"model\" and \"parameters\"");
  if (!j.contains("model") || !j["model"].is_string())
    throw data::InputError(path + ": no \"model\" (a model id string)");
  ParamFile out;
  out.model = j["model"].get<std::string>();
  out.rotational = j.contains("force_unit") && j["force_unit"] == "N*m";
  const ModelInfo* m = find_model(out.model);
  if (!m) throw data::InputError(path + ": unknown model '" + out.model + "' (known: " + model_ids() + ")");
  if (!j.contains("parameters") || !j["parameters"].is_object())
    throw data::InputError(path + ": no \"parameters\" object");
  std::map<std::string, double> given;
  for (const auto& [name, val] : j["parameters"].items()) {
    if (is_force_balance_name(name)) {
      out.ignored.push_back(name);
      continue;
    }
    if (name.find('@') != std::string::npos)
      throw data::InputError(
          path + ": parameter '" + name +
          "' is fitted per experiment (--per-experiment); one parameter set is needed: refit without it");
    if (!name.empty() && (name.back() == '+' || name.back() == '-'))
      throw data::InputError(
          path + ": parameter '" + name +
          "' belongs to an asymmetric fit (--asymmetric); one parameter set is needed: refit without it");
    if (m->param_index(name) < 0)
      throw data::InputError(path + ": model " + out.model + " has no parameter '" + name + "'");
    const nlohmann::json& v = val.is_object() ? (val.contains("value") ? val["value"] : nlohmann::json()) : val;
    if (!v.is_number())
      throw data::InputError(path + ": parameter '" + name + "' has no numeric value" + (v.is_null() ? " (null)" : ""));
    given[name] = v.get<double>();
  }
  std::vector<std::string> assignments;
  for (const auto& p : m->params) {
    auto it = given.find(p.name);
    if (it == given.end())
      throw data::InputError(path + ": parameter '" + std::string(p.name) + "' of model " + out.model + " is missing");
    assignments.push_back(std::string(p.name) + "=" + format_number(it->second));
  }
  try {
    out.values = workloads::resolve_params(*m, assignments);
  } catch (const data::InputError& e) {
    throw data::InputError(path + ": " + e.what());
  }
  return out;
}

}  // namespace stribeck::ident
