#pragma once
// Private to identification/: the samples a static fit runs over, for the one
// phase list of fit.cpp: held in memory (MemorySource) or read chunk by chunk
// from HDF5 logs (StreamedSource, stream_fit.hpp). A source checks its data
// and gives the statistics of every training sample (stats()), the samples
// the layout, the start points and the search work on (search_data()), the
// problem over every sample, the search, the quality phase, and what only it
// adds to the warnings phase.
#include <ceres/ceres.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "fit_data.hpp"
#include "fit_problem.hpp"
#include "fit_quality.hpp"
#include "fit_solve.hpp"
#include "fit_warnings.hpp"
#include "missing_terms.hpp"
#include "multistart.hpp"
#include "phases.hpp"
#include "stream_source.hpp"
#include "stribeck/identification/stream_fit.hpp"

namespace stribeck::ident::detail {

// Logs longer than this search on a subsample of about this many samples.
constexpr long kSearchSamples = 200000;

// The search candidates, the data-driven guess first (start_points.hpp).
using StartPoints = std::vector<std::vector<double>>;

class MemorySource {
 public:
  explicit MemorySource(const std::vector<data::Experiment>& experiments) : experiments_(experiments) {}
  // Options only a streamed fit refuses: none.
  const StreamOptions* stream_options() const { return nullptr; }
  // Phase "check data".
  void check(const ModelInfo& model, const FitOptions& o, FitSummary& S) { D_ = check_data(experiments_, model, o, S); }
  const FitData& stats() const { return D_; }
  FitData& search_data() { return D_; }

  template <class M>
  std::unique_ptr<ceres::Problem> problem(Layout& L, size_t block, const SampleLoss& loss, int threads) {
    return build_problem<M>(L, D_.data, D_.train, block, loss, threads);
  }

  // Phase "multistart" (and "polish" after a search on a subsample).
  template <class M>
  SearchResult search(ceres::Problem& problem, Layout& L, const StartPoints& candidates, const FitOptions& o,
                      const ceres::Solver::Options& so, Phases& phases, int guess_after, size_t block,
                      const SampleLoss& loss, int threads) {
    const FitData& D = D_;
    SearchResult R;
    if (D.n > kSearchSamples && candidates.size() > 1) {
      // A long log: the search runs on every stride-th sample (each start costs
      // a pass over kSearchSamples, not over the log), and only its best
      // solution is refined on all samples.
      const std::vector<Prepared> sub =
          subsample(D.data, static_cast<size_t>((D.n + kSearchSamples - 1) / kSearchSamples));
      auto sub_problem = build_problem<M>(L, sub, D.train, block, loss, threads);
      SearchScale scale = D.scale;
      scale.samples = 0;
      for (int e : D.train) scale.samples += static_cast<long>(sub[e].size());
      // Refinements on threads of their own each solve a problem of their own
      // (one thread inside: the refinements are the parallel work).
      const ProblemFactory more = [&](Layout& Lw) { return build_problem<M>(Lw, sub, D.train, block, loss, 1); };
      R = multistart(*sub_problem, L, candidates, o, so, scale, phases, guess_after, more, threads);
      phases.begin("polish");
      polish(problem, L, so, phases, R);
    } else {
      const ProblemFactory more = [&](Layout& Lw) { return build_problem<M>(Lw, D.data, D.train, block, loss, 1); };
      R = multistart(problem, L, candidates, o, so, D.scale, phases, guess_after, more, threads);
    }
    return R;
  }

  template <class M>
  double quality(FitSummary& S, const Layout& L, ceres::Problem& P, const FitOptions& o, int k) {
    return fit_quality<M>(S, L, D_, P, o, k);
  }

  // Phase "warnings": the missing terms and the few filtered samples of a
  // static law (a dynamic model's steady-state stage leaves them to the
  // dynamic stages), and the parameters held at defaults of a misfit.
  template <class M>
  void advise(FitSummary& S, ceres::Problem& P, Layout& L, const ModelInfo& model, const FitOptions& o,
              const ceres::Solver::Options& so, const SearchResult& R, int k, Phases& phases) {
    if (!model.dynamic) missing_terms<M>(S, L, D_, o, model);
    if (!model.dynamic) few_filtered_samples(S, experiments_, model, o, D_, k);
    if (misfit(S, D_, R)) {
      phases.begin("fixed parameters");
      check_fixed_parameters(S, P, L, D_, so, o);
    }
  }

