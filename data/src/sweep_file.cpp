// The sweep file's layout (format_version 3: a results group streamed by the
// engine) and its reader. Layout in docs/sweep.md, "Output".
#include "stribeck/data/sweep_file.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/log.hpp"

namespace stribeck::data {
namespace {

constexpr const char* kIdentity = "sweep_identity";
constexpr const char* kTopK = "top_k";

int metric_id(const std::string& name) {
  for (int k = 0; k < sweep::kNumMetrics; ++k)
    if (name == sweep::kMetricInfo[k].name) return k;
  return -1;
}

std::string param_long_name(const SweepMeta& m, std::size_t d) {
  return "parameter " + m.param_names[d] + " of " + m.model;
}
std::string unit_or_one(const std::string& u) { return u.empty() ? "1" : u; }

// The metrics' columns a caller gives: one per sweep::Metric.
void check_metric_columns(const std::vector<StreamColumn>& metrics) {
  if (metrics.size() != static_cast<std::size_t>(sweep::kNumMetrics))
    throw std::logic_error("sweep file: " + std::to_string(metrics.size()) + " metric columns given, " +
                           std::to_string(sweep::kNumMetrics) + " metrics");
}

}  // namespace

std::map<std::string, std::string> sweep_attributes(const SweepMeta& m) {
  std::vector<std::string> metrics;
  for (int k : m.metrics) metrics.push_back(sweep::kMetricInfo[k].name);
  return {{"format_version", std::to_string(kSweepFormatVersion)},
          {"model", m.model},
          {"design", m.design},
          {"precision", m.precision},
          {kIdentity, m.identity},
          {"points", std::to_string(m.points)},
          {"first", std::to_string(m.first)},
          {"count", std::to_string(m.count)},
          {"shard_index", std::to_string(m.shard_index)},
          {"shard_count", std::to_string(m.shard_count)},
          {"parameters", join_names(m.param_names, ',')},
          {"parameter_units", join_names(m.param_units, ',')},
          {"metrics", join_names(metrics, ',')},
          {"experiments", join_names(m.experiments, '\n')},
          {"objective", sweep::kMetricInfo[m.objective].name},
          {"maximize", std::to_string(m.maximize ? 1 : 0)},
          {"top_k", std::to_string(m.top_k)},
          {"per_experiment", std::to_string(m.per_experiment ? 1 : 0)},
          {"top_k_only", std::to_string(m.top_k_only ? 1 : 0)}};
}

std::vector<StreamColumn> sweep_columns(const SweepMeta& m, const StreamColumn& status,
                                        const std::vector<StreamColumn>& metrics) {
  check_metric_columns(metrics);
  // Every name of the group and of the top-K table is unique: a parameter
  // named like a metric would make one dataset hide the other.
  std::set<std::string> names{kPointDimension, "experiment", kTopK, "trajectories", "rank", "index", "objective"};
  auto claim = [&](const std::string& n) {
    if (!names.insert(n).second)
      throw std::logic_error("sweep file: '" + n + "' of model " + m.model + " names two datasets");
  };
  for (const auto& n : m.param_names) claim(n);
  for (const StreamColumn& metric : metrics) {
    claim(metric.name);
    claim(metric.name + "_by_experiment");
  }
  claim(status.name);
  std::vector<StreamColumn> c;
  if (m.top_k_only) return c;
  for (std::size_t d = 0; d < m.param_names.size(); ++d) {
    StreamColumn col{m.param_names[d], 0, unit_or_one(m.param_units[d]), ""};
    col.long_name = param_long_name(m, d);
    c.push_back(col);
  }
  for (int k : m.metrics) c.push_back(metrics[k]);
  c.push_back(status);
  if (m.per_experiment)
    for (int k : m.metrics) {
      StreamColumn col = metrics[k];
      col.name += "_by_experiment";
      col.width = m.experiments.size();
      col.description += ", per experiment";
      col.width_dimension = "experiment";
      col.width_labels = m.experiments;
      c.push_back(col);
    }
  return c;
}

std::vector<std::vector<double>> sweep_chunk_columns(const SweepMeta& m, const SweepChunk& ch) {
  std::vector<std::vector<double>> c;
  if (m.top_k_only) return c;
  const std::size_t n = ch.count, dims = m.param_names.size(), n_exp = m.experiments.size();
  for (std::size_t d = 0; d < dims; ++d) {
    c.emplace_back(n);
    for (std::size_t j = 0; j < n; ++j) c.back()[j] = ch.params[j * dims + d];
  }
  for (int k : m.metrics) {
    c.emplace_back(n);
    for (std::size_t j = 0; j < n; ++j) c.back()[j] = ch.metrics[j * sweep::kNumMetrics + k];
  }
  c.emplace_back(ch.status.begin(), ch.status.end());
  if (m.per_experiment)
    for (int k : m.metrics) {
      c.emplace_back(n * n_exp);
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t e = 0; e < n_exp; ++e)
          c.back()[j * n_exp + e] = ch.exp_metrics[(j * n_exp + e) * sweep::kNumMetrics + k];
    }
  return c;
}

