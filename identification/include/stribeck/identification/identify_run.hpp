#pragma once
// `identify` as typed calls: the rules between a run's options (checked
// before any I/O), the plan (streamed, in memory or a batch), the joint fit
// of one model or a ranking with its HDF5 results written, and the options
// of a batch. The CLI binds its flags to an IdentifyRequest, checks its
// output paths and prints what these return.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stribeck/data/log.hpp"
#include "stribeck/identification/batch_fit.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/fit_inputs.hpp"

namespace stribeck::ident {

struct IdentifyRequest {
  std::vector<std::string> logs, experiments;
  std::string model;    // one model, or
  std::string compare;  // "ID,ID,...": each fitted and ranked by AIC
  StreamMode stream = StreamMode::kAuto;
  // As given (--columns, --gain): parsed only when a log is read whole, so a
  // run that cannot stream for another reason says that first.
  std::string columns;
  std::vector<std::string> gains;
  FitOptions fit;   // its num_threads and progress are set by the run
  int threads = 0;  // 0: job_threads()
  bool batch = false;
  // --batch as a workload of the engine (batch_fit.hpp)
  std::string shard;
  bool resume = false, mpi = false;
  std::uint64_t chunk = 0, max_chunks = 0;
  // Files written: -o (HDF5 results; with --batch the results file), the
  // CSV table and the HTML report ("" = none).
  std::string output, table, report;

  // The model, or the models of the comparison in the order given.
  std::vector<std::string> models() const;
};

// InputError naming the first pair of options that do not go together:
// --model and --compare, --batch with --compare or --report, the engine's
// options without --batch (or with --batch but no -o), --table with
// --batch -o, --report without -o, a --compare without a model id; and
// the fit's options for each model (FitOptions::IsValid, check_fit_options).
// Nothing is read: the CLI calls it before it opens a log or checks an output.
void check_identify_request(const IdentifyRequest& request);

// The logs' reader options (--columns and --gain parsed).
data::ReadOptions identify_read_options(const IdentifyRequest& request);

// Which experiments stream (plan_stream); none for a fit in memory or a
// batch. InputError for kAlways when they cannot stream, with the reason.
StreamPlan plan_identify(const IdentifyRequest& request);

struct JointFit {
  std::vector<FitSummary> fits;  // one, or the ranking in AIC order
  std::string group;             // the results group written to -o; "" when none was
  bool streamed = false;
};

// The joint fit: streamed over `plan`'s logs when it has any, else of every
// experiment read whole; `fitted` (when set) runs once the fits are done,
// before -o is written. -o is written before anything is printed, so a fit
// whose results cannot be written prints nothing. A streamed fit writes the
// signals of one model: InputError for -o with --compare.
JointFit fit_joint(const IdentifyRequest& request, const StreamPlan& plan, const data::Provenance& provenance,
                   const std::function<void()>& fitted = {});

// The options of `identify --batch` (model, fit options, output, shard,
// resume, chunks, threads); provenance and progress are the caller's.
BatchFitOptions identify_batch_options(const IdentifyRequest& request);

}  // namespace stribeck::ident
