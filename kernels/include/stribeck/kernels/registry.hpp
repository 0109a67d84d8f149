#pragma once
// Runtime view of the model metadata (host only): look a model up by id, list
// its parameters, fill defaults, parse NAME=VALUE assignments and validate a
// parameter set against the model's ranges and relations. Built from the
// constexpr tables in each model header, so there is one source of truth.
#include <cfloat>
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck {

struct ModelInfo {
  std::string id;
  std::string name;
  std::string equation;
  std::string output_unit;
  std::vector<ParamInfo> params;
  std::vector<ParamRelation> relations;
  std::vector<ParamWarning> warnings;
  unsigned inputs = 0;  // Channel flags
  bool dynamic = false;
  std::string state_name;  // dynamic models: name and unit of the internal state z
  std::string state_unit;

  // Index of parameter `name`, or -1.
  int param_index(std::string_view param) const {
    for (size_t i = 0; i < params.size(); ++i)
      if (param == params[i].name) return static_cast<int>(i);
    return -1;
  }
  std::vector<double> defaults() const {
    std::vector<double> d;
    for (const auto& p : params) d.push_back(p.default_value);
    return d;
  }
  bool needs(Channel c) const { return (inputs & c) != 0; }
};

// Channel names as they appear in files and on the command line.
inline const char* channel_name(Channel c) {
  switch (c) {
    case kChannelVelocity: return "velocity";
    case kChannelPressureA: return "pressure_a";
    case kChannelPressureB: return "pressure_b";
    case kChannelNormalForce: return "normal_force";
  }
  return "?";
}
constexpr Channel kAllChannels[] = {kChannelVelocity, kChannelPressureA, kChannelPressureB, kChannelNormalForce};

// Models opt into warnings by declaring `kWarnings`; the rest have none.
template <class M, class = void>
struct HasWarnings : std::false_type {};
template <class M>
struct HasWarnings<M, std::void_t<decltype(M::kWarnings)>> : std::true_type {};

template <class M>
ModelInfo make_model_info() {
  ModelInfo info;
  info.id = M::kId;
  info.name = M::kName;
  info.equation = M::kEquation;
  info.output_unit = M::kOutputUnit;
  info.params.assign(M::kParams.begin(), M::kParams.end());
  info.relations.assign(M::kRelations.begin(), M::kRelations.end());
  info.inputs = M::kInputs;
  info.dynamic = M::kDynamic;
  if constexpr (HasWarnings<M>::value) info.warnings.assign(M::kWarnings.begin(), M::kWarnings.end());
  if constexpr (M::kDynamic) {
    info.state_name = M::kStateName;
    info.state_unit = M::kStateUnit;
  }
  return info;
}

inline const std::vector<ModelInfo>& all_models() {
  static const std::vector<ModelInfo> models = [] {
    std::vector<ModelInfo> v;
    for_each_model([&](auto tag) { v.push_back(make_model_info<typename decltype(tag)::type>()); });
    return v;
  }();
  return models;
}

inline const ModelInfo* find_model(std::string_view id) {
  for (const auto& m : all_models())
    if (m.id == id) return &m;
  return nullptr;
}

// Comma-separated list of every model id, for error messages.
inline std::string model_ids() {
  std::string s;
  for (const auto& m : all_models()) s += (s.empty() ? "" : ", ") + m.id;
  return s;
}

// A parameter's valid range as `stribeck models` prints it: "(0, inf)", "[1, 10]".
inline std::string param_range_text(const ParamInfo& p) {
  std::string s = p.lo_open ? "(" : "[";
  s += (std::isinf(p.lo) ? std::string("-inf") : format_number(p.lo)) + ", ";
  s += std::isinf(p.hi) ? std::string("inf") : format_number(p.hi);
  s += p.hi_open || std::isinf(p.hi) ? ")" : "]";
  return s;
}

// Why one parameter value is out of its range, or "" when it is fine.
inline std::string check_param(const ParamInfo& p, double x) {
  const std::string head = std::string("parameter ") + p.name + " = " + format_number(x);
  if (!std::isfinite(x)) return head + " is not a finite number (valid range " + param_range_text(p) + ")";
  if (x != 0 && std::abs(x) < DBL_MIN)
    return head + " is subnormal (below 2.2e-308): divisions by it overflow (valid range " + param_range_text(p) +
           ", normal numbers only)";
  const bool below = p.lo_open ? !(x > p.lo) : !(x >= p.lo);
  const bool above = p.hi_open ? !(x < p.hi) : !(x <= p.hi);
  if (below) return head + " must be " + (p.lo_open ? "> " : ">= ") + format_number(p.lo);
  if (above) return head + " must be " + (p.hi_open ? "< " : "<= ") + format_number(p.hi);
  return "";
}

// Every rule a parameter set breaks, one message per rule (empty when valid).
inline std::vector<std::string> validate_params(const ModelInfo& m, const double* p) {
  std::vector<std::string> errors;
  for (size_t i = 0; i < m.params.size(); ++i) {
    std::string e = check_param(m.params[i], p[i]);
    if (!e.empty()) errors.push_back(m.id + ": " + e);
  }
  if (!errors.empty()) return errors;  // relations are meaningless on bad values
  for (const auto& r : m.relations) {
    if (!(p[r.a] >= p[r.b])) {
      errors.push_back(m.id + ": " + m.params[r.a].name + " = " + format_number(p[r.a]) +
                       " must be >= " + m.params[r.b].name + " = " + format_number(p[r.b]) + " (" + r.why + ")");
    }
  }
  return errors;
}

// Every warning a valid parameter set triggers, one message each (call after
// validate_params reported no error).
inline std::vector<std::string> param_warnings(const ModelInfo& m, const double* p) {
  std::vector<std::string> w;
  for (const auto& c : m.warnings)
    if (!c.holds(p)) w.push_back(m.id + ": " + c.why);
  return w;
}

}  // namespace stribeck
