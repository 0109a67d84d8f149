#pragma once
// Rig logs in HDF5 (schema: docs/data-format.md) and the one entry point that
// reads any supported log file.
//
//   auto exps = read_log("rig.h5");          // every experiment, validated, SI
//   write_log("out.h5", exps, provenance);   // atomic: temp file, then rename
//   append_results("rig.h5", results);       // new group; measured data untouched
//   auto exps = read_any_log("rig.csv");     // HDF5, .mat (v7.3) or delimited text
#include <hdf5.h>

#include <map>
#include <string>
#include <vector>

#include "stribeck/data/experiment.hpp"
#include "stribeck/data/units.hpp"

namespace stribeck::data {

// Where a result came from. Written as attributes of every group the toolkit
// writes (toolkit_version, command_line, config, date, device).
struct Provenance {
  std::string toolkit_version;  // filled with the build's version when empty
  std::string command_line;     // the command as the user typed it
  std::string config;           // full text of the config file, if any
  std::string date;             // ISO 8601 UTC; filled with "now" when empty
  std::string device;           // "cpu", "cuda:0 NVIDIA H100 ...", ...
};
// A Provenance for the running process: version, date = now, command line
// joined from argv (arguments with spaces quoted), device "cpu".
Provenance make_provenance(int argc, const char* const* argv);
// The command line joined the same way (for callers that build Provenance
// themselves).
std::string join_command_line(int argc, const char* const* argv);
// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now();

// Reads every experiment of an HDF5 log. Experiments are the root (if it holds
// channel datasets) and every group that holds them (nested groups too, named
// by their path without the leading '/'); groups marked as results
// (attribute kind = "results") are skipped. Each experiment is validated (see
// validate_experiment); channels are converted to SI using their `units`
// attribute. Throws InputError naming file, experiment, channel and index.
// Never modifies the file.
std::vector<Experiment> read_log(const std::string& path);

// Checks what every consumer relies on: at least one channel, no empty
// channel, all channels of equal length, finite values, time (if present)
// strictly increasing, every channel with a unit; schema channels with the
// SI unit of their dimension (rotational logs: attribute motion=rotational).
// Throws InputError "<source>: experiment '<name>': channel '<ch>' ...
// at index i".
void validate_experiment(const Experiment& e);

// Writes experiments as groups named by Experiment::name (must be unique,
// non-empty, without '/' at the ends) with every channel a float64 dataset
// carrying `units`, `time` attached as dimension scale, experiment attributes
// as string attributes, and the provenance on the root. Validates first.
// Atomic: the target is replaced only when the whole file is written.
void write_log(const std::string& path, const std::vector<Experiment>& experiments, const Provenance& provenance);

// A dataset of a results group: row-major values with their shape (1-D:
// {n}; a sweep: {trajectories, samples}; a scalar: {}).
struct ResultDataset {
  std::string name;
  std::vector<unsigned long long> shape;
  std::vector<double> values;
  std::string units;  // written as the `units` attribute ("" for none)
  std::string description;
};
struct Results {
  std::string group;  // path of the new group, e.g. "results/fit_simscape_1"
  std::vector<ResultDataset> datasets;
  std::map<std::string, std::string> attributes;  // e.g. model, experiment, status
  std::map<std::string, double> numbers;          // float64 attributes, e.g. rmse
  std::map<std::string, bool> flags;              // int8 0/1 attributes, e.g. converged
  Provenance provenance;
};
// Adds a new group to an existing HDF5 file (creates the file when it does
// not exist). Refuses to replace an existing object; writes the datasets,
// `kind = "results"` and the provenance attributes. The file is never edited
// in place: the group is added to a copy that is renamed over it when
// complete, so on any failure (a full disk) it keeps its previous bytes.
// `in_place`: `path` is a temporary the caller owns and renames itself
// (AtomicFile::temp_path()): written directly, without the copy. Otherwise
// the file's OutputLock is held alone for the whole copy, so appending
// writers of one file take turns and none loses the other's groups; a
// symbolic link is written through to its file. A file without write
// permission is refused.
void append_results(const std::string& path, const Results& results, bool in_place = false);
// Several groups added at once: one copy of the file, all or none of them.
void append_results(const std::string& path, const std::vector<Results>& results, bool in_place = false);

// Reads a results group back (datasets with shapes and units, attributes
// including the provenance, typed ones as text: rmse "0.795328", converged
// "1"; `with_datasets` false: attributes and provenance
// only, for groups too large to hold). Throws InputError if `group` is
// missing or not a results group.
Results read_results(const std::string& path, const std::string& group, bool with_datasets = true);
// Paths of all results groups in a file, in name order.
std::vector<std::string> list_results(const std::string& path);

// How text and MATLAB files map onto channels (used by `stribeck import` and
// by every command that reads logs).
struct ColumnSpec {
  std::string channel;  // schema name (or any name for extra channels)
  std::string source;   // column index (0-based) or column/variable name
  std::string unit;     // unit of the source values ("" = from header, else SI)
};
// A channel recorded as another quantity (a voltage, a motor current) and
// its scaling to the channel's SI value, from --gain
// CHANNEL=GAIN[UNIT[/RAW]][,OFFSET[UNIT]]: value = gain * raw + offset.
struct ChannelGain {
  std::string channel;         // canonical channel name
  std::string text;            // the option as given, after "CHANNEL=" (provenance)
  double gain = 1.0;           // SI unit of the channel per raw unit
  double offset = 0.0;         // SI unit of the channel
  std::string unit;            // the gain's unit ("N" of "N/V"; "" = none given)
  std::string raw_unit;        // the recorded unit ("V" of "N/V"; "" = none given)
  bool has_dimension = false;  // unit given: its dimension must be the channel's
  Dimension dimension = Dimension::kDimensionless;
  bool offset_has_dimension = false;
  Dimension offset_dimension = Dimension::kDimensionless;
};
// Parses one --gain value ("force=35.15N/V,-1.2N"). Throws InputError naming
// `option` for malformed text, unknown units, a zero or non-finite gain.
ChannelGain parse_channel_gain(const std::string& text, const std::string& option = "--gain");

struct ReadOptions {
  // Explicit column mapping (--columns time=0:ms,position=4:mm,...). Empty:
  // use header names (with aliases) and header units.
  std::vector<ColumnSpec> columns;
  // Keep only the mapped columns (default when `columns` is given) instead
  // of carrying unmapped ones through as extra channels.
  bool only_mapped = true;
  // Pressures in the file are absolute; subtract `ambient_pressure` [Pa] to
  // store gauge pressure (also implied per column by units like bara/psia).
  bool absolute_pressure = false;
  double ambient_pressure = 101325.0;
  // Experiment name; default: the file's stem (for HDF5: the group names).
  std::string name;
  // Channel gains (text and MATLAB files only): the named channel's column
  // is read as recorded (its header unit, if any, is the raw unit and must
  // match a RAW given in the gain), then scaled to SI by gain and offset;
  // the scaling is kept as channel attributes (gain, gain_unit, offset,
  // raw_unit, scaling). A gain for a channel the file lacks is an error.
  std::vector<ChannelGain> gains;
  // Delimited text only: lines before the table (import --skip-rows N,
  // --header-row N, 1-based); both 0: a preamble is detected (TextTable).
  long skip_rows = 0;
  long header_row = 0;
};
// Parses "--columns" text: "time=0:ms,position=4:mm,force=force_N".
std::vector<ColumnSpec> parse_column_specs(const std::string& text);

// Reads a log of any supported kind, detected by content (not extension):
// HDF5 log, MATLAB v7.3 .mat (HDF5 with MATLAB_class), delimited text.
std::vector<Experiment> read_any_log(const std::string& path, const ReadOptions& options = {});

// Picks one experiment: by name when `name` is non-empty, else the only one
// (InputError listing the names when there are several).
const Experiment& select_experiment(const std::vector<Experiment>& experiments, const std::string& name,
                                    const std::string& path);

}  // namespace stribeck::data
