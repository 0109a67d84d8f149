// The probability and quantiles of an ensemble drawn from a fit (fit_draws.hpp).
#include "stribeck/workloads/fit_draws.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "stribeck/data/point_file.hpp"

namespace stribeck::workloads {
namespace {

// The breakaway force and the stick-slip cycle: what a designer reads (the
// file's column name, and the member of an in-memory result).
struct QuantileMetric {
  const char* name;
  double StickSlipMetrics<double>::*member;
};
constexpr QuantileMetric kQuantileMetrics[] = {{"breakaway_force", &StickSlipMetrics<double>::breakaway_force},
                                               {"amp_spring_force", &StickSlipMetrics<double>::amp_spring_force},
                                               {"amp_velocity", &StickSlipMetrics<double>::amp_velocity},
                                               {"period", &StickSlipMetrics<double>::period}};

void fill_quantiles(std::vector<double>& v, MetricQuantiles& q) {
  const std::uint64_t n = v.size();
  q.draws = n;
  if (n == 0) return;
  auto at = [&](double rank) {
    const auto k = static_cast<std::size_t>(std::clamp(rank, 0.0, static_cast<double>(n - 1)));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
  };
  for (int i = 0; i < 3; ++i) {
    const double p = MetricQuantiles::kProbabilities[i], np = static_cast<double>(n) * p;
    const double half = 1.96 * std::sqrt(np * (1.0 - p));
    q.value[i] = at(std::floor(np));
    q.lo[i] = at(std::floor(np - half));
    q.hi[i] = at(std::ceil(np + half));
  }
}

}  // namespace

FitDrawsSummary summarize_fit_draws(const EnsembleResult& r, const std::string& output) {
  FitDrawsSummary s;
  s.stick_slip = stick_slip_probability(r.totals);
  s.outside = r.totals.status_counts[4];
  std::vector<double> v;
  if (!output.empty()) {
    const data::PointFile f(output);
    const std::uint64_t n = std::min<std::uint64_t>(f.rows(), kMaxQuantileDraws);
    std::vector<std::uint8_t> ok;
    f.read_ok(0, n, ok);
    for (const QuantileMetric& qm : kQuantileMetrics) {
      MetricQuantiles q;
      q.metric = qm.name;
      q.unit = f.metric_unit(qm.name);
      std::vector<double> col;
      f.read_metric(f.metric_index(qm.name), 0, n, col);
      v.clear();
      for (std::uint64_t i = 0; i < n; ++i)
        if (ok[i]) v.push_back(col[i]);
      fill_quantiles(v, q);
      s.quantiles.push_back(q);
    }
  } else if (!r.metrics.empty()) {
    const std::uint64_t n = std::min<std::uint64_t>(r.metrics.size(), kMaxQuantileDraws);
    for (const QuantileMetric& qm : kQuantileMetrics) {
      MetricQuantiles q;
      q.metric = qm.name;
      v.clear();
      for (std::uint64_t i = 0; i < n; ++i)
        if (r.metrics[i].status == 0) v.push_back(r.metrics[i].*qm.member);
      fill_quantiles(v, q);
      s.quantiles.push_back(q);
    }
  }
  return s;
}

std::string fit_draws_report(const FitDrawsSummary& s, const std::string& fit_file, const std::string& draw) {
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "  drawn from the fit %s (%s): P(stick-slip) = %.4g +/- %.2g (Monte Carlo standard error, %llu draws of "
      "which %llu outside the model's ranges count as not sticking)",
      fit_file.c_str(), draw.c_str(), s.stick_slip.value, s.stick_slip.std_error,
      static_cast<unsigned long long>(s.stick_slip.draws), static_cast<unsigned long long>(s.outside));
  std::string out = buf;
  for (const auto& q : s.quantiles) {
    if (q.draws == 0) continue;
    std::snprintf(buf, sizeof buf,
                  "\n  %s%s%s%s: 5 %% %.4g [%.4g, %.4g], median %.4g [%.4g, %.4g], 95 %% %.4g [%.4g, %.4g]",
                  q.metric.c_str(), q.unit.empty() ? "" : " [", q.unit.c_str(), q.unit.empty() ? "" : "]", q.value[0],
                  q.lo[0], q.hi[0], q.value[1], q.lo[1], q.hi[1], q.value[2], q.lo[2], q.hi[2]);
    out += buf;
  }
  return out;
}

}  // namespace stribeck::workloads
