// Turning a sweep config into a plan: model lookup, axes, traces, metrics.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "stribeck/data/log.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/sweep.hpp"

#include "stribeck/engine/model_rules.hpp"
#include "stribeck/engine/runner.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/stepping.hpp"
#include "stribeck/kernels/sweep/rng.hpp"

namespace stribeck::workloads {
namespace {

data::Experiment make_profile(const TraceSource& src, const ModelInfo& model) {
  const ProfileSpec& p = src.profile;
  data::Experiment e;
  e.name = src.name;
  e.source = src.where;
  const std::size_t n = static_cast<std::size_t>(p.samples);
  auto& t = e.channels["time"];
  auto& v = e.channels["velocity"];
  auto& x = e.channels["position"];
  const double w = 2 * M_PI * p.frequency;
  for (std::size_t k = 0; k < n; ++k) {
    const double tk = p.duration * static_cast<double>(k) / static_cast<double>(n - 1);
    t.push_back(tk);
    v.push_back(p.amplitude * std::sin(w * tk));
    x.push_back(p.amplitude / w * (1 - std::cos(w * tk)));  // exact integral of v
  }
  e.channels["pressure_a"].assign(n, p.p_a);
  e.channels["pressure_b"].assign(n, p.p_b);
  e.channels["normal_force"].assign(n, p.f_n);
  if (!p.reference.empty()) {
    std::vector<double> ref;
    try {
      ref = resolve_params(model, p.reference);
    } catch (const data::InputError& err) {
      throw data::InputError(src.where + ": reference: " + err.what());
    }
    const SweepTrace tr = make_sweep_trace(model, e);
    std::vector<double> f = sweep_force_trace(model, ref.data(), tr);
    if (p.noise > 0)
      for (std::size_t k = 0; k < n; ++k) {  // Box-Muller on counter-based uniforms
        const double u1 = 1.0 - sweep::to_unit(sweep::hash3(p.seed, k, 1));
        const double u2 = sweep::to_unit(sweep::hash3(p.seed, k, 2));
        f[k] += p.noise * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
      }
    e.channels["force"] = std::move(f);
  }
  return e;
}

int metric_id(const std::string& name, const std::string& where) {
  for (int m = 0; m < sweep::kNumMetrics; ++m)
    if (name == sweep::kMetricInfo[m].name) return m;
  std::string known;
  for (const auto& mi : sweep::kMetricInfo) known += (known.empty() ? "" : ", ") + std::string(mi.name);
  throw data::InputError(where + ": unknown metric '" + name + "' (known: " + known + ")");
}

}  // namespace

SweepPlan& SweepPlan::operator=(const SweepPlan& o) {
  if (this == &o) return *this;
  model = o.model;
  space = o.space;
  list_values = o.list_values;
  space.list_values = list_values.data();
  rules = o.rules;
  traces = o.traces;
  metrics = o.metrics;
  objective = o.objective;
  maximize = o.maximize;
  top_k = o.top_k;
  per_experiment = o.per_experiment;
  first = o.first;
  count = o.count;
  shard_index = o.shard_index;
  shard_count = o.shard_count;
  return *this;
}

bool SweepPlan::has_force() const {
  for (const auto& t : traces)
    if (t.counts.has_force) return true;
  return false;
}

std::vector<double> sweep_force_trace(const ModelInfo& model, const double* params, const SweepTrace& tr) {
  std::vector<double> f(tr.v.size());
  visit_model(model.id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    double p[M::kNumParams];
    for (int i = 0; i < M::kNumParams; ++i) p[i] = params[i];
    const auto c = M::prepare(p);
    typename M::template State<double> st{};
    for (std::size_t k = 0; k < f.size(); ++k) {
      Sample<double> s{tr.v[k], tr.p_a.empty() ? 0.0 : tr.p_a[k], tr.p_b.empty() ? 0.0 : tr.p_b[k],
                       tr.f_n.empty() ? 0.0 : tr.f_n[k]};
      f[k] = model_step<M>(c, s, st, tr.dt[k]);
    }
  });
  return f;
}

