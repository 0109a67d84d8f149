#pragma once
// What a fit reads, decided before it runs: the experiments of the given
// logs (filtered, named uniquely), and whether they can be fitted streamed
// (stream_fit.hpp) or must be loaded into memory, and why not. The CLI's
// `identify` and the Python module call these, so both decide alike.
#include <string>
#include <vector>

#include "stribeck/data/experiment.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/stream_fit.hpp"

namespace stribeck::ident {

// --stream: auto streams logs over kStreamSamples samples in all.
enum class StreamMode { kAuto, kAlways, kNever };
constexpr long kStreamSamples = 1000000;

struct StreamRequest {
  std::vector<std::string> logs;         // paths, in the order given
  std::vector<std::string> experiments;  // only these (empty: all)
  std::vector<std::string> models;       // the model, or every model of a comparison
  StreamMode mode = StreamMode::kAuto;
  bool batch = false;      // one fit per experiment: each held in memory
  bool converted = false;  // column specs or gains: the text and MATLAB readers apply them
};

struct StreamPlan {
  std::vector<LogStream> logs;  // empty: fit in memory
  std::string why_not;          // why not streamed, when `logs` is empty
};

// The experiments to fit streamed, or none with the reason: --batch, column
// specs or gains, a log that is not HDF5, a model or option the streamed fit
// lacks (streaming_unsupported), a velocity that is absent or was derived,
// with `inertia` an acceleration that is absent or was derived, and under
// kAuto logs of at most kStreamSamples samples; kNever plans nothing. Names
// clashing across logs get the file stem as prefix ("stem:name"). Throws
// InputError for an --experiment found in no log.
StreamPlan plan_stream(const StreamRequest& request, const FitOptions& options);

// The experiments of every log, read whole, filtered by `experiments` and
// named as plan_stream names them. Throws InputError as read_any_log does
// and for an --experiment found in no log.
std::vector<data::Experiment> load_fit_experiments(const std::vector<std::string>& logs,
                                                   const std::vector<std::string>& experiments,
                                                   const data::ReadOptions& options);

}  // namespace stribeck::ident
