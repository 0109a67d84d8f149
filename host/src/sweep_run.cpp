// Driving a sweep: choose the backend, evaluate chunk by chunk, keep the
// top-K, stream every chunk to the output with a checkpoint, summarise.
#include "stribeck/host/sweep_run.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "stribeck/data/error.hpp"
#include "stribeck/host/output_space.hpp"
#include "stribeck/host/sweep_output.hpp"
#if STRIBECK_HAVE_CUDA
#include "stribeck/kernels/cuda/sweep_cuda.hpp"
#endif

namespace stribeck {

DeviceChoice choose_device(const std::string& requested) {
  if (requested != "auto" && requested != "gpu" && requested != "cpu")
    throw InputError("--device " + requested + ": expected auto, gpu or cpu");
  DeviceChoice d;
  const std::string level = cpu_vector_level();
  const std::string cpu = "CPU (" + std::to_string(omp_get_max_threads()) + " threads, " +
                          (level == "scalar" ? std::string("no SIMD") : level + " SIMD") + ")";
  if (requested == "cpu") {
    d.name = cpu;
    return d;
  }
  std::string name, reason;
#if STRIBECK_HAVE_CUDA
  const bool usable = gpu::probe_device(name, reason);
#else
  const bool usable = false;
  reason = "this build has no CUDA support";
#endif
  if (usable) {
    d.gpu = true;
    d.name = name;
    return d;
  }
  if (requested == "gpu") throw InputError("--device gpu: no usable GPU (" + reason + ")");
  d.name = cpu;
  d.note = "no usable GPU (" + reason + "); running on the " + cpu;
  return d;
}

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
                        SweepChunk& out) {
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
  gpu::run_sweep(r);
#else
  (void)plan, (void)precision, (void)first, (void)count, (void)out;
  throw InputError("this build has no CUDA support (rebuild with -DSTRIBECK_CUDA=ON)");
#endif
}

