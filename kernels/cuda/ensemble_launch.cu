// Dispatch of an ensemble request to its model's launch, compiled in the
// ensemble_*.cu files (ensemble_kernel.cuh, entries.hpp), and the counts of
// each sub-chunk that launch queues after its kernel: CUB's device-wide
// histogram and sums over columns of the rows the kernel wrote.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "column.cuh"
#include "ensemble_kernel.cuh"
#include "entries.hpp"

namespace stribeck::gpu {

// The words of a sub-chunk's counts: the points of each status (the
// histogram's bins), then the sums of the stick-slip and steps columns.
enum EnsembleCountWord { kCountStickSlip = kEnsembleStatuses, kCountSteps, kCountWords };

void prepare_ensemble_counts(Workspace& ws, int b, std::uint64_t sub) {
  std::size_t hist = 0, sum = 0;
  const int n = static_cast<int>(sub);
  check(cub::DeviceHistogram::HistogramEven(nullptr, hist, Column<int>{}, static_cast<unsigned long long*>(nullptr),
                                            kEnsembleStatuses + 1, 0, kEnsembleStatuses, n),
        "cub::DeviceHistogram::HistogramEven (temporary storage)");
  check(
      cub::DeviceReduce::Sum(nullptr, sum, Column<unsigned long long>{}, static_cast<unsigned long long*>(nullptr), n),
      "cub::DeviceReduce::Sum (temporary storage)");
  ws.cub_temp[b].ensure(std::max(hist, sum), "cudaMalloc(ensemble CUB storage)");
  ws.counts[b].ensure(kCountWords, "cudaMalloc(ensemble counts)");
  ws.h_counts[b].ensure(kCountWords, "cudaMallocHost(ensemble counts)");
}

void enqueue_ensemble_counts(Workspace& ws, int b, cudaStream_t st, const double* d_metrics, std::uint64_t n) {
  unsigned long long* out = ws.counts[b].get();
  void* temp = ws.cub_temp[b].get();
  const int items = static_cast<int>(n);
  // Statuses are the integers 0 to kSimInvalid, stick-slip 0 or 1 and steps
  // whole numbers below 2^53, each exact as a double: read as integers, they
  // add up in CUB's order to what the CPU's tally adds point by point.
  std::size_t bytes = ws.cub_temp[b].size();
  check(
      cub::DeviceHistogram::HistogramEven(temp, bytes, column<int>(d_metrics, kEnsembleMetrics, kEnsembleStatusColumn),
                                          out, kEnsembleStatuses + 1, 0, kEnsembleStatuses, items, st),
      "ensemble status counts");
  bytes = ws.cub_temp[b].size();
  check(cub::DeviceReduce::Sum(temp, bytes,
                               column<unsigned long long>(d_metrics, kEnsembleMetrics, kEnsembleStickSlipColumn),
                               out + kCountStickSlip, items, st),
        "ensemble stick-slip count");
  bytes = ws.cub_temp[b].size();
  check(
      cub::DeviceReduce::Sum(temp, bytes, column<unsigned long long>(d_metrics, kEnsembleMetrics, kEnsembleStepsColumn),
                             out + kCountSteps, items, st),
      "ensemble RK4 steps");
  check(
      cudaMemcpyAsync(ws.h_counts[b].get(), out, kCountWords * sizeof(unsigned long long), cudaMemcpyDeviceToHost, st),
      "copy ensemble counts");
}

void drain_ensemble_counts(Workspace& ws, int b, EnsembleCounts& c) {
  const unsigned long long* h = ws.h_counts[b].get();
  for (int s = 0; s < kEnsembleStatuses; ++s) c.status[s] += h[s];
  c.stick_slip += h[kCountStickSlip];
  c.steps += h[kCountSteps];
}

void run_ensemble(const EnsembleRequest& r) {
  const int s = model_position(StaticModels{}, r.model_id), d = model_position(DynamicModels{}, r.model_id);
  if (s >= 0 && r.fp32) kEnsembleFp32Static[static_cast<std::size_t>(s)](r.spec32, r);
  else if (s >= 0) kEnsembleFp64Static[static_cast<std::size_t>(s)](r.spec64, r);
  else if (d >= 0 && r.fp32) kEnsembleFp32Dynamic[static_cast<std::size_t>(d)](r.spec32, r);
  else if (d >= 0) kEnsembleFp64Dynamic[static_cast<std::size_t>(d)](r.spec64, r);
  else throw std::runtime_error(std::string("run_ensemble: unknown model ") + r.model_id);
}

}  // namespace stribeck::gpu
