#pragma once
// The one merge of shard files (docs/architecture.md, "Batch workloads"):
// the shards' order and its checks (one run, contiguous, complete, no
// overlap) for every workload, and the whole merge of shards written with
// ResultsStream (ensembles, batch fits): the checks, the merged attributes
// and provenance, the rows streamed into one atomic output. A workload gives
// only what differs: its group, which attributes must agree, its columns.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "stribeck/data/results_stream.hpp"

namespace stribeck::engine {

// A shard's part of a space of `points`: [first, first + count).
struct ShardSpan {
  std::string path;
  std::uint64_t points = 0, first = 0, count = 0;
};

// How a workload names its runs and their rows in messages.
struct ShardWords {
  std::string run;   // "ensemble": "F: belongs to a different ensemble than F0 (WHY)"
  std::string why;   // "config, precision or measured inputs differ"
  std::string unit;  // a row: "point", "fit"
};

// The order in which `shards` merge (indices): by first point, an empty
// shard (more shards than points) before the shard that starts where it
// does, so any argument order merges alike. In that order, checks that shard
// i is of the first one's run (same_run(i, i0)) and starts where the one
// before ended, and at the end that they cover all points. Throws InputError
// naming the file: another run, a shard missing, overlapping shards.
std::vector<std::size_t> order_shards(const std::vector<ShardSpan>& shards, const ShardWords& words,
                                      const std::function<bool(std::size_t i, std::size_t i0)>& same_run);

// Where a shard holds a column of the merged file: the dataset of the
// column's name (`table` empty), or column `column` of the 2-D dataset
// `table` (an older layout that kept several columns in one table).
struct ColumnSource {
  std::string table;
  std::uint64_t column = 0;
};

// What tells one workload's ResultsStream shard files apart.
struct ShardFormat {
  std::string group;        // the results group ("ensemble")
  std::string identity;     // the attribute only its files have ("ensemble_identity")
  std::string not_a_shard;  // what another file is not ("an ensemble shard file (stribeck simulate --shard i/N)")
  ShardWords words;
  std::vector<std::string> required;  // attributes every shard has (points, first and count among them)
  std::vector<std::string> agree;     // attributes equal in every shard of one run
  // The columns of shard `path` from its attributes (`at` names the group in
  // messages); each shard's datasets are checked against them, the output
  // takes the first shard's.
  std::function<std::vector<data::StreamColumn>(
      const std::string& path, const std::map<std::string, std::string>& attributes, const std::string& at)>
      columns;
  // What the workload keeps beside the rows (a sweep's top-K table, its
  // trajectories): the merged file's tables from the shard files, given in
  // point order. Empty: none.
  std::function<std::vector<data::StreamTable>(const std::vector<std::string>& shards)> tables;
  // Its text columns (ResultsStream::write_text: a batch fit's experiment
  // names), from the first shard's attributes; the merged file holds each
  // shard's values in point order. Empty: none.
  std::function<std::vector<data::StreamColumn>(const std::map<std::string, std::string>& attributes)> text;
  // Attributes of the merged file whatever its shards hold (the current
  // format_version, for a workload that merges shards of older versions).
  std::map<std::string, std::string> written;
  // Where the shard with `attributes` holds merged column `name`. Empty:
  // every shard holds every column as its own dataset.
  std::function<ColumnSource(const std::map<std::string, std::string>& attributes, const std::string& name)> source;
};

// True when `path` is an HDF5 file whose `format.group` has the attribute
// `format.identity` (a shard or a whole run). Reads attributes only.
bool is_shard_file(const std::string& path, const ShardFormat& format);

// The shard files of one run (any order) into `output`: the same file as one
// run, with attribute merged_from, the counts by status summed, and the
// provenance device "merged from N shards: DEVICES". A shard that is not
// finished (a checkpoint left in it) is refused. No output (and no
// OUT.partial) when anything is refused.
void merge_shard_files(const ShardFormat& format, const std::vector<std::string>& inputs, const std::string& output,
                       const std::string& command_line);

}  // namespace stribeck::engine
