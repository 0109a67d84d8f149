// A static fit, in phases as Ceres' own solver is: validate options -> check
// data -> layout -> start points (coarse search) -> multistart -> quality ->
// covariance -> intervals -> warnings. run_phases lists them once, over the
// samples of a source (sample_sources.hpp): held in memory, or read chunk by
// chunk from HDF5 logs (stream_fit.hpp). The phases live beside: the problem
// (fit_problem.hpp), the data checks (fit_data.hpp), the start points
// (start_points.hpp), the solves (fit_solve.hpp), quality (fit_quality.hpp),
// covariance and intervals (uncertainty.hpp), warnings (fit_warnings.hpp)
// and the asymmetry test (asymmetry.hpp); their times go into
// FitSummary::phase_seconds.
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/stream_fit.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "asymmetry.hpp"
#include "dynamic_fit.hpp"
#include "fit_solve.hpp"
#include "fit_warnings.hpp"
#include "phases.hpp"
#include "problem.hpp"
#include "rotational.hpp"
#include "sample_sources.hpp"
#include "start_points.hpp"
#include "stream_source.hpp"
#include "uncertainty.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/threads.hpp"

namespace stribeck::ident {
using namespace detail;

namespace {

// FitOptions::loss as Ceres' loss (a spec IsValid refuses never gets here).
SampleLoss parse_loss(const std::string& spec) {
  SampleLoss l;
  std::string kind;
  double d = kNaN;
  parse_loss_spec(spec, &kind, &d, nullptr);
  if (kind == "huber") l.rho = std::make_shared<ceres::HuberLoss>(d);
  else if (kind == "cauchy") l.rho = std::make_shared<ceres::CauchyLoss>(d);
  return l;
}

// Options only a streamed fit refuses.
void validate_stream_options(const FitOptions& o, const StreamOptions& sopt) {
  if (!o.validate.empty()) throw data::InputError("--validate: not available for a streamed fit (use --stream never)");
  if (sopt.search_samples < 1) throw data::InputError("StreamOptions::search_samples must be >= 1");
}

// ---------------------------------------------------------------------------
// A static fit, phase by phase, over the samples of `src` (a MemorySource or
// a StreamedSource, sample_sources.hpp).
template <class M, class Source>
FitSummary run_phases(const ModelInfo& model, Source& src, const FitOptions& o, const FitOrigin& origin = {}) {
  FitSummary S;
  S.model = model.id;
  Phases phases(S, o);

  // Everything wrong with the options themselves, before any data is
  // touched (FitOptions::IsValid, fit_options.cpp).
  phases.begin("validate options");
  check_fit_options(model.id, o);
  if (const StreamOptions* sopt = src.stream_options()) validate_stream_options(o, *sopt);

  phases.begin("check data");
  src.check(model, o, S);
  const FitData& D = src.stats();

  phases.begin("layout");
  Layout L = make_layout(model, o, src.search_data().data);
  const SampleLoss loss = parse_loss(o.loss);
  const size_t block = static_cast<size_t>(std::max(16, o.block_size));
  const int threads = o.num_threads > 0 ? o.num_threads : workloads::job_threads();
  auto problem = src.template problem<M>(L, block, loss, threads);
  const std::vector<int> free = free_in_problem(*problem, L, D.n);
  const int k = static_cast<int>(free.size());
  const ceres::Solver::Options so = fit_solver_options(o, threads);

  phases.begin("start points");
  int guess_after = 0;
  const auto candidates = start_points<M>(model, L, src.search_data(), free, o, block, loss, S, &guess_after);

  phases.begin("multistart");
  SearchResult R = src.template search<M>(*problem, L, candidates, o, so, phases, guess_after, block, loss, threads);
  if (!take_search_result(S, L, R)) {
    phases.end();
    FitSummary F = failed_fit(std::move(S), L, o, R, origin);
    F.seconds = phases.total();
    return F;
  }

  const QualityPhase quality = [&] { return src.template quality<M>(S, L, *problem, o, k); };
  const Uncertainty U = estimates(S, *problem, L, free, D, so, R, phases, o, quality);

  phases.begin("warnings");
  // (Static laws only: a dynamic model's steady-state stage hands its
  // values on to the dynamic stages, which report for themselves.)
  if (!model.dynamic) canonical_form(S, *problem, L, free, D, quality);
  fit_warnings(S, L, free, D, U, R, o);
  src.template advise<M>(S, *problem, L, model, o, so, R, k, phases);
  unique_warnings(S);
  S.converged = S.status == FitStatus::kConverged;
  src.template signals<M>(L, o, phases);
  phases.end();
  S.seconds = phases.total();
  return S;
}

template <class M>
FitSummary run_fit(const ModelInfo& model, const std::vector<data::Experiment>& experiments, const FitOptions& o,
                   const FitOrigin& origin = {}) {
  MemorySource src(experiments);
  return run_phases<M>(model, src, o, origin);
}

}  // namespace

template <class F>
FitSummary detail::fit_steady_state(const ModelInfo& model, const std::vector<data::Experiment>& steady,
                                    const FitOptions& o, const FitOrigin& origin) {
  return run_fit<SteadyState<F>>(model, steady, o, origin);
}
template FitSummary detail::fit_steady_state<LuGreFit>(const ModelInfo&, const std::vector<data::Experiment>&,
                                                       const FitOptions&, const FitOrigin&);
template FitSummary detail::fit_steady_state<TwentySimLuGreFit>(const ModelInfo&, const std::vector<data::Experiment>&,
                                                                const FitOptions&, const FitOrigin&);
template FitSummary detail::fit_steady_state<ElastoPlasticFit>(const ModelInfo&, const std::vector<data::Experiment>&,
                                                               const FitOptions&, const FitOrigin&);
template FitSummary detail::fit_steady_state<GmsFit<1>>(const ModelInfo&, const std::vector<data::Experiment>&,
                                                        const FitOptions&, const FitOrigin&);
template FitSummary detail::fit_steady_state<GmsFit<2>>(const ModelInfo&, const std::vector<data::Experiment>&,
                                                        const FitOptions&, const FitOrigin&);
template FitSummary detail::fit_steady_state<GmsFit<3>>(const ModelInfo&, const std::vector<data::Experiment>&,
                                                        const FitOptions&, const FitOrigin&);
template FitSummary detail::fit_steady_state<GmsFit<4>>(const ModelInfo&, const std::vector<data::Experiment>&,
                                                        const FitOptions&, const FitOrigin&);
template FitSummary detail::fit_steady_state<DahlFit>(const ModelInfo&, const std::vector<data::Experiment>&,
                                                      const FitOptions&, const FitOrigin&);

const char* status_name(FitStatus s) {
  switch (s) {
    case FitStatus::kConverged: return "converged";
    case FitStatus::kMaxIterations: return "max_iterations";
    case FitStatus::kSingular: return "singular";
    case FitStatus::kFailed: return "failed";
  }
  return "?";
}

namespace {

// A dynamic fit, with the signals its missing-term check reads (two_stage
// runs it on the data it prepared), kept only when asked for.
FitSummary fit_dynamic(const std::vector<data::Experiment>& experiments, const ModelInfo& model, const FitOptions& o) {
  FitOptions with_signals = o;
  with_signals.keep_signals = true;
  FitSummary S = fit_two_stage(experiments, model, with_signals);
  if (!o.keep_signals)
    for (auto& e : S.experiments) e.fitted.clear(), e.residual.clear();
  return S;
}

FitSummary fit_model(const std::vector<data::Experiment>& experiments, const std::string& model_id,
                     const FitOptions& o) {
  const ModelInfo& model = workloads::require_model(model_id);
  if (has_two_stage_fit(model_id) && !o.asymmetric) return fit_dynamic(experiments, model, o);
  FitSummary S;
  visit_model(model_id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    if constexpr (!M::kDynamic) S = run_fit<M>(model, experiments, o);
  });
  if (o.asymmetric) {
    const FitOptions sym = symmetric_options(o);
    const FitSummary s = fit_model(experiments, model_id, sym);  // only its rmse and count: no unit mapping
    asymmetry_test(S, s);
  }
  return S;
}

}  // namespace