  // The quality phase kept the signals where asked for.
  template <class M>
  void signals(const Layout&, const FitOptions&, Phases&) const {}

 private:
  const std::vector<data::Experiment>& experiments_;
  FitData D_;
};

class StreamedSource {
 public:
  StreamedSource(const PreparedStream& st, const StreamOptions& sopt) : st_(st), sopt_(sopt) {}
  const StreamOptions* stream_options() const { return &sopt_; }
  // Phase "check data": the check pass and, for logs over
  // StreamOptions::search_samples, the subsample pass (scan_stream).
  void check(const ModelInfo& model, const FitOptions& o, FitSummary& S);
  // The statistics of every sample (no data held).
  const FitData& stats() const { return D_; }
  // The subsample the layout, the start points and the search work on.
  FitData& search_data() { return Dsub_; }

  template <class M>
  std::unique_ptr<ceres::Problem> problem(Layout& L, size_t block, const SampleLoss& loss, int threads) {
    return build_streamed_problem<M>(L, st_, all_, block, loss, threads);
  }

  // Phase "multistart": on the subsample, then "polish" on every sample
  // (the subsample is dropped first); on every sample when it is the log.
  template <class M>
  SearchResult search(ceres::Problem& problem, Layout& L, const StartPoints& candidates, const FitOptions& o,
                      const ceres::Solver::Options& so, Phases& phases, int guess_after, size_t block,
                      const SampleLoss& loss, int threads) {
    const FitData& D = D_;
    FitData& Dsub = Dsub_;
    const std::vector<int>& all = all_;
    const StreamScan& sc = sc_;
    SearchResult R;
    if (!sc.whole) {
      {
        auto sub_problem = build_problem<M>(L, Dsub.data, all, block, loss, threads);
        const ProblemFactory more = [&](Layout& Lw) { return build_problem<M>(Lw, Dsub.data, all, block, loss, 1); };
        R = multistart(*sub_problem, L, candidates, o, so, Dsub.scale, phases, guess_after, more, threads);
      }
      Dsub.data.clear();
      Dsub.data.shrink_to_fit();
      phases.begin("polish");
      polish(problem, L, so, phases, R);
    } else {
      R = multistart(problem, L, candidates, o, so, D.scale, phases, guess_after);
    }
    return R;
  }

  template <class M>
  double quality(FitSummary& S, const Layout& L, ceres::Problem&, const FitOptions&, int k) {
    return streamed_quality<M>(S, L, st_, all_, sc_.fsum, D_.n, k);
  }

  // Phase "warnings": the missing terms, on one more pass over the log
  // where the fit is poor enough to look for them.
  template <class M>
  void advise(FitSummary& S, ceres::Problem&, Layout& L, const ModelInfo& model, const FitOptions& o,
              const ceres::Solver::Options&, const SearchResult&, int, Phases&) {
    const FitData& D = D_;
    const PreparedStream& st = st_;
    const std::vector<int>& all = all_;
    if (MissingTermGram::wanted(S, D.scale.force_rms, D.scale.noise)) {
      // The log's acceleration where it has one (a streamed fit derives none).
      MissingTermGram gram;
      for_streamed_residuals<M>(L, st, all, true, [&](int, size_t, const Prepared& c, const std::vector<double>& r) {
        gram.add(c, c.acc, r);
      });
      gram.advise(S, o, model.needs(kChannelNormalForce), D.scale.force_rms, D.scale.noise);
    }
  }

  // Phase "signals" (StreamOptions::signals).
  template <class M>
  void signals(const Layout& L, const FitOptions& o, Phases& phases) const {
    if (o.keep_signals && sopt_.signals) {
      phases.begin("signals");
      streamed_signals<M>(L, st_, all_, sopt_);
    }
  }

 private:
  const PreparedStream& st_;
  const StreamOptions& sopt_;
  std::vector<int> all_;  // every experiment of the stream
  StreamScan sc_;
  FitData D_, Dsub_;
};

}  // namespace stribeck::ident::detail
