// `stribeck export-params FIT.json --to simscape|modelica|20sim|json`: a fit
// report's parameters as the reference tools take them. The conversion and
// the writers are identification's export_params (export_params.hpp); this
// binds the flags, writes the file and prints the summary.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/identification/export_params.hpp"

namespace stribeck::cli {
namespace {

// The flags as given (pressure and normal force are read where counted).
struct ExportFlags {
  std::string fit, to, output, data, velocity_range;
  double pressure = 0.0, normal_force = 0.0;
  int fit_index = 1;
};

}  // namespace

void add_export_params_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "export-params",
      "Write a fit's parameters for Simscape (set_param script), Modelica (MSL record), 20-sim or as plain JSON");
  auto o = std::make_shared<ExportFlags>();
  cmd->add_option("fit", o->fit, "Fit report (identify --json), or a parameter set (export-params --to json)")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--to,-t", o->to, "Target: simscape, modelica, 20sim or json")
      ->required()
      ->check(CLI::IsMember({"simscape", "modelica", "20sim", "json"}));
  cmd->add_option("--output,-o", o->output, "File to write (default: standard output)")->type_name("FILE");
  cmd->add_option("--velocity-range", o->velocity_range,
                  "LO:HI: |v| range [m/s, rad/s] of the data, over which an approximate conversion is fitted and "
                  "checked")
      ->type_name("LO:HI");
  cmd->add_option("--data", o->data,
                  "Rig log the fit came from: its velocity channel gives the range, its experiments the operating "
                  "points (p_A + p_B, F_n)")
      ->type_name("FILE");
  auto* pressure = cmd->add_option("--pressure", o->pressure,
                                   "Cylinder laws to Modelica or 20-sim: p_A + p_B [Pa] at which the "
                                   "pressure-dependent Coulomb force is taken "
                                   "(else each experiment's of --data; required without --data)")
                       ->type_name("PA");
  auto* normal_force =
      cmd->add_option(
             "--normal-force", o->normal_force,
             "Between 20-sim (coefficients per newton of normal force) and the other tools: F_n [N] (else each "
             "experiment's of --data)")
          ->type_name("NEWTON");
  cmd->add_option("--fit", o->fit_index, "With a report of several fits (--compare, --batch): which one (1 = first)")
      ->type_name("N")
      ->check(kPositive);
  add_verbosity_flags(cmd);
  cmd->callback([o, pressure, normal_force] {
    if (!o->output.empty()) check_output(o->output, {o->fit, o->data});
    ident::ExportOptions opt;
    ident::parse_export_target(o->to, &opt.to);  // CLI11 admits the four names only
    opt.fit = o->fit;
    opt.fit_index = o->fit_index;
    opt.data = o->data;
    opt.velocity_range = o->velocity_range;
    if (pressure->count()) opt.pressure = o->pressure;
    if (normal_force->count()) opt.normal_force = o->normal_force;
    const ident::ExportResult r = ident::export_params(opt);
    if (o->output.empty()) {
      std::fputs(r.text.c_str(), stdout);
    } else {
      data::AtomicFile out(o->output);
      out.write(r.text);
      out.commit();
    }
    for (size_t i = 0; i < r.conversions.size(); ++i) {
      const std::string warning = ident::export_warning(r, i);
      if (!warning.empty()) warn(warning);
      const std::string line = ident::export_summary(r, opt, i, o->output);
      // The summary goes to stdout, as in every command, unless stdout holds the exported file.
      if (o->output.empty()) std::fprintf(stderr, "%s\n", line.c_str());
      else summary("%s", line.c_str());
    }
  });
}

}  // namespace stribeck::cli
