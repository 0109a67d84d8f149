// `stribeck import FILE... -o LOG.h5`: text, MATLAB and HDF5 logs into one
// HDF5 log in SI units, optionally with derived velocity/acceleration.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "commands.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/signals.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::cli {
namespace {

struct ImportArgs {
  std::vector<std::string> files;
  std::string output;
  std::vector<std::string> names;
  std::string columns;
  std::vector<std::string> derive;
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
  long skip_rows = 0, header_row = 0;
  std::vector<double> time_shifts;  // once per file, in order
  std::string align;                // "", "first" or "rate=HZ"
};

// --align first | rate=HZ: the rate of the common time base, 0 for the first
// file's own time.
double parse_align(const std::string& text) {
  if (text == "first") return 0;
  if (text.rfind("rate=", 0) == 0) {
    const double hz = parse_quantity(text.substr(5), "--align rate");
    if (hz > 0 && std::isfinite(hz)) return hz;
  }
  throw InputError("--align '" + text + "': give first (the first file's time) or rate=HZ (a grid of HZ > 0)");
}

// --constant pressure_b=0 or p_a=2bar: a channel the rig did not log but
// holds fixed (single-chamber cylinders, a constant normal load).
struct Constant {
  std::string channel, unit, text;
  double value = 0;
};
Constant parse_constant(const std::string& kv, bool rotational, const std::string& source, const std::string& name,
                        const std::function<bool(const std::string&)>& has) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError("--constant '" + kv + "' is not CHANNEL=VALUE[UNIT]");
  Constant c;
  c.channel = canonical_channel(kv.substr(0, eq));
  std::optional<Dimension> dim;
  c.value = parse_quantity(kv.substr(eq + 1), "--constant " + c.channel, &dim);
  const auto need = channel_dimension(c.channel, rotational);
  if (dim && need && *dim != *need)
    throw InputError("--constant " + kv + ": unit is " + dimension_name(*dim) + ", channel '" + c.channel + "' needs " +
                     dimension_name(*need));
  if (has(c.channel))
    throw InputError(source + ": experiment '" + name + "' already has a '" + c.channel +
                     "' channel; --constant would overwrite it");
  c.unit = need ? si_unit(*need) : (dim ? si_unit(*dim) : "1");
  c.text = kv.substr(eq + 1);
  return c;
}

void add_constant(Experiment& e, const std::string& kv) {
  const bool rotational = e.attributes.count("motion") && e.attributes.at("motion") == "rotational";
  const Constant c = parse_constant(kv, rotational, e.source, e.name, [&](const std::string& ch) { return e.has(ch); });
  e.channels[c.channel] = std::vector<double>(e.size(), c.value);
  e.units[c.channel] = c.unit;
  e.attributes["constant_" + c.channel] = c.text;
}

