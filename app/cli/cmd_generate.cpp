// `stribeck generate`: synthetic rig logs from any friction model.
#include <cstdio>

#include "commands.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/design_file.hpp"
#include "stribeck/workloads/generator.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/workloads/params.hpp"

namespace stribeck::cli {
namespace {

struct GenerateArgs {
  std::string model, design, profile = "plateaus", output, pressure_levels, noise, offset, quantisation;
  std::vector<std::string> params;
  std::string vmax = "0.1", rate = "1000", duration, pressure_b = "0", normal_force = "0", mass = "0", area_a = "0",
              area_b = "0", band, omit;
  int tones = 8;
  std::uint64_t seed = 1;
  std::vector<std::string> trajectory_flags;  // given flags that --design sets instead
};

double quantity(const std::string& text, const std::string& what, std::initializer_list<data::Dimension> dims) {
  std::optional<data::Dimension> d;
  const double x = data::parse_quantity(text, what, &d);
  if (d) {
    bool ok = false;
    for (data::Dimension want : dims) ok |= *d == want;
    if (!ok)
      throw data::InputError(what + ": '" + text + "' is " + data::dimension_name(*d) + ", expected " +
                             data::dimension_name(*dims.begin()));
  }
  return x;
}

// "force=0.5,position=1um" -> {force: 0.5, position: 1e-6}
std::map<std::string, double> channel_values(const std::string& text, const std::string& what, bool rotational) {
  std::map<std::string, double> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw data::InputError(what + ": '" + item + "' is not CHANNEL=VALUE");
    const std::string ch = item.substr(0, eq);
    if (out.count(ch)) throw data::InputError(what + ": channel '" + ch + "' is given twice");
    std::optional<data::Dimension> d;
    out[ch] = data::parse_quantity(item.substr(eq + 1), what + " " + ch, &d);
    const auto want = data::channel_dimension(ch, rotational);
    if (d && want && *d != *want)
      throw data::InputError(what + " " + ch + ": '" + item.substr(eq + 1) + "' is " + data::dimension_name(*d) +
                             ", expected " + data::dimension_name(*want));
  }
  return out;
}

// --design: the model and parameters of the design (--param overrides).
std::vector<double> design_params(const GenerateArgs& a, const workloads::DesignFile& d) {
  if (!a.trajectory_flags.empty())
    throw data::InputError("generate: " + a.trajectory_flags.front() +
                           " with --design: the design sets the trajectory");
  if (!a.model.empty() && a.model != d.model)
    throw data::InputError("generate: --model " + a.model + " but the design " + a.design + " is for " + d.model);
  std::vector<std::string> assignments;
  for (const auto& [name, value] : d.params) {
    bool overridden = false;
    for (const auto& p : a.params) overridden |= p.rfind(name + "=", 0) == 0;
    if (!overridden) assignments.push_back(name + "=" + format_number(value));
  }
  assignments.insert(assignments.end(), a.params.begin(), a.params.end());
  return workloads::resolve_params(workloads::require_model(d.model), assignments);
}

void run(const GenerateArgs& a) {
  const workloads::DesignFile design =
      a.design.empty() ? workloads::DesignFile{} : workloads::read_design_file(a.design);
  if (a.design.empty() && a.model.empty()) throw data::InputError("generate: --model is required (or --design)");
  const ModelInfo& model = workloads::require_model(a.design.empty() ? a.model : design.model);
  workloads::GeneratorOptions o;
  o.model = model.id;
  o.params = a.design.empty() ? workloads::resolve_params(model, a.params) : design_params(a, design);
  o.profile = a.profile;
  const bool rotational = model.output_unit == "N*m";
  o.v_max = quantity(a.vmax, "--vmax", {rotational ? data::Dimension::kAngularVelocity : data::Dimension::kVelocity});
  o.rate_hz = quantity(a.rate, "--rate", {data::Dimension::kDimensionless});
  if (!a.duration.empty()) {  // not given: the profile's own length
    o.duration = quantity(a.duration, "--duration", {data::Dimension::kTime});
    if (!(o.duration > 0)) throw data::InputError("--duration " + a.duration + ": must be > 0");
  }
  o.pressure_b = quantity(a.pressure_b, "--pressure-b", {data::Dimension::kPressure});
  o.normal_force = quantity(a.normal_force, "--normal-force", {data::Dimension::kForce});
  o.mass = quantity(a.mass, "--mass", {data::Dimension::kDimensionless});
  o.area_a = quantity(a.area_a, "--area-a", {data::Dimension::kDimensionless});
  o.area_b = quantity(a.area_b, "--area-b", {data::Dimension::kDimensionless});
  size_t pos = 0;
  while (pos < a.pressure_levels.size()) {
    size_t end = a.pressure_levels.find(',', pos);
    if (end == std::string::npos) end = a.pressure_levels.size();
    o.pressure_levels.push_back(
        quantity(a.pressure_levels.substr(pos, end - pos), "--pressure-levels", {data::Dimension::kPressure}));
    pos = end + 1;
  }
  o.noise = channel_values(a.noise, "--noise", rotational);
  o.offset = channel_values(a.offset, "--offset", rotational);
  o.quantisation = channel_values(a.quantisation, "--quantisation", rotational);
  o.seed = a.seed;
  if (!a.band.empty()) {
    const size_t c = a.band.find(':');
    if (c == std::string::npos) throw data::InputError("--band '" + a.band + "': expected LO:HI in Hz, e.g. 0.2:2");
    o.band_lo_hz = quantity(a.band.substr(0, c), "--band", {data::Dimension::kDimensionless});
    o.band_hi_hz = quantity(a.band.substr(c + 1), "--band", {data::Dimension::kDimensionless});
  }
  o.tones = a.tones;
  for (size_t p = 0; p < a.omit.size();) {
    size_t end = a.omit.find(',', p);
    if (end == std::string::npos) end = a.omit.size();
    if (end > p) o.omit.push_back(a.omit.substr(p, end - p));
    p = end + 1;
  }
  check_output(a.output, {a.design});
  const auto exps = a.design.empty() ? workloads::generate_log(o) : workloads::generate_design(design, o.params, o);
  data::write_log(a.output, exps, cli_provenance());
  summary("stribeck generate: %s, %s profile, %zu experiment%s of %zu samples -> %s", o.model.c_str(),
          a.design.empty() ? o.profile.c_str() : "designed", exps.size(), exps.size() == 1 ? "" : "s",
          exps.front().size(), a.output.c_str());
}

}  // namespace

