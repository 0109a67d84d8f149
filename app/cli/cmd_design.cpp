// `stribeck design`: the rig test, within the rig's limits, that identifies a
// friction law best, static or with memory (docs/identification.md,
// "Experiment design").
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/identification/design.hpp"
#include "stribeck/kernels/text_number.hpp"
#include "stribeck/workloads/params.hpp"

namespace stribeck::cli {
namespace {

struct DesignArgs {
  std::string model, prior, guess, rig, profiles = "triangle,sine-sweep,ramps,steps,plateaus,creep,multisine,levels",
                                        criterion = "worst-rse", output, json, reference_output;
  std::vector<std::string> fix;
  bool offset = false;
  int experiments = 0, candidates = 256;
  std::uint64_t seed = 1;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  for (size_t p = 0; p <= s.size();) {
    const size_t e = std::min(s.find(',', p), s.size());
    if (e > p) out.push_back(s.substr(p, e - p));
    p = e + 1;
  }
  return out;
}

// The prior from `identify --json` of a fit of `m`: every value, the fixed
// ones held (--fix), an estimated offset kept in the fit.
void read_prior(const std::string& path, const ModelInfo& m, ident::DesignRequest& r) {
  std::ifstream in(path);
  if (!in) throw data::InputError("--prior " + path + ": cannot open the fit (identify --json output)");
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("model") || !j.contains("parameters") ||
      !j["parameters"].is_object())
    throw data::InputError("--prior " + path + ": not the JSON of one fit (stribeck identify --json)");
  if (j["model"] != m.id)
    throw data::InputError("--prior " + path + ": a fit of " + j["model"].dump() + ", not of " + m.id);
  for (const auto& [name, p] : j["parameters"].items()) {
    if (!p.is_object() || !p.contains("value") || !p["value"].is_number())
      throw data::InputError("--prior " + path + ": parameter '" + name + "' has no value");
    const double x = p["value"].get<double>();
    const bool fixed = p.value("fixed", false);
    if (name == "offset") r.fit.offset = r.fit.offset || !fixed;
    else if (const int k = m.param_index(name); k >= 0) {
      r.prior[static_cast<size_t>(k)] = x;
      if (fixed) r.fit.fix.push_back(name + "=" + format_number(x));
    } else
      throw data::InputError("--prior " + path + ": parameter '" + name + "' is not one of " + m.id +
                             " (asymmetric, per-experiment and inertia fits are not a prior of design)");
  }
}

void print_design(const ident::DesignEvaluation& e, bool rotational, const char* title) {
  std::string s = std::string(title) + "\n";
  char line[256];
  for (const auto& x : e.experiments) {
    std::snprintf(line, sizeof line, "  %-3s %-10s %7.4g s  v_max %-9.4g %s", x.name.c_str(), x.profile.c_str(),
                  x.duration, x.v_max, rotational ? "rad/s" : "m/s");
    s += line;
    if (x.has_pressure) s += (std::snprintf(line, sizeof line, "  p_a %.4g bar", x.pressure_a / 1e5), line);
    if (x.profile == "multisine")
      s += (std::snprintf(line, sizeof line, "  band %.3g:%.3g Hz, %d tones", x.band_lo_hz, x.band_hi_hz, x.tones),
            line);
    std::snprintf(line, sizeof line, "  (stroke %.4g %s, peak acc. %.4g %s)\n", x.stroke_used, rotational ? "rad" : "m",
                  x.a_peak, rotational ? "rad/s^2" : "m/s^2");
    s += line;
  }
  result(s);
}

void run(const DesignArgs& a) {
  const ModelInfo& m = workloads::require_model(a.model);
  const bool rotational = m.output_unit == "N*m";
  ident::DesignRequest r;
  r.model = m.id;
  if (!a.prior.empty() && !a.guess.empty()) throw data::InputError("give --prior or --guess, not both");
  r.prior = workloads::resolve_params(m, split(a.guess));
  if (!a.prior.empty()) read_prior(a.prior, m, r);
  for (const auto& f : a.fix) r.fit.fix.push_back(f);
  r.fit.offset = r.fit.offset || a.offset;
  std::string why;
  if (!r.fit.IsValid(m.id, &why)) throw data::InputError(why);
  if (!ident::parse_design_criterion(a.criterion, &r.criterion))
    throw data::InputError("--criterion '" + a.criterion + "': choose d, a, e or worst-rse");
  r.rig = workloads::read_rig_limits(a.rig, rotational, m.needs(kChannelPressureA) || m.needs(kChannelPressureB));
  r.profiles = split(a.profiles);
  r.experiments = a.experiments > 0 ? a.experiments : r.rig.max_experiments;
  r.candidates = a.candidates;
  r.seed = a.seed;
  check_output(a.output, {a.rig, a.prior});
  if (a.reference_output == a.output)
    throw data::InputError("--reference-output " + a.output + ": is the design's -o; write the reference elsewhere");
  if (!a.reference_output.empty()) check_output(a.reference_output, {a.rig, a.prior, a.output});
  check_json_output(a.json, {a.rig, a.prior, a.output, a.reference_output});
  const ident::DesignResult d = ident::design_experiment(r);
  // Both tests as DESIGN.toml, so either runs on the rig through generate --design.
  const std::string bound = ident::design_bound_line(d.bound, d.design.prediction.worst_rse);
  const auto toml = [&](const ident::DesignEvaluation& e, const std::string& what, const std::string& more) {
    workloads::DesignFile f;
    f.model = m.id;
    f.rotational = rotational;
    for (size_t k = 0; k < m.params.size(); ++k) f.params.emplace_back(m.params[k].name, r.prior[k]);
    f.experiments = e.experiments;
    return workloads::design_toml(
        f, "stribeck design: " + m.id + ", " + what + ", worst relative std error " +
               format_number(e.prediction.worst_rse) + "\n" + more +
               "stribeck generate --design THIS_FILE -o LOG.h5 [--noise force=SIGMA] makes its log");
  };
  data::AtomicFile out(a.output);
  out.write(toml(
      d.design,
      "the design (criterion " + a.criterion + "; reference " + format_number(d.reference.prediction.worst_rse) + ")",
      bound));
  std::unique_ptr<data::AtomicFile> ref;
  if (!a.reference_output.empty()) {
    ref = std::make_unique<data::AtomicFile>(a.reference_output);
    ref->write(toml(d.reference, "the reference test (plateaus at the fastest speed within the limits)", ""));
  }
  summary(
      "stribeck design: %s, criterion %s, %zu experiment%s, %g s in all; %d candidates evaluated (%d within the "
      "limits) on %d threads",
      m.id.c_str(), a.criterion.c_str(), d.design.experiments.size(), d.design.experiments.size() == 1 ? "" : "s",
      r.rig.duration, d.evaluated, d.feasible, d.threads);
  print_design(d.design, rotational, "design:");
  print_design(d.reference, rotational, "reference (plateaus at the fastest speed within the limits):");
  result(ident::design_table(d) + bound);
  if (!a.json.empty()) write_json_text(a.json, ident::design_json(r, d));
  out.commit();
  if (ref) ref->commit();
  summary("-> %s%s%s", a.output.c_str(), ref ? ", " : "", a.reference_output.c_str());
}

}  // namespace

