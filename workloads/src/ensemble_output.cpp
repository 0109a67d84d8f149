// Ensemble results out: host memory, HDF5 streamed with checkpoints, CSV;
// recognising shard files and merging them.
#include "ensemble_output.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/text_export.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/point_file.hpp"
#include "stribeck/data/results_stream.hpp"
#include "stribeck/workloads/content_hash.hpp"
#include "stribeck/engine/checkpoint.hpp"
#include "stribeck/engine/merge.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/sweep/rng.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::workloads {
namespace {

constexpr const char* kGroup = "ensemble";

// What makes two runs parts of one ensemble: the config text (the space, the
// system, the model), the precision after --precision, and the content of
// the measured input tables it reads. The device is left out: shards from a
// GPU node and a CPU node belong together (they agree to 1e-12, not bit for bit).
std::string ensemble_identity(const SimulateConfig& c) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the text, then mixed
  for (unsigned char ch : c.text) h = (h ^ ch) * 0x100000001b3ull;
  h = sweep::mix64(h ^ (c.fp32 ? 32u : 64u));
  for (const auto& tab : c.tables) h = hash_doubles(hash_doubles(h, tab.t), tab.y);
  return hex64(h);
}

// The datasets of the group (format_version 2), in the order they are
// written: one float64 column per coordinate, as a sweep stores its
// parameters (named after the quantity, with `units` and `long_name`), then
// one column per metric with units, descriptions and stored types from the
// metrics' field table (rotational systems: N*m, rad, rad/s; the status as
// every workload's status column). The units and long names follow from the
// model, the motion and the names alone, so a merge derives them from a
// shard's attributes, whatever its version.
std::vector<data::StreamColumn> ensemble_columns(const std::string& model, bool rotational,
                                                 const std::vector<std::string>& names) {
  SimulateConfig c;
  c.model = model;
  c.rotational = rotational;
  const auto units = ensemble_coordinate_units(c, names);
  std::vector<data::StreamColumn> cols;
  for (size_t d = 0; d < names.size(); ++d) {
    data::StreamColumn col{names[d], 0, units[d].empty() ? "1" : units[d], ""};
    col.long_name = ensemble_coordinate_long_name(model, names[d]);
    cols.push_back(col);
  }
  for (data::StreamColumn& col : engine::record_columns(engine::kStickSlipRecord, rotational))
    cols.push_back(std::move(col));
  // Every name of the group is unique: a coordinate named like a metric
  // would make one dataset hide the other.
  std::set<std::string> taken{data::kPointDimension};
  for (const auto& col : cols)
    if (!taken.insert(col.name).second)
      throw std::logic_error("ensemble file: '" + col.name + "' of model " + model + " names two datasets");
  return cols;
}

// The format_version of the ensemble group of `path` (files from before the
// attribute, whose coordinates were one 2-D `points` table, are 1).
int ensemble_format_version(const std::string& path) {
  const data::h5::File f = data::h5::open_file(path);
  const data::h5::Group g = data::h5::open_group(f.id(), kGroup, path);
  return data::h5::has_attribute(g.id(), "format_version")
             ? static_cast<int>(data::h5::read_int_attribute(g.id(), "format_version", path + ": group 'ensemble'"))
             : 1;
}

// The metrics of n points as columns (column k: n values of metric k).
std::vector<std::vector<double>> metric_columns(std::uint64_t n, const StickSlipMetrics<double>* m) {
  std::vector<std::vector<double>> cols;
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto row = stick_slip_metric_columns(m[i]);
    if (cols.empty()) cols.assign(row.size(), std::vector<double>(n));
    for (size_t k = 0; k < row.size(); ++k) cols[k][i] = row[k].second;
  }
  return cols;
}