FitSummary fit(const std::vector<data::Experiment>& experiments, const std::string& model_id, const FitOptions& o) {
  check_fit_options(model_id, o);
  const bool rotational = rotational_log(experiments, workloads::require_model(model_id));
  FitSummary S = fit_model(experiments, model_id, o);
  if (rotational) rotational_summary(S, workloads::require_model(model_id));
  return S;
}

std::vector<FitSummary> compare(const std::vector<data::Experiment>& experiments,
                                const std::vector<std::string>& models, const FitOptions& o) {
  std::vector<FitSummary> out;
  for (const auto& m : models) out.push_back(fit(experiments, m, o));
  std::stable_sort(out.begin(), out.end(), [](const FitSummary& a, const FitSummary& b) { return a.aic < b.aic; });
  return out;
}

std::string streaming_unsupported(const std::string& model_id, const FitOptions& o) {
  const ModelInfo& model = workloads::require_model(model_id);
  if (model.dynamic) return "model " + model_id + " is dynamic (its state needs every sample in order)";
  if (!o.validate.empty()) return "--validate holds experiments out";
  return "";
}

FitSummary fit_streamed(const std::vector<LogStream>& logs, const std::string& model_id, const FitOptions& o,
                        const StreamOptions& stream) {
  check_fit_options(model_id, o);
  const ModelInfo& model = workloads::require_model(model_id);
  if (const std::string why = streaming_unsupported(model_id, o); !why.empty())
    throw data::InputError("a streamed fit is not available: " + why + "; fit in memory (--stream never)");
  const bool rotational = rotational_log(logs, model);
  const size_t block = static_cast<size_t>(std::max(16, o.block_size));
  const size_t chunk = (std::max<size_t>(stream.chunk_rows, 1) + block - 1) / block * block;
  const PreparedStream st(logs, model, o, chunk);
  FitSummary S;
  visit_model(model_id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    if constexpr (!M::kDynamic) {
      StreamedSource src(st, stream);
      S = run_phases<M>(model, src, o);
    }
  });
  if (o.asymmetric) {
    const FitOptions sym = symmetric_options(o);
    const FitSummary s = fit_streamed(logs, model_id, sym, stream);
    asymmetry_test(S, s);
  }
  if (rotational) rotational_summary(S, model);
  return S;
}

}  // namespace stribeck::ident
