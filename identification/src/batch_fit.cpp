// Batch fits as a workload of the one batch engine (batch_fit.hpp): the
// experiment sources, the workload (a chunk's experiments read in order, then
// fitted one per OpenMP thread with Ceres single-threaded inside), its
// results file (ResultsStream columns, checkpoints, resume) and the merge of
// its shards.
#include "stribeck/identification/batch_fit.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <set>

#include "rotational.hpp"

#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/results_stream.hpp"
#include "stribeck/workloads/content_hash.hpp"
#include "stribeck/engine/checkpoint.hpp"
#include "stribeck/engine/merge.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/threads.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/sweep/rng.hpp"

namespace stribeck::ident {
namespace {

constexpr const char* kGroup = "batch_fit";
// 2: parameter columns named param_NAME with their 95 % intervals, the
// operating-point coordinates and the experiment names; files without the
// attribute (1) name them NAME and hold neither (merged as they are).
constexpr int kFormatVersion = 2;
// The experiment names: a text column along the rows (ResultsStream::write_text).
const data::StreamColumn kNameColumn{"experiment_name", 0, "", "name of the experiment in its log"};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// --- Sources ----------------------------------------------------------------

struct Job {
  int log = 0;
  std::uint64_t index = 0;  // in its log
  std::string experiment;   // name in its log
  int held = -1;            // index into `held` (logs read whole), -1: read from HDF5 when its chunk comes
};

class Source : public ExperimentSource {
 public:
  std::vector<std::string> logs_;
  std::vector<Job> jobs_;
  std::vector<data::Experiment> held_;
  bool validate_held_ = false;  // memory_experiments: validated when loaded