void evaluate_chunk_gpu_top_k(const SweepPlan& plan, Precision precision, std::uint64_t first, std::uint64_t count,
                              SweepChunk& out, std::uint64_t& invalid, std::uint64_t& nonfinite) {
#if STRIBECK_HAVE_CUDA
  std::vector<gpu::HostTrace> traces;
  gpu::SweepRequest r = gpu_request(plan, precision, first, count, traces);
  r.per_experiment = false;
  gpu::TopKOutput top;
  r.top = &top;
  r.top_k = plan.top_k;
  r.objective = plan.objective;
  r.maximize = plan.maximize;
  gpu::run_sweep(r);
  out.first = first;
  out.count = count;
  out.index = std::move(top.index);
  out.params = std::move(top.params);
  out.metrics = std::move(top.metrics);
  out.status.assign(out.index.size(), sweep::kStatusOk);
  out.exp_metrics.clear();
  invalid = top.invalid;
  nonfinite = top.nonfinite;
#else
  (void)plan, (void)precision, (void)first, (void)count, (void)out, (void)invalid, (void)nonfinite;
  throw InputError("this build has no CUDA support (rebuild with -DSTRIBECK_CUDA=ON)");
#endif
}

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

  const DeviceChoice dev = choose_device(o.device);
  if (!dev.note.empty()) std::fprintf(stderr, "stribeck: %s\n", dev.note.c_str());
  if (o.chunk == 0) throw InputError("--chunk must be > 0");
  // About 130 B of results per point of a chunk (docs/sweep.md): 2^24
  // points, 2 GB, bounds what one chunk may take.
  if (o.chunk > kMaxSweepChunk)
    throw InputError("--chunk " + std::to_string(o.chunk) + ": at most " + std::to_string(kMaxSweepChunk) +
                     " points per chunk");

  SweepSummary s;
  s.points = plan.count;
  s.device = dev.name;
  s.precision = o.precision;
  for (const auto& t : plan.traces) s.samples_per_point += t.counts.samples;

  SweepProgress progress;
  std::unique_ptr<SweepWriter> writer;
  if (!o.output.empty()) {
    SweepMeta meta = make_sweep_meta(plan, config, dev.name, o.precision);
    meta.command_line = o.command_line;
    writer = o.resume ? SweepWriter::resume(o.output, meta, progress) : SweepWriter::create(o.output, meta);
  } else if (o.resume) {
    throw InputError("--resume needs an output file (-o OUT.h5)");
  }
  TopK top(plan.top_k, plan.objective, plan.maximize);
  for (const auto& e : progress.top) top.add(e);

  SweepChunk chunk;
  const int dims = plan.space.dims;
  std::uint64_t chunks_done = 0;
  while (progress.completed < plan.count) {
    if (o.max_chunks && chunks_done == o.max_chunks) break;
    const std::uint64_t first = plan.first + progress.completed;
    const std::uint64_t n = std::min<std::uint64_t>(o.chunk, plan.count - progress.completed);
    const bool compact = dev.gpu && config.keep_top_k_only;
    if (compact) {
      // Only the top-K rows come back; counts from the device, examples of
      // invalid points recomputed here from the space (cheap on the host).
      std::uint64_t invalid = 0, nonfinite = 0;
      evaluate_chunk_gpu_top_k(plan, o.precision, first, n, chunk, invalid, nonfinite);
      progress.invalid += invalid;
      progress.nonfinite += nonfinite;
      std::vector<double> p(dims);
      for (std::uint64_t j = 0; invalid && j < n && s.invalid_examples.size() < 3; ++j) {
        plan.point(first + j, p.data());
        if (sweep::params_valid(plan.rules, p.data())) continue;
        const auto why = validate_params(*plan.model, p.data());
        s.invalid_examples.push_back("point " + std::to_string(first + j) + ": " +
                                     (why.empty() ? std::string("invalid") : why.front()));
      }
    } else if (dev.gpu) {
      evaluate_chunk_gpu(plan, o.precision, first, n, chunk);
    } else {
      evaluate_chunk_cpu(plan, o.precision, first, n, chunk);
    }
    for (std::uint64_t j = 0; !compact && j < n; ++j) {
      if (chunk.status[j] == sweep::kStatusInvalidParams) {
        ++progress.invalid;
        if (s.invalid_examples.size() < 3) {
          const auto why = validate_params(*plan.model, &chunk.params[j * dims]);
          s.invalid_examples.push_back("point " + std::to_string(first + j) + ": " +
                                       (why.empty() ? std::string("invalid") : why.front()));
        }
      } else if (chunk.status[j] == sweep::kStatusNonFinite) {
        ++progress.nonfinite;
      }
    }
    top.add_chunk(chunk, dims);
    progress.completed += n;
    progress.top = top.entries();
    s.evaluated += n;
    if (writer) {
      writer->append(chunk, static_cast<int>(plan.traces.size()));
      writer->checkpoint(progress);
    }
    ++chunks_done;
    if (o.progress)
      o.progress(progress.completed, plan.count, std::chrono::duration<double>(clock::now() - t0).count());
  }
  s.completed = progress.completed;
  s.invalid = progress.invalid;
  s.nonfinite = progress.nonfinite;
  s.ok = s.completed - s.invalid - s.nonfinite;
  s.top = top.entries();
  s.finished = progress.completed == plan.count;
  if (writer && s.finished) {
    // Force traces of chosen points that fall in this run's range.
    for (std::uint64_t idx : config.trajectories) {
      if (idx < plan.first || idx >= plan.first + plan.count) continue;
      std::vector<double> p(dims);
      plan.point(idx, p.data());
      std::vector<std::string> names;
      std::vector<std::vector<double>> forces;
      for (const auto& t : plan.traces) {
        names.push_back(t.name);
        forces.push_back(sweep_force_trace(*plan.model, p.data(), t));
      }
      writer->add_trajectory(idx, p, names, forces);
    }
    s.seconds = std::chrono::duration<double>(clock::now() - t0).count();
    writer->finish(progress, s.seconds);
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

}  // namespace stribeck
