// `stribeck models [--json]`: every model with equation, parameters, inputs.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::cli {
namespace {

std::string range_text(const ParamInfo& p) {
  std::string s = p.lo_open ? "(" : "[";
  s += format_number(p.lo) + ", ";
  s += std::isinf(p.hi) ? std::string("inf") : format_number(p.hi);
  s += p.hi_open || std::isinf(p.hi) ? ")" : "]";
  return s;
}

std::vector<std::string> input_names(const ModelInfo& m) {
  std::vector<std::string> v;
  for (Channel c : kAllChannels)
    if (m.needs(c)) v.emplace_back(channel_name(c));
  return v;
}

nlohmann::json to_json(const ModelInfo& m) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : m.params) {
    params.push_back({{"name", p.name},
                      {"unit", p.unit},
                      {"default", p.default_value},
                      {"min", p.lo},
                      {"min_exclusive", p.lo_open},
                      {"max", std::isinf(p.hi) ? nlohmann::json(nullptr) : nlohmann::json(p.hi)},
                      {"max_exclusive", p.hi_open},
                      {"description", p.description}});
  }
  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& w : m.warnings) warnings.push_back(w.why);
  nlohmann::json relations = nlohmann::json::array();
  for (const auto& r : m.relations) relations.push_back(std::string(m.params[r.a].name) + " >= " + m.params[r.b].name);
  return {{"id", m.id},
          {"name", m.name},
          {"equation", m.equation},
          {"output_unit", m.output_unit},
          {"dynamic", m.dynamic},
          {"inputs", input_names(m)},
          {"parameters", params},
          {"relations", relations},
          {"warnings", warnings},
          {"state",
           m.dynamic ? nlohmann::json({{"name", m.state_name}, {"unit", m.state_unit}}) : nlohmann::json(nullptr)}};
}

void print_text(const ModelInfo& m) {
  std::printf("%s  (%s)\n  %s\n  inputs: ", m.id.c_str(), m.name.c_str(), m.equation.c_str());
  const auto in = input_names(m);
  for (size_t i = 0; i < in.size(); ++i) std::printf("%s%s", i ? ", " : "", in[i].c_str());
  std::printf("   output: %s\n", m.output_unit.c_str());
  if (m.dynamic) std::printf("  state: %s [%s] (dynamic model)\n", m.state_name.c_str(), m.state_unit.c_str());
  for (const auto& p : m.params)
    std::printf("    %-7s %-12s default %-10s range %-14s %s\n", p.name, p.unit, format_number(p.default_value).c_str(),
                range_text(p).c_str(), p.description);
  for (const auto& r : m.relations) std::printf("    rule: %s >= %s\n", m.params[r.a].name, m.params[r.b].name);
  for (const auto& w : m.warnings) std::printf("    warns: %s\n", w.why);
  std::printf("\n");
}

}  // namespace

void add_models_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("models", "List every friction model: equation, parameters, units, defaults, inputs");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print machine-readable JSON instead of text");
  add_verbosity_flags(cmd);
  cmd->callback([json] {
    if (*json) {
      nlohmann::json all = nlohmann::json::array();
      for (const auto& m : all_models()) all.push_back(to_json(m));
      result(all.dump(2) + "\n");
    } else {
      for (const auto& m : all_models()) {
        print_text(m);
        flush_stdout();  // keeps the cause of a failed write for the end (finish_stdout)
      }
    }
  });
}

}  // namespace stribeck::cli