  std::uint64_t size() const override { return jobs_.size(); }
  std::string name(std::uint64_t i) const override { return logs_[jobs_[i].log] + ":" + jobs_[i].experiment; }
  int log_index(std::uint64_t i) const override { return jobs_[i].log; }
  std::uint64_t index_in_log(std::uint64_t i) const override { return jobs_[i].index; }
  const std::vector<std::string>& logs() const override { return logs_; }
  data::Experiment load(std::uint64_t i) const override {
    const Job& j = jobs_[i];
    if (j.held >= 0) {
      if (validate_held_) data::validate_experiment(held_[j.held]);
      return held_[j.held];
    }
    const data::LogBlockReader r(logs_[j.log], j.experiment);
    data::Experiment e;
    e.name = j.experiment;
    e.source = logs_[j.log];
    e.attributes = r.attributes();
    const std::size_t n = r.length();
    for (const auto& ch : r.channels()) {
      std::vector<double> v(n);
      if (n) r.read(ch, 0, n, v.data());
      e.units[ch] = r.units(ch);
      if (!r.channel_attributes(ch).empty()) e.channel_attributes[ch] = r.channel_attributes(ch);
      e.channels[ch] = std::move(v);
    }
    data::validate_experiment(e);
    return e;
  }
};

// --- Columns ----------------------------------------------------------------

// The parameter columns of a model's fits with these options: the model's
// parameters (with "+"/"-" for --asymmetric), the offset, the estimated mass.
void parameter_columns(const ModelInfo& m, const FitOptions& o, std::vector<std::string>& names,
                       std::vector<std::string>& units) {
  for (const auto& p : m.params)
    for (const char* sign : o.asymmetric ? std::vector<const char*>{"+", "-"} : std::vector<const char*>{""}) {
      names.push_back(std::string(p.name) + sign);
      units.push_back(p.unit);
    }
  if (o.offset || o.offset_per_experiment) names.push_back("offset"), units.push_back("N");
  if ((o.inertia || std::isfinite(o.mass)) && !std::isfinite(o.mass)) names.push_back("mass"), units.push_back("kg");
}

// The row's fixed fields, its field table (engine/records.hpp), in file
// order; then each parameter's value, standard error and interval, then the
// coordinates. `status` comes first: the engine's PointStatus, every
// workload's column; fit_status's flags are the fit statuses' names
// (batch_columns). Units are translational (rotational batches: N*m).
constexpr engine::FieldInfo kRowFields[] = {
    {"status", "1", "point status", true, engine::FieldStorage::kStatus},
    {"fit_status", "1",
     "fit status: 0 converged, 1 max-iterations (not converged), 2 singular, 3 failed, 4 bad-data (not fitted)", true,
     engine::FieldStorage::kUInt8},
    {"warnings", "1", "number of warnings of the fit", true, engine::FieldStorage::kInt32},
    {"log", "1", "index of the input log (attribute logs)", true, engine::FieldStorage::kInt32},
    {"experiment", "1", "index of the experiment within its log", true, engine::FieldStorage::kInt64},
    {"samples", "1", "samples used by the fit", true, engine::FieldStorage::kInt64},
    {"iterations", "1", "solver iterations", true, engine::FieldStorage::kInt32},
    {"starts", "1", "Ceres refinements run", true, engine::FieldStorage::kInt32},
    {"cost", "N^2", "0.5 x sum of squared residuals", false, engine::FieldStorage::kFloat64},
    {"rmse", "N", "root-mean-square residual", false, engine::FieldStorage::kFloat64},
    {"r_squared", "1", "coefficient of determination", false, engine::FieldStorage::kFloat64},
    {"seconds", "s", "wall-clock time of the fit", false, engine::FieldStorage::kFloat64},
};
constexpr engine::RecordTable kRow{kRowFields, std::size(kRowFields)};

// The coordinates of each fit (format 2): the mean of an operating-point
// channel of its experiment (kCoordinateChannels), in the order of
// BatchFitRow::operating; their field table (units as measured, also in a
// rotational batch).
constexpr engine::FieldInfo kCoordinateFields[] = {
    {"mean_pressure_a", "Pa", "mean pressure_a of the experiment (NaN: it has no pressure_a)", false,
     engine::FieldStorage::kFloat64},
    {"mean_pressure_b", "Pa", "mean pressure_b of the experiment (NaN: it has no pressure_b)", false,
     engine::FieldStorage::kFloat64},
    {"mean_normal_force", "N", "mean normal_force of the experiment (NaN: it has no normal_force)", false,
     engine::FieldStorage::kFloat64}};
constexpr engine::RecordTable kCoordinates{kCoordinateFields, std::size(kCoordinateFields)};
constexpr const char* kCoordinateChannels[] = {"pressure_a", "pressure_b", "normal_force"};
constexpr std::size_t kCoordinateCount = std::size(kCoordinateFields);
static_assert(std::size(kCoordinateChannels) == kCoordinateCount, "a channel per coordinate");
std::string coordinate_names() {
  std::vector<std::string> n;
  for (const engine::FieldInfo& k : kCoordinates) n.push_back(k.name);
  return data::join_names(n);
}
// Columns per parameter: value and standard error (format 1), and the 95 % interval (2).
std::size_t per_parameter(int version) { return version >= 2 ? 4 : 2; }

void operating_point(const data::Experiment& e, BatchFitRow& r) {
  for (std::size_t k = 0; k < kCoordinateCount; ++k) {
    if (!e.has(kCoordinateChannels[k])) continue;
    const auto& x = e.channel(kCoordinateChannels[k]);
    double sum = 0;
    for (double v : x) sum += v;
    r.operating[k] = x.empty() ? kNaN : sum / double(x.size());
  }
}

// `force_unit`: the logs' (N*m for a rotational batch), of rmse and cost.
std::vector<data::StreamColumn> batch_columns(const std::vector<std::string>& names,
                                              const std::vector<std::string>& units, const std::string& force_unit,
                                              int version = kFormatVersion) {
  std::vector<data::StreamColumn> c = engine::record_columns(kRow, /*rotational=*/force_unit == "N*m");
  for (data::StreamColumn& col : c)
    if (col.name == "fit_status")
      for (int k = 0; k < kBatchFitStatusCount; ++k)
        col.flags.emplace_back(k, data::flag_word(batch_fit_status_name(static_cast<BatchFitStatus>(k))));
  // As identify's results groups name them (param_NAME, _std_error, _ci95_lo, _ci95_hi).
  const std::string prefix = version >= 2 ? "param_" : "";
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::string n = prefix + names[k];
    c.push_back(data::StreamColumn{n, 0, units[k], "fitted " + names[k]});
    c.push_back(data::StreamColumn{n + "_std_error", 0, units[k], "standard error of " + names[k]});
    if (version < 2) continue;
    c.push_back(data::StreamColumn{n + "_ci95_lo", 0, units[k], "95 % interval of " + names[k] + ", lower end"});
    c.push_back(data::StreamColumn{n + "_ci95_hi", 0, units[k], "95 % interval of " + names[k] + ", upper end"});
  }
  if (version >= 2)
    for (data::StreamColumn& col : engine::record_columns(kCoordinates, /*rotational=*/false))
      c.push_back(std::move(col));
  return c;
}

// The options a fit's result depends on, as text (attribute fit_options; part
// of the batch's identity).
std::string options_text(const FitOptions& o) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "asymmetric=%d offset=%d offset_per_experiment=%d inertia=%d mass=%.17g area_a=%.17g area_b=%.17g "
                "cutoff=%.17g parallel_filter=%d decimation=%d starts=%d starts_per_round=%d max_starts=%d "
                "agree_tolerance=%.17g max_profile_restarts=%d coarse_points=%d seed=%llu max_iterations=%d "
                "tolerances=%.17g,%.17g,%.17g block_size=%d",
                o.asymmetric, o.offset, o.offset_per_experiment, o.inertia, o.mass, o.area_a, o.area_b, o.cutoff_hz,
                o.parallel_filter, o.decimation, o.starts, o.starts_per_round, o.max_starts, o.agree_tolerance,
                o.max_profile_restarts, o.coarse_points, static_cast<unsigned long long>(o.seed), o.max_iterations,
                o.function_tolerance, o.gradient_tolerance, o.parameter_tolerance, o.block_size);
  return std::string(buf) + " free=" + data::join_names(o.free) + " fix=" + data::join_names(o.fix) +
         " init=" + data::join_names(o.initial) + " bounds=" + data::join_names(o.bounds) +
         " per_experiment=" + data::join_names(o.per_experiment) + " loss=" + o.loss +
         " max_relative_std_error=" + std::to_string(o.max_relative_std_error) +
         " max_abs_correlation=" + std::to_string(o.max_abs_correlation);
}