SweepTrace make_sweep_trace(const ModelInfo& model, const data::Experiment& e) {
  SweepTrace tr;
  tr.name = e.name;
  const std::string at = e.source + ": experiment '" + e.name + "'";
  const auto& t = e.channel("time");
  tr.v = e.channel("velocity");
  const std::size_t n = tr.v.size();
  if (n < 2) throw data::InputError(at + " has fewer than 2 samples");
  tr.dt.assign(n, 0.0);
  for (std::size_t k = 1; k < n; ++k) {
    tr.dt[k] = t[k] - t[k - 1];
    if (!(tr.dt[k] > 0))
      throw data::InputError(at + ": time does not increase at sample " + std::to_string(k) +
                             " (t = " + format_number(t[k]) + " after " + format_number(t[k - 1]) + ")");
  }
  for (Channel c : {kChannelPressureA, kChannelPressureB, kChannelNormalForce}) {
    if (!model.needs(c)) continue;
    if (!e.has(channel_name(c)))
      throw data::InputError(at + " has no channel '" + channel_name(c) + "', which model " + model.id + " needs");
    const auto& src = e.channel(channel_name(c));
    (c == kChannelPressureA ? tr.p_a : c == kChannelPressureB ? tr.p_b : tr.f_n) = src;
  }
  std::vector<double> dx(n, 0.0);
  if (e.has("position")) {
    const auto& x = e.channel("position");
    for (std::size_t k = 1; k < n; ++k) dx[k] = x[k] - x[k - 1];
  } else {
    for (std::size_t k = 1; k < n; ++k) dx[k] = 0.5 * (tr.v[k - 1] + tr.v[k]) * tr.dt[k];
  }
  // The metric weights (kernels/sweep/trace.hpp): the trapezoid rule
  // regrouped by sample, dt and dx taken as 0 before the first sample and
  // after the last.
  tr.w_pos.resize(n);
  tr.w_neg.resize(n);
  tr.w_energy.resize(n);
  tr.w_loop.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const double dt_next = k + 1 < n ? tr.dt[k + 1] : 0.0, dx_next = k + 1 < n ? dx[k + 1] : 0.0;
    tr.w_pos[k] = tr.v[k] > 0 ? 1.0 : 0.0;
    tr.w_neg[k] = tr.v[k] < 0 ? 1.0 : 0.0;
    tr.w_energy[k] = tr.v[k] * (0.5 * (tr.dt[k] + dt_next));
    tr.w_loop[k] = 0.5 * (dx[k] + dx_next);
  }
  tr.counts.samples = n;
  for (double v : tr.v) {
    tr.counts.n_pos += v > 0;
    tr.counts.n_neg += v < 0;
  }
  tr.counts.has_force = e.has("force");
  if (tr.counts.has_force) tr.f_meas = e.channel("force");
  else tr.f_meas.assign(n, 0.0);
  return tr;
}

