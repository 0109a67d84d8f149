#pragma once
// `import` as one typed call: rig files (delimited text, MATLAB, HDF5) into
// one HDF5 log in SI units, with constants, time shifts, alignment across
// clocks, resampling and derived kinematics. The CLI binds its flags to an
// ImportRequest, checks the output path and prints what comes back.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stribeck/data/log.hpp"
#include "stribeck/data/signals.hpp"

namespace stribeck::data {

struct ImportRequest {
  std::vector<std::string> files;
  std::string output;
  std::vector<std::string> names;  // once per file in file order (once with `align`); empty: file stems
  // As given (--columns, --gain): parsed after the checks below, before any
  // file is read.
  std::string columns;
  std::vector<std::string> gains;
  bool keep_unmapped = false;      // with `columns`: the other named columns too
  bool absolute_pressure = false;  // pressures in the files are absolute
  double ambient = 101325.0;       // [Pa]
  long skip_rows = 0, header_row = 0;
  std::vector<std::string> derive;      // "velocity", "acceleration"
  std::optional<double> cutoff;         // [Hz] of the derivative filter; none: sample rate / 20
  int order = 2;                        // Savitzky-Golay polynomial order
  std::optional<double> resample;       // uniform step [s], 0: the median step; none: keep the samples
  std::vector<std::string> constants;   // CHANNEL=VALUE[UNIT], a channel held fixed
  std::vector<std::string> attributes;  // KEY=VALUE on every experiment
  std::vector<double> time_shifts;      // [s], once per file in order (or none)
  std::string align;                    // "", "first" or "rate=HZ"
  Provenance provenance;
};

// What one experiment of the written log came from, for the report.
struct ImportedExperiment {
  std::string file;  // the file it was read from (the first file with --align)
  std::string name;
  std::size_t samples = 0;
  std::vector<std::string> channels;              // sorted
  std::map<std::string, std::string> attributes;  // header_line, time_shift, aligned_files, ...
  DeriveSummary derived;                          // `derived` empty: nothing derived
};

// Writes the log (atomically: nothing at `output` until every experiment is
// in) and returns its experiments in order. Text files without derive,
// resample or align are read a block of rows at a time; the others whole.
// InputError, before any file is read, for settings out of range or counts
// that do not match the files, and on the way for what the readers refuse,
// a name taken twice or a log with no experiment.
std::vector<ImportedExperiment> import_logs(const ImportRequest& request);

}  // namespace stribeck::data
