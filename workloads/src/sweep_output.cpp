// The sweep file from the engine's side (sweep_output.hpp): metadata and
// identity of a planned sweep, its stream, and merging shard files.
#include "stribeck/workloads/sweep_output.hpp"

#include <algorithm>
#include <cmath>

#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/workloads/content_hash.hpp"
#include "stribeck/engine/checkpoint.hpp"
#include "stribeck/engine/merge.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/workloads/version.hpp"

namespace stribeck::workloads {
namespace {

const char* design_name(sweep::Design d) {
  switch (d) {
    case sweep::Design::kGrid: return "grid";
    case sweep::Design::kRandom: return "random";
    case sweep::Design::kLatinHypercube: return "lhs";
    case sweep::Design::kSobol: return "sobol";
  }
  return "?";
}

// The metrics' columns, from their field table (engine/records.hpp).
std::vector<data::StreamColumn> metric_columns() { return engine::record_columns(engine::kSweepMetricRecord, false); }

// The group's columns: the engine's status column and the metrics' columns.
std::vector<data::StreamColumn> columns(const data::SweepMeta& meta) {
  return data::sweep_columns(meta, engine::status_column(), metric_columns());
}

}  // namespace

// Canonical text of everything that determines a sweep's results.
std::string sweep_identity(const SweepPlan& plan, Precision precision) {
  std::string id = "model=" + plan.model->id + ";design=" + design_name(plan.space.design) +
                   ";points=" + std::to_string(plan.space.points) + ";seed=" + std::to_string(plan.space.seed) +
                   ";scramble=" + std::to_string(plan.space.scramble) +
                   ";precision=" + (precision == Precision::kFp32 ? "fp32" : "fp64");
  for (int d = 0; d < plan.space.dims; ++d) {
    const sweep::Axis& a = plan.space.axis[d];
    id += ";" + std::string(plan.model->params[d].name) + "=" + std::to_string(static_cast<int>(a.kind)) + ":" +
          std::to_string(a.count) + ":" + format_number(a.a) + ":" + format_number(a.b) + ":" + format_number(a.lo) +
          ":" + format_number(a.hi);
    if (a.kind == sweep::AxisKind::kList)
      for (std::uint64_t k = 0; k < a.count; ++k) id += "," + format_number(plan.list_values[a.offset + k]);
  }
  std::uint64_t h = 0;
  for (const auto& t : plan.traces) {
    id += ";trace=" + t.name + ":" + std::to_string(t.v.size());
    sweep::TraceView<double> every_channel;  // point_view walks the channels once, hashing each
    t.point_view(every_channel, [&](const std::vector<double>& ch) {
      h = hash_doubles(h, ch);
      return ch.empty() ? nullptr : ch.data();
    });
  }
  id += ";traces_hash=" + hex64(h);
  id += ";metrics=";
  for (int m : plan.metrics) id += std::string(sweep::kMetricInfo[m].name) + ",";
  id += ";objective=" + std::string(sweep::kMetricInfo[plan.objective].name) +
        ";maximize=" + std::to_string(plan.maximize) + ";top_k=" + std::to_string(plan.top_k) +
        ";per_experiment=" + std::to_string(plan.per_experiment);
  return id;
}

data::SweepMeta make_sweep_meta(const SweepPlan& plan, const SweepConfig& config, const std::string& device,
                                Precision precision) {
  data::SweepMeta m;
  m.identity = sweep_identity(plan, precision);
  m.model = plan.model->id;
  m.design = design_name(plan.space.design);
  m.precision = precision == Precision::kFp32 ? "fp32" : "fp64";
  m.provenance.device = device;
  m.provenance.config = config.text;
  m.provenance.date = data::utc_now();
  m.provenance.toolkit_version = version();
  m.points = plan.space.points;
  m.first = plan.first;
  m.count = plan.count;
  m.shard_index = plan.shard_index;
  m.shard_count = plan.shard_count;
  for (const auto& p : plan.model->params) {
    m.param_names.push_back(p.name);
    m.param_units.push_back(p.unit);
  }
  m.metrics = plan.metrics;
  for (const auto& t : plan.traces) m.experiments.push_back(t.name);
  m.objective = plan.objective;
  m.maximize = plan.maximize;
  m.top_k = plan.top_k;
  m.per_experiment = plan.per_experiment;
  m.top_k_only = config.keep_top_k_only;
  return m;
}

// --- The stream -------------------------------------------------------------

SweepOutput::SweepOutput(const data::SweepMeta& meta, std::unique_ptr<data::ResultsStream> stream)
    : meta_(meta), stream_(std::move(stream)) {}

std::unique_ptr<SweepOutput> SweepOutput::create(const std::string& path, const data::SweepMeta& meta) {
  auto stream = data::ResultsStream::create(path, data::kSweepGroup, columns(meta), data::sweep_attributes(meta),
                                            meta.provenance, meta.count,
                                            /*resumable=*/true, meta.first);
  return std::unique_ptr<SweepOutput>(new SweepOutput(meta, std::move(stream)));
}

std::unique_ptr<SweepOutput> SweepOutput::resume(const std::string& path, const data::SweepMeta& meta,
                                                 engine::Totals& totals, std::vector<data::TopEntry>& top) {
  // The sweep's own words before the stream's checks: a partial file of an
  // older layout, or of another sweep (its identity is a long text).
  const std::string partial = data::partial_path(path);
  if (const int version = data::detail::legacy_sweep_version(partial))
    throw data::InputError(partial + ": written by an older stribeck (sweep format_version " + std::to_string(version) +
                           "); it cannot be continued: remove it and run without --resume");
  if (data::is_sweep_file(partial)) {
    const data::Results head = data::read_results(partial, data::kSweepGroup, /*with_datasets=*/false);
    for (const auto& [k, v] : data::sweep_attributes(meta)) {
      const auto it = head.attributes.find(k);
      if (it == head.attributes.end() || it->second != v)
        throw data::InputError(partial +
                               ": belongs to a different sweep (space, traces, shard, precision or output options "
                               "differ); remove it or run without --resume");
    }
  }
  data::StreamCheckpoint cp;
  auto stream = data::ResultsStream::resume(path, data::kSweepGroup, columns(meta), data::sweep_attributes(meta),
                                            meta.provenance, cp, meta.first);
  engine::restore_totals(cp, meta.count, totals, partial);
  top = data::top_k_entries(meta, stream->read_table("top_k"), partial);
  return std::unique_ptr<SweepOutput>(new SweepOutput(meta, std::move(stream)));
}

void SweepOutput::append(const data::SweepChunk& chunk) {
  if (meta_.top_k_only || chunk.count == 0) return;
  const auto cols = data::sweep_chunk_columns(meta_, chunk);
  std::vector<const double*> data;
  for (const auto& c : cols) data.push_back(c.data());
  stream_->append(chunk.count, data);
}

void SweepOutput::checkpoint(const engine::Totals& totals, const std::vector<data::TopEntry>& top) {
  stream_->checkpoint(engine::make_checkpoint(meta_.top_k_only ? 0 : totals.completed, totals, {},
                                              {data::top_k_table(meta_, top, metric_columns())}));
}

void SweepOutput::add_trajectory(std::uint64_t index, const std::vector<double>& params,
                                 const std::vector<std::string>& experiments,
                                 const std::vector<std::vector<double>>& forces) {
  for (std::size_t e = 0; e < experiments.size(); ++e)
    stream_->add_table(data::trajectory_table(meta_, index, params, experiments[e], forces[e]));
}

void SweepOutput::finish(const engine::Totals& totals, const std::vector<data::TopEntry>& top) {
  checkpoint(totals, top);
  stream_->finish(engine::count_attributes(totals));
}

// --- Merge ------------------------------------------------------------------

namespace {

// The merged file's tables: the top-K of the shards' top-K tables (each
// entry checked to lie in its shard), and every shard's trajectories.
std::vector<data::StreamTable> merged_tables(const std::vector<std::string>& shards) {
  std::vector<data::StreamTable> tables;
  data::SweepMeta m0;
  std::unique_ptr<TopK> top;
  for (const std::string& path : shards) {
    const std::string at = path + ": group 'sweep'";
    const data::Results head = data::read_results(path, data::kSweepGroup, /*with_datasets=*/false);
    const data::SweepMeta m = data::sweep_meta(head.attributes, head.provenance, at);
    if (!top) m0 = m, top = std::make_unique<TopK>(m.top_k, m.objective, m.maximize);
    for (const data::TopEntry& e :
         data::top_k_entries(m, data::read_stream_table(path, data::kSweepGroup, "top_k"), at)) {
      if (e.index < m.first || e.index - m.first >= m.count)
        throw data::InputError(at + ": table 'top_k' holds point " + std::to_string(e.index) +
                               ", outside the shard's points " + std::to_string(m.first) + ".." +
                               std::to_string(m.first + m.count));
      top->add(e);
    }
    for (const std::string& index : data::stream_subgroups(path, data::kSweepGroup, "trajectories")) {
      if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos || index.size() > 19 ||
          std::stoull(index) >= m.points)
        throw data::InputError(at + ": trajectories/" + index + ": not a trajectory (a point index)");
      for (const std::string& exp : data::stream_subgroups(path, data::kSweepGroup, "trajectories/" + index)) {
        const data::StreamTable t =
            data::read_stream_table(path, data::kSweepGroup, "trajectories/" + index + "/" + exp, m.param_names);
        const std::vector<double>* force = t.column("force");
        if (!force) throw data::InputError(at + ": trajectories/" + index + "/" + exp + ": no dataset 'force'");
        std::vector<double> params;
        for (const auto& n : m.param_names) params.push_back(t.attributes.at(n));
        tables.push_back(data::trajectory_table(m, std::stoull(index), params, exp, *force));
      }
    }
  }
  if (top) tables.insert(tables.begin(), data::top_k_table(m0, top->entries(), metric_columns()));
  return tables;
}

// The sweep's shard files for the one merge (engine/merge.hpp). Every
// attribute that shapes the file is part of the identity but top_k_only.
const engine::ShardFormat kShards{
    data::kSweepGroup,
    "sweep_identity",
    "a sweep shard file (stribeck sweep --shard i/N)",
    {"sweep", "space, traces, precision or metrics differ", "point"},
    {"points", "first", "count", "sweep_identity", "model", "parameters", "metrics", "experiments", "top_k_only"},
    {"sweep_identity", "points", "model", "parameters", "metrics", "experiments", "per_experiment", "top_k_only"},
    [](const std::string&, const std::map<std::string, std::string>& a, const std::string& at) {
      return columns(data::sweep_meta(a, data::Provenance{}, at));
    },
    merged_tables};

}  // namespace

void merge_sweep_files(const std::vector<std::string>& inputs, const std::string& output,
                       const std::string& command_line) {
  for (const auto& in : inputs)
    if (const int version = data::detail::legacy_sweep_version(in))
      throw data::InputError(in + ": a sweep file of format_version " + std::to_string(version) +
                             " (an older stribeck); merge its shards with that version, or run them again");
  engine::merge_shard_files(kShards, inputs, output, command_line);
}

}  // namespace stribeck::workloads