class MemorySink : public EnsembleSink {
 public:
  MemorySink(EnsembleResult& r) : r_(r) {
    r_.values.reserve(r_.count * r_.names.size());
    r_.metrics.reserve(r_.count);
  }
  void append(std::uint64_t n, const double* values, const StickSlipMetrics<double>* metrics) override {
    r_.values.insert(r_.values.end(), values, values + n * r_.names.size());
    r_.metrics.insert(r_.metrics.end(), metrics, metrics + n);
  }
  void checkpoint(const EnsembleTotals&) override {}
  void finish(const EnsembleTotals&) override {}

 private:
  EnsembleResult& r_;
};

// One row per point: index (of the whole space), coordinates, metrics. The
// first line is the header (pandas.read_csv reads the file as it is); the
// ensemble's model, size, units and provenance go to the sidecar OUT.csv.json.
class CsvSink : public EnsembleSink {
 public:
  CsvSink(const std::string& path, const SimulateConfig& c, const EnsembleResult& r, const std::string& command_line)
      : out_(path), sidecar_(data::csv_sidecar_path(path)), dims_(r.names.size()), next_(r.first) {
    std::vector<data::CsvColumn> columns{{"index", ""}};
    const auto units = ensemble_coordinate_units(c, r.names);
    for (size_t d = 0; d < r.names.size(); ++d) columns.push_back({r.names[d], d < units.size() ? units[d] : ""});
    for (data::CsvColumn& col : engine::record_csv_columns(engine::kStickSlipRecord, c.rotational))
      columns.push_back(std::move(col));
    sidecar_.write(data::csv_sidecar_json("ensemble", columns,
                                          {{"source", c.source},
                                           {"model", c.model},
                                           {"form", c.stiction ? "stiction" : "smooth"},
                                           {"motion", c.rotational ? "rotational" : "translational"},
                                           {"precision", c.fp32 ? "fp32" : "fp64"},
                                           {"config", c.text}},
                                          {{"points", static_cast<double>(r.points)}}, command_line));
    sidecar_.close_stream();
    std::string text;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i) text += ',';
      data::append_csv_field(text, columns[i].name);
    }
    write(text + '\n');
  }
  void append(std::uint64_t n, const double* values, const StickSlipMetrics<double>* metrics) override {
    std::string text;
    for (std::uint64_t i = 0; i < n; ++i, ++next_) {
      text += std::to_string(next_);
      for (size_t d = 0; d < dims_; ++d) {
        text += ',';
        append_double(text, values[i * dims_ + d]);
      }
      for (const auto& [k, v] : stick_slip_metric_columns(metrics[i])) {
        text += ',';
        append_double(text, v);
      }
      text += '\n';
      if (text.size() > (1u << 20)) write(text), text.clear();
    }
    write(text);
  }
  void checkpoint(const EnsembleTotals&) override {}
  void finish(const EnsembleTotals&) override {
    out_.commit();
    sidecar_.commit();
  }

 private:
  void write(const std::string& text) { out_.write(text); }
  data::AtomicFile out_, sidecar_;
  size_t dims_;
  std::uint64_t next_;
};

// The checkpoint: the engine's totals and the stick-slip count.
data::StreamCheckpoint ensemble_checkpoint(const EnsembleTotals& t) {
  return engine::make_checkpoint(t.completed, t, {{"stick_slip", std::to_string(t.stick_slip)}});
}

void restore_totals(const data::StreamCheckpoint& cp, std::uint64_t count, EnsembleTotals& r,
                    const std::string& where) {
  r = EnsembleTotals{};
  engine::restore_totals(cp, count, r, where);
  if (r.completed > 0) r.stick_slip = engine::state_count(cp, "stick_slip", where);
}

