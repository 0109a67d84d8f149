// Driving a sweep: choose the backend, evaluate chunk by chunk, keep the
// top-K, stream every chunk to the output with a checkpoint, summarise.
#include "stribeck/workloads/sweep_run.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "stribeck/data/error.hpp"
#include "stribeck/engine/runner.hpp"
#include "stribeck/workloads/output_space.hpp"
#include "stribeck/workloads/sweep_output.hpp"
#if STRIBECK_HAVE_CUDA
#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#endif

namespace stribeck::workloads {

#if STRIBECK_HAVE_CUDA
namespace {
// Fills the plain request for the CUDA library (traces point into the plan).
gpu::SweepRequest gpu_request(const SweepPlan& plan, Precision precision, std::uint64_t first, std::uint64_t count,
                              std::vector<gpu::HostTrace>& traces) {
  auto ptr = [](const std::vector<double>& v) { return v.empty() ? nullptr : v.data(); };
  for (const auto& t : plan.traces) {
    gpu::HostTrace h;
    t.point_view(h, ptr);
    h.counts = t.counts;
    traces.push_back(h);
  }
  gpu::SweepRequest r;
  r.model_id = plan.model->id.c_str();
  r.fp32 = precision == Precision::kFp32;
  r.space = plan.space;
  r.n_list = plan.list_values.size();
  r.rules = plan.rules;
  r.traces = traces.data();
  r.n_exp = static_cast<int>(traces.size());
  r.per_experiment = plan.per_experiment;
  r.first = first;
  r.count = count;
  return r;
}
}  // namespace
#endif

void evaluate_chunk_gpu(const SweepPlan& plan, Precision precision, std::uint64_t first, std::uint64_t count,
                        data::SweepChunk& out, gpu::Workspace* ws) {
#if STRIBECK_HAVE_CUDA
  out.first = first;
  out.count = count;
  out.index.clear();
  out.params.resize(count * plan.space.dims);
  out.metrics.resize(count * sweep::kNumMetrics);
  out.status.resize(count);
  out.exp_metrics.resize(plan.per_experiment ? count * plan.traces.size() * sweep::kNumMetrics : 0);
  std::vector<gpu::HostTrace> traces;
  gpu::SweepRequest r = gpu_request(plan, precision, first, count, traces);
  r.params = out.params.data();
  r.metrics = out.metrics.data();
  r.status = out.status.data();
  r.exp_metrics = plan.per_experiment ? out.exp_metrics.data() : nullptr;
  r.workspace = ws;
  gpu::run_sweep(r);
#else
  (void)plan, (void)precision, (void)first, (void)count, (void)out, (void)ws;
  throw data::InputError("this build has no CUDA support (rebuild with -DSTRIBECK_CUDA=ON)");
#endif
}

void evaluate_chunk_gpu_top_k(const SweepPlan& plan, Precision precision, std::uint64_t first, std::uint64_t count,
                              data::SweepChunk& out, std::uint64_t& invalid, std::uint64_t& nonfinite,
                              gpu::Workspace* ws) {
#if STRIBECK_HAVE_CUDA
  std::vector<gpu::HostTrace> traces;
  gpu::SweepRequest r = gpu_request(plan, precision, first, count, traces);
  r.per_experiment = false;
  gpu::TopKOutput top;
  r.top = &top;
  r.top_k = plan.top_k;
  r.objective = plan.objective;
  r.maximize = plan.maximize;
  r.workspace = ws;
  gpu::run_sweep(r);
  out.first = first;
  out.count = count;
  out.index = std::move(top.index);
  out.params = std::move(top.params);
  out.metrics = std::move(top.metrics);
  out.status.assign(out.index.size(), kSimOk);
  out.exp_metrics.clear();
  invalid = top.invalid;
  nonfinite = top.nonfinite;
#else
  (void)plan, (void)precision, (void)first, (void)count, (void)out, (void)invalid, (void)nonfinite, (void)ws;
  throw data::InputError("this build has no CUDA support (rebuild with -DSTRIBECK_CUDA=ON)");
#endif
}

namespace {

// The sweep as a workload of the engine: a chunk of points evaluated on the
// CPU or the GPU (or, GPU top-K mode, only its best rows: `compact`) in two
// buffer slots; the top-K kept across chunks; each chunk appended to the
// sweep file with a checkpoint of the progress so far.
class SweepWorkload : public engine::Workload {
 public:
  SweepWorkload(const SweepPlan& plan, Precision precision, bool gpu, bool compact, SweepOutput* output,
                std::function<void(const data::SweepChunk&)> on_chunk)
      : top(plan.top_k, plan.objective, plan.maximize),
        plan_(plan),
        precision_(precision),
        gpu_(gpu),
        compact_(compact),
        output_(output),
        on_chunk_(std::move(on_chunk)) {}

