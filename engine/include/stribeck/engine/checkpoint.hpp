#pragma once
// The one checkpoint format of every workload (docs/architecture.md, "Batch
// workloads"), and the columns and attributes every results file shares:
//   - a checkpoint is a ResultsStream checkpoint whose state holds the
//     engine's totals under fixed keys (`completed`, `status_counts`,
//     `invalid_example_I`) beside the workload's own keys and tables;
//   - the `status` column: the PointStatus of each point, uint8, with its
//     CF flag_values and flag_meanings;
//   - a finished file's counts by status (`count_ok`, `count_invalid`, ...).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "stribeck/data/results_stream.hpp"
#include "stribeck/engine/runner.hpp"

namespace stribeck::engine {

// A checkpoint of `rows` rows after the totals `t` (a snapshot of the run so
// far), with the workload's own state keys and tables.
data::StreamCheckpoint make_checkpoint(std::uint64_t rows, const Totals& t,
                                       std::map<std::string, std::string> extra = {},
                                       std::vector<data::StreamTable> tables = {});

// The totals a resumed stream's checkpoint recorded, into `t`. A run killed
// before its first chunk recorded none: `t` is left empty. Throws one line
// naming `where` ("corrupt checkpoint") when the engine's keys are missing or
// do not add up (counts that are not the completed points, more points than
// the range's `count`). Checkpoints from before the `completed` key count
// their rows.
void restore_totals(const data::StreamCheckpoint& cp, std::uint64_t count, Totals& t, const std::string& where);

// A count the workload keeps in the checkpoint state (key required), and a
// list of `n` of them ("3,0,1"), with restore_totals' message on bad text.
std::uint64_t state_count(const data::StreamCheckpoint& cp, const std::string& key, const std::string& where);
std::vector<std::uint64_t> state_counts(const data::StreamCheckpoint& cp, const std::string& key, std::size_t n,
                                        const std::string& where);
std::string joined_counts(const std::uint64_t* counts, std::size_t n);

// The `status` column of every workload's results.
data::StreamColumn status_column();

// What a finished results group says of its points: count_ok,
// count_non_finite, count_step_limit, count_event_limit, count_invalid.
std::map<std::string, std::string> count_attributes(const Totals& t);
// The names of those attributes, in PointStatus order.
std::vector<std::string> count_attribute_names();

}  // namespace stribeck::engine