class Hdf5Sink : public EnsembleSink {
 public:
  Hdf5Sink(const SimulateConfig& c, const EnsembleRunOptions& o, EnsembleResult& r) : dims_(r.names.size()) {
    const std::string names = data::join_names(r.names);
    std::map<std::string, std::string> attributes{{"format_version", std::to_string(data::kEnsembleFormatVersion)},
                                                  {"names", names},
                                                  {"model", c.model},
                                                  {"form", c.stiction ? "stiction" : "smooth"},
                                                  {"motion", c.rotational ? "rotational" : "translational"},
                                                  {"precision", c.fp32 ? "fp32" : "fp64"},
                                                  {"ensemble_identity", ensemble_identity(c)},
                                                  {"points", std::to_string(r.points)},
                                                  {"first", std::to_string(r.first)},
                                                  {"count", std::to_string(r.count)},
                                                  {"shard_index", std::to_string(r.shard_index)},
                                                  {"shard_count", std::to_string(r.shard_count)}};
    // Drawn from a fit: the report reads these to show the probability of
    // stick-slip and the distributions (files of other ensembles unchanged).
    if (!c.prior.file.empty()) {
      attributes["from_fit"] = c.prior.file;
      attributes["drawn"] = data::join_names(c.prior.names);
      attributes["from_fit_draw"] = fit_draw_name(c.prior.draw);
    }
    data::Provenance p;
    p.command_line = o.command_line;
    p.config = c.text;
    p.device = r.device;
    const auto columns = ensemble_columns(c.model, c.rotational, r.names);
    if (o.resume) {
      // A partial file of the 2-D `points` layout cannot take the rows of
      // this one (the stream's own check would call it another run's).
      const std::string partial = data::partial_path(o.output);
      if (std::ifstream(partial).good() && is_ensemble_file(partial))
        if (const int v = ensemble_format_version(partial); v != data::kEnsembleFormatVersion)
          throw data::InputError(partial + ": written by " +
                                 (v < data::kEnsembleFormatVersion ? "an older" : "a newer") +
                                 " stribeck (ensemble format_version " + std::to_string(v) +
                                 "); it cannot be continued: remove it and run without --resume");
      data::StreamCheckpoint cp;
      stream_ = data::ResultsStream::resume(o.output, kGroup, columns, attributes, p, cp, r.first);
      restore_totals(cp, r.count, r.totals, data::partial_path(o.output));
    } else {
      stream_ =
          data::ResultsStream::create(o.output, kGroup, columns, attributes, p, r.count, /*resumable=*/true, r.first);
    }
  }
  void append(std::uint64_t n, const double* values, const StickSlipMetrics<double>* metrics) override {
    // The coordinates arrive as rows (n x dims) and are stored as columns.
    std::vector<std::vector<double>> coords(dims_, std::vector<double>(n));
    for (std::uint64_t i = 0; i < n; ++i)
      for (size_t d = 0; d < dims_; ++d) coords[d][i] = values[i * dims_ + d];
    const auto cols = metric_columns(n, metrics);
    std::vector<const double*> data;
    for (const auto& col : coords) data.push_back(col.data());
    for (const auto& col : cols) data.push_back(col.data());
    if (n) stream_->append(n, data);
  }
  void checkpoint(const EnsembleTotals& t) override { stream_->checkpoint(ensemble_checkpoint(t)); }
  void finish(const EnsembleTotals& t) override {
    checkpoint(t);
    stream_->finish(engine::count_attributes(t));
  }

 private:
  size_t dims_;
  std::unique_ptr<data::ResultsStream> stream_;
};

// A shard's columns for the merge: those of format_version 2, whatever the
// shard's version (a merge writes the current layout).
std::vector<data::StreamColumn> shard_columns(const std::string&, const std::map<std::string, std::string>& a,
                                              const std::string&) {
  const auto motion = a.find("motion");
  return ensemble_columns(a.at("model"), motion != a.end() && motion->second == "rotational",
                          data::split_names(a.at("names")));
}