  void compute(int slot, std::uint64_t first, std::uint64_t n, const std::function<void(std::uint64_t)>&) override {
    if (!gpu_) return evaluate_chunk_cpu(plan_, precision_, first, n, chunk_[slot]);
    gpu::Workspace* ws = nullptr;
#if STRIBECK_HAVE_CUDA
    // One workspace for the run (the engine computes one chunk at a time):
    // streams, device and pinned buffers are allocated and the traces
    // uploaded once, not per chunk.
    if (!ws_) ws_ = gpu::make_workspace();
    ws = ws_.get();
#endif
    if (compact_) evaluate_chunk_gpu_top_k(plan_, precision_, first, n, chunk_[slot], invalid_, nonfinite_, ws);
    else evaluate_chunk_gpu(plan_, precision_, first, n, chunk_[slot], ws);
  }
  void tally(int slot, std::uint64_t first, std::uint64_t n, engine::Totals& t) override {
    const data::SweepChunk& c = chunk_[slot];
    const int dims = plan_.space.dims;
    if (compact_) {
      // Only the top-K rows came back: counts from the device, examples of
      // invalid points recomputed here from the space (cheap on the host).
      t.add(engine::PointStatus::kInvalid, invalid_);
      t.add(engine::PointStatus::kNonFinite, nonfinite_);
      t.add(engine::PointStatus::kOk, n - invalid_ - nonfinite_);
      std::vector<double> p(dims);
      for (std::uint64_t j = 0; invalid_ && j < n && t.wants_example(); ++j) {
        plan_.point(first + j, p.data());
        if (sweep::params_valid(plan_.rules, p.data())) continue;
        t.add_example(first + j, reason(p.data()));
      }
    } else {
      for (std::uint64_t j = 0; j < n; ++j) {
        const engine::PointStatus st = engine::from_sim_status(c.status[j]);
        t.add(st);
        if (st == engine::PointStatus::kInvalid && t.wants_example())
          t.add_example(first + j, reason(&c.params[j * dims]));
      }
    }
    top.add_chunk(c, dims);
  }
  std::function<void()> write(int slot, std::uint64_t, const engine::Totals& t) override {
    if (!output_ && !on_chunk_) return {};
    return [this, slot, t, best = top.entries()] {
      if (on_chunk_) on_chunk_(chunk_[slot]);
      if (!output_) return;
      output_->append(chunk_[slot]);
      output_->checkpoint(t, best);
    };
  }

  TopK top;

 private:
  std::string reason(const double* params) const {
    const auto why = validate_params(*plan_.model, params);
    return why.empty() ? std::string() : why.front();
  }
  const SweepPlan& plan_;
  Precision precision_;
  bool gpu_, compact_;
  SweepOutput* output_;
  std::function<void(const data::SweepChunk&)> on_chunk_;
  data::SweepChunk chunk_[2];
  std::uint64_t invalid_ = 0, nonfinite_ = 0;  // compact mode: the last chunk's counts
#if STRIBECK_HAVE_CUDA
  gpu::WorkspacePtr ws_;
#endif
};

}  // namespace

SweepSummary run_sweep(const SweepPlan& plan, const SweepConfig& config, const SweepRunOptions& o) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  if (!o.output.empty()) {
    // The columns the file will hold (sweep_file.hpp): float64 parameters
    // and kept metrics, a status byte, per-experiment metrics.
    double per_point = 0;
    if (!config.keep_top_k_only) {
      const double metrics = static_cast<double>(plan.metrics.size());
      per_point = 8.0 * plan.space.dims + 8.0 * metrics + 1 +
                  (plan.per_experiment ? 8.0 * metrics * static_cast<double>(plan.traces.size()) : 0.0);
    }
    char what[128];
    std::snprintf(what, sizeof what, "%.4g points x %.0f B", static_cast<double>(plan.count), per_point);
    check_output_space(o.output, per_point * static_cast<double>(plan.count), o.allow_large_output, o.resume, what);
  }

  if (o.chunk == 0) throw data::InputError("--chunk must be > 0");
  const DeviceChoice dev = choose_device(o.device);
  if (!dev.note.empty()) o.note ? o.note(dev.note) : void(std::fprintf(stderr, "stribeck: %s\n", dev.note.c_str()));
  // About 130 B of results per point of a chunk (docs/sweep.md): 2^24
  // points, 2 GB, bounds what one chunk may take.
  if (o.chunk > kMaxSweepChunk)
    throw data::InputError("--chunk " + std::to_string(o.chunk) + ": at most " + std::to_string(kMaxSweepChunk) +
                           " points per chunk");

