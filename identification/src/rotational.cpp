#include "rotational.hpp"

#include <cctype>

#include "stribeck/data/error.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/units.hpp"

namespace stribeck::ident::detail {
namespace {

std::string unit_of(const data::Experiment& e, const char* channel) {
  const auto u = e.units.find(channel);
  return u == e.units.end() ? std::string() : u->second;
}

std::string units_text(const data::Experiment& e) {
  const std::string f = unit_of(e, "force"), v = unit_of(e, "velocity");
  return "force in " + (f.empty() ? std::string("N*m") : f) + ", velocity in " + (v.empty() ? std::string("rad/s") : v);
}

// Translational units the fit's own texts print after a number.
bool translational_unit(const std::string& u) {
  return u == "N" || u == "m" || u == "m/s" || u == "m/s^2" || u == "kg" || u == "N/m" || u == "N/(m/s)" ||
         u == "s/m" || u == "N^2";
}

// "rmse 0.05 N)" -> "rmse 0.05 N*m)": a unit is a word after a number, with
// the brackets and punctuation around it kept.
std::string rotational_text(const std::string& text) {
  std::string out, prev;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t j = std::min(text.find(' ', i), text.size());
    std::string word = text.substr(i, j - i);
    std::size_t a = 0, b = word.size();
    while (a < b && (word[a] == '(' || word[a] == '[')) ++a;
    while (b > a && std::string(")],;:.").find(word[b - 1]) != std::string::npos) --b;
    const std::string core = word.substr(a, b - a);
    if (!prev.empty() && std::isdigit(static_cast<unsigned char>(prev.back())) && translational_unit(core))
      word = word.substr(0, a) + data::rotational_unit(core) + word.substr(b);
    out += word;
    if (j < text.size()) out += ' ';
    prev = word;
    i = j + 1;
  }
  return out;
}

}  // namespace

// The schema says so by the attribute; a log without it (an Experiment built
// in memory) by its channels' units.
bool is_rotational(const data::Experiment& e) {
  if (const auto m = e.attributes.find("motion"); m != e.attributes.end()) return m->second == "rotational";
  return unit_of(e, "force") == "N*m" || unit_of(e, "velocity") == "rad/s";
}

std::string rotational_parameter_unit(const ModelInfo& model, const std::string& unit) {
  // A rotational law's own units are rotational already; the terms the fit
  // adds (offset, inertia) are written in translational units for every law.
  const bool native = model.output_unit == "N*m";
  return !native || unit == "N" || unit == "kg" ? data::rotational_unit(unit) : unit;
}

bool rotational_log(const std::vector<data::Experiment>& experiments, const ModelInfo& model) {
  if (experiments.empty()) return false;
  const data::Experiment& first = experiments.front();
  const bool rotational = is_rotational(first);
  for (const auto& e : experiments)
    if (is_rotational(e) != rotational)
      throw data::InputError(e.source + ": experiment '" + e.name + "' is " +
                             (rotational ? "translational" : "rotational") + " and experiment '" + first.name + "' " +
                             (rotational ? "rotational" : "translational") +
                             ": fit rotational and translational logs separately");
  if (!rotational || model.output_unit == "N*m") return rotational;
  const char* why = nullptr;
  if (model.needs(kChannelPressureA) || model.needs(kChannelPressureB))
    why = "reads chamber pressures (a cylinder's law: translational only)";
  else if (model.needs(kChannelNormalForce))
    why = "is written per newton of normal force on a sliding contact (translational only)";
  if (!why) return true;
  std::string laws;
  for (const auto& m : all_models())
    if (!m.needs(kChannelPressureA) && !m.needs(kChannelPressureB) && !m.needs(kChannelNormalForce))
      laws += (laws.empty() ? "" : ", ") + m.id;
  throw data::InputError(first.source + ": experiment '" + first.name + "' is a rotational log (" + units_text(first) +
                         "), but model " + model.id + " " + why + "; fit a law that applies to rotation: " + laws);
}

bool rotational_log(const std::vector<LogStream>& logs, const ModelInfo& model) {
  std::vector<data::Experiment> heads;
  for (const auto& l : logs) {
    const data::LogBlockReader r(l.path, l.experiment);
    data::Experiment e;
    e.name = r.experiment();
    e.source = l.path;
    e.attributes = r.attributes();
    for (const char* ch : {"force", "velocity"})
      if (r.has(ch)) e.units[ch] = r.units(ch);
    heads.push_back(std::move(e));
  }
  return rotational_log(heads, model);
}

void rotational_summary(FitSummary& S, const ModelInfo& model) {
  S.force_unit = "N*m";
  S.velocity_unit = "rad/s";
  for (auto& p : S.parameters) p.unit = rotational_parameter_unit(model, p.unit);
  for (auto& w : S.warnings) w = rotational_text(w);
  if (model.id == "simscape-translational")
    S.warnings.push_back(
        "the log is rotational and simscape-translational is the Translational Friction block (its parameters are "
        "reported here in N*m and rad/s): simscape-rotational is the same law as the Rotational Friction block");
}

}  // namespace stribeck::ident::detail