// What makes two runs parts of one batch: model, options, the experiments
// (logs and names, in order).
std::string batch_identity(const std::string& model, const std::string& options, const ExperimentSource& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto text = [&](const std::string& t) {
    for (unsigned char ch : t) h = (h ^ ch) * 0x100000001b3ull;
    h = sweep::mix64(h ^ 0x0a);
  };
  text(model);
  text(options);
  for (std::uint64_t i = 0; i < s.size(); ++i) text(s.name(i));
  return workloads::hex64(h);
}

// --- Rows -------------------------------------------------------------------

// A fit's point status: not fitted (bad data) is invalid, any fit is ok
// (fit_status says how it ended).
engine::PointStatus point_status(const BatchFitRow& r) {
  return r.status == BatchFitStatus::kBadData ? engine::PointStatus::kInvalid : engine::PointStatus::kOk;
}

BatchFitRow bad_row(const std::string& why, std::size_t nparams) {
  BatchFitRow r;
  r.status = BatchFitStatus::kBadData;
  r.reason = why;
  r.cost = r.rmse = r.r_squared = kNaN;
  r.value.assign(nparams, kNaN);
  r.std_error.assign(nparams, kNaN);
  r.ci95_lo.assign(nparams, kNaN);
  r.ci95_hi.assign(nparams, kNaN);
  return r;
}