StreamTable top_k_table(const SweepMeta& m, const std::vector<TopEntry>& top,
                        const std::vector<StreamColumn>& metrics) {
  check_metric_columns(metrics);
  StreamTable t;
  t.name = kTopK;
  t.dimension = "rank";
  t.dimension_long_name = "rank by the objective (0: best)";
  StreamColumn index{"index", 0, "1", ""};
  index.long_name = "index of the point in the whole space";
  index.type = ColumnType::kUInt64;
  const sweep::MetricInfo& oi = sweep::kMetricInfo[m.objective];
  StreamColumn objective{"objective", 0, oi.unit, ""};
  objective.long_name = std::string("objective: ") + oi.name + (m.maximize ? " (largest first)" : " (smallest first)");
  t.columns = {index, objective};
  t.data.assign(2, {});
  for (const TopEntry& e : top) {
    t.data[0].push_back(static_cast<double>(e.index));
    t.data[1].push_back(e.objective);
  }
  for (std::size_t d = 0; d < m.param_names.size(); ++d) {
    StreamColumn col{m.param_names[d], 0, unit_or_one(m.param_units[d]), ""};
    col.long_name = param_long_name(m, d);
    t.columns.push_back(col);
    t.data.emplace_back();
    for (const TopEntry& e : top) t.data.back().push_back(e.params[d]);
  }
  for (int k = 0; k < sweep::kNumMetrics; ++k) {  // all metrics: the table is small
    t.columns.push_back(metrics[k]);
    t.data.emplace_back();
    for (const TopEntry& e : top) t.data.back().push_back(e.metrics[k]);
  }
  return t;
}

std::vector<TopEntry> top_k_entries(const SweepMeta& m, const StreamTable& t, const std::string& where) {
  std::vector<TopEntry> top;
  if (t.columns.empty()) return top;  // no checkpoint wrote one yet
  auto column = [&](const std::string& name) -> const std::vector<double>& {
    const std::vector<double>* c = t.column(name);
    if (!c) throw InputError(where + ": table 'top_k' has no column '" + name + "'");
    return *c;
  };
  const auto& index = column("index");
  const auto& objective = column("objective");
  top.resize(t.rows());
  for (std::size_t r = 0; r < top.size(); ++r) {
    if (!(index[r] >= 0) || index[r] >= static_cast<double>(m.points))
      throw InputError(where + ": table 'top_k' names point " + std::to_string(index[r]) + ", outside the space");
    top[r].index = static_cast<std::uint64_t>(index[r]);
    top[r].objective = objective[r];
    top[r].params.resize(m.param_names.size());
    top[r].metrics.resize(sweep::kNumMetrics);
  }
  for (std::size_t d = 0; d < m.param_names.size(); ++d) {
    const auto& v = column(m.param_names[d]);
    for (std::size_t r = 0; r < top.size(); ++r) top[r].params[d] = v[r];
  }
  for (int k = 0; k < sweep::kNumMetrics; ++k) {
    const auto& v = column(sweep::kMetricInfo[k].name);
    for (std::size_t r = 0; r < top.size(); ++r) top[r].metrics[k] = v[r];
  }
  return top;
}

StreamTable trajectory_table(const SweepMeta& m, std::uint64_t index, const std::vector<double>& params,
                             const std::string& experiment, const std::vector<double>& force) {
  StreamTable t;
  t.name = "trajectories/" + std::to_string(index) + "/" + experiment;
  t.dimension = "sample";
  t.dimension_long_name = "sample of the experiment's trace";
  StreamColumn f{"force", 0, sweep::kMetricInfo[sweep::kPeakForce].unit, ""};
  f.long_name = "model force along the trace";
  t.columns = {f};
  t.data = {force};
  for (std::size_t d = 0; d < params.size() && d < m.param_names.size(); ++d)
    t.attributes[m.param_names[d]] = params[d];
  return t;
}

bool is_sweep_file(const std::string& path) {
  try {
    if (!h5::is_hdf5(path)) return false;
    const h5::File f = h5::open_file(path);
    if (h5::has_child(f.id(), kSweepGroup)) {
      const h5::Group g = h5::open_group(f.id(), kSweepGroup, path);
      if (h5::has_attribute(g.id(), kIdentity)) return true;
    }
  } catch (const std::exception&) {
    return false;
  }
  return detail::legacy_sweep_version(path) > 0;
}

