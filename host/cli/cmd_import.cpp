// `stribeck import FILE... -o LOG.h5`: text, MATLAB and HDF5 logs into one
// HDF5 log in SI units, optionally with derived velocity/acceleration.
#include <cmath>
#include <cstdio>

#include "commands.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/signals.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::cli {
namespace {

struct ImportArgs {
  std::vector<std::string> files;
  std::string output;
  std::vector<std::string> names;
  std::string columns;
  std::string derive;
  double cutoff = 0;
  bool cutoff_given = false, resample_given = false;  // given explicitly: checked, not read as "default"
  int order = 2;
  bool absolute = false;
  bool keep_unmapped = false;
  double ambient = 101325.0;
  double resample = -1;  // <0: keep; 0: median step; >0: step [s]
  std::vector<std::string> attributes;
  std::vector<std::string> constants;
  std::vector<std::string> gains;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t end = s.find(',', pos);
    if (end == std::string::npos) end = s.size();
    if (end > pos) out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

// --constant pressure_b=0 or p_a=2bar: a channel the rig did not log but
// holds fixed (single-chamber cylinders, a constant normal load).
void add_constant(Experiment& e, const std::string& kv) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError("--constant '" + kv + "' is not CHANNEL=VALUE[UNIT]");
  const std::string ch = canonical_channel(kv.substr(0, eq));
  std::optional<Dimension> dim;
  const double value = parse_quantity(kv.substr(eq + 1), "--constant " + ch, &dim);
  const bool rotational = e.attributes.count("motion") && e.attributes.at("motion") == "rotational";
  const auto need = channel_dimension(ch, rotational);
  if (dim && need && *dim != *need)
    throw InputError("--constant " + kv + ": unit is " + dimension_name(*dim) + ", channel '" + ch + "' needs " +
                     dimension_name(*need));
  if (e.has(ch)) throw InputError(e.source + ": experiment '" + e.name + "' already has a '" + ch + "' channel; --constant would overwrite it");
  e.channels[ch] = std::vector<double>(e.size(), value);
  e.units[ch] = need ? si_unit(*need) : (dim ? si_unit(*dim) : "1");
  e.attributes["constant_" + ch] = kv.substr(eq + 1);
}

void run(const ImportArgs& a) {
  check_output(a.output, a.files);
  // Settings that have no "use the default" value of their own.
  if (a.cutoff_given && !(a.cutoff > 0 && std::isfinite(a.cutoff)))
    throw InputError("--cutoff " + format_number(a.cutoff) + ": the cut-off must be a frequency > 0 [Hz]");
  if (a.resample_given && !(a.resample >= 0 && std::isfinite(a.resample)))
    throw InputError("--resample " + format_number(a.resample) + ": give a time step > 0 [s], or 0 for the median step");
  if (!(a.ambient > 0 && std::isfinite(a.ambient)))
    throw InputError("--ambient " + format_number(a.ambient) + ": the ambient pressure must be > 0 [Pa]");
  for (const auto& n : a.names)
    if (n.empty()) throw InputError("--name: an experiment name must not be empty");
  if (!a.names.empty() && a.names.size() != a.files.size())
    throw InputError("--name given " + std::to_string(a.names.size()) + " times for " +
                     std::to_string(a.files.size()) + " files; give one per file, in the same order");
  ReadOptions ro;
  if (!a.columns.empty()) ro.columns = parse_column_specs(a.columns);
  ro.only_mapped = !a.keep_unmapped;
  ro.absolute_pressure = a.absolute;
  ro.ambient_pressure = a.ambient;
  for (const auto& g : a.gains) ro.gains.push_back(parse_channel_gain(g));  // before any file is read
  DeriveOptions d;
  d.cutoff_hz = a.cutoff;
  d.order = a.order;
  const std::vector<std::string> derive = split_list(a.derive);
  for (const auto& c : derive)  // before any file is read: a typo should not wait for a large import
    if (c != "velocity" && c != "acceleration")
      throw InputError("--derive: cannot derive '" + c + "' (choose velocity, acceleration)");
  std::vector<Experiment> all;
  // One line per experiment, printed once the log is written: an error
  // found on the way stays the only line.
  std::string report;
  char buf[512];
  for (size_t i = 0; i < a.files.size(); ++i) {
    ro.name = a.names.empty() ? "" : a.names[i];
    for (Experiment& e : read_any_log(a.files[i], ro)) {
      for (const auto& kv : a.constants) add_constant(e, kv);
      if (a.resample >= 0) resample_uniform(e, a.resample);
      const DeriveSummary s = derive_channels(e, derive, d);
      for (const auto& kv : a.attributes) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) throw InputError("--attr '" + kv + "' is not KEY=VALUE");
        e.attributes[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
      std::string chans;
      for (const auto& [c, v] : e.channels) chans += (chans.empty() ? "" : ", ") + one_line("'" + c + "'");
      report += "stribeck import: " + a.files[i] + ": experiment " + one_line("'" + e.name + "'") + ", " +
                std::to_string(e.size()) + " samples (" + chans + ")";
      if (!s.derived.empty()) {
        std::snprintf(buf, sizeof buf, "; derived at %.4g Hz cut-off (SG half-width %d, %.4g Hz sampling)",
                      s.cutoff_hz, s.half_width, s.rate_hz);
        report += buf;
      }
      report += "\n";
      for (const auto& prev : all)
        if (prev.name == e.name)
          throw InputError(a.files[i] + ": experiment name '" + e.name + "' is already taken by " + prev.source +
                           "; give each file its own --name");
      all.push_back(std::move(e));
    }
  }
  write_log(a.output, all, cli_provenance());
  std::fputs(report.c_str(), stderr);
  std::fprintf(stderr, "stribeck import: %zu experiment%s -> %s\n", all.size(), all.size() == 1 ? "" : "s",
               a.output.c_str());
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("import", "Convert rig logs (CSV/text, MATLAB v7.3 .mat, HDF5) into one HDF5 log in SI units");
  auto a = std::make_shared<ImportArgs>();
  cmd->add_option("files", a->files, "Input files; each becomes an experiment (a .mat or .h5 may hold several)")
      ->required();
  cmd->add_option("--output,-o", a->output, "HDF5 log to write (replaced atomically)")->required();
  cmd->add_option("--name,-n", a->names, "Experiment name, once per file in file order (default: file stem)");
  cmd->add_option("--columns,-c", a->columns,
                  "Column mapping CHANNEL=COLUMN[:UNIT],... with COLUMN a 0-based index or a header/variable "
                  "name, e.g. time=0:ms,position=4:mm,pressure_a=5:bar,force=6:N (needed for headerless files)");
  cmd->add_flag("--keep-unmapped", a->keep_unmapped,
               "With --columns: also keep the other (named) columns as channels");
  cmd->add_option("--derive", a->derive, "Derive channels: velocity, acceleration (comma-separated)");
  cmd->add_option("--cutoff", a->cutoff, "Cut-off [Hz] of the derivative filter (default: sample rate / 20)");
  cmd->add_option("--order", a->order, "Polynomial order of the Savitzky-Golay fit (default 2)");
  cmd->add_flag("--absolute-pressure", a->absolute, "Pressures in the files are absolute; store gauge pressure");
  cmd->add_option("--ambient", a->ambient, "Ambient pressure [Pa] for --absolute-pressure and bara/psia units (default 101325)");
  cmd->add_option("--resample", a->resample, "Resample onto a uniform time step [s] (0: the median step)");
  cmd->add_option("--constant", a->constants,
                  "Add a channel the rig holds fixed, CHANNEL=VALUE[UNIT] (repeatable), e.g. pressure_b=0");
  cmd->add_option("--gain", a->gains,
                  "Scale a channel recorded as a voltage or current, CHANNEL=GAIN[UNIT[/RAW]][,OFFSET[UNIT]] "
                  "(repeatable): value = GAIN*recorded + OFFSET, e.g. force=35.15N/V or force=35.15N/V,-1.2N; "
                  "kept as channel attributes (text and MATLAB files)");
  cmd->add_option("--attr", a->attributes, "Experiment attribute KEY=VALUE (repeatable), e.g. rig=R2, specimen=NBR-12");
  cmd->callback([a, cmd] {
    a->cutoff_given = cmd->count("--cutoff") > 0;
    a->resample_given = cmd->count("--resample") > 0;
    run(*a);
  });
}

}  // namespace stribeck::cli