BatchFitRow fit_row(const FitSummary& s, const std::vector<std::string>& names) {
  BatchFitRow r;
  r.status = static_cast<BatchFitStatus>(static_cast<int>(s.status));
  r.warnings = static_cast<int>(s.warnings.size());
  r.iterations = s.iterations;
  r.starts = s.starts;
  r.samples = s.samples;
  r.cost = s.cost;
  r.rmse = s.rmse;
  r.r_squared = s.r_squared;
  r.seconds = s.seconds;
  r.value.assign(names.size(), kNaN);
  r.std_error.assign(names.size(), kNaN);
  r.ci95_lo.assign(names.size(), kNaN);
  r.ci95_hi.assign(names.size(), kNaN);
  for (const ParameterEstimate& p : s.parameters) {
    const std::string base = p.name.substr(0, p.name.find('@'));  // offset@EXPERIMENT: the one experiment's
    const auto it = std::find(names.begin(), names.end(), base);
    if (it == names.end()) continue;
    r.value[it - names.begin()] = p.value;
    r.std_error[it - names.begin()] = p.std_error;
    r.ci95_lo[it - names.begin()] = p.ci95_lo;
    r.ci95_hi[it - names.begin()] = p.ci95_hi;
  }
  return r;
}

// --- Checkpoint state -------------------------------------------------------

// The checkpoint: the engine's totals, the counts by fit status, the fits
// with warnings.
data::StreamCheckpoint batch_checkpoint(const engine::Totals& t, const BatchFitResult& r) {
  return engine::make_checkpoint(t.completed, t,
                                 {{"fit_status_counts", engine::joined_counts(r.status_counts, kBatchFitStatusCount)},
                                  {"with_warnings", std::to_string(r.with_warnings)}});
}

void restore_totals(const data::StreamCheckpoint& cp, BatchFitResult& r, const std::string& where) {
  engine::restore_totals(cp, r.count, r.totals, where);
  if (r.totals.completed == 0) return;
  const auto fits = engine::state_counts(cp, "fit_status_counts", kBatchFitStatusCount, where);
  for (int k = 0; k < kBatchFitStatusCount; ++k) r.status_counts[k] = fits[k];
  r.with_warnings = engine::state_count(cp, "with_warnings", where);
}

// Rows as the file's columns (kRow's fields, then value, standard error and
// interval of each parameter, then the coordinates), n values each.
std::vector<std::vector<double>> row_columns(const std::vector<BatchFitRow>& rows, std::uint64_t first,
                                             const ExperimentSource& src, std::size_t nparams) {
  const std::size_t n = rows.size();
  const std::size_t per = per_parameter(kFormatVersion), coords = kRow.size + per * nparams;
  std::vector<std::vector<double>> c(coords + kCoordinateCount, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const BatchFitRow& r = rows[i];
    const double fixed[] = {static_cast<double>(point_status(r)),
                            static_cast<double>(r.status),
                            static_cast<double>(r.warnings),
                            static_cast<double>(src.log_index(first + i)),
                            static_cast<double>(src.index_in_log(first + i)),
                            static_cast<double>(r.samples),
                            static_cast<double>(r.iterations),
                            static_cast<double>(r.starts),
                            r.cost,
                            r.rmse,
                            r.r_squared,
                            r.seconds};
    static_assert(sizeof(fixed) / sizeof(fixed[0]) == std::size(kRowFields), "a value per field of the row");
    for (std::size_t k = 0; k < kRow.size; ++k) c[k][i] = fixed[k];
    for (std::size_t p = 0; p < nparams; ++p) {
      const std::size_t at = kRow.size + per * p;
      c[at][i] = r.value[p];
      c[at + 1][i] = r.std_error[p];
      c[at + 2][i] = r.ci95_lo[p];
      c[at + 3][i] = r.ci95_hi[p];
    }
    for (std::size_t k = 0; k < kCoordinateCount; ++k) c[coords + k][i] = r.operating[k];
  }
  return c;
}

// --- The workload -----------------------------------------------------------

class BatchFitWorkload : public engine::Workload {
 public:
  BatchFitWorkload(const ExperimentSource& src, const BatchFitOptions& o, const FitOptions& fo, BatchFitResult& r,
                   data::ResultsStream* stream)
      : src_(src), o_(o), fo_(fo), r_(r), stream_(stream) {}