namespace {
std::uint64_t count_attribute(const std::map<std::string, std::string>& a, const std::string& k,
                              const std::string& at) {
  const auto it = a.find(k);
  if (it == a.end()) throw InputError(at + ": no attribute '" + k + "' (not a stribeck sweep file)");
  const std::string& v = it->second;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end || v[0] == '-') throw InputError(at + ": attribute '" + k + "' is not a count: '" + v + "'");
  return static_cast<std::uint64_t>(x);
}
}  // namespace

SweepMeta sweep_meta(const std::map<std::string, std::string>& a, const Provenance& provenance, const std::string& at) {
  auto attr = [&](const std::string& k) -> const std::string& {
    const auto it = a.find(k);
    if (it == a.end()) throw InputError(at + ": no attribute '" + k + "' (not a stribeck sweep file)");
    return it->second;
  };
  auto count = [&](const std::string& k) { return count_attribute(a, k, at); };
  SweepMeta m;
  m.provenance = provenance;
  m.model = attr("model");
  m.design = attr("design");
  m.precision = attr("precision");
  m.identity = attr(kIdentity);
  m.points = count("points");
  m.first = count("first");
  m.count = count("count");
  m.shard_index = static_cast<int>(count("shard_index"));
  m.shard_count = static_cast<int>(count("shard_count"));
  m.param_names = split_names(attr("parameters"), ',');
  m.param_units = split_names(attr("parameter_units"), ',');
  m.param_units.resize(m.param_names.size());
  for (const auto& name : split_names(attr("metrics"), ',')) {
    const int k = metric_id(name);
    if (k < 0) throw InputError(at + ": attribute 'metrics' names an unknown metric '" + name + "'");
    m.metrics.push_back(k);
  }
  m.experiments = split_names(attr("experiments"), '\n');
  m.objective = metric_id(attr("objective"));
  if (m.objective < 0) throw InputError(at + ": unknown objective '" + attr("objective") + "'");
  m.maximize = count("maximize") != 0;
  m.top_k = static_cast<int>(count("top_k"));
  m.per_experiment = count("per_experiment") != 0;
  m.top_k_only = count("top_k_only") != 0;
  if (m.first > m.points || m.count > m.points - m.first)
    throw InputError(at + ": points [" + std::to_string(m.first) + ", +" + std::to_string(m.count) +
                     ") lie outside the space of " + std::to_string(m.points));
  if (m.experiments.empty()) throw InputError(at + ": attribute 'experiments' names no experiment");
  return m;
}