void set_attributes(std::map<std::string, std::string>& attrs, const std::vector<std::string>& kvs) {
  for (const auto& kv : kvs) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--attr '" + kv + "' is not KEY=VALUE");
    attrs[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
}

// Delimited text (not HDF5, not MATLAB): what can be imported a block of
// rows at a time.
bool is_text_log(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char head[128] = {0};
  const size_t got = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  const std::string h(head, got);
  return got > 0 && h.rfind("MATLAB 5.0 MAT-file", 0) != 0 && !h5::is_hdf5(path) && h.find('\0') == std::string::npos;
}

void run(const ImportArgs& a) {
  check_output(a.output, a.files);
  // Settings that have no "use the default" value of their own.
  if (a.cutoff_given && !(a.cutoff > 0 && std::isfinite(a.cutoff)))
    throw InputError("--cutoff " + format_number(a.cutoff) + ": the cut-off must be a frequency > 0 [Hz]");
  if (a.resample_given && !(a.resample >= 0 && std::isfinite(a.resample)))
    throw InputError("--resample " + format_number(a.resample) +
                     ": give a time step > 0 [s], or 0 for the median step");
  if (!(a.ambient > 0 && std::isfinite(a.ambient)))
    throw InputError("--ambient " + format_number(a.ambient) + ": the ambient pressure must be > 0 [Pa]");
  for (const auto& n : a.names)
    if (n.empty()) throw InputError("--name: an experiment name must not be empty");
  if (!a.names.empty() && a.names.size() != a.files.size() && a.align.empty())
    throw InputError("--name given " + std::to_string(a.names.size()) + " times for " + std::to_string(a.files.size()) +
                     " files; give one per file, in the same order");
  if (!a.time_shifts.empty() && a.time_shifts.size() != a.files.size())
    throw InputError("--time-shift given " + std::to_string(a.time_shifts.size()) + " times for " +
                     std::to_string(a.files.size()) + " files; give one per file, in the same order (0 for none)");
  for (double s : a.time_shifts)
    if (!std::isfinite(s)) throw InputError("--time-shift " + format_number(s) + ": give a finite time [s]");
  const double align_rate = a.align.empty() ? -1 : parse_align(a.align);
  if (align_rate >= 0 && a.files.size() < 2) throw InputError("--align needs two or more files, one experiment each");
  if (align_rate >= 0 && a.names.size() > 1)
    throw InputError("--align merges the files into one experiment: give --name once");
  ReadOptions ro;
  ro.skip_rows = a.skip_rows;
  ro.header_row = a.header_row;
  if (!a.columns.empty()) ro.columns = parse_column_specs(a.columns);
  ro.only_mapped = !a.keep_unmapped;
  ro.absolute_pressure = a.absolute;
  ro.ambient_pressure = a.ambient;
  for (const auto& g : a.gains) ro.gains.push_back(parse_channel_gain(g));  // before any file is read
  DeriveOptions d;
  d.cutoff_hz = a.cutoff;
  d.order = a.order;
  const std::vector<std::string>& derive = a.derive;  // checked by the parser (IsMember)
  // Every experiment goes into one file written block by block (atomic:
  // nothing at the output until the last one is complete). Text files
  // without --derive or --resample stream a block of rows at a time; the
  // rest (MATLAB, HDF5, derived or resampled channels) are read whole.
  LogBlockWriter out(a.output, cli_provenance());
  std::map<std::string, std::string> taken;  // experiment name -> source
  size_t count = 0;
  // One line per experiment, printed once the log is written: an error
  // found on the way stays the only line.
  std::string report;
  char buf[512];
  auto take_name = [&](const std::string& name, const std::string& file, const std::string& source) {
    if (auto it = taken.find(name); it != taken.end())
      throw InputError(file + ": experiment name '" + name + "' is already taken by " + it->second +
                       "; give each file its own --name");
    taken[name] = source;
    ++count;
  };
  // "experiment 'NAME', N samples ('a', 'b')": names from the file echoed
  // on one line, cut (one_line).
  auto experiment_line = [](const std::string& file, const std::string& name, size_t rows,
                            const std::vector<std::string>& channels) {
    std::string chans;
    for (const auto& c : channels) chans += (chans.empty() ? "" : ", ") + one_line("'" + c + "'");
    return "stribeck import: " + file + ": experiment " + one_line("'" + name + "'") + ", " + std::to_string(rows) +
           " samples (" + chans + ")";
  };
  // What was made of the file's layout and clock: the header found below a
  // preamble, a time shift, the overlap of aligned files.
  auto layout_note = [](const std::map<std::string, std::string>& attrs) {
    std::string note;
    if (auto h = attrs.find("header_line"); h != attrs.end())
      note += "; header on line " + h->second + " (the lines above it skipped)";
    if (auto k = attrs.find("skipped_lines"); k != attrs.end())
      note += "; " + k->second + " lines skipped above the table";
    if (auto s = attrs.find("time_shift"); s != attrs.end()) note += "; time shifted by " + s->second + " s";
    if (auto f = attrs.find("aligned_files"); f != attrs.end())
      note +=
          "; " + f->second + " aligned onto " +
          (attrs.at("align") == "first" ? "the first file's time" : "a " + attrs.at("align").substr(5) + " Hz grid") +
          ", overlap " + attrs.at("align_start") + " to " + attrs.at("align_end") + " s kept";
    return note;
  };
  auto shift_time = [&](Experiment& e, size_t file) {
    if (a.time_shifts.empty() || a.time_shifts[file] == 0) return;
    if (!e.has("time"))
      throw InputError(a.files[file] + ": --time-shift: experiment '" + e.name + "' has no time channel");
    for (double& t : e.channels["time"]) t += a.time_shifts[file];
    e.attributes["time_shift"] = format_number(a.time_shifts[file]);
  };
  std::vector<Experiment> aligned;  // --align: the files read so far
  for (size_t i = 0; i < a.files.size(); ++i) {
    ro.name = a.names.empty() || align_rate >= 0 ? "" : a.names[i];
    if (derive.empty() && a.resample < 0 && align_rate < 0 && is_text_log(a.files[i])) {
      const std::string& path = a.files[i];
      TextBlocks text(path, ro);
      const std::string name = ro.name.empty() ? file_stem(path) : ro.name;
      std::map<std::string, std::string> attrs = text.plan().attributes;
      const bool rotational = attrs.count("motion") && attrs.at("motion") == "rotational";
      const double shift = a.time_shifts.empty() ? 0 : a.time_shifts[i];
      size_t time_col = text.plan().channels.size();
      std::vector<BlockColumn> cols;
      for (const auto& c : text.plan().channels) {
        if (c.channel == "time") time_col = cols.size();
        cols.push_back({c.channel, c.unit, ""});
        if (auto at = text.plan().channel_attributes.find(c.channel); at != text.plan().channel_attributes.end())
          cols.back().attributes = at->second;  // --gain provenance
      }
      std::vector<Constant> constants;
      for (const auto& kv : a.constants) {
        constants.push_back(parse_constant(kv, rotational, path, name, [&](const std::string& ch) {
          for (const auto& c : cols)
            if (c.name == ch) return true;
          return false;
        }));
        cols.push_back({constants.back().channel, constants.back().unit, ""});
        attrs["constant_" + constants.back().channel] = constants.back().text;
      }
      if (shift != 0) {
        if (time_col == text.plan().channels.size())
          throw InputError(path + ": --time-shift: experiment '" + name + "' has no time channel");
        attrs["time_shift"] = format_number(shift);
      }
      set_attributes(attrs, a.attributes);
      take_name(name, path, path);
      const size_t g = out.add_experiment(name, cols, attrs, path);
      std::vector<std::vector<double>> block;
      std::vector<std::vector<double>> fixed(constants.size());
      std::vector<const double*> ptrs;
      size_t rows = 0;
      // Blocks of whole chunks, fewer rows where the columns are many: memory
      // per column stays in kilobytes (stream_block_rows).
      const size_t block_rows = stream_block_rows(cols.size());
      for (size_t n; (n = text.next(block, block_rows)) > 0; rows += n) {
        if (shift != 0)
          for (size_t r = 0; r < n; ++r) block[time_col][r] += shift;
        ptrs.clear();
        for (const auto& c : block) ptrs.push_back(c.data());
        for (size_t k = 0; k < constants.size(); ++k) {
          fixed[k].assign(n, constants[k].value);
          ptrs.push_back(fixed[k].data());
        }
        out.append(g, ptrs.data(), n);
      }
      std::vector<std::string> sorted;
      for (const auto& c : cols) sorted.push_back(c.name);
      std::sort(sorted.begin(), sorted.end());
      report += experiment_line(path, name, rows, sorted) + layout_note(attrs) + "\n";
      continue;
    }
    std::vector<Experiment> experiments = read_any_log(a.files[i], ro);
    if (align_rate >= 0) {
      // Every file read first; the merged experiment is written once the
      // last is in.
      if (experiments.size() != 1)
        throw InputError(a.files[i] + ": holds " + std::to_string(experiments.size()) +
                         " experiments; --align takes files of one experiment each");
      shift_time(experiments[0], i);
      aligned.push_back(std::move(experiments[0]));
      if (i + 1 < a.files.size()) continue;
      experiments.assign(1, align_experiments(aligned, align_rate));
      aligned.clear();
      if (!a.names.empty()) experiments[0].name = a.names[0];
      if (!a.time_shifts.empty()) {  // each file's, not only the first's
        std::string shifts;
        for (double t : a.time_shifts) shifts += (shifts.empty() ? "" : ", ") + format_number(t);
        experiments[0].attributes["time_shift"] = shifts;
      }
    } else {
      for (Experiment& e : experiments) shift_time(e, i);
    }
    for (Experiment& e : experiments) {
      for (const auto& kv : a.constants) add_constant(e, kv);
      if (a.resample >= 0) resample_uniform(e, a.resample);
      const DeriveSummary s = derive_channels(e, derive, d);
      set_attributes(e.attributes, a.attributes);
      std::vector<std::string> names;
      for (const auto& [c, v] : e.channels) names.push_back(c);
      report += experiment_line(align_rate >= 0 ? a.files[0] : a.files[i], e.name, e.size(), names) +
                layout_note(e.attributes);
      if (!s.derived.empty()) {
        std::snprintf(buf, sizeof buf, "; derived at %.4g Hz cut-off (SG half-width %d, %.4g Hz sampling)", s.cutoff_hz,
                      s.half_width, s.rate_hz);
        report += buf;
      }
      report += "\n";
      take_name(e.name, a.files[i], e.source);
      validate_experiment(e);
      std::vector<BlockColumn> cols;
      std::vector<const double*> ptrs;
      for (const auto& [c, v] : e.channels) {
        cols.push_back({c, e.units.at(c), ""});
        if (auto at = e.channel_attributes.find(c); at != e.channel_attributes.end())
          cols.back().attributes = at->second;
        ptrs.push_back(v.data());
      }
      const size_t g = out.add_experiment(e.name, cols, e.attributes, e.source);
      const size_t block_rows = stream_block_rows(cols.size());  // bounds the writer's encoded chunks
      for (size_t r = 0; r < e.size(); r += block_rows) {
        std::vector<const double*> at;
        for (const double* p : ptrs) at.push_back(p + r);
        out.append(g, at.data(), std::min(block_rows, e.size() - r));
      }
    }
  }
  if (count == 0) throw InputError(a.output + ": nothing to write (no experiments)");
  out.commit();
  if (!report.empty()) report.pop_back();  // summary() ends the last line
  summary("%s", report.c_str());
  summary("stribeck import: %zu experiment%s -> %s", count, count == 1 ? "" : "s", a.output.c_str());
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("import", "Convert rig logs (CSV/text, MATLAB v7.3 .mat, HDF5) into one HDF5 log in SI units");
  auto a = std::make_shared<ImportArgs>();
  cmd->add_option("files", a->files, "Input files; each becomes an experiment (a .mat or .h5 may hold several)")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--output,-o", a->output, "HDF5 log to write (replaced atomically)")->type_name("FILE")->required();
  cmd->add_option("--name,-n", a->names, "Experiment name, once per file in file order (default: file stem)")
      ->type_name("NAME");
  cmd->add_option("--columns,-c", a->columns,
                  "Column mapping CHANNEL=COLUMN[:UNIT],... with COLUMN a 0-based index or a header/variable "
                  "name, e.g. time=0:ms,position=4:mm,pressure_a=5:bar,force=6:N (needed for headerless files)")
      ->type_name("CHANNEL=COLUMN,...");
  cmd->add_flag("--keep-unmapped", a->keep_unmapped, "With --columns: also keep the other (named) columns as channels");
  cmd->add_option("--derive", a->derive, "Derive channels (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({"velocity", "acceleration"}));
  cmd->add_option("--cutoff", a->cutoff, "Cut-off [Hz] of the derivative filter (default: sample rate / 20)")
      ->type_name("HZ");
  cmd->add_option("--order", a->order, "Polynomial order of the Savitzky-Golay fit (default 2)")
      ->type_name("N")
      ->check(CLI::Range(1, 6));
  cmd->add_flag("--absolute-pressure", a->absolute, "Pressures in the files are absolute; store gauge pressure");
  cmd->add_option("--ambient", a->ambient,
                  "Ambient pressure [Pa] for --absolute-pressure and bara/psia units (default 101325)")
      ->type_name("PA");
  cmd->add_option("--resample", a->resample, "Resample onto a uniform time step [s] (0: the median step)")
      ->type_name("S");
  cmd->add_option("--constant", a->constants,
                  "Add a channel the rig holds fixed, CHANNEL=VALUE[UNIT] (repeatable), e.g. pressure_b=0")
      ->type_name("CHANNEL=VALUE");
  cmd->add_option("--gain", a->gains,
                  "Scale a channel recorded as a voltage or current, CHANNEL=GAIN[UNIT[/RAW]][,OFFSET[UNIT]] "
                  "(repeatable): value = GAIN*recorded + OFFSET, e.g. force=35.15N/V or force=35.15N/V,-1.2N; "
                  "kept as channel attributes (text and MATLAB files)")
      ->type_name("CHANNEL=GAIN");
  cmd->add_option("--skip-rows", a->skip_rows,
                  "Text files: lines before the table to skip (a vendor preamble, a title); default: detected")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--header-row", a->header_row, "Text files: the 1-based line that names the columns")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->excludes("--skip-rows");
  cmd->add_option("--time-shift", a->time_shifts,
                  "Add S seconds to a file's time, once per file in file order (0 for none)")
      ->type_name("S");
  cmd->add_option("--align", a->align,
                  "Merge the files (recorded on different clocks) into one experiment over their overlap: "
                  "first (channels interpolated onto the first file's time) or rate=HZ (onto a uniform grid)")
      ->type_name("first|rate=HZ");
  cmd->add_option("--attr", a->attributes, "Experiment attribute KEY=VALUE (repeatable), e.g. rig=R2, specimen=NBR-12")
      ->type_name("KEY=VALUE");
  add_verbosity_flags(cmd);
  cmd->callback([a, cmd] {
    a->cutoff_given = cmd->count("--cutoff") > 0;
    a->resample_given = cmd->count("--resample") > 0;
    run(*a);
  });
}

}  // namespace stribeck::cli
