#pragma once
// The one batch engine: a runner over an index range, and the interface a
// workload implements (docs/architecture.md, "Batch workloads").
//
// A workload is anything that computes independent points 0..P-1 of a space:
// a sweep (point = parameter set along traces), an ensemble (point = one body
// simulation). The runner owns what they share:
//   - the range: the whole space or shard i/N of it (split_range);
//   - the chunk loop: points in chunks of a fixed size, in index order, so a
//     point's result never depends on chunking, sharding or resuming;
//   - double buffering: chunk i is written (its append and checkpoint) on a
//     writer thread while chunk i + 1 computes, in two buffer slots;
//   - the totals: points done, a count per PointStatus, the first
//     kInvalidExamples invalid points with the rule each breaks;
//   - stopping after max_chunks (a resumable partial output), progress.
// The workload owns what differs: what a point computes (CPU, GPU), the
// output file and its checkpoint state, and why a point is invalid.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stribeck/engine/point_status.hpp"

namespace stribeck::engine {

constexpr std::size_t kInvalidExamples = 3;

// Points [first, first + count) of a space of `points` (shard index/shards).
struct Range {
  std::uint64_t points = 0, first = 0, count = 0;
  int shard_index = 0, shard_count = 1;
};
// "" (every point) or "i/N": shard i of N (0-based) holds points
// [floor(P i / N), floor(P (i + 1) / N)). Throws InputError for bad text.
Range split_range(const std::string& shard, std::uint64_t points);

// What a run has done so far over its range (a resumed run's include the
// runs before it): points completed from range.first, in order.
struct Totals {
  std::uint64_t completed = 0;
  std::uint64_t status_counts[kPointStatusCount] = {};
  std::vector<std::string> invalid_examples;  // "point I: <rule>", the first kInvalidExamples

  std::uint64_t count(PointStatus s) const { return status_counts[static_cast<int>(s)]; }
  // Counts `n` points of status s.
  void add(PointStatus s, std::uint64_t n = 1) { status_counts[static_cast<int>(s)] += n; }
  bool wants_example() const { return invalid_examples.size() < kInvalidExamples; }
  void add_example(std::uint64_t index, const std::string& why) {
    if (wants_example())
      invalid_examples.push_back("point " + std::to_string(index) + ": " + (why.empty() ? "invalid" : why));
  }
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Computes points [first, first + count) into buffer slot `slot` (0 or 1;
  // a slot is not reused before the write of its previous chunk returned).
  // May call progress(points of this chunk done) from one thread.
  virtual void compute(int slot, std::uint64_t first, std::uint64_t count,
                       const std::function<void(std::uint64_t)>& progress) = 0;
  // Counts the chunk's points into `totals` (add, add_example with the
  // rule an invalid point breaks) and anything the workload keeps besides
  // (top-K, tallies). On the runner's thread, after compute.
  virtual void tally(int slot, std::uint64_t first, std::uint64_t count, Totals& totals) = 0;
  // The write of the chunk: append its rows and checkpoint `totals` (a
  // snapshot including this chunk). Runs on the writer thread while the next
  // chunk computes; may be empty (nothing to write).
  virtual std::function<void()> write(int slot, std::uint64_t count, const Totals& totals) = 0;
};

struct RunOptions {
  std::uint64_t chunk = 1;       // points per chunk (> 0)
  std::uint64_t max_chunks = 0;  // > 0: stop after this many chunks
  // (points done in the range, range size, seconds since the start):
  // after each chunk, and from compute's progress calls.
  std::function<void(std::uint64_t, std::uint64_t, double)> progress;
};

struct RunStats {
  std::uint64_t evaluated = 0;  // points this call computed
  std::uint64_t chunks = 0;
  double compute_seconds = 0;  // time inside Workload::compute
  bool finished = false;       // totals.completed == range.count
};

// Runs the chunks left after totals.completed (a resumed run passes the
// checkpoint's totals); every write has returned (or thrown) when it returns.
RunStats run(const Range& range, Workload& workload, Totals& totals, const RunOptions& options);

}  // namespace stribeck::engine