SweepFile read_sweep_file(const std::string& path, bool with_rows) {
  {
    const h5::File f5 = h5::open_file(path);
    if (!h5::has_child(f5.id(), kSweepGroup)) {
      if (h5::has_attribute(f5.id(), "format")) return detail::read_legacy_sweep_file(path);
      throw InputError(path + ": not a stribeck sweep file");
    }
  }
  const std::string at = path + ": group '" + std::string(kSweepGroup) + "'";
  const Results head = read_results(path, kSweepGroup, /*with_datasets=*/false);
  const auto& a = head.attributes;
  auto count = [&](const std::string& k) { return count_attribute(a, k, at); };
  SweepFile f;
  f.format_version = static_cast<int>(count("format_version"));
  if (f.format_version > kSweepFormatVersion)
    throw InputError(path + ": sweep file format_version " + std::to_string(f.format_version) +
                     " is newer than this stribeck (" + std::to_string(kSweepFormatVersion) +
                     "); use a newer stribeck");
  f.meta = sweep_meta(a, head.provenance, at);
  const SweepMeta& m = f.meta;

  // Progress: the last checkpoint of an unfinished file (the engine's keys,
  // docs/data-format.md), or a finished file's counts.
  SweepProgress& p = f.progress;
  StreamCheckpoint cp;
  f.complete = !read_stream_checkpoint(path, kSweepGroup, cp);
  std::uint64_t rows = m.top_k_only ? 0 : m.count;
  auto state_count = [&](const std::string& text, const std::string& what) {
    char* end = nullptr;
    const unsigned long long x = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || *end) throw InputError(at + ": corrupt checkpoint (" + what + ")");
    return static_cast<std::uint64_t>(x);
  };
  if (f.complete) {
    p.completed = m.count;
    if (a.count("count_invalid")) p.invalid = count("count_invalid");
    if (a.count("count_non_finite")) p.nonfinite = count("count_non_finite");
  } else {
    rows = cp.rows;
    const auto done = cp.state.find("completed");
    p.completed = done == cp.state.end() ? cp.rows : state_count(done->second, "completed");
    if (const auto it = cp.state.find("status_counts"); it != cp.state.end()) {
      const auto counts = split_names(it->second, ',');
      if (counts.size() != 5) throw InputError(at + ": corrupt checkpoint (status_counts)");
      p.nonfinite = state_count(counts[kSimNonFinite], "status_counts");
      p.invalid = state_count(counts[kSimInvalid], "status_counts");
    }
  }
  p.top = top_k_entries(m, read_stream_table(path, kSweepGroup, kTopK), at);
  f.rows.first = m.first;
  if (m.top_k_only || !with_rows) return f;

  const h5::File f5 = h5::open_file(path);
  const h5::Group g = h5::open_group(f5.id(), kSweepGroup, at);
  // Every column is checked (present, its shape, rows its storage can hold)
  // before anything is allocated: a damaged extent or row count can claim
  // gigabytes.
  auto column = [&](const std::string& name, std::uint64_t width) {
    const std::string where = at + ": dataset '" + name + "'";
    if (!h5::has_child(g.id(), name)) throw InputError(where + ": missing");
    h5::Dataset ds = h5::open_dataset(g.id(), name, where);
    const auto info = h5::dataset_info(ds, where);
    const bool shape = width ? info.dims.size() == 2 && info.dims[1] == width : info.dims.size() == 1;
    if (!shape || (f.complete ? info.dims[0] != rows : info.dims[0] < rows))
      throw InputError(where + ": does not hold the " + std::to_string(rows) + " points of the file");
    h5::check_stored_size(ds, rows * std::max<std::uint64_t>(width, 1), where);
    return ds;
  };
  if (rows > (std::uint64_t(1) << 48))  // petabytes of rows: a damaged count, not a file
    throw InputError(at + ": claims " + std::to_string(rows) + " points (damaged)");
  const std::size_t dims = m.param_names.size(), n_exp = m.experiments.size();
  const h5::Dataset status = column("status", 0);
  std::vector<h5::Dataset> params, metrics, by_experiment;
  for (const auto& n : m.param_names) params.push_back(column(n, 0));
  for (int k : m.metrics) metrics.push_back(column(sweep::kMetricInfo[k].name, 0));
  if (m.per_experiment)
    for (int k : m.metrics)
      by_experiment.push_back(column(std::string(sweep::kMetricInfo[k].name) + "_by_experiment", n_exp));

  SweepChunk& r = f.rows;
  r.count = rows;
  r.status.resize(rows);
  h5::read_rows(status, H5T_NATIVE_UINT8, 0, rows, r.status.data(), at + ": dataset 'status'");
  r.params.assign(rows * dims, NAN);
  r.metrics.assign(rows * sweep::kNumMetrics, NAN);
  std::vector<double> col(rows);
  for (std::size_t d = 0; d < dims; ++d) {
    h5::read_rows(params[d], H5T_NATIVE_DOUBLE, 0, rows, col.data(), at + ": dataset '" + m.param_names[d] + "'");
    for (std::size_t j = 0; j < rows; ++j) r.params[j * dims + d] = col[j];
  }
  for (std::size_t i = 0; i < m.metrics.size(); ++i) {
    const int k = m.metrics[i];
    h5::read_rows(metrics[i], H5T_NATIVE_DOUBLE, 0, rows, col.data(), at + ": metric " + sweep::kMetricInfo[k].name);
    for (std::size_t j = 0; j < rows; ++j) r.metrics[j * sweep::kNumMetrics + k] = col[j];
  }
  if (m.per_experiment) {
    r.exp_metrics.assign(rows * n_exp * sweep::kNumMetrics, NAN);
    std::vector<double> table(rows * n_exp);
    for (std::size_t i = 0; i < m.metrics.size(); ++i) {
      const int k = m.metrics[i];
      h5::read_rows(by_experiment[i], H5T_NATIVE_DOUBLE, 0, rows, table.data(),
                    at + ": metric " + sweep::kMetricInfo[k].name + " by experiment");
      for (std::size_t j = 0; j < rows; ++j)
        for (std::size_t e = 0; e < n_exp; ++e)
          r.exp_metrics[(j * n_exp + e) * sweep::kNumMetrics + k] = table[j * n_exp + e];
    }
  }
  if (f.complete && !a.count("count_invalid"))  // counts from the status column
    for (std::uint8_t s : r.status) p.invalid += s == kSimInvalid, p.nonfinite += s == kSimNonFinite;
  return f;
}

}  // namespace stribeck::data
