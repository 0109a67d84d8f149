// `import` as one typed call (log_import.hpp).
#include "stribeck/data/log_import.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data {
namespace {

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

// Settings that have no "use the default" value of their own, and counts
// that must match the files. Returns the --align rate (-1: no --align).
double check_request(const ImportRequest& q) {
  if (q.cutoff && !(*q.cutoff > 0 && std::isfinite(*q.cutoff)))
    throw InputError("--cutoff " + format_number(*q.cutoff) + ": the cut-off must be a frequency > 0 [Hz]");
  if (q.resample && !(*q.resample >= 0 && std::isfinite(*q.resample)))
    throw InputError("--resample " + format_number(*q.resample) +
                     ": give a time step > 0 [s], or 0 for the median step");
  if (!(q.ambient > 0 && std::isfinite(q.ambient)))
    throw InputError("--ambient " + format_number(q.ambient) + ": the ambient pressure must be > 0 [Pa]");
  for (const auto& n : q.names)
    if (n.empty()) throw InputError("--name: an experiment name must not be empty");
  if (!q.names.empty() && q.names.size() != q.files.size() && q.align.empty())
    throw InputError("--name given " + std::to_string(q.names.size()) + " times for " + std::to_string(q.files.size()) +
                     " files; give one per file, in the same order");
  if (!q.time_shifts.empty() && q.time_shifts.size() != q.files.size())
    throw InputError("--time-shift given " + std::to_string(q.time_shifts.size()) + " times for " +
                     std::to_string(q.files.size()) + " files; give one per file, in the same order (0 for none)");
  for (double s : q.time_shifts)
    if (!std::isfinite(s)) throw InputError("--time-shift " + format_number(s) + ": give a finite time [s]");
  const double align_rate = q.align.empty() ? -1 : parse_align(q.align);
  if (align_rate >= 0 && q.files.size() < 2) throw InputError("--align needs two or more files, one experiment each");
  if (align_rate >= 0 && q.names.size() > 1)
    throw InputError("--align merges the files into one experiment: give --name once");
  return align_rate;
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

// The readers' options, --columns and --gain parsed before any file is read.
ReadOptions read_options(const ImportRequest& q) {
  ReadOptions ro;
  ro.skip_rows = q.skip_rows;
  ro.header_row = q.header_row;
  if (!q.columns.empty()) ro.columns = parse_column_specs(q.columns);
  ro.only_mapped = !q.keep_unmapped;
  ro.absolute_pressure = q.absolute_pressure;
  ro.ambient_pressure = q.ambient;
  for (const auto& g : q.gains) ro.gains.push_back(parse_channel_gain(g));
  return ro;
}

// Every experiment goes into one file written block by block (atomic:
// nothing at the output until the last one is complete).
class Importer {
 public:
  Importer(const ImportRequest& q, double align_rate)
      : q_(q), align_rate_(align_rate), ro_(read_options(q)), out_(q.output, q.provenance) {
    derive_.cutoff_hz = q.cutoff.value_or(0);
    derive_.order = q.order;
  }

  std::vector<ImportedExperiment> run() {
    for (size_t i = 0; i < q_.files.size(); ++i) {
      ro_.name = q_.names.empty() || align_rate_ >= 0 ? "" : q_.names[i];
      if (q_.derive.empty() && !q_.resample && align_rate_ < 0 && is_text_log(q_.files[i])) import_text(q_.files[i], i);
      else import_whole(i);
    }
    if (done_.empty()) throw InputError(q_.output + ": nothing to write (no experiments)");
    out_.commit();
    return std::move(done_);
  }

 private:
  void take_name(const std::string& name, const std::string& file, const std::string& source) {
    if (auto it = taken_.find(name); it != taken_.end())
      throw InputError(file + ": experiment name '" + name + "' is already taken by " + it->second +
                       "; give each file its own --name");
    taken_[name] = source;
  }

  // A text file a block of rows at a time, with its constants and time shift.
  void import_text(const std::string& path, size_t i) {
    TextBlocks text(path, ro_);
    const std::string name = ro_.name.empty() ? file_stem(path) : ro_.name;
    std::map<std::string, std::string> attrs = text.plan().attributes;
    const bool rotational = attrs.count("motion") && attrs.at("motion") == "rotational";
    const double shift = q_.time_shifts.empty() ? 0 : q_.time_shifts[i];
    size_t time_col = text.plan().channels.size();
    std::vector<BlockColumn> cols;
    for (const auto& c : text.plan().channels) {
      if (c.channel == "time") time_col = cols.size();
      cols.push_back({c.channel, c.unit, ""});
      if (auto at = text.plan().channel_attributes.find(c.channel); at != text.plan().channel_attributes.end())
        cols.back().attributes = at->second;  // --gain provenance
    }
    std::vector<Constant> constants;
    for (const auto& kv : q_.constants) {
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
    set_attributes(attrs, q_.attributes);
    take_name(name, path, path);
    // A text row takes at least two bytes (a digit and a separator): the
    // file's size bounds its rows, so a short file gets short chunks.
    std::error_code size_error;
    const std::uintmax_t bytes = std::filesystem::file_size(path, size_error);
    const size_t g = out_.add_experiment(name, cols, attrs, path, nullptr, size_error ? 0 : bytes / 2 + 1);
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
      out_.append(g, ptrs.data(), n);
    }
    ImportedExperiment done{path, name, rows, {}, std::move(attrs), {}};
    for (const auto& c : cols) done.channels.push_back(c.name);
    std::sort(done.channels.begin(), done.channels.end());
    done_.push_back(std::move(done));
  }

  void shift_time(Experiment& e, size_t file) const {
    if (q_.time_shifts.empty() || q_.time_shifts[file] == 0) return;
    if (!e.has("time"))
      throw InputError(q_.files[file] + ": --time-shift: experiment '" + e.name + "' has no time channel");
    for (double& t : e.channels["time"]) t += q_.time_shifts[file];
    e.attributes["time_shift"] = format_number(q_.time_shifts[file]);
  }

  // MATLAB, HDF5, derived, resampled or aligned: read whole. With --align
  // every file is read first; the merged experiment is written once the
  // last is in.
  void import_whole(size_t i) {
    std::vector<Experiment> experiments = read_any_log(q_.files[i], ro_);
    if (align_rate_ >= 0) {
      if (experiments.size() != 1)
        throw InputError(q_.files[i] + ": holds " + std::to_string(experiments.size()) +
                         " experiments; --align takes files of one experiment each");
      shift_time(experiments[0], i);
      aligned_.push_back(std::move(experiments[0]));
      if (i + 1 < q_.files.size()) return;
      experiments.assign(1, align_experiments(aligned_, align_rate_));
      aligned_.clear();
      if (!q_.names.empty()) experiments[0].name = q_.names[0];
      if (!q_.time_shifts.empty()) {  // each file's, not only the first's
        std::string shifts;
        for (double t : q_.time_shifts) shifts += (shifts.empty() ? "" : ", ") + format_number(t);
        experiments[0].attributes["time_shift"] = shifts;
      }
    } else {
      for (Experiment& e : experiments) shift_time(e, i);
    }
    for (Experiment& e : experiments) write_whole(e, i);
  }

  void write_whole(Experiment& e, size_t i) {
    for (const auto& kv : q_.constants) add_constant(e, kv);
    if (q_.resample) resample_uniform(e, *q_.resample);
    const DeriveSummary s = derive_channels(e, q_.derive, derive_);
    set_attributes(e.attributes, q_.attributes);
    ImportedExperiment done{align_rate_ >= 0 ? q_.files[0] : q_.files[i], e.name, e.size(), {}, e.attributes, s};
    for (const auto& [c, v] : e.channels) done.channels.push_back(c);
    take_name(e.name, q_.files[i], e.source);
    validate_experiment(e);
    std::vector<BlockColumn> cols;
    std::vector<const double*> ptrs;
    for (const auto& [c, v] : e.channels) {
      cols.push_back({c, e.units.at(c), ""});
      if (auto at = e.channel_attributes.find(c); at != e.channel_attributes.end()) cols.back().attributes = at->second;
      ptrs.push_back(v.data());
    }
    const size_t g = out_.add_experiment(e.name, cols, e.attributes, e.source, nullptr, e.size());
    const size_t block_rows = stream_block_rows(cols.size());  // bounds the writer's encoded chunks
    for (size_t r = 0; r < e.size(); r += block_rows) {
      std::vector<const double*> at;
      for (const double* p : ptrs) at.push_back(p + r);
      out_.append(g, at.data(), std::min(block_rows, e.size() - r));
    }
    done_.push_back(std::move(done));
  }

  const ImportRequest& q_;
  const double align_rate_;
  ReadOptions ro_;
  DeriveOptions derive_;
  LogBlockWriter out_;
  std::map<std::string, std::string> taken_;  // experiment name -> source
  std::vector<Experiment> aligned_;           // --align: the files read so far
  std::vector<ImportedExperiment> done_;
};

}  // namespace

std::vector<ImportedExperiment> import_logs(const ImportRequest& request) {
  const double align_rate = check_request(request);
  return Importer(request, align_rate).run();
}

}  // namespace stribeck::data
