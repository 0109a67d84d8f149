#pragma once
// The way back from a log to delimited text: one CSV per experiment with a
// header of "channel [unit]" cells that `stribeck import` reads back exactly.
#include <string>

#include "stribeck/data/experiment.hpp"

namespace stribeck {

// Column order: time, the other schema channels in schema order, then extra
// channels by name. Values are written as the shortest text that reads back
// to the same double. Atomic (AtomicFile); `path` "-" writes to stdout.
// `units_in_header` false writes bare channel names (the SI CSV that
// `stribeck eval` streams) and no comment lines.
// One CSV field per RFC 4180: a text holding the delimiter, a quote, CR or
// LF is quoted, its quotes doubled; any other text is written as it is.
std::string csv_field(const std::string& text, char delimiter = ',');

// One line of a "# ..." comment: CR, LF and other control characters of
// `text` (an experiment name read from a file) are written as \n, \xHH.
std::string comment_text(const std::string& text);

void write_csv(const std::string& path, const Experiment& experiment, char delimiter = ',',
               bool units_in_header = true);

}  // namespace stribeck