void fill_axis(const ParamSpec& spec, bool grid, const std::string& at, std::vector<double>& list_values,
               sweep::Axis& ax) {
  ax.kind = spec.kind;
  ax.a = spec.a;
  ax.b = spec.b;
  ax.lo = spec.lo;
  ax.hi = spec.hi;
  ax.count = 1;
  using K = sweep::AxisKind;
  if (!std::isfinite(ax.a) || ((ax.kind != K::kFixed && ax.kind != K::kList) && !std::isfinite(ax.b)))
    throw data::InputError(at + ": values must be finite");
  for (double v : spec.values)
    if (!std::isfinite(v)) throw data::InputError(at + ": values must be finite");
  // Subnormal numbers divide to infinity (ensemble quantities too; sweeps
  // name the parameter's range before this).
  {
    std::vector<double> given = spec.values;
    if (ax.kind != K::kLog && ax.kind != K::kLogUniform) given.push_back(ax.a);
    if (ax.kind == K::kLinear || ax.kind == K::kUniform || ax.kind == K::kNormal) given.push_back(ax.b);
    for (double v : given)
      if (v != 0 && std::abs(v) < DBL_MIN)
        throw data::InputError(at + ": " + format_number(v) +
                               " is subnormal (below 2.2e-308): divisions by it overflow");
  }
  // Points are computed from the span (linear) or the ratio (log) of the
  // ends, which must be finite themselves: [-1.7e308, 1.7e308] would give inf.
  if ((ax.kind == K::kLinear || ax.kind == K::kUniform) && !std::isfinite(ax.b - ax.a))
    throw data::InputError(at + ": the range " + format_number(ax.a) + " .. " + format_number(ax.b) +
                           " is too wide for double precision (its span overflows)");
  if ((ax.kind == K::kLog || ax.kind == K::kLogUniform) && ax.a > 0 && ax.b > 0 &&
      (ax.a < DBL_MIN || ax.b < DBL_MIN || !std::isfinite(ax.b / ax.a) || !std::isfinite(ax.a / ax.b)))
    throw data::InputError(at + ": the log range " + format_number(ax.a) + " .. " + format_number(ax.b) +
                           " needs normal (not subnormal) ends whose ratio is finite");
  switch (ax.kind) {
    case K::kFixed: break;
    case K::kList:
      ax.offset = list_values.size();
      ax.count = spec.values.size();
      list_values.insert(list_values.end(), spec.values.begin(), spec.values.end());
      break;
    case K::kLinear:
    case K::kLog:
      if (ax.kind == K::kLog && !(ax.a > 0 && ax.b > 0))
        throw data::InputError(at + ": a log range needs both ends > 0");
      if (grid) {
        if (spec.count == 0) throw data::InputError(at + ": a grid range needs count = N");
        ax.count = spec.count;
      } else if (spec.count != 0) {
        throw data::InputError(at + ": count applies to grid designs; a " +
                               std::string(ax.kind == K::kLog ? "log" : "linear") +
                               " range in a random, lhs or sobol design is sampled continuously");
      }
      break;
    case K::kUniform:
    case K::kLogUniform:
    case K::kNormal:
      if (grid)
        throw data::InputError(
            at + ": distributions need design random, lhs or sobol (the grid takes values, linear or log)");
      if (ax.kind == K::kLogUniform && !(ax.a > 0 && ax.b > 0))
        throw data::InputError(at + ": loguniform needs both ends > 0");
      if (ax.kind != K::kNormal && !(ax.a <= ax.b)) throw data::InputError(at + ": the range needs lo <= hi");
      if (ax.kind == K::kNormal && !(ax.b > 0)) throw data::InputError(at + ": normal needs sd > 0");
      if (ax.kind == K::kNormal && !(ax.lo < ax.hi && ax.lo <= ax.a + 37 * ax.b && ax.hi >= ax.a - 37 * ax.b))
        throw data::InputError(at + ": truncate needs lo < hi around the mean");
      break;
  }
}

std::uint64_t design_points(sweep::Design design, long double grid_points, std::uint64_t points,
                            const std::string& where, const std::string& points_key) {
  if (design == sweep::Design::kGrid) {
    if (points != 0)
      throw data::InputError(where + ": " + points_key +
                             " applies to random, lhs and sobol designs; a grid has the product of its counts");
    if (grid_points > 1.8e19L) {
      char n[32];
      std::snprintf(n, sizeof n, "%.3Lg", grid_points);
      throw data::InputError(where + ": the grid has " + n +
                             " points (the product of its counts); at most 2^64 - 1 (1.8e19), the point index's limit");
    }
    return static_cast<std::uint64_t>(grid_points);
  }
  if (points == 0) throw data::InputError(where + ": " + points_key + " is needed for random, lhs and sobol designs");
  if (design == sweep::Design::kSobol && points > (std::uint64_t(1) << 32))
    throw data::InputError(where + ": sobol supports up to 2^32 points");
  return points;
}

