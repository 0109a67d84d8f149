#pragma once
// The way back from a log to delimited text: one CSV per experiment with a
// header of "channel [unit]" cells that `stribeck import` reads back exactly.
#include <string>
#include <vector>

#include "stribeck/data/experiment.hpp"

namespace stribeck {

// The columns of a CSV in the order write_csv writes them (and `eval`
// streams them): time, the other schema channels in schema order, then
// extra channels in the order given.
std::vector<std::string> csv_column_order(const std::vector<std::string>& channels);

// One line of a "# ..." comment: CR, LF and other control characters of
// `text` (an experiment name read from a file) are written as \n, \xHH.
std::string comment_text(const std::string& text);

// Column order: time, the other schema channels in schema order, then extra
// channels by name. Values are written as the shortest text that reads back
// to the same double. Atomic (AtomicFile); `path` "-" writes to stdout.
// `units_in_header` false writes bare channel names (the SI CSV that
// `stribeck eval` streams) and no comment lines.
// Header cells are quoted as RFC 4180 says when they need it (append_csv_field,
// text_table.hpp); comment lines go through comment_text.
void write_csv(const std::string& path, const Experiment& experiment, char delimiter = ',',
               bool units_in_header = true);
// The same text from one experiment of an HDF5 log, read a block of rows at
// a time (memory bounded by the block whatever the length of the log).
class LogBlockReader;
void write_csv(const std::string& path, const LogBlockReader& log, char delimiter = ',', bool units_in_header = true);
// The same into the temporary of `out`, closed but not committed: a caller
// writing several files renames them only when all are complete.
class AtomicFile;
void write_csv(AtomicFile& out, const Experiment& experiment, char delimiter = ',');
void write_csv(AtomicFile& out, const LogBlockReader& log, char delimiter = ',');

}  // namespace stribeck
