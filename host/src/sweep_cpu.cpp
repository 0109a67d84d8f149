// The CPU path: OpenMP over parameter sets, each thread running the same
// per-trajectory code as a GPU thread (kernels/sweep/trajectory.hpp).
#include <algorithm>
#include <cmath>

#include "stribeck/host/sweep.hpp"
#include "stribeck/kernels/model_list.hpp"
#include "stribeck/kernels/sweep/trajectory.hpp"

namespace stribeck {
namespace {

// The traces converted to the working scalar, with views onto them.
template <class T>
struct TypedTraces {
  std::vector<std::vector<T>> store;
  std::vector<sweep::TraceView<T>> views;
  std::vector<sweep::TraceCounts> counts;

  explicit TypedTraces(const std::vector<SweepTrace>& traces) {
    store.reserve(traces.size() * 7);
    auto conv = [&](const std::vector<double>& src) -> const T* {
      if (src.empty()) return nullptr;
      store.emplace_back(src.begin(), src.end());
      return store.back().data();
    };
    for (const auto& t : traces) {
      sweep::TraceView<T> v;
      t.point_view(v, conv);
      views.push_back(v);
      counts.push_back(t.counts);
    }
  }
};

template <class M, class T>
void run_cpu(const SweepPlan& plan, std::uint64_t first, std::uint64_t count, SweepChunk& out) {
  const TypedTraces<T> tt(plan.traces);
  const int n_exp = static_cast<int>(tt.views.size());
  const int dims = plan.space.dims;
  const bool per_exp = plan.per_experiment;
  const std::int64_t n = static_cast<std::int64_t>(count);
#pragma omp parallel
  {
    std::vector<sweep::RawMetrics> raw(n_exp);
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t j = 0; j < n; ++j) {
      double* p = &out.params[static_cast<std::size_t>(j) * dims];
      double* met = &out.metrics[static_cast<std::size_t>(j) * sweep::kNumMetrics];
      plan.point(first + static_cast<std::uint64_t>(j), p);
      if (!sweep::params_valid(plan.rules, p)) {
        out.status[j] = sweep::kStatusInvalidParams;
        std::fill(met, met + sweep::kNumMetrics, NAN);
        if (per_exp)
          std::fill_n(&out.exp_metrics[static_cast<std::size_t>(j) * n_exp * sweep::kNumMetrics],
                      n_exp * sweep::kNumMetrics, NAN);
        continue;
      }
      sweep::evaluate_point<M, T>(p, tt.views.data(), tt.counts.data(), n_exp, raw.data());
      sweep::RawMetrics total;
      bool finite = true, has_force = false;
      for (int e = 0; e < n_exp; ++e) {
        total.add(raw[e]);
        finite = finite && sweep::raw_finite(raw[e]);
        has_force = has_force || tt.counts[e].has_force;
        if (per_exp)
          sweep::finalize_metrics(raw[e], tt.counts[e].has_force,
                                  &out.exp_metrics[(static_cast<std::size_t>(j) * n_exp + e) * sweep::kNumMetrics]);
      }
      sweep::finalize_metrics(total, has_force, met);
      out.status[j] = finite ? sweep::kStatusOk : sweep::kStatusNonFinite;
    }
  }
}

}  // namespace

void evaluate_chunk_cpu(const SweepPlan& plan, Precision precision, std::uint64_t first, std::uint64_t count,
                        SweepChunk& out) {
  out.first = first;
  out.count = count;
  out.params.resize(count * plan.space.dims);
  out.metrics.resize(count * sweep::kNumMetrics);
  out.status.resize(count);
  out.exp_metrics.resize(plan.per_experiment ? count * plan.traces.size() * sweep::kNumMetrics : 0);
  visit_model(plan.model->id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    if (precision == Precision::kFp32) run_cpu<M, float>(plan, first, count, out);
    else run_cpu<M, double>(plan, first, count, out);
  });
}

bool TopK::better(const TopEntry& a, const TopEntry& b) const {
  if (a.objective != b.objective) return maximize_ ? a.objective > b.objective : a.objective < b.objective;
  return a.index < b.index;
}

void TopK::add(const TopEntry& e) {
  if (k_ <= 0 || std::isnan(e.objective)) return;
  if (static_cast<int>(entries_.size()) == k_ && !better(e, entries_.back())) return;
  auto pos = std::lower_bound(entries_.begin(), entries_.end(), e,
                              [&](const TopEntry& x, const TopEntry& y) { return better(x, y); });
  entries_.insert(pos, e);
  if (static_cast<int>(entries_.size()) > k_) entries_.pop_back();
}

void TopK::add_chunk(const SweepChunk& c, int dims) {
  TopEntry e;
  const std::uint64_t rows = c.index.empty() ? c.count : c.index.size();
  for (std::uint64_t j = 0; j < rows; ++j) {
    const std::uint64_t index = c.index.empty() ? c.first + j : c.index[j];
    if (c.status[j] != sweep::kStatusOk) continue;
    e.objective = c.metrics[j * sweep::kNumMetrics + objective_];
    if (std::isnan(e.objective)) continue;
    if (static_cast<int>(entries_.size()) == k_) {
      TopEntry probe;
      probe.objective = e.objective;
      probe.index = index;
      if (!better(probe, entries_.back())) continue;
    }
    e.index = index;
    e.params.assign(&c.params[j * dims], &c.params[j * dims] + dims);
    e.metrics.assign(&c.metrics[j * sweep::kNumMetrics], &c.metrics[j * sweep::kNumMetrics] + sweep::kNumMetrics);
    add(e);
  }
}

}  // namespace stribeck