std::vector<data::Experiment> load_sweep_experiments(const SweepConfig& config, const ModelInfo& model) {
  std::vector<data::Experiment> out;
  for (const auto& src : config.traces) {
    if (src.kind == TraceSource::kProfile) {
      out.push_back(make_profile(src, model));
      continue;
    }
    std::vector<data::Experiment> exps = data::read_any_log(src.path);
    if (src.experiments.empty()) {
      for (auto& e : exps) out.push_back(std::move(e));
    } else {
      for (const auto& name : src.experiments) out.push_back(data::select_experiment(exps, name, src.path));
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    // Names become HDF5 group names (per-experiment metrics, trajectories).
    const std::string& n = out[i].name;
    if (n.empty() || n.find('/') != std::string::npos || n == "." || n == "..")
      throw data::InputError(out[i].source + ": experiment name '" + n +
                             "' cannot name an HDF5 group: give a name without '/', other than '.' and '..'");
    for (size_t j = 0; j < i; ++j)
      if (out[i].name == out[j].name)
        throw data::InputError(out[i].source + ": experiment name '" + out[i].name + "' is used twice in this sweep");
  }
  return out;
}

ShardRange shard_range(const std::string& shard, std::uint64_t points) {
  const engine::Range e = engine::split_range(shard, points);  // the engine owns the split
  ShardRange r;
  r.first = e.first;
  r.count = e.count;
  r.index = e.shard_index;
  r.shards = e.shard_count;
  return r;
}

namespace {

// The space of a sweep: the model, one axis per parameter, the number of
// points, and the rules every point is checked against.
SweepPlan plan_space(const SweepSpec& c) {
  const std::string& cfg = c.where;
  if (c.model.empty()) throw data::InputError(cfg + ": no model given (model = \"...\" or --model)");
  SweepPlan plan;
  plan.model = &require_model(c.model);
  const ModelInfo& m = *plan.model;
  if (m.params.size() > static_cast<std::size_t>(sweep::kMaxParams))
    throw data::InputError("model " + m.id + " has more parameters than a sweep supports (16)");
  for (const auto& p : c.params)
    if (m.param_index(p.name) < 0) {
      std::string known;
      for (const auto& q : m.params) known += (known.empty() ? "" : ", ") + std::string(q.name);
      throw data::InputError(p.where + ": model " + m.id + " has no parameter '" + p.name + "' (parameters: " + known +
                             ")");
    }

  sweep::SpaceView& s = plan.space;
  s.design = c.design;
  s.dims = static_cast<int>(m.params.size());
  s.seed = c.seed;
  s.scramble = c.scramble;
  const bool grid = c.design == sweep::Design::kGrid;
  long double grid_points = 1;
  for (int d = 0; d < s.dims; ++d) {
    sweep::Axis& ax = s.axis[d];
    const ParamSpec* spec = nullptr;
    for (const auto& p : c.params)
      if (p.name == m.params[d].name) spec = &p;
    if (!spec) {
      ax.kind = sweep::AxisKind::kFixed;
      ax.a = m.params[d].default_value;
      continue;
    }
    const std::string at = spec->where + ": parameter " + spec->name;
    // Every number given for the axis (a fixed value, list values, range
    // ends, a mean) must be a normal double: a fixed v_th = 1e-310 would
    // divide to infinity in every point.
    {
      // (Log ranges have their own message in fill_axis.)
      using K = sweep::AxisKind;
      std::vector<double> given = spec->values;
      if (spec->kind != K::kLog && spec->kind != K::kLogUniform) given.push_back(spec->a);
      if (spec->kind == K::kLinear || spec->kind == K::kUniform || spec->kind == K::kNormal) given.push_back(spec->b);
      for (double v : given)
        if (std::isfinite(v) && v != 0 && std::abs(v) < DBL_MIN)
          throw data::InputError(at + ": " + format_number(v) +
                                 " is subnormal (below 2.2e-308): divisions by it overflow "
                                 "(valid range " +
                                 param_range_text(m.params[d]) + ", normal numbers only)");
    }
    fill_axis(*spec, grid, at, plan.list_values, ax);
    grid_points *= static_cast<long double>(ax.count);
  }
  s.list_values = plan.list_values.data();
  s.points = design_points(c.design, grid_points, c.points, cfg, "design.points (--points)");

  plan.rules = engine::model_rules(m);  // the ranges and relations every point is checked against
  return plan;
}

std::string no_trace(const std::string& cfg) {
  return cfg + ": no input trace: add a [[trace]] with file = \"rig.h5\" or profile = \"sine\"";
}

// What the plan keeps and ranks, once its traces are in, and this run's
// part of the space.
void plan_ranking(SweepPlan& plan, const SweepSpec& c, const std::string& shard) {
  plan.metrics = c.metrics;
  if (plan.metrics.empty())
    for (int k = 0; k < sweep::kNumMetrics; ++k) plan.metrics.push_back(k);
  plan.objective = c.objective >= 0 ? c.objective : plan.has_force() ? sweep::kRmse : sweep::kEnergy;
  if (sweep::kMetricInfo[plan.objective].needs_force && !plan.has_force())
    throw data::InputError(c.where + ": objective " + sweep::kMetricInfo[plan.objective].name +
                           " needs a measured force, and no trace has a force channel");
  plan.maximize = c.maximize;
  plan.top_k = c.top_k;
  plan.per_experiment = c.per_experiment;

  const ShardRange part = shard_range(shard, plan.space.points);
  plan.first = part.first;
  plan.count = part.count;
  plan.shard_index = part.index;
  plan.shard_count = part.shards;
}

}  // namespace

SweepPlan plan_sweep(const SweepSpec& spec, std::vector<SweepTrace> traces, const std::string& shard) {
  SweepPlan plan = plan_space(spec);
  if (traces.empty()) throw data::InputError(no_trace(spec.where));
  plan.traces = std::move(traces);
  plan_ranking(plan, spec, shard);
  return plan;
}

// A config's spec; its metrics and objective, given by name, are looked up
// once the traces are loaded (the default objective depends on them).
SweepPlan plan_sweep(const SweepConfig& c, const std::string& shard) {
  SweepSpec spec;
  spec.model = c.model;
  spec.design = c.design;
  spec.points = c.points;
  spec.seed = c.seed;
  spec.scramble = c.scramble;
  spec.params = c.params;
  spec.maximize = c.maximize;
  spec.top_k = c.top_k;
  spec.per_experiment = c.per_experiment;
  spec.where = c.path.empty() ? std::string("sweep") : c.path;
  const std::string& cfg = spec.where;
  SweepPlan plan = plan_space(spec);
  if (c.traces.empty()) throw data::InputError(no_trace(cfg));
  for (const data::Experiment& e : load_sweep_experiments(c, *plan.model))
    plan.traces.push_back(make_sweep_trace(*plan.model, e));
  for (const auto& name : c.metrics) spec.metrics.push_back(metric_id(name, cfg + ": metrics.keep"));
  if (!c.objective.empty()) spec.objective = metric_id(c.objective, cfg + ": metrics.objective");
  plan_ranking(plan, spec, shard);
  if (!c.trajectories.empty() && c.output.empty())
    throw data::InputError(
        cfg + ": output.trajectories (--trajectory) are written to the output file; give one with -o OUT.h5");
  for (auto idx : c.trajectories)
    if (idx >= plan.space.points)
      throw data::InputError(cfg + ": output.trajectories index " + std::to_string(idx) + " is outside the space (" +
                             std::to_string(plan.space.points) + " points)");
  return plan;
}

}  // namespace stribeck::workloads