void add_design_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "design", "Choose the rig test (profile, speeds, pressures) that identifies a friction law best");
  auto a = std::make_shared<DesignArgs>();
  cmd->add_option("--model,-m", a->model, "Model id (static laws and laws with memory; see `stribeck models`)")
      ->type_name("MODEL")
      ->required();
  cmd->add_option("--prior", a->prior, "A fit of the model (identify --json) the design is for")->type_name("FIT.json");
  cmd->add_option("--guess", a->guess, "Prior values over the model's defaults, e.g. F_C=20,v_brk=0.01")
      ->type_name("NAME=VALUE,...");
  cmd->add_option("--rig", a->rig, "The rig's limits (docs/identification.md, \"Experiment design\")")
      ->type_name("RIG.toml")
      ->required();
  cmd->add_option("--profiles", a->profiles, "Candidate profile families (default: all the generator's and levels)")
      ->type_name("NAME,...");
  cmd->add_option("--criterion", a->criterion, "d, a, e or worst-rse (default): what the design minimises")
      ->type_name("NAME");
  cmd->add_option("--experiments", a->experiments, "Experiments designed jointly (default: the rig's max_experiments)")
      ->type_name("N")
      ->check(kPositive);
  cmd->add_option("--candidates", a->candidates, "Random candidate designs before refinement (default 256)")
      ->type_name("N")
      ->check(kPositive);
  cmd->add_option("--seed", a->seed, "Seed of the candidates (default 1)")->type_name("N")->check(kWhole);
  cmd->add_option("--fix", a->fix, "Hold NAME at VALUE in the fit, as identify --fix (repeatable)")
      ->type_name("NAME=VALUE");
  cmd->add_flag("--offset", a->offset, "The fit estimates a force offset (identify --offset)");
  cmd->add_option("--output,-o", a->output, "The design, loadable by `stribeck generate --design`")
      ->type_name("DESIGN.toml")
      ->required();
  cmd->add_option("--reference-output", a->reference_output, "The reference test, in the same format")
      ->type_name("REF.toml");
  add_json_option(cmd, a->json, "The design and its predicted standard errors, with the reference's");
  add_verbosity_flags(cmd);
  cmd->callback([a] { run(*a); });
}

}  // namespace stribeck::cli
