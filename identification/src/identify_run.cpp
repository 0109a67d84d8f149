// `identify` as typed calls (identify_run.hpp).
#include "stribeck/identification/identify_run.hpp"

#include <algorithm>
#include <memory>

#include "stribeck/data/error.hpp"
#include "stribeck/identification/fit_outputs.hpp"
#include "stribeck/identification/results_io.hpp"
#include "stribeck/identification/stream_fit.hpp"

namespace stribeck::ident {
namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t a = 0;
  while (a <= s.size()) {
    const size_t b = std::min(s.find(',', a), s.size());
    if (b > a) out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

// The first engine option given, by its flag ("" when none).
std::string engine_flag(const IdentifyRequest& r, bool with_chunk) {
  return !r.shard.empty()            ? "--shard"
         : r.resume                  ? "--resume"
         : with_chunk && r.chunk > 0 ? "--chunk"
         : r.max_chunks              ? "--max-chunks"
         : r.mpi                     ? "--mpi"
                                     : "";
}

// The fits of a streamed run, ranked by AIC like compare()'s.
JointFit fit_streamed_joint(const IdentifyRequest& r, FitOptions o, const std::vector<LogStream>& logs,
                            const data::Provenance& prov, const std::function<void()>& fitted) {
  if (!r.output.empty() && !r.compare.empty())
    throw data::InputError("--output with --compare: a streamed fit writes the signals of one --model");
  std::unique_ptr<StreamedFitResults> out;
  if (!r.output.empty()) out = std::make_unique<StreamedFitResults>(r.output, logs, r.model, prov);
  StreamOptions so;
  if (out) out->connect(so);
  else o.keep_signals = false;
  JointFit j;
  j.streamed = true;
  for (const auto& m : r.models()) j.fits.push_back(fit_streamed(logs, m, o, so));
  std::stable_sort(j.fits.begin(), j.fits.end(),
                   [](const FitSummary& x, const FitSummary& y) { return x.aic < y.aic; });
  if (fitted) fitted();
  if (out && !j.fits[0].experiments.empty()) {
    out->commit(j.fits[0]);
    j.group = out->prefix();
  }
  return j;
}

}  // namespace

std::vector<std::string> IdentifyRequest::models() const {
  return compare.empty() ? std::vector<std::string>{model} : split(compare);
}

void check_identify_request(const IdentifyRequest& r) {
  if (r.model.empty() == r.compare.empty())
    throw data::InputError("give exactly one of --model ID or --compare ID,ID,...");
  if (r.batch && !r.compare.empty()) throw data::InputError("--batch fits one --model; use --compare without --batch");
  if (const std::string flag = engine_flag(r, true); !r.batch && !flag.empty())
    throw data::InputError(flag + " applies to --batch (one fit per experiment); a joint fit is not split");
  if (!r.compare.empty() && split(r.compare).empty())
    throw data::InputError("--compare '" + r.compare + "': no model id (give ID,ID,...)");
  if (!r.report.empty() && r.batch)
    throw data::InputError(
        "--report with --batch: a report draws one fit (write it with stribeck report from an -o file of "
        "a single fit)");
  if (!r.report.empty() && r.output.empty())
    throw data::InputError("--report draws from the fit's HDF5 results: give --output too (it may be the log itself)");
  for (const auto& m : r.models()) check_fit_options(m, r.fit);  // FitOptions::IsValid, before any file is touched
  if (!r.batch) return;
  if (!r.output.empty() && !r.table.empty())
    throw data::InputError("--table with --batch -o: the fits are rows of " + r.output + " (write one or the other)");
  if (const std::string flag = engine_flag(r, false); r.output.empty() && !flag.empty())
    throw data::InputError(flag + " with --batch needs an HDF5 results file (-o OUT.h5)");
}

data::ReadOptions identify_read_options(const IdentifyRequest& r) {
  data::ReadOptions ro;
  if (!r.columns.empty()) ro.columns = data::parse_column_specs(r.columns);
  for (const auto& g : r.gains) ro.gains.push_back(data::parse_channel_gain(g));
  return ro;
}

StreamPlan plan_identify(const IdentifyRequest& r) {
  StreamRequest q;
  q.logs = r.logs;
  q.experiments = r.experiments;
  q.models = r.models();
  q.mode = r.stream;
  q.batch = r.batch;
  q.converted = !r.columns.empty() || !r.gains.empty();
  StreamPlan plan = plan_stream(q, r.fit);
  if (plan.logs.empty() && r.stream == StreamMode::kAlways)
    throw data::InputError("--stream always: cannot stream: " + plan.why_not);
  return plan;
}

JointFit fit_joint(const IdentifyRequest& r, const StreamPlan& plan, const data::Provenance& prov,
                   const std::function<void()>& fitted) {
  FitOptions o = r.fit;
  o.num_threads = r.threads;
  if (!plan.logs.empty()) return fit_streamed_joint(r, o, plan.logs, prov, fitted);
  const std::vector<data::Experiment> all = load_fit_experiments(r.logs, r.experiments, identify_read_options(r));
  JointFit j;
  if (!r.compare.empty()) j.fits = compare(all, r.models(), o);
  else j.fits.push_back(fit(all, r.model, o));
  if (fitted) fitted();
  if (!r.output.empty()) j.group = write_fit_results(r.output, j.fits[0], prov);
  return j;
}

BatchFitOptions identify_batch_options(const IdentifyRequest& r) {
  BatchFitOptions o;
  o.model = r.model;
  o.fit = r.fit;
  o.output = r.output;
  o.shard = r.shard;
  o.resume = r.resume;
  o.chunk = r.chunk;
  o.max_chunks = r.max_chunks;
  o.threads = r.threads;
  return o;
}

}  // namespace stribeck::ident
