#pragma once
// Batch fits: one independent fit per experiment of many (a production
// line's end-of-line seal tests), as a workload of the one batch engine
// (engine/runner.hpp): an index range over the experiments, shards
// (--shard i/N), chunks with checkpoints and --resume, progress, MPI ranks
// and merge, exactly as sweeps and ensembles have them. One row per fit with
// its status (the Gpufit pattern: converged, not converged, singular, failed,
// bad data) and a warning count, the experiment's name and operating point,
// the fitted parameters with standard errors and 95 % intervals, RMSE, cost,
// iterations and seconds, in the engine's results format
// (docs/data-format.md, "Batch-fit results").
//
//   auto src = log_experiments({"line.h5"}, {}, {});
//   BatchFitOptions o;
//   o.model = "simscape-cylinder";
//   o.output = "fits.h5";
//   BatchFitResult r = run_batch_fit(*src, o);
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "stribeck/data/experiment.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/engine/runner.hpp"
#include "stribeck/identification/fit.hpp"

namespace stribeck::ident {

// The status of one fit of a batch: FitStatus's codes, and one for an
// experiment that was not fitted because its data cannot be used.
enum class BatchFitStatus : std::uint8_t {
  kConverged = 0,      // FitStatus::kConverged
  kMaxIterations = 1,  // FitStatus::kMaxIterations: not converged
  kSingular = 2,       // FitStatus::kSingular: the data cannot determine every free parameter
  kFailed = 3,         // FitStatus::kFailed: the solver failed
  kBadData = 4,        // not fitted: unreadable, not finite, too short, no motion, ...
};
constexpr int kBatchFitStatusCount = 5;
// "converged", "max-iterations", "singular", "failed", "bad-data".
const char* batch_fit_status_name(BatchFitStatus s);

// The batch-fit row's field tables (engine/records.hpp), from which its
// results columns come: the fixed fields (status, fit_status, ..., seconds)
// before the parameters' columns (param_NAME, _std_error, _ci95_lo,
// _ci95_hi, from the model), and the operating-point coordinates after them.
engine::RecordTable batch_fit_row_fields();
engine::RecordTable batch_fit_coordinate_fields();

// The experiments of a batch by index (the engine's point).
class ExperimentSource {
 public:
  virtual ~ExperimentSource() = default;
  virtual std::uint64_t size() const = 0;
  // "LOG:EXPERIMENT".
  virtual std::string name(std::uint64_t i) const = 0;
  // Which input log (0-based), and the experiment's index within it.
  virtual int log_index(std::uint64_t i) const = 0;
  virtual std::uint64_t index_in_log(std::uint64_t i) const = 0;
  // The input logs, in order.
  virtual const std::vector<std::string>& logs() const = 0;
  // The experiment, read and validated as read_log validates; InputError
  // when its data cannot be used (that fit is bad data, the batch goes on).
  // Reads HDF5: one thread at a time.
  virtual data::Experiment load(std::uint64_t i) const = 0;
};

// The experiments of `logs`, filtered by `only` (names; empty: all;
// InputError naming one no log has). HDF5 logs are listed here and each
// experiment is read when its chunk comes (memory is bounded by the chunk);
// text and MATLAB logs, and any log read with `options` (--columns,
// --gain), are read whole here (an unreadable one is an InputError for the
// whole batch).
std::unique_ptr<ExperimentSource> log_experiments(const std::vector<std::string>& logs,
                                                  const std::vector<std::string>& only,
                                                  const data::ReadOptions& options);
// Experiments in memory (validated when loaded), named "SOURCE:NAME".
std::unique_ptr<ExperimentSource> memory_experiments(std::vector<data::Experiment> experiments,
                                                     const std::string& source);

// One fit's row.
struct BatchFitRow {
  BatchFitStatus status = BatchFitStatus::kBadData;
  int warnings = 0;  // plain-language warnings of the fit
  int iterations = 0;
  int starts = 0;
  long samples = 0;
  double cost = 0, rmse = 0, r_squared = 0, seconds = 0;
  std::vector<double> value, std_error;  // by BatchFitResult::parameters (NaN: not fitted / not determined)
  std::vector<double> ci95_lo, ci95_hi;  // the fit's 95 % intervals, likewise
  // Where the experiment was run: the mean of its pressure_a, pressure_b and
  // normal_force (NaN where it has no such channel), the coordinates of the
  // batch's maps.
  double operating[3] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(),
                         std::numeric_limits<double>::quiet_NaN()};
  std::string reason;  // bad data: why
  FitSummary summary;  // runs without an output file only (the CLI's table and JSON)
};

struct BatchFitOptions {
  std::string model;
  FitOptions fit;      // per fit; its num_threads, progress and keep_signals are set by the batch
  std::string output;  // HDF5 results file; "": rows in memory (BatchFitResult::rows)
  std::string shard;   // "" or "i/N"
  bool resume = false;
  std::uint64_t chunk = 0;  // fits per chunk (a checkpoint each); 0: 16 per thread
  std::uint64_t max_chunks = 0;
  int threads = 0;  // fits at once (one per OpenMP thread); 0: job_threads()
  data::Provenance provenance;
  // (fits done in the range, range size, seconds)
  std::function<void(std::uint64_t, std::uint64_t, double)> progress;
};

struct BatchFitResult {
  std::string model;
  std::vector<std::string> parameters, units;  // the parameter columns
  engine::Totals totals;                       // PointStatus: ok = fitted, invalid = bad data
  std::uint64_t status_counts[kBatchFitStatusCount] = {};
  std::uint64_t with_warnings = 0;  // fits with at least one warning
  std::uint64_t points = 0, first = 0, count = 0;
  int shard_index = 0, shard_count = 1;
  std::uint64_t evaluated = 0;  // fits this call ran
  double seconds = 0, fit_seconds = 0;
  int threads = 1;
  bool finished = false;
  // The batch's experiments are rotational (its first experiment's kind): the
  // columns in N*m, rad/s, ...; an experiment of the other kind is bad data.
  bool rotational = false;
  std::string output;             // the file, when finished
  std::vector<BatchFitRow> rows;  // without an output file
};

// Runs the batch (or a shard of it, or the rest after --resume). InputError
// for options that no fit could use (checked once, before any fit), a
// shard or resume that does not fit, an output that cannot be written.
BatchFitResult run_batch_fit(const ExperimentSource& source, const BatchFitOptions& options);
// One shard per MPI rank, merged by rank 0 (MPI initialised by the caller).
BatchFitResult run_batch_fit_mpi(const ExperimentSource& source, BatchFitOptions options, int* rank);

// True when `path` holds a batch-fit results group (a shard or a whole run).
bool is_batch_fit_file(const std::string& path);
// The shard files of one batch (any order) into one file, identical to a
// single run's except the provenance.
void merge_batch_fit_files(const std::vector<std::string>& inputs, const std::string& output,
                           const std::string& command_line);

}  // namespace stribeck::ident
