// The sweep file from the engine's side: metadata and identity of a planned
// sweep, and merging shard files into one.
#include "stribeck/host/sweep_output.hpp"

#include <algorithm>
#include <cmath>

#include "stribeck/data/error.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/host/content_hash.hpp"
#include "stribeck/host/engine/merge.hpp"
#include "stribeck/host/version.hpp"

namespace stribeck {
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

SweepMeta make_sweep_meta(const SweepPlan& plan, const SweepConfig& config, const std::string& device,
                          Precision precision) {
  SweepMeta m;
  m.identity = sweep_identity(plan, precision);
  m.model = plan.model->id;
  m.design = design_name(plan.space.design);
  m.precision = precision == Precision::kFp32 ? "fp32" : "fp64";
  m.device = device;
  m.config = config.text;
  m.created = utc_now();
  m.toolkit_version = version();
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

void merge_sweep_files(const std::vector<std::string>& inputs, const std::string& output) {
  if (inputs.empty()) throw InputError("merge: no input files");
  std::vector<SweepFile> files;
  for (const auto& in : inputs) {
    files.push_back(read_sweep_file(in));
    const SweepFile& f = files.back();
    if (!f.complete) throw InputError(in + ": the shard is not complete (resume it first)");
    if (!f.meta.top_k_only && f.rows.count != f.meta.count)
      throw InputError(in + ": holds " + std::to_string(f.rows.count) + " points, but its attribute count says " +
                       std::to_string(f.meta.count));
    for (const auto& e : f.progress.top)
      if (e.index < f.meta.first || e.index - f.meta.first >= f.meta.count)
        throw InputError(in + ": top_k/index holds point " + std::to_string(e.index) + ", outside the shard's points " +
                         std::to_string(f.meta.first) + ".." + std::to_string(f.meta.first + f.meta.count));
  }
  std::vector<engine::ShardSpan> spans;
  for (size_t i = 0; i < files.size(); ++i)
    spans.push_back({inputs[i], files[i].meta.points, files[i].meta.first, files[i].meta.count});
  const std::vector<size_t> order = engine::order_shards(
      spans, {"sweep", "space, traces, precision or metrics differ", "point"}, [&](size_t i, size_t i0) {
        return files[i].meta.identity == files[i0].meta.identity &&
               files[i].meta.top_k_only == files[i0].meta.top_k_only;
      });
  const SweepMeta& m0 = files[order[0]].meta;
  SweepMeta meta = m0;
  meta.first = 0;
  meta.count = m0.points;
  meta.shard_index = 0;
  meta.shard_count = 1;
  SweepProgress progress;
  TopK top(meta.top_k, meta.objective, meta.maximize);
  double seconds = 0;
  auto writer = SweepWriter::create(output, meta, /*resumable=*/false);
  for (size_t i : order) {
    const SweepFile& f = files[i];
    writer->append(f.rows, static_cast<int>(meta.experiments.size()));
    progress.invalid += f.progress.invalid;
    progress.nonfinite += f.progress.nonfinite;
    seconds += f.seconds;
    for (const auto& e : f.progress.top) top.add(e);
    writer->copy_trajectories_from(inputs[i]);
  }
  progress.completed = meta.count;
  progress.top = top.entries();
  writer->finish(progress, seconds);
}

}  // namespace stribeck
