// `stribeck import FILE... -o LOG.h5`: text, MATLAB and HDF5 logs into one
// HDF5 log in SI units, optionally with derived velocity/acceleration.
#include <cstdio>

#include "commands.hpp"
#include "stribeck/data/log_import.hpp"

namespace stribeck::cli {
namespace {

// The request, and the values of --cutoff and --resample, which the request
// holds only when given.
struct ImportArgs {
  data::ImportRequest r;
  double cutoff = 0, resample = -1;
};

// "experiment 'NAME', N samples ('a', 'b')": names from the file echoed
// on one line, cut (one_line).
std::string experiment_line(const data::ImportedExperiment& e) {
  std::string chans;
  for (const auto& c : e.channels) chans += (chans.empty() ? "" : ", ") + one_line("'" + c + "'");
  return "stribeck import: " + e.file + ": experiment " + one_line("'" + e.name + "'") + ", " +
         std::to_string(e.samples) + " samples (" + chans + ")";
}

// What was made of the file's layout and clock: the header found below a
// preamble, a time shift, the overlap of aligned files; and the derivation.
std::string layout_note(const data::ImportedExperiment& e) {
  const auto& attrs = e.attributes;
  std::string note;
  if (auto h = attrs.find("header_line"); h != attrs.end())
    note += "; header on line " + h->second + " (the lines above it skipped)";
  if (auto k = attrs.find("skipped_lines"); k != attrs.end())
    note += "; " + k->second + " lines skipped above the table";
  if (auto s = attrs.find("time_shift"); s != attrs.end()) note += "; time shifted by " + s->second + " s";
  if (auto f = attrs.find("aligned_files"); f != attrs.end())
    note += "; " + f->second + " aligned onto " +
            (attrs.at("align") == "first" ? "the first file's time" : "a " + attrs.at("align").substr(5) + " Hz grid") +
            ", overlap " + attrs.at("align_start") + " to " + attrs.at("align_end") + " s kept";
  if (!e.derived.derived.empty()) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "; derived at %.4g Hz cut-off (SG half-width %d, %.4g Hz sampling)",
                  e.derived.cutoff_hz, e.derived.half_width, e.derived.rate_hz);
    note += buf;
  }
  return note;
}

// One line per experiment, printed once the log is written: an error found
// on the way stays the only line.
void run(data::ImportRequest& r) {
  check_output(r.output, r.files);
  r.provenance = cli_provenance();
  const std::vector<data::ImportedExperiment> done = data::import_logs(r);
  std::string report;
  for (const auto& e : done) report += experiment_line(e) + layout_note(e) + "\n";
  report.pop_back();  // summary() ends the last line
  summary("%s", report.c_str());
  summary("stribeck import: %zu experiment%s -> %s", done.size(), done.size() == 1 ? "" : "s", r.output.c_str());
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("import", "Convert rig logs (CSV/text, MATLAB v7.3 .mat, HDF5) into one HDF5 log in SI units");
  auto a = std::make_shared<ImportArgs>();
  cmd->add_option("files", a->r.files, "Input files; each becomes an experiment (a .mat or .h5 may hold several)")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--output,-o", a->r.output, "HDF5 log to write (replaced atomically)")->type_name("FILE")->required();
  cmd->add_option("--name,-n", a->r.names, "Experiment name, once per file in file order (default: file stem)")
      ->type_name("NAME");
  cmd->add_option("--columns,-c", a->r.columns,
                  "Column mapping CHANNEL=COLUMN[:UNIT],... with COLUMN a 0-based index or a header/variable "
                  "name, e.g. time=0:ms,position=4:mm,pressure_a=5:bar,force=6:N (needed for headerless files)")
      ->type_name("CHANNEL=COLUMN,...");
  cmd->add_flag("--keep-unmapped", a->r.keep_unmapped,
                "With --columns: also keep the other (named) columns as channels");
  cmd->add_option("--derive", a->r.derive, "Derive channels (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({"velocity", "acceleration"}));
  cmd->add_option("--cutoff", a->cutoff, "Cut-off [Hz] of the derivative filter (default: sample rate / 20)")
      ->type_name("HZ");
  cmd->add_option("--order", a->r.order, "Polynomial order of the Savitzky-Golay fit (default 2)")
      ->type_name("N")
      ->check(CLI::Range(1, 6));
  cmd->add_flag("--absolute-pressure", a->r.absolute_pressure,
                "Pressures in the files are absolute; store gauge pressure");
  cmd->add_option("--ambient", a->r.ambient,
                  "Ambient pressure [Pa] for --absolute-pressure and bara/psia units (default 101325)")
      ->type_name("PA");
  cmd->add_option("--resample", a->resample, "Resample onto a uniform time step [s] (0: the median step)")
      ->type_name("S");
  cmd->add_option("--constant", a->r.constants,
                  "Add a channel the rig holds fixed, CHANNEL=VALUE[UNIT] (repeatable), e.g. pressure_b=0")
      ->type_name("CHANNEL=VALUE");
  cmd->add_option("--gain", a->r.gains,
                  "Scale a channel recorded as a voltage or current, CHANNEL=GAIN[UNIT[/RAW]][,OFFSET[UNIT]] "
                  "(repeatable): value = GAIN*recorded + OFFSET, e.g. force=35.15N/V or force=35.15N/V,-1.2N; "
                  "kept as channel attributes (text and MATLAB files)")
      ->type_name("CHANNEL=GAIN");
  cmd->add_option("--skip-rows", a->r.skip_rows,
                  "Text files: lines before the table to skip (a vendor preamble, a title); default: detected")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--header-row", a->r.header_row, "Text files: the 1-based line that names the columns")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->excludes("--skip-rows");
  cmd->add_option("--time-shift", a->r.time_shifts,
                  "Add S seconds to a file's time, once per file in file order (0 for none)")
      ->type_name("S");
  cmd->add_option("--align", a->r.align,
                  "Merge the files (recorded on different clocks) into one experiment over their overlap: "
                  "first (channels interpolated onto the first file's time) or rate=HZ (onto a uniform grid)")
      ->type_name("first|rate=HZ");
  cmd->add_option("--attr", a->r.attributes,
                  "Experiment attribute KEY=VALUE (repeatable), e.g. rig=R2, specimen=NBR-12")
      ->type_name("KEY=VALUE");
  add_verbosity_flags(cmd);
  cmd->callback([a, cmd] {
    if (cmd->count("--cutoff") > 0) a->r.cutoff = a->cutoff;
    if (cmd->count("--resample") > 0) a->r.resample = a->resample;
    run(a->r);
  });
}

}  // namespace stribeck::cli