// Where a shard holds merged column `name`: its own dataset, or in shards of
// format_version 1 (no attribute), for a coordinate, its column of the 2-D
// `points` table.
engine::ColumnSource shard_source(const std::map<std::string, std::string>& a, const std::string& name) {
  if (a.count("format_version")) return {};
  const auto names = data::split_names(a.at("names"));
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return {};
  return {"points", static_cast<std::uint64_t>(it - names.begin())};
}

// The ensemble's shard files for the one merge (engine/merge.hpp); shards of
// format_version 1 merge into the current layout.
engine::ShardFormat shard_format() {
  engine::ShardFormat f{kGroup,
                        "ensemble_identity",
                        "an ensemble shard file (stribeck simulate --shard i/N)",
                        {"ensemble", "config, precision or measured inputs differ", "point"},
                        {"points", "first", "count", "names", "model", "form", "precision"},
                        {"ensemble_identity", "points", "names", "model", "form", "precision"},
                        shard_columns};
  f.written = {{"format_version", std::to_string(data::kEnsembleFormatVersion)}};
  f.source = shard_source;
  return f;
}
const engine::ShardFormat kShards = shard_format();

}  // namespace

bool is_csv_output(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
}

// The unit of each coordinate: a model parameter's, or a system quantity's.
std::vector<std::string> ensemble_coordinate_units(const SimulateConfig& c, const std::vector<std::string>& names) {
  static const std::map<std::string, std::pair<const char*, const char*>> kSystem = {
      // translational, rotational
      {"mass", {"kg", "kg*m^2"}},
      {"stiffness", {"N/m", "N*m/rad"}},
      {"damping", {"N*s/m", "N*m*s/rad"}},
      {"drive_velocity", {"m/s", "rad/s"}},
      {"drive_amplitude", {"m/s", "rad/s"}},
      {"drive_frequency", {"Hz", "Hz"}},
      {"external_force", {"N", "N*m"}},
      {"force_slope", {"N/s", "N*m/s"}},
      {"force_amplitude", {"N", "N*m"}},
      {"force_frequency", {"Hz", "Hz"}},
      {"normal_force", {"N", "N"}},
      {"pressure_a", {"Pa", "Pa"}},
      {"pressure_b", {"Pa", "Pa"}},
      {"area_a", {"m^2", "m^2"}},
      {"area_b", {"m^2", "m^2"}},
      {"breakaway", {"N", "N*m"}},
      {"initial_velocity", {"m/s", "rad/s"}},
      {"initial_elongation", {"m", "rad"}}};
  const ModelInfo* m = find_model(c.model);
  std::vector<std::string> u;
  for (const auto& n : names) {
    const int pi = m ? m->param_index(n) : -1;
    if (pi >= 0) u.push_back(m->params[pi].unit);
    else if (const auto it = kSystem.find(n); it != kSystem.end())
      u.push_back(c.rotational ? it->second.second : it->second.first);
    else u.push_back("");
  }
  return u;
}

std::string ensemble_coordinate_long_name(const std::string& model, const std::string& name) {
  const ModelInfo* m = find_model(model);
  return m && m->param_index(name) >= 0 ? "parameter " + name + " of " + model : "system quantity " + name;
}

std::unique_ptr<EnsembleSink> open_ensemble_sink(const SimulateConfig& c, const EnsembleRunOptions& o,
                                                 EnsembleResult& r) {
  if (o.output.empty()) return std::make_unique<MemorySink>(r);
  if (is_csv_output(o.output)) return std::make_unique<CsvSink>(o.output, c, r, o.command_line);
  return std::make_unique<Hdf5Sink>(c, o, r);
}

bool is_ensemble_file(const std::string& path) { return engine::is_shard_file(path, kShards); }

void merge_ensemble_files(const std::vector<std::string>& inputs, const std::string& output,
                          const std::string& command_line) {
  if (is_csv_output(output))
    throw data::InputError(output + ": merged ensembles are written as HDF5 (name the output .h5)");
  engine::merge_shard_files(kShards, inputs, output, command_line);
}

}  // namespace stribeck::workloads