void add_generate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "generate", "Write a synthetic rig log: a velocity profile through a friction model, with sensor effects");
  auto a = std::make_shared<GenerateArgs>();
  cmd->add_option("--model,-m", a->model, "Model id (see `stribeck models`); required unless --design")
      ->type_name("MODEL");
  cmd->add_option("--design", a->design, "The trajectories of `stribeck design` (one experiment each)")
      ->type_name("DESIGN.toml");
  cmd->add_option("--param,-p", a->params, "Parameter override NAME=VALUE (repeatable; defaults otherwise)")
      ->type_name("NAME=VALUE");
  cmd->add_option("--profile", a->profile, "Velocity profile (default plateaus)")
      ->check(CLI::IsMember(workloads::generator_profiles()));
  cmd->add_option("--band", a->band, "multisine: frequency band LO:HI [Hz] of the position's tones (default 0.2:2)")
      ->type_name("LO:HI");
  cmd->add_option("--tones", a->tones, "multisine: number of tones, log-spaced over the band (default 8)")
      ->type_name("N");
  cmd->add_option("--omit", a->omit,
                  "Channels left out of the log, e.g. velocity,acceleration (a rig that records position only)")
      ->type_name("CHANNEL,...");
  cmd->add_option("--vmax", a->vmax, "Peak velocity, e.g. 0.1 or 100mm/s or 60rpm (default 0.1 m/s)")
      ->type_name("SPEED");
  cmd->add_option("--rate", a->rate, "Sample rate [Hz] (default 1000)")->type_name("HZ");
  cmd->add_option("--duration", a->duration, "Length, e.g. 10 or 500ms (default: per profile, 8 to 24 s)")
      ->type_name("TIME");
  cmd->add_option("--pressure-levels", a->pressure_levels,
                  "Chamber-A pressures, one experiment each, e.g. 1bar,3bar,5bar (default: one run at 0)")
      ->type_name("PRESSURE,...");
  cmd->add_option("--pressure-b", a->pressure_b, "Chamber-B pressure (default 0)")->type_name("PRESSURE");
  cmd->add_option("--normal-force", a->normal_force, "Normal force for models that read F_n (default 0)")
      ->type_name("FORCE");
  cmd->add_option("--mass", a->mass, "Moving mass [kg]: adds mass*acceleration to the force (default 0)")
      ->type_name("KG");
  cmd->add_option("--area-a", a->area_a, "Piston area A [m^2]: subtracts p_a*A from the force (default 0)")
      ->type_name("M^2");
  cmd->add_option("--area-b", a->area_b, "Piston area B [m^2]: adds p_b*B to the force (default 0)")->type_name("M^2");
  cmd->add_option("--noise", a->noise, "Gaussian noise std per channel, e.g. force=0.5,position=1um")
      ->type_name("CHANNEL=STD,...");
  cmd->add_option("--offset", a->offset, "Constant sensor offset per channel, e.g. force=2")
      ->type_name("CHANNEL=VALUE,...");
  cmd->add_option("--quantisation", a->quantisation, "Quantisation step per channel, e.g. position=1um")
      ->type_name("CHANNEL=STEP,...");
  cmd->add_option("--seed", a->seed, "Random seed (default 1); same seed, same file content")
      ->type_name("N")
      ->check(kWhole);
  cmd->add_option("--output,-o", a->output, "HDF5 log to write")->type_name("FILE")->required();
  add_verbosity_flags(cmd);
  cmd->callback([a, cmd] {
    for (const char* f : {"--profile", "--vmax", "--rate", "--duration", "--pressure-levels", "--band", "--tones"})
      if (!a->design.empty() && cmd->count(f) > 0) a->trajectory_flags.push_back(f);
    run(*a);
  });
}

}  // namespace stribeck::cli
