// Sweep files of format_version 1 and 2 (the root layout: /parameters,
// /metrics, /status, /top_k, /experiments, progress in root attributes), read
// back so that `map`, `report` and read_sweep_file keep reading them; merge
// and --resume refuse them (docs/data-format.md, "Older files").
#include "stribeck/data/sweep_file.hpp"

#include <cmath>
#include <fstream>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/kernels/integrators/status.hpp"

namespace stribeck::data {
namespace {

// Sweep metadata lives in root attributes; a missing one means the file was
// not written by a stribeck of that layout.
void require_attribute(hid_t loc, const char* name, const std::string& path) {
  if (!h5::has_attribute(loc, name))
    throw InputError(path + ": not a stribeck sweep file (no attribute '" + std::string(name) + "')");
}
std::string read_string(hid_t loc, const char* name, const std::string& path) {
  require_attribute(loc, name, path);
  return h5::read_string_attribute(loc, name, path);
}
std::uint64_t read_u64(hid_t loc, const char* name, const std::string& path) {
  require_attribute(loc, name, path);
  return h5::read_uint_attribute(loc, name, path);
}
std::int64_t read_i64(hid_t loc, const char* name, const std::string& path) {
  require_attribute(loc, name, path);
  return h5::read_int_attribute(loc, name, path);
}

// The status column holds the kernels' SimStatus codes (0 ok, 1 non-finite,
// 4 invalid) since format_version 2; version 1 wrote 1 for invalid and 2
// for non-finite.
std::uint8_t memory_status(std::uint8_t s, std::int64_t version) {
  if (version >= 2) return s;
  return s == 0 ? kSimOk : s == 2 ? kSimNonFinite : kSimInvalid;
}

}  // namespace

namespace detail {

int legacy_sweep_version(const std::string& path) {
  try {
    if (!std::ifstream(path)) return 0;
    const h5::File f5 = h5::open_file(path);
    if (!h5::has_attribute(f5.id(), "format") || h5::read_string_attribute(f5.id(), "format", path) != "stribeck-sweep")
      return 0;
    const std::int64_t v =
        h5::has_attribute(f5.id(), "format_version") ? h5::read_int_attribute(f5.id(), "format_version", path) : 1;
    return v == 1 || v == 2 ? static_cast<int>(v) : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

SweepFile read_legacy_sweep_file(const std::string& path) {
  const h5::File f5 = h5::open_file(path);
  const hid_t file = f5.id();
  if (!h5::has_attribute(file, "format") || h5::read_string_attribute(file, "format", path) != "stribeck-sweep")
    throw InputError(path + ": not a stribeck sweep file");
  SweepFile f;
  SweepMeta& m = f.meta;
  m.provenance.toolkit_version = read_string(file, "toolkit_version", path);
  m.model = read_string(file, "model", path);
  m.design = read_string(file, "design", path);
  m.precision = read_string(file, "precision", path);
  m.provenance.device = read_string(file, "device", path);
  m.provenance.config = read_string(file, "config", path);
  m.identity = read_string(file, "sweep_identity", path);
  m.provenance.command_line = read_string(file, "command_line", path);
  m.provenance.date = read_string(file, "date", path);
  m.points = read_u64(file, "points", path);
  m.first = read_u64(file, "first", path);
  m.count = read_u64(file, "count", path);
  m.shard_index = static_cast<int>(read_i64(file, "shard_index", path));
  m.shard_count = static_cast<int>(read_i64(file, "shard_count", path));
  const std::int64_t version = h5::has_attribute(file, "format_version") ? read_i64(file, "format_version", path) : 1;
  if (version > 2)
    throw InputError(path + ": a root-layout sweep file claiming format_version " + std::to_string(version) +
                     " (damaged, or not written by stribeck)");
  f.format_version = static_cast<int>(version);
  auto list = [&](const char* name) {
    require_attribute(file, name, path);
    return h5::read_string_list_attribute(file, name, '\n', path);
  };
  m.param_names = list("parameter_names");
  m.param_units = list("parameter_units");
  for (const auto& name : list("metric_names"))
    for (int k = 0; k < sweep::kNumMetrics; ++k)
      if (name == sweep::kMetricInfo[k].name) m.metrics.push_back(k);
  m.experiments = list("experiments");
  const std::string obj = read_string(file, "objective", path);
  for (int k = 0; k < sweep::kNumMetrics; ++k)
    if (obj == sweep::kMetricInfo[k].name) m.objective = k;
  m.maximize = read_i64(file, "maximize", path) != 0;
  m.top_k = static_cast<int>(read_i64(file, "top_k", path));
  m.per_experiment = read_i64(file, "per_experiment", path) != 0;
  m.top_k_only = read_i64(file, "top_k_only", path) != 0;
  f.complete = h5::has_attribute(file, "complete") && read_i64(file, "complete", path) == 1;

  SweepProgress& p = f.progress;
  p.completed = read_u64(file, "completed", path);
  p.invalid = read_u64(file, "invalid", path);
  p.nonfinite = read_u64(file, "nonfinite", path);
  const auto idx = h5::read_array<std::uint64_t>(file, "top_k/index", H5T_NATIVE_UINT64, path);
  const auto obj_v = h5::read_array<double>(file, "top_k/objective", H5T_NATIVE_DOUBLE, path);
  p.top.resize(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    p.top[i].index = idx[i];
    p.top[i].objective = obj_v[i];
    p.top[i].params.resize(m.param_names.size());
    p.top[i].metrics.resize(sweep::kNumMetrics);
  }
  for (size_t d = 0; d < m.param_names.size(); ++d) {
    const auto v = h5::read_array<double>(file, "top_k/parameters/" + m.param_names[d], H5T_NATIVE_DOUBLE, path);
    for (size_t i = 0; i < v.size() && i < p.top.size(); ++i) p.top[i].params[d] = v[i];
  }
  for (int k = 0; k < sweep::kNumMetrics; ++k) {
    const auto v = h5::read_array<double>(file, std::string("top_k/metrics/") + sweep::kMetricInfo[k].name,
                                          H5T_NATIVE_DOUBLE, path);
    for (size_t i = 0; i < v.size() && i < p.top.size(); ++i) p.top[i].metrics[k] = v[i];
  }
  if (m.top_k_only) return f;

  SweepChunk& r = f.rows;
  const size_t dims = m.param_names.size(), n_exp = m.experiments.size();
  r.first = m.first;
  r.status = h5::read_array<std::uint8_t>(file, "status", H5T_NATIVE_UINT8, path);
  for (auto& st : r.status) st = memory_status(st, version);
  r.count = r.status.size();
  r.params.assign(r.count * dims, NAN);
  r.metrics.assign(r.count * sweep::kNumMetrics, NAN);
  auto need = [&](const std::vector<double>& v, const std::string& what) {
    if (v.size() != r.count)
      throw InputError(path + ": " + what + " has " + std::to_string(v.size()) + " rows, status has " +
                       std::to_string(r.count));
  };
  for (size_t d = 0; d < dims; ++d) {
    const auto v = h5::read_array<double>(file, "parameters/" + m.param_names[d], H5T_NATIVE_DOUBLE, path);
    need(v, "parameters/" + m.param_names[d]);
    for (size_t j = 0; j < r.count; ++j) r.params[j * dims + d] = v[j];
  }
  for (int k : m.metrics) {
    const std::string name = std::string("metrics/") + sweep::kMetricInfo[k].name;
    const auto v = h5::read_array<double>(file, name, H5T_NATIVE_DOUBLE, path);
    need(v, name);
    for (size_t j = 0; j < r.count; ++j) r.metrics[j * sweep::kNumMetrics + k] = v[j];
  }
  if (m.per_experiment) {
    r.exp_metrics.assign(r.count * n_exp * sweep::kNumMetrics, NAN);
    for (size_t e = 0; e < n_exp; ++e)
      for (int k : m.metrics) {
        const std::string name = "experiments/" + m.experiments[e] + "/metrics/" + sweep::kMetricInfo[k].name;
        const auto v = h5::read_array<double>(file, name, H5T_NATIVE_DOUBLE, path);
        need(v, name);
        for (size_t j = 0; j < r.count; ++j) r.exp_metrics[(j * n_exp + e) * sweep::kNumMetrics + k] = v[j];
      }
  }
  return f;
}

}  // namespace detail
}  // namespace stribeck::data