  SweepSummary s;
  s.points = plan.count;
  s.device = dev.name;
  s.precision = o.precision;
  for (const auto& t : plan.traces) s.samples_per_point += t.counts.samples;

  engine::Totals totals;  // a resumed run continues the checkpoint's
  std::vector<data::TopEntry> best;
  std::unique_ptr<SweepOutput> output;
  if (!o.output.empty()) {
    data::SweepMeta meta = make_sweep_meta(plan, config, dev.name, o.precision);
    meta.provenance.command_line = o.command_line;
    output = o.resume ? SweepOutput::resume(o.output, meta, totals, best) : SweepOutput::create(o.output, meta);
  } else if (o.resume) {
    throw data::InputError("--resume needs an output file (-o OUT.h5)");
  }
  SweepWorkload w(plan, o.precision, dev.gpu, dev.gpu && config.keep_top_k_only, output.get(), o.on_chunk);
  for (const auto& e : best) w.top.add(e);

  engine::Range range;
  range.points = plan.space.points;
  range.first = plan.first;
  range.count = plan.count;
  range.shard_index = plan.shard_index;
  range.shard_count = plan.shard_count;
  engine::RunOptions ro;
  ro.chunk = o.chunk;
  ro.max_chunks = o.max_chunks;
  ro.progress = o.progress;
  const engine::RunStats st = engine::run(range, w, totals, ro);
  s.evaluated = st.evaluated;
  s.completed = totals.completed;
  s.invalid = totals.count(engine::PointStatus::kInvalid);
  s.nonfinite = totals.count(engine::PointStatus::kNonFinite);
  s.ok = s.completed - s.invalid - s.nonfinite;
  s.invalid_examples = totals.invalid_examples;
  s.top = w.top.entries();
  s.finished = st.finished;
  if (output && s.finished) {
    // Force traces of chosen points that fall in this run's range.
    for (std::uint64_t idx : config.trajectories) {
      if (idx < plan.first || idx >= plan.first + plan.count) continue;
      std::vector<double> p(plan.space.dims);
      plan.point(idx, p.data());
      std::vector<std::string> names;
      std::vector<std::vector<double>> forces;
      for (const auto& t : plan.traces) {
        names.push_back(t.name);
        forces.push_back(sweep_force_trace(*plan.model, p.data(), t));
      }
      output->add_trajectory(idx, p, names, forces);
    }
    output->finish(totals, s.top);
    s.output = o.output;
  }
  s.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  return s;
}

std::string SweepSummary::report(const SweepPlan& plan) const {
  std::ostringstream os;
  char buf[256];
  const double rate = seconds > 0 ? static_cast<double>(evaluated) / seconds : 0;
  std::snprintf(buf, sizeof buf, "%llu of %llu points in %.3g s (%.3g points/s, %.3g model evaluations/s) on %s, %s\n",
                static_cast<unsigned long long>(completed), static_cast<unsigned long long>(points), seconds, rate,
                rate * static_cast<double>(samples_per_point), device.c_str(),
                precision == Precision::kFp32 ? "fp32" : "fp64");
  os << buf;
  os << "  ok " << ok << ", invalid " << invalid << ", non-finite " << nonfinite << "\n";
  for (const auto& e : invalid_examples) os << "  invalid: " << e << "\n";
  if (!top.empty()) {
    os << "  best by " << sweep::kMetricInfo[plan.objective].name << (plan.maximize ? " (max)" : " (min)") << ":\n";
    // Four significant digits for reading; the file's /top_k table has them all.
    auto short_number = [](double x) {
      char b[32];
      std::snprintf(b, sizeof b, "%.4g", x);
      return std::string(b);
    };
    for (size_t r = 0; r < top.size() && r < 5; ++r) {
      os << "  #" << r + 1 << " point " << top[r].index << ": " << sweep::kMetricInfo[plan.objective].name << " = "
         << short_number(top[r].objective) << " " << sweep::kMetricInfo[plan.objective].unit << " |";
      for (size_t d = 0; d < plan.model->params.size(); ++d)
        os << " " << plan.model->params[d].name << "=" << short_number(top[r].params[d]);
      os << "\n";
    }
  }
  if (!finished) os << "  stopped early; continue with --resume\n";
  else if (!output.empty()) os << "  written to " << output << "\n";
  return os.str();
}

SweepSummary run_sweep(const SweepPlan& plan, const SweepRunOptions& options) {
  // The config only describes the output file (its metadata, trajectories,
  // top-K-only columns).
  if (!options.output.empty()) throw std::invalid_argument("run_sweep: an output file needs the sweep's config");
  return run_sweep(plan, SweepConfig(), options);
}

}  // namespace stribeck::workloads