  void compute(int slot, std::uint64_t first, std::uint64_t k,
               const std::function<void(std::uint64_t)>& progress) override {
    const std::size_t np = r_.parameters.size();
    std::vector<data::Experiment> ex(k);
    std::vector<std::string> bad(k);
    {
      // The chunk's experiments in order, on this thread: HDF5 is not
      // thread-safe (and the previous chunk's write may be running).
      std::lock_guard<std::mutex> lock(h5_);
      for (std::uint64_t i = 0; i < k; ++i) try {
          ex[i] = src_.load(first + i);
        } catch (const data::InputError& e) {
          bad[i] = e.what();
        }
    }
    std::vector<BatchFitRow>& rows = rows_[slot];
    rows.assign(k, BatchFitRow{});
    std::vector<std::exception_ptr> failures(k);
    std::atomic<std::uint64_t> done{0};
    const bool memory = stream_ == nullptr;
#pragma omp parallel for schedule(dynamic, 1) num_threads(r_.threads)
    for (std::int64_t j = 0; j < static_cast<std::int64_t>(k); ++j) {
      const std::size_t i = static_cast<std::size_t>(j);
      try {
        if (!bad[i].empty()) {
          rows[i] = bad_row(bad[i], np);
        } else if (detail::is_rotational(ex[i]) != r_.rotational) {
          rows[i] = bad_row(ex[i].source + ": experiment '" + ex[i].name + "' is " +
                                (r_.rotational ? "translational" : "rotational") + " and the batch's first " +
                                (r_.rotational ? "rotational" : "translational") +
                                ": fit rotational and translational logs in separate batches",
                            np);
        } else {
          const auto t0 = std::chrono::steady_clock::now();
          FitSummary s = fit({ex[i]}, o_.model, fo_);
          rows[i] = fit_row(s, r_.parameters);
          rows[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          if (memory) rows[i].summary = std::move(s);
        }
      } catch (const data::InputError& e) {  // what this experiment's data cannot support
        rows[i] = bad_row(e.what(), np);
      } catch (...) {
        failures[i] = std::current_exception();
      }
      if (bad[i].empty()) operating_point(ex[i], rows[i]);
      ex[i] = data::Experiment{};
      const std::uint64_t n = done.fetch_add(1, std::memory_order_relaxed) + 1;
      if (omp_get_thread_num() == 0 && n < k) progress(n);
    }
    for (auto& f : failures)
      if (f) std::rethrow_exception(f);
  }

  void tally(int slot, std::uint64_t first, std::uint64_t k, engine::Totals& t) override {
    for (std::uint64_t i = 0; i < k; ++i) {
      const BatchFitRow& row = rows_[slot][i];
      const bool bad = point_status(row) == engine::PointStatus::kInvalid;
      t.add(point_status(row));
      ++r_.status_counts[static_cast<int>(row.status)];
      r_.with_warnings += row.warnings > 0;
      if (bad && t.wants_example()) t.add_example(first + i, src_.name(first + i) + ": " + row.reason);
    }
  }

  std::function<void()> write(int slot, std::uint64_t k, const engine::Totals& t) override {
    if (!stream_) {
      for (auto& row : rows_[slot]) r_.rows.push_back(std::move(row));
      return {};
    }
    const std::uint64_t first = r_.first + t.completed - k;
    return [this, slot, k, first, cp = batch_checkpoint(t, r_)] {
      std::lock_guard<std::mutex> lock(h5_);
      const auto cols = row_columns(rows_[slot], first, src_, r_.parameters.size());
      std::vector<const double*> data;
      for (const auto& c : cols) data.push_back(c.data());
      if (k) stream_->append(k, data);
      stream_->checkpoint(cp);
    };
  }

 private:
  const ExperimentSource& src_;
  const BatchFitOptions& o_;
  const FitOptions& fo_;
  BatchFitResult& r_;
  data::ResultsStream* stream_;
  std::vector<BatchFitRow> rows_[2];
  std::mutex h5_;
};

// The format version of a batch-fit group's attributes (1 without one).
int format_version(const std::map<std::string, std::string>& a) {
  const auto v = a.find("format_version");
  return v == a.end() ? 1 : std::atoi(v->second.c_str());
}

// The batch fit's shard files for the one merge (engine/merge.hpp).
engine::ShardFormat shard_format() {
  engine::ShardFormat f{
      kGroup,
      "batch_identity",
      "a batch-fit shard file (stribeck identify --batch --shard)",
      {"batch", "model, fit options or experiments differ", "fit"},
      {"points", "first", "count", "model", "parameters", "parameter_units", "batch_identity"},
      {"batch_identity", "points", "model", "parameters"},
      [](const std::string& path, const std::map<std::string, std::string>& a, const std::string& at) {
        const data::h5::File f = data::h5::open_file(path);
        if (!data::h5::has_child(f.id(), std::string(kGroup) + "/fit_status"))
          throw data::InputError(at +
                                 ": written by an older stribeck (its 'status' column is the fit status); merge its "
                                 "shards with that version, or fit them again");
        const auto names = data::split_names(a.at("parameters")), units = data::split_names(a.at("parameter_units"));
        if (names.size() != units.size())
          throw data::InputError(at + ": attributes 'parameters' and 'parameter_units' differ");
        const auto unit = a.find("force_unit");  // absent in files of older versions: N
        return batch_columns(names, units, unit == a.end() ? "N" : unit->second, format_version(a));
      }};
  f.text = [](const std::map<std::string, std::string>& a) {
    return format_version(a) >= 2 ? std::vector<data::StreamColumn>{kNameColumn} : std::vector<data::StreamColumn>{};
  };
  return f;
}
const engine::ShardFormat kShards = shard_format();

}  // namespace

