#pragma once
// Private to identification/: the phase "quality" of a static fit, over
// samples in memory (fit_quality) or streamed (streamed_quality, the same
// sums in the same order), and the streamed fit's fitted force and residual
// handed out once at the end (streamed_signals).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "fit_data.hpp"
#include "fit_problem.hpp"
#include "stribeck/identification/stream_fit.hpp"

namespace stribeck::ident::detail {

// Phase: quality. Fit-quality figures on the raw residuals (no robust loss);
// per-experiment fitted force and residuals.
// Returns the SSR over the training experiments.
template <class M>
double fit_quality(FitSummary& S, const Layout& L, const FitData& D, ceres::Problem& P, const FitOptions& o, int k) {
  double ssr = 0, sst = 0, fsum = 0, maxe = 0, ac_num = 0;
  for (int e = 0; e < static_cast<int>(D.data.size()); ++e) {
    ExperimentFit ef;
    ef.name = D.data[e].name;
    ef.samples = static_cast<long>(D.data[e].size());
    ef.held_out = std::count(D.held.begin(), D.held.end(), e) != 0;
    std::vector<double> r;
    bool determinable = true;
    for (int g : spec_for(L, e, M::kNumParams).global)
      if (!P.HasParameterBlock(&L.params[g].u) && !L.params[g].fixed) determinable = false;
    if (determinable) r = raw_residuals<M>(L, D.data[e], e);
    else {
      S.warnings.push_back("held-out experiment '" + D.data[e].name +
                           "' has per-experiment parameters the fit cannot estimate; it is not validated");
      r.assign(D.data[e].size(), kNaN);
    }
    double se = 0;
    for (double x : r) se += x * x;
    ef.rmse = std::sqrt(se / static_cast<double>(r.size()));
    if (!ef.held_out) {
      ssr += se;
      for (size_t i = 0; i < r.size(); ++i) {
        fsum += D.data[e].force[i];
        maxe = std::max(maxe, std::abs(r[i]));
        if (i) ac_num += r[i] * r[i - 1];
      }
    }
    ef.filter = D.data[e].filter;
    if (o.keep_signals) {
      ef.fitted.resize(r.size());
      for (size_t i = 0; i < r.size(); ++i) ef.fitted[i] = D.data[e].force[i] - r[i];
      ef.residual = std::move(r);
      // Where each sample of a filtered fit sits in the log (a few of its
      // rows, at the filtered velocity); otherwise sample i is row i.
      if (ef.filter.filtered) {
        ef.time = D.data[e].t;
        ef.velocity = D.data[e].v;
        ef.rows = D.data[e].rows;
      }
    }
    S.experiments.push_back(std::move(ef));
  }
  const double fmean = fsum / static_cast<double>(D.n);
  for (int e : D.train)
    for (double f : D.data[e].force) sst += (f - fmean) * (f - fmean);
  set_fit_quality(S, D.n, k, ssr, sst, maxe, ac_num);
  if (!D.held.empty()) {
    double sv = 0;
    long nv = 0;
    for (int e : D.held)
      for (double r : S.experiments[e].residual.empty() ? raw_residuals<M>(L, D.data[e], e) : S.experiments[e].residual)
        sv += r * r, ++nv;
    S.validation_rmse = std::sqrt(sv / static_cast<double>(nv));
  }
  return ssr;
}

// Phase: quality, streamed: fit_quality's sums in its order (so the same
// bits); returns the SSR.
template <class M>
double streamed_quality(FitSummary& S, const Layout& L, const PreparedStream& st, const std::vector<int>& exps,
                        double fsum, long n, int k) {
  const double fmean = fsum / static_cast<double>(n);
  double ssr = 0, sst = 0, maxe = 0, ac_num = 0, prev = 0;
  std::vector<double> se(st.experiments(), 0.0);
  for_streamed_residuals<M>(L, st, exps, true,
                            [&](int e, size_t begin, const Prepared& c, const std::vector<double>& r) {
                              for (size_t i = 0; i < r.size(); ++i) {
                                se[e] += r[i] * r[i];
                                maxe = std::max(maxe, std::abs(r[i]));
                                if (begin + i > 0) ac_num += r[i] * prev;
                                prev = r[i];
                                sst += (c.force[i] - fmean) * (c.force[i] - fmean);
                              }
                            });
  for (int e : exps) {
    ExperimentFit ef;
    ef.name = st.name(e);
    ef.samples = static_cast<long>(st.length(e));
    ef.rmse = std::sqrt(se[e] / static_cast<double>(ef.samples));
    ssr += se[e];
    S.experiments.push_back(std::move(ef));
  }
  set_fit_quality(S, n, k, ssr, sst, maxe, ac_num);
  return ssr;
}

// Phase: signals, streamed: the fitted force and the residual at the final
// parameters handed to `signals`, once, after every phase that may move the
// parameters (the quality phase runs again after a restart).
template <class M>
void streamed_signals(const Layout& L, const PreparedStream& st, const std::vector<int>& exps,
                      const StreamOptions& so) {
  std::vector<double> fitted;
  // The signals may be written through HDF5: no read meanwhile.
  for_streamed_residuals<M>(L, st, exps, false,
                            [&](int e, size_t begin, const Prepared& c, const std::vector<double>& r) {
                              fitted.resize(r.size());
                              for (size_t i = 0; i < r.size(); ++i) fitted[i] = c.force[i] - r[i];
                              so.signals(e, begin, fitted.data(), r.data(), r.size());
                            });
}

}  // namespace stribeck::ident::detail
