// identify's tables, JSON documents and streamed results file (fit_outputs.hpp).
#include "stribeck/identification/fit_outputs.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <nlohmann/json.hpp>

#include "stribeck/data/error.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/identification/results_io.hpp"

namespace stribeck::ident {
namespace {

std::string clean_name(std::string s) {
  for (char& c : s)
    if (c == '/' || c == '.') c = '_';
  return s;
}

// Strings taken from files may not be UTF-8: replaced, never an exception.
std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

// The status of a row of identify --table by BatchFitStatus's codes: a fit's
// by FitStatus's names, a row that was not fitted by a batch's word for it.
const char* const kStatusWords[] = {status_name(FitStatus::kConverged), status_name(FitStatus::kMaxIterations),
                                    status_name(FitStatus::kSingular), status_name(FitStatus::kFailed),
                                    batch_fit_status_name(BatchFitStatus::kBadData)};
static_assert(std::size(kStatusWords) == kBatchFitStatusCount, "a word per batch fit status");
const char* const kBoolWords[] = {"false", "true"};

// identify --table's record: the fields before the parameters, a value and
// a standard error per parameter (the parameter's name + the field's name,
// in the parameter's units), the fields after them.
constexpr engine::FieldInfo kLeadFields[] = {
    {"fit", "1", "what was fitted: joint (every experiment), or LOG:EXPERIMENT of a batch", false,
     engine::FieldStorage::kText},
    {"model", "1", "model id", false, engine::FieldStorage::kText},
    {"status", "1", "fit status: converged, max_iterations, singular, failed, bad-data (not fitted)", true,
     engine::FieldStorage::kWord, 0, kStatusWords, std::size(kStatusWords)},
    {"converged", "1", "whether the fit converged", true, engine::FieldStorage::kWord, 0, kBoolWords,
     std::size(kBoolWords)},
    {"samples", "1", "samples used by the fit", true, engine::FieldStorage::kInt64},
    {"rmse", "N", "root-mean-square residual (NaN: not fitted)", false, engine::FieldStorage::kFloat64, 6},
    {"r_squared", "1", "coefficient of determination (NaN: not fitted)", false, engine::FieldStorage::kFloat64, 6}};
constexpr engine::FieldInfo kParameterFields[] = {
    {"", "", "fitted value", false, engine::FieldStorage::kFloat64, 10},
    {"_std_error", "", "standard error (NaN: fixed or not determined)", false, engine::FieldStorage::kFloat64, 4}};
constexpr engine::FieldInfo kTailFields[] = {
    {"warnings", "1", "number of warnings of the fit", true, engine::FieldStorage::kInt32}};
constexpr engine::RecordTable kLead{kLeadFields, std::size(kLeadFields)};

// A row's cells of the lead fields, in their order.
std::array<std::string, std::size(kLeadFields)> lead_cells(const std::string& label, const FitSummary& s, bool no_fit) {
  const double status = no_fit ? double(BatchFitStatus::kBadData) : double(s.status);
  return {label,
          s.model,
          engine::field_text(kLead[2], status),
          engine::field_text(kLead[3], s.converged ? 1 : 0),
          engine::field_text(kLead[4], double(s.samples)),
          engine::field_text(kLead[5], no_fit ? NAN : s.rmse),
          engine::field_text(kLead[6], no_fit ? NAN : s.r_squared)};
}

}  // namespace

FitsTableRecord fits_table_record() {
  return {kLead, {kParameterFields, std::size(kParameterFields)}, {kTailFields, std::size(kTailFields)}};
}

std::string fits_table_csv(const std::vector<std::pair<std::string, FitSummary>>& fits,
                           const std::vector<std::string>& bad) {
  std::vector<std::string> pnames;
  for (const auto& [label, s] : fits)
    for (const auto& p : s.parameters)
      if (std::find(pnames.begin(), pnames.end(), p.name) == pnames.end()) pnames.push_back(p.name);
  const FitsTableRecord t = fits_table_record();
  std::string out = engine::record_csv_header(t.lead);
  for (const auto& n : pnames)
    for (const engine::FieldInfo& f : t.parameter) {
      out += ',';
      data::append_csv_field(out, n + f.name);
    }
  out += ',' + engine::record_csv_header(t.tail) + '\n';
  for (size_t i = 0; i < fits.size(); ++i) {
    const auto& [label, s] = fits[i];
    const bool no_fit = i < bad.size() && !bad[i].empty();  // bad data: not fitted
    std::vector<std::string> cells;
    for (const std::string& cell : lead_cells(label, s, no_fit)) cells.push_back(cell);
    for (const auto& n : pnames) {
      const auto it = std::find_if(s.parameters.begin(), s.parameters.end(),
                                   [&](const ParameterEstimate& p) { return p.name == n; });
      const double values[] = {it == s.parameters.end() ? 0 : it->value, it == s.parameters.end() ? 0 : it->std_error};
      for (std::size_t k = 0; k < t.parameter.size; ++k)  // a parameter this fit has not: empty cells
        cells.push_back(it == s.parameters.end() ? std::string() : engine::field_text(t.parameter[k], values[k]));
    }
    cells.push_back(engine::field_text(t.tail[0], double(s.warnings.size())));
    for (std::size_t k = 0; k < cells.size(); ++k) {
      if (k) out += ',';
      data::append_csv_field(out, cells[k]);
    }
    out += '\n';
  }
  return out;
}

std::string batch_table_csv(const BatchFitResult& r, const ExperimentSource& src) {
  std::vector<std::pair<std::string, FitSummary>> fits;
  std::vector<std::string> bad;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    fits.push_back({src.name(r.first + i), r.rows[i].summary});
    if (fits.back().second.model.empty()) fits.back().second.model = r.model;
    bad.push_back(r.rows[i].status == BatchFitStatus::kBadData ? r.rows[i].reason : std::string());
  }
  return fits_table_csv(fits, bad);
}