const char* batch_fit_status_name(BatchFitStatus s) {
  switch (s) {
    case BatchFitStatus::kConverged: return "converged";
    case BatchFitStatus::kMaxIterations: return "max-iterations";
    case BatchFitStatus::kSingular: return "singular";
    case BatchFitStatus::kFailed: return "failed";
    case BatchFitStatus::kBadData: return "bad-data";
  }
  return "unknown";
}

std::unique_ptr<ExperimentSource> log_experiments(const std::vector<std::string>& logs,
                                                  const std::vector<std::string>& only, const data::ReadOptions& ro) {
  auto s = std::make_unique<Source>();
  s->logs_ = logs;
  std::set<std::string> found;
  auto wanted = [&](const std::string& n) {
    if (!only.empty() && std::find(only.begin(), only.end(), n) == only.end()) return false;
    found.insert(n);
    return true;
  };
  for (std::size_t l = 0; l < logs.size(); ++l) {
    std::uint64_t index = 0;
    if (ro.columns.empty() && ro.gains.empty() && data::h5::is_hdf5(logs[l])) {
      for (const auto& n : data::list_log_experiments(logs[l])) {
        if (wanted(n)) s->jobs_.push_back({static_cast<int>(l), index, n, -1});
        ++index;
      }
    } else {
      for (auto& e : data::read_any_log(logs[l], ro)) {
        if (wanted(e.name)) {
          s->jobs_.push_back({static_cast<int>(l), index, e.name, static_cast<int>(s->held_.size())});
          s->held_.push_back(std::move(e));
        }
        ++index;
      }
    }
  }
  for (const auto& n : only)
    if (!found.count(n)) throw data::InputError("--experiment: no experiment named '" + n + "' in the given log(s)");
  if (s->jobs_.empty()) throw data::InputError("no experiments to fit");
  return s;
}

std::unique_ptr<ExperimentSource> memory_experiments(std::vector<data::Experiment> experiments,
                                                     const std::string& source) {
  auto s = std::make_unique<Source>();
  s->logs_ = {source};
  s->validate_held_ = true;
  for (std::size_t i = 0; i < experiments.size(); ++i)
    s->jobs_.push_back({0, i, experiments[i].name, static_cast<int>(i)});
  s->held_ = std::move(experiments);
  return s;
}

