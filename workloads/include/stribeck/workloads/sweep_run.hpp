#pragma once
// Running a planned sweep: backend choice, chunking, top-K, output, summary.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stribeck/workloads/device.hpp"  // choose_device
#include "stribeck/workloads/sweep.hpp"

namespace stribeck::gpu {
struct Workspace;  // kernels/cuda: streams, buffers and uploaded traces kept across calls
}  // namespace stribeck::gpu

namespace stribeck::workloads {

// GPU chunk evaluation (same layout as evaluate_chunk_cpu); throws when the
// build has no CUDA. `ws`: the run's workspace (run_sweep holds one across
// its chunks); null allocates one for this call only.
void evaluate_chunk_gpu(const SweepPlan& plan, Precision precision, std::uint64_t first, std::uint64_t count,
                        data::SweepChunk& out, gpu::Workspace* ws = nullptr);

// GPU top-K mode: only the best `plan.top_k` rows of each device sub-chunk
// come back (out.index set, all rows ok); invalid/non-finite counts returned.
void evaluate_chunk_gpu_top_k(const SweepPlan& plan, Precision precision, std::uint64_t first, std::uint64_t count,
                              data::SweepChunk& out, std::uint64_t& invalid, std::uint64_t& nonfinite,
                              gpu::Workspace* ws = nullptr);

constexpr std::uint64_t kMaxSweepChunk = std::uint64_t(1) << 24;

struct SweepRunOptions {
  std::string device = "auto";  // auto | gpu | cpu
  Precision precision = Precision::kFp64;
  std::uint64_t chunk = 1u << 20;   // points per host chunk: bounds host memory (at most kMaxSweepChunk)
  std::string output;               // HDF5 path; "" keeps results in memory only (top-K, summary)
  bool resume = false;              // continue OUT.h5.partial from its last checkpoint
  bool allow_large_output = false;  // run even when the output's estimate exceeds the free space
  std::uint64_t max_chunks = 0;     // > 0: stop after this many chunks, leaving a resumable
                                    // OUT.h5.partial (time-boxed jobs)
  std::string command_line;         // provenance: the command as typed ("" when not from the CLI)
  // Called after each chunk with (points done in this run's range, range size, seconds).
  std::function<void(std::uint64_t, std::uint64_t, double)> progress;
  // Called with every chunk's rows (point index, parameters, all metrics,
  // status), in index order, on the writer thread: results kept in memory
  // (the Python module). Independent of `output`.
  std::function<void(const data::SweepChunk&)> on_chunk;
  // Called with a note for the user (why device "auto" runs on the CPU);
  // unset: the note goes to stderr as "stribeck: NOTE".
  std::function<void(const std::string&)> note;
};

struct SweepSummary {
  std::uint64_t points = 0;     // points of this run's range
  std::uint64_t completed = 0;  // points done (== points unless stopped by max_chunks)
  std::uint64_t ok = 0, invalid = 0, nonfinite = 0;
  std::vector<std::string> invalid_examples;  // up to 3 readable reasons
  double seconds = 0;                         // wall time of this invocation
  std::uint64_t evaluated = 0;                // points evaluated by this invocation
  std::uint64_t samples_per_point = 0;        // samples of all experiments
  std::string device;
  Precision precision = Precision::kFp64;
  std::vector<data::TopEntry> top;
  bool finished = false;
  std::string output;  // final file ("" when none)

  // A readable multi-line report (points, time, rate, device, best points).
  std::string report(const SweepPlan& plan) const;
};

SweepSummary run_sweep(const SweepPlan& plan, const SweepConfig& config, const SweepRunOptions& options);
// A run that writes no file (options.output empty; std::invalid_argument
// otherwise), of a plan made from a SweepSpec: the summary and top-K only.
SweepSummary run_sweep(const SweepPlan& plan, const SweepRunOptions& options);

}  // namespace stribeck::workloads
