#pragma once
// Where the chunks of an ensemble go (run_ensemble's loop in ensemble.cpp ->
// ensemble_output.cpp): host memory, an HDF5 file streamed with checkpoints,
// or a CSV file. Private to workloads/.
#include <cstdint>
#include <memory>
#include <string>

#include "stribeck/workloads/ensemble.hpp"

namespace stribeck::workloads {

class EnsembleSink {
 public:
  virtual ~EnsembleSink() = default;
  // The next `n` points of the run's range, in order: coordinates (n x dims)
  // and metrics.
  virtual void append(std::uint64_t n, const double* values, const StickSlipMetrics<double>* metrics) = 0;
  // After each chunk's append: the totals so far (a resumed run restores
  // them). append and checkpoint run on the writer thread, one call at a
  // time, while the next chunk is simulated.
  virtual void checkpoint(const EnsembleTotals& totals) = 0;
  // Once every point of the range is in (on the calling thread).
  virtual void finish(const EnsembleTotals& totals) = 0;
};

// Whether an output name asks for CSV (ends in ".csv"); else HDF5.
bool is_csv_output(const std::string& path);

// The sink of options.output ("" : r.values and r.metrics). `r` must hold
// the names, the range and the device. With options.resume, opens the
// partial file (refusing one of another run) and restores r.totals from
// its checkpoint.
std::unique_ptr<EnsembleSink> open_ensemble_sink(const SimulateConfig& config, const EnsembleRunOptions& options,
                                                 EnsembleResult& r);

}  // namespace stribeck::workloads