BatchFitResult run_batch_fit(const ExperimentSource& src, const BatchFitOptions& o) {
  check_fit_options(o.model, o.fit);
  const ModelInfo& m = workloads::require_model(o.model);
  if (src.size() == 0) throw data::InputError("no experiments to fit");
  BatchFitResult r;
  r.model = m.id;
  parameter_columns(m, o.fit, r.parameters, r.units);
  const engine::Range part = engine::split_range(o.shard, src.size());
  r.points = part.points;
  r.first = part.first;
  r.count = part.count;
  r.shard_index = part.shard_index;
  r.shard_count = part.shard_count;
  if (part.count > 0) try {
      r.rotational = detail::is_rotational(src.load(part.first));
    } catch (const data::InputError&) {  // that experiment's row says why
    }
  if (r.rotational)
    for (auto& u : r.units) u = detail::rotational_parameter_unit(m, u);
  // No more threads than fits (of this shard).
  r.threads = static_cast<int>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(o.threads > 0 ? o.threads : workloads::job_threads(), r.count)));
  if (o.output.empty() && (o.resume || o.max_chunks))
    throw data::InputError(std::string(o.resume ? "--resume" : "--max-chunks") +
                           " needs an HDF5 results file (-o OUT.h5) to checkpoint into");
  if (o.chunk > 1000000)
    throw data::InputError("--chunk " + std::to_string(o.chunk) + ": at most 1000000 fits per chunk");
  FitOptions fo = o.fit;
  fo.num_threads = 1;  // one fit per thread; Ceres single-threaded inside
  fo.keep_signals = false;
  fo.progress = nullptr;

  std::unique_ptr<data::ResultsStream> stream;
  if (!o.output.empty()) {
    const std::string options = options_text(o.fit);
    const std::map<std::string, std::string> attributes{{"model", m.id},
                                                        {"parameters", data::join_names(r.parameters)},
                                                        {"parameter_units", data::join_names(r.units)},
                                                        {"force_unit", r.rotational ? "N*m" : "N"},
                                                        {"format_version", std::to_string(kFormatVersion)},
                                                        {"coordinate_names", coordinate_names()},
                                                        {"fit_options", options},
                                                        {"logs", data::join_names(src.logs(), '\n')},
                                                        {"batch_identity", batch_identity(m.id, options, src)},
                                                        {"points", std::to_string(r.points)},
                                                        {"first", std::to_string(r.first)},
                                                        {"count", std::to_string(r.count)},
                                                        {"shard_index", std::to_string(r.shard_index)},
                                                        {"shard_count", std::to_string(r.shard_count)}};
    data::Provenance p = o.provenance;
    p.device = "cpu (" + std::to_string(r.threads) + (r.threads == 1 ? " thread" : " threads") + ", one fit each)";
    const auto columns = batch_columns(r.parameters, r.units, r.rotational ? "N*m" : "N");
    if (o.resume) {
      data::StreamCheckpoint cp;
      stream = data::ResultsStream::resume(o.output, kGroup, columns, attributes, p, cp, r.first);
      restore_totals(cp, r, data::partial_path(o.output));
    } else {
      stream =
          data::ResultsStream::create(o.output, kGroup, columns, attributes, p, r.count, /*resumable=*/true, r.first);
    }
    // The names are part of the batch's identity, known before any fit:
    // written whole now (kept if a resumed file has them).
    std::vector<std::string> names;
    for (std::uint64_t i = r.first; i < r.first + r.count; ++i)
      names.push_back(src.name(i).substr(src.logs()[static_cast<std::size_t>(src.log_index(i))].size() + 1));
    stream->write_text(kNameColumn, names);
  }
  engine::RunOptions ro;
  ro.chunk = o.chunk ? o.chunk : 16 * static_cast<std::uint64_t>(r.threads);
  ro.max_chunks = o.max_chunks;
  ro.progress = o.progress;
  const auto t0 = std::chrono::steady_clock::now();
  BatchFitWorkload w(src, o, fo, r, stream.get());
  const engine::RunStats st = engine::run(part, w, r.totals, ro);
  r.evaluated = st.evaluated;
  r.fit_seconds = st.compute_seconds;
  r.finished = st.finished;
  if (r.finished && stream) {
    stream->checkpoint(batch_checkpoint(r.totals, r));
    stream->finish(engine::count_attributes(r.totals));
    r.output = o.output;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

engine::RecordTable batch_fit_row_fields() { return kRow; }
engine::RecordTable batch_fit_coordinate_fields() { return kCoordinates; }

bool is_batch_fit_file(const std::string& path) { return engine::is_shard_file(path, kShards); }

void merge_batch_fit_files(const std::vector<std::string>& inputs, const std::string& output,
                           const std::string& command_line) {
  engine::merge_shard_files(kShards, inputs, output, command_line);
}

}  // namespace stribeck::ident