std::string fits_json(const std::vector<FitSummary>& fits) {
  if (fits.size() == 1) return to_json(fits[0]) + "\n";
  std::string j = "{\"ranking\": [";
  for (size_t i = 0; i < fits.size(); ++i) j += (i ? ", " : "") + to_json(fits[i], -1);
  return j + "]}\n";
}

std::string batch_rows_json(const BatchFitResult& r, const ExperimentSource& src) {
  std::string j = "{\"fits\": [";
  for (size_t i = 0; i < r.rows.size(); ++i) {
    std::string one =
        r.rows[i].status == BatchFitStatus::kBadData
            ? nlohmann::json{{"fit", src.name(r.first + i)}, {"status", "bad-data"}, {"reason", r.rows[i].reason}}
                  .dump()
            : to_json(r.rows[i].summary, -1);
    j += (i ? ", " : "") + one;
  }
  return j + "]}\n";
}

std::string batch_summary_json(const BatchFitResult& r, const std::string& shard, const std::string& where) {
  const auto& n = r.status_counts;
  return dump(
      {{"kind", "batch_fit"},
       {"model", r.model},
       {"fits", r.points},
       {"first", r.first},
       {"count", r.count},
       {"shard", shard.empty() ? nlohmann::json(nullptr) : nlohmann::json(shard)},
       {"completed", r.totals.completed},
       {"finished", r.finished},
       {"threads", r.threads},
       {"evaluated", r.evaluated},
       {"seconds", r.seconds},
       {"status",
        {{"converged", n[0]}, {"max_iterations", n[1]}, {"singular", n[2]}, {"failed", n[3]}, {"bad_data", n[4]}}},
       {"with_warnings", r.with_warnings},
       {"bad_data_examples", r.totals.invalid_examples},
       {"output", where}});
}

std::string batch_fit_report(const BatchFitResult& r, const std::string& shard, const std::string& where) {
  const auto& n = r.status_counts;
  const std::string part = r.shard_count > 1 ? ", shard " + shard + " of " + std::to_string(r.points) : std::string();
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "stribeck identify: %llu fits on %d thread%s\n"
                "  %s%s: %llu fitted in %.3g s (%.3g fits/s) -> %s\n"
                "  converged %llu, max-iterations %llu, singular %llu, failed %llu, bad-data %llu; with warnings %llu",
                static_cast<unsigned long long>(r.count), r.threads, r.threads == 1 ? "" : "s", r.model.c_str(),
                part.c_str(), static_cast<unsigned long long>(r.evaluated), r.seconds,
                r.seconds > 0 ? r.evaluated / r.seconds : 0.0, where.c_str(), static_cast<unsigned long long>(n[0]),
                static_cast<unsigned long long>(n[1]), static_cast<unsigned long long>(n[2]),
                static_cast<unsigned long long>(n[3]), static_cast<unsigned long long>(n[4]),
                static_cast<unsigned long long>(r.with_warnings));
  return buf;
}

StreamedFitResults::StreamedFitResults(const std::string& path, const std::vector<LogStream>& logs,
                                       const std::string& model, const data::Provenance& prov)
    : prefix_("identify_" + clean_name(model)) {
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fclose(f);
    throw data::InputError(path +
                           ": exists; a streamed fit writes its fitted force to a new HDF5 file (name one "
                           "that does not exist, or use --stream never to append to this one)");
  }
  out_ = std::make_unique<data::LogBlockWriter>(path, prov);
  for (const auto& l : logs) {
    // In the log's force unit (N*m for a rotational log).
    const data::LogBlockReader r(l.path, l.experiment);
    const std::string unit = r.has("force") ? r.units("force") : "N";
    groups_.push_back(out_->add_results(prefix_ + "/" + clean_name(l.name),
                                        {{"fitted_force", unit, "model force with force-balance terms"},
                                         {"residual", unit, "measured force - fitted force"}},
                                        {}, prov));
  }
}

StreamedFitResults::~StreamedFitResults() = default;

void StreamedFitResults::connect(StreamOptions& so) {
  so.signals = [this](int e, size_t, const double* fitted, const double* residual, size_t n) {
    const double* cols[] = {fitted, residual};
    out_->append(groups_[e], cols, n);
  };
}

void StreamedFitResults::commit(const FitSummary& s) {
  const std::string json = to_json(s, -1);
  for (size_t e = 0; e < groups_.size(); ++e)
    out_->set_summary(groups_[e], fit_group_summary(s, s.experiments[e], json));
  out_->commit();
}

}  // namespace stribeck::ident
