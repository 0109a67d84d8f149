#pragma once
// The way back from a log to delimited text: one CSV per experiment with a
// header of "channel [unit]" cells that `stribeck import` reads back exactly,
// and the sidecar that every CSV writer of the toolkit puts its metadata in.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "stribeck/data/experiment.hpp"

namespace stribeck::data {

// The columns of a CSV in the order write_csv writes them (and `eval`
// streams them): time, the other schema channels in schema order, then
// extra channels in the order given.
std::vector<std::string> csv_column_order(const std::vector<std::string>& channels);

// The metadata of a CSV the toolkit writes lies beside it, in OUT.csv.json
// (the sidecar), so that the CSV itself is one header line and rows, which
// pandas.read_csv, spreadsheets and `stribeck import` read as they are.
// A CSV name over 250 bytes gets the sidecar NAME-CUT~HASH.json (NAME_MAX).
std::string csv_sidecar_path(const std::string& csv_path);

// One column of a CSV as its sidecar lists it: the header cell, and the
// unit of its values ("" for counts, codes and plain numbers).
struct CsvColumn {
  std::string name, units;
};

// The sidecar's JSON text: {"format": "stribeck-csv-metadata", "kind",
// "toolkit_version", "date", "command_line", "columns": [{"name", "units"}],
// "attributes": {string: string}, "values": {string: number (null when not
// finite)}} (docs/data-format.md, "CSV files").
std::string csv_sidecar_json(const std::string& kind, const std::vector<CsvColumn>& columns,
                             const std::map<std::string, std::string>& attributes,
                             const std::vector<std::pair<std::string, double>>& values,
                             const std::string& command_line);

// Column order: time, the other schema channels in schema order, then extra
// channels by name; header cells "channel [unit]" (quoted as RFC 4180 says
// when they need it, append_csv_field in text_table.hpp), which `import`
// reads back. Values are written as the shortest text that reads back to the
// same double. The experiment's name and attributes and `command_line` go to
// the sidecar (csv_sidecar_json, kind "log export"). Atomic (AtomicFile, both
// files complete before either is renamed); `path` "-" writes the CSV alone
// to stdout.
void write_csv(const std::string& path, const Experiment& experiment, char delimiter = ',',
               const std::string& command_line = "");
// The same text from one experiment of an HDF5 log, read a block of rows at
// a time (memory bounded by the block whatever the length of the log).
class LogBlockReader;
void write_csv(const std::string& path, const LogBlockReader& log, char delimiter = ',',
               const std::string& command_line = "");
// The same into the temporaries of `out` and its `sidecar`, closed but not
// committed: a caller writing several files renames them only when all are
// complete.
class AtomicFile;
void write_csv(AtomicFile& out, AtomicFile& sidecar, const Experiment& experiment, char delimiter,
               const std::string& command_line);
void write_csv(AtomicFile& out, AtomicFile& sidecar, const LogBlockReader& log, char delimiter,
               const std::string& command_line);

}  // namespace stribeck::data
