#pragma once
// What `identify` writes besides the fit itself, assembled here so the CLI
// only names the files and Python can produce the same documents: the CSV
// table of fits, the JSON of one fit, a ranking or a batch, the summary of a
// batch, and the HDF5 results of a streamed fit written block by block.
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "stribeck/data/log.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/identification/batch_fit.hpp"
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/stream_fit.hpp"

namespace stribeck::data {
class LogBlockWriter;
}  // namespace stribeck::data

namespace stribeck::ident {

// identify --table's record (engine/records.hpp): the fields before the
// parameters (fit, model, status as its word, converged, samples, rmse,
// r_squared), the fields of each parameter of any fit (its value and
// standard error, named NAME and NAME_std_error), the fields after them
// (warnings). fits_table_csv's header and cells come from it.
struct FitsTableRecord {
  engine::RecordTable lead, parameter, tail;
};
FitsTableRecord fits_table_record();

// One CSV row per (label, fit): status, samples, rmse, R^2, every parameter
// of any fit with its standard error, the number of warnings. A non-empty
// bad[i] marks row i bad data (not fitted: status bad-data, no figures).
std::string fits_table_csv(const std::vector<std::pair<std::string, FitSummary>>& fits,
                           const std::vector<std::string>& bad = {});
// The table of a batch without an output file: a row per fit, bad data included.
std::string batch_table_csv(const BatchFitResult& r, const ExperimentSource& source);

// --json of one fit (to_json), or of several as {"ranking": [...]} in AIC order.
std::string fits_json(const std::vector<FitSummary>& fits);
// --json of a batch without an output file: {"fits": [...]}, bad data as
// {"fit", "status": "bad-data", "reason"}.
std::string batch_rows_json(const BatchFitResult& r, const ExperimentSource& source);
// --json of a batch with an output file: counts, times, status, bad-data
// examples and `where` the results went (a compact JSON object).
std::string batch_summary_json(const BatchFitResult& r, const std::string& shard, const std::string& where);
// The three lines reporting a batch: fits, threads, rate, `where`, status counts.
std::string batch_fit_report(const BatchFitResult& r, const std::string& shard, const std::string& where);

// -o of a streamed fit: a new HDF5 file (InputError when `path` exists) with
// a results group "<prefix>/<log name>" per log holding fitted_force and
// residual in the log's force unit, appended as the fit streams them.
class StreamedFitResults {
 public:
  StreamedFitResults(const std::string& path, const std::vector<LogStream>& logs, const std::string& model,
                     const data::Provenance& provenance);
  ~StreamedFitResults();
  // Points `stream.signals` at this file.
  void connect(StreamOptions& stream);
  // Adds each group's summary (fit_group_summary) and renames the file into place.
  void commit(const FitSummary& fit);
  const std::string& prefix() const { return prefix_; }

 private:
  std::unique_ptr<data::LogBlockWriter> out_;
  std::vector<std::size_t> groups_;
  std::string prefix_;
};

}  // namespace stribeck::ident
