// A static fit, in phases as Ceres' own solver is: validate options -> check
// data -> layout -> start points (coarse search) -> multistart -> quality ->
// covariance -> intervals -> warnings. Each phase is a function below; run_fit
// lists them, and their times go into FitSummary::phase_seconds.
#include "stribeck/identification/fit.hpp"
#include "stribeck/identification/stream_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "block_cost.hpp"
#include "compressed_cost.hpp"
#include "covariance.hpp"
#include "dynamic_fit.hpp"
#include "fit_helpers.hpp"
#include "missing_terms.hpp"
#include "multistart.hpp"
#include "noise.hpp"
#include "phases.hpp"
#include "problem.hpp"
#include "profile.hpp"
#include "projected_search.hpp"
#include "rotational.hpp"
#include "solver_options.hpp"
#include "stream_source.hpp"
#include "sweep_starts.hpp"
#include "stribeck/kernels/sweep/space.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/signals.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/threads.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::ident {
using namespace detail;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The parameter blocks one experiment's residuals depend on.
struct BlockSpec {
  std::vector<int> global;  // FitParam indices, in block order
  std::vector<LocalParam> locals;
  std::vector<std::array<int, 2>> map;  // [j] -> local index for sign 0 / 1
  int mass = -1, offset = -1;
};

BlockSpec spec_for(const Layout& L, int e, size_t nparams) {
  BlockSpec b;
  auto local = [&](int g) {
    auto it = std::find(b.global.begin(), b.global.end(), g);
    if (it != b.global.end()) return static_cast<int>(it - b.global.begin());
    b.global.push_back(g);
    return static_cast<int>(b.global.size()) - 1;
  };
  b.map.resize(nparams);
  for (size_t j = 0; j < nparams; ++j)
    for (int s = 0; s < 2; ++s) b.map[j][s] = local(L.model_map[e][s][j]);
  if (L.mass >= 0) b.mass = local(L.mass);
  if (L.offset[e] >= 0) b.offset = local(L.offset[e]);
  for (int g : b.global) {
    LocalParam lp;
    lp.transform = L.params[g].transform;
    if (lp.transform == Transform::kExcess) lp.base = local(L.params[g].excess_base);
    b.locals.push_back(lp);
  }
  int nfree = 0;
  for (int g : b.global) nfree += !L.params[g].fixed;
  if (nfree > kMaxBlockParams)
    throw InputError("too many free parameters for one experiment (" + std::to_string(nfree) + ", at most " +
                     std::to_string(kMaxBlockParams) + ")");
  return b;
}

// How the compressed cost may predict (compressed_cost.hpp): the cost
// parameters `used`, each a level where its role says so and the loss is
// plain least squares (a robust loss makes no residual affine).
std::vector<AffineParam> affine_params(const Layout& L, const std::vector<int>& used, const SampleLoss& loss) {
  std::vector<AffineParam> a(used.size());
  for (size_t i = 0; i < used.size(); ++i) {
    const FitParam& p = L.params[used[i]];
    a[i].level = !loss.rho && p.model_index >= 0 && linear_role(p.role);
    a[i].transform = p.transform;
    if (p.transform == Transform::kExcess)
      a[i].base = static_cast<int>(std::find(used.begin(), used.end(), p.excess_base) - used.begin());
  }
  return a;
}

template <class M>
BlockCost<M>* make_cost(const Layout& L, const BlockSpec& b, const Prepared* d, size_t begin, size_t end,
                        const SampleLoss& loss) {
  std::array<std::array<int, M::kNumParams>, 2> map;
  for (int j = 0; j < M::kNumParams; ++j)
    for (int s = 0; s < 2; ++s) map[s][j] = b.map[j][s];
  return new BlockCost<M>(d, begin, end, b.locals, map, b.mass, b.offset, L.asymmetric, loss);
}

// The fit as one Ceres problem: the per-sample residual blocks of every
// experiment, compressed into one residual block of k+1 residuals (see
// compressed_cost.hpp), so Ceres never holds the N x k Jacobian.
template <class M>
std::unique_ptr<ceres::Problem> build_problem(Layout& L, const std::vector<Prepared>& data,
                                              const std::vector<int>& exps, size_t block, const SampleLoss& loss,
                                              int threads, bool fuse = true) {
  HeldBlocks held;
  std::vector<int> pos(L.params.size(), -1), used;
  for (int e : exps) {
    const BlockSpec b = spec_for(L, e, M::kNumParams);
    for (int g : b.global)
      if (pos[g] < 0) pos[g] = static_cast<int>(used.size()), used.push_back(g);
    std::vector<int> local;
    for (int g : b.global) local.push_back(pos[g]);
    for (size_t k = 0; k < data[e].size(); k += block)
      held.add(std::unique_ptr<ceres::CostFunction>(
                   make_cost<M>(L, b, &data[e], k, std::min(data[e].size(), k + block), loss)),
               local);
  }
  auto P = std::make_unique<ceres::Problem>();
  std::vector<double*> blocks;
  for (int g : used) blocks.push_back(&L.params[g].u);
  auto* cost = new CompressedCost(held.source(), static_cast<int>(used.size()), threads, fuse);
  cost->set_affine(affine_params(L, used, loss));
  P->AddResidualBlock(cost, nullptr, blocks);
  constrain(*P, L);
  return P;
}

// Residuals without robust loss (measured - fitted) of one experiment.
template <class M>
std::vector<double> raw_residuals(const Layout& L, const Prepared& d, int e) {
  const BlockSpec b = spec_for(L, e, M::kNumParams);
  std::unique_ptr<BlockCost<M>> cost(make_cost<M>(L, b, &d, 0, d.size(), SampleLoss{}));
  std::vector<const double*> ptrs;
  for (int g : b.global) ptrs.push_back(&L.params[g].u);
  std::vector<double> r(d.size(), kNaN);
  cost->Evaluate(ptrs.data(), r.data(), nullptr);
  return r;
}

SampleLoss parse_loss(const std::string& spec) {
  SampleLoss l;
  if (spec.empty() || spec == "none" || spec == "l2") return l;
  const size_t c = spec.find(':');
  const std::string kind = spec.substr(0, c);
  double d = kNaN;
  if (c == std::string::npos || !parse_double(spec.substr(c + 1), d) || !(d > 0))
    throw InputError("--loss '" + spec + "': expected huber:D or cauchy:D with D > 0 (in N)");
  if (kind == "huber") l.rho = std::make_shared<ceres::HuberLoss>(d);
  else if (kind == "cauchy") l.rho = std::make_shared<ceres::CauchyLoss>(d);
  else throw InputError("--loss '" + spec + "': unknown loss '" + kind + "' (huber or cauchy)");
  return l;
}

// Survival function of the chi-square distribution with k degrees of freedom.
double chi2_sf(double x, int k) {
  if (x <= 0) return 1.0;
  const double h = 0.5 * x;
  double sum = 0.0;
  if (k % 2 == 0) {
    double term = 1.0;
    for (int i = 0; i < k / 2; ++i) {
      sum += term;
      term *= h / (i + 1);
    }
    return std::exp(-h) * sum;
  }
  for (int i = 1; i <= (k - 1) / 2; ++i) sum += std::exp((i - 0.5) * std::log(h) - h - std::lgamma(i + 0.5));
  return std::erfc(std::sqrt(h)) + sum;
}

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

// A parameter has no effect when changing it by its own size moves the force
// by less than this share of the force's RMS.
constexpr double kNegligibleEffect = 1e-9;

// Logs longer than this search on a subsample of about this many samples.
constexpr long kSearchSamples = 200000;

// ---------------------------------------------------------------------------
// Phase: validate options. Everything wrong with the options themselves is
// found here, before any data is touched (Ceres' Options::IsValid).
void validate_options(const FitOptions& o) {
  if (o.starts < 0) throw InputError("--starts must be >= 0 (0 = automatic)");
  if (o.starts_per_round < 1) throw InputError("FitOptions::starts_per_round must be >= 1");
  if (o.max_starts < 1) throw InputError("FitOptions::max_starts must be >= 1");
  if (o.max_profile_restarts < 0) throw InputError("FitOptions::max_profile_restarts must be >= 0");
  if (!(o.agree_tolerance >= 0) || !std::isfinite(o.agree_tolerance))
    throw InputError("FitOptions::agree_tolerance must be a finite number >= 0");
  if (o.coarse_points < 0) throw InputError("--coarse-points must be >= 0 (0 = automatic)");
  if (o.max_iterations < 1) throw InputError("--max-iterations must be >= 1");
  if (!std::isfinite(o.area_a) || !std::isfinite(o.area_b)) throw InputError("--area-a/--area-b must be finite");
}

// ---------------------------------------------------------------------------
// Phase: check data. What cannot work is an error, what is weak a warning.
struct FitData {
  std::vector<Prepared> data;
  std::vector<int> train, held;
  long n = 0;               // training samples
  double vslow = kInf;      // slowest moving |v| of the training samples
  double vfast = 0.0;       // fastest |v| of the training samples
  bool lacks_slow = false;  // the log has no slow range relative to its own speeds
  SearchScale scale;
};

void motion_checks(const FitOptions& o, long npos, long nneg, double vmin, double vmax, FitSummary& S);

// The checks of the samples of D.data's training experiments (D.train set):
// D.n, vslow, lacks_slow, scale, noise.
void check_samples(FitData& D, const FitOptions& o, FitSummary& S);

FitData check_data(const std::vector<Experiment>& experiments, const ModelInfo& model, const FitOptions& o,
                   FitSummary& S) {
  FitData D;
  D.data = prepare_data(experiments, model, o);
  const int ne = static_cast<int>(D.data.size());
  for (const auto& v : o.validate)
    if (std::none_of(D.data.begin(), D.data.end(), [&](const Prepared& d) { return d.name == v; }))
      throw InputError("--validate: no experiment named '" + v + "'");
  for (int e = 0; e < ne; ++e)
    (std::count(o.validate.begin(), o.validate.end(), D.data[e].name) ? D.held : D.train).push_back(e);
  if (D.train.empty()) throw InputError("--validate holds out every experiment; nothing is left to fit");
  check_samples(D, o, S);
  return D;
}

void check_samples(FitData& D, const FitOptions& o, FitSummary& S) {
  long npos = 0, nneg = 0;
  double vmin = kInf, vmax = -kInf, ysq = 0;
  for (int e : D.train)
    for (size_t k = 0; k < D.data[e].size(); ++k) {
      const double v = D.data[e].v[k];
      ++D.n;
      npos += v > 0;
      nneg += v < 0;
      vmin = std::min(vmin, v);
      vmax = std::max(vmax, v);
      ysq += D.data[e].y[k] * D.data[e].y[k];
      if (v != 0) D.vslow = std::min(D.vslow, std::abs(v));
    }
  motion_checks(o, npos, nneg, vmin, vmax, S);
  D.vfast = std::max(std::abs(vmin), std::abs(vmax));
  // The low-speed hint applies when the log lacks the slow range relative to
  // its own speeds: its slowest moving sample is above a tenth of the median
  // (the element m = moving/2 of the sorted |v|). vslow > 0.1 * x holds for a
  // prefix of the sorted speeds, so it holds at the median exactly when more
  // than m speeds satisfy it: a count, no selection.
  long moving = 0, below = 0;
  for (int e : D.train)
    for (double v : D.data[e].v)
      if (v != 0) ++moving, below += D.vslow > 0.1 * std::abs(v);
  D.lacks_slow = below > moving / 2;
  D.scale.samples = D.n;
  D.scale.force_rms = std::sqrt(ysq / static_cast<double>(D.n));
  D.scale.noise = noise_estimate(D.data, D.train);
  S.noise_estimate = D.scale.noise;
}

// What the velocity range says: errors for no motion (and --asymmetric
// without both directions), warnings for one direction or constant velocity.
void motion_checks(const FitOptions& o, long npos, long nneg, double vmin, double vmax, FitSummary& S) {
  if (npos + nneg == 0) throw InputError("no motion: the velocity is zero in every sample of the fitted experiments");
  if (o.asymmetric && (npos == 0 || nneg == 0))
    throw InputError("--asymmetric needs samples moving in both directions; the log has only " +
                     std::string(npos ? "v > 0" : "v < 0"));
  if (npos == 0 || nneg == 0)
    S.warnings.push_back("the log moves in one direction only (" + std::string(npos ? "v > 0" : "v < 0") +
                         "): an offset and the Coulomb level cannot be told apart, and the other direction "
                         "is extrapolated");
  if (vmax - vmin <= 1e-9 * std::max(std::abs(vmax), std::abs(vmin)))
    S.warnings.push_back("the velocity is constant (" + fmt(vmax) +
                         " m/s): velocity-dependent terms cannot be separated from the Coulomb level");
}

// ---------------------------------------------------------------------------
// Phase: start points. The data-driven guess first, then distinct points of
// a coarse evaluation over the box of the free parameters, best first.

// The box: finite bounds where given, else around the guess.
std::vector<BoxAxis> search_box(const ModelInfo& model, const Layout& L, const std::vector<int>& free,
                                const FitData& D) {
  double fmean = 0, fstd = 0;
  for (int e : D.train)
    for (double f : D.data[e].force) fmean += f;
  fmean /= static_cast<double>(D.n);
  for (int e : D.train)
    for (double f : D.data[e].force) fstd += (f - fmean) * (f - fmean);
  fstd = std::sqrt(fstd / static_cast<double>(D.n));
  std::vector<BoxAxis> box(free.size());
  for (size_t f = 0; f < free.size(); ++f) {
    const FitParam& p = L.params[free[f]];
    const double g = p.value;
    box[f].log = p.transform == Transform::kLog;
    if (box[f].log) {
      box[f].lo = p.lo > 0 ? p.lo : g / 100;
      box[f].hi = std::isfinite(p.hi) ? p.hi : g * 100;
    } else {
      double span = std::max(std::abs(g), 1e-12);
      if (p.model_index < 0) span = std::max(span, fstd);
      else span = std::max(span, std::abs(model.params[p.model_index].default_value));
      box[f].lo = std::max(p.lo, g - 2 * span);
      box[f].hi = std::min(p.hi, g + 2 * span);
    }
  }
  return box;
}

// Position of a value in its axis of the box, in [0, 1].
double box_coordinate(const BoxAxis& a, double x) {
  const double t = a.log ? std::log(x / a.lo) / std::log(a.hi / a.lo) : (x - a.lo) / (a.hi - a.lo);
  return std::isfinite(t) ? std::min(1.0, std::max(0.0, t)) : 0.0;
}

// Keeps `want` of the ranked points, skipping those within kMinSeparation
// (per axis of the box) of one already kept, so the refinements explore
// different basins rather than one basin many times; fills up with the
// skipped ones, in rank order, when too few are distinct (`distinct`: how
// many were).
constexpr double kMinSeparation = 0.02;
std::vector<std::vector<double>> distinct_points(const std::vector<std::vector<double>>& ranked,
                                                 const std::vector<double>& guess, const std::vector<int>& free,
                                                 const std::vector<BoxAxis>& box, size_t want, size_t* distinct) {
  auto coords = [&](const std::vector<double>& x) {
    std::vector<double> c(free.size());
    for (size_t f = 0; f < free.size(); ++f) c[f] = box_coordinate(box[f], x[free[f]]);
    return c;
  };
  std::vector<std::vector<double>> kept_coords = {coords(guess)}, kept, skipped;
  for (const auto& x : ranked) {
    if (kept.size() == want) break;
    const auto c = coords(x);
    bool near = false;
    for (const auto& k : kept_coords) {
      double d = 0;
      for (size_t f = 0; f < c.size(); ++f) d = std::max(d, std::abs(c[f] - k[f]));
      near = near || d < kMinSeparation;
    }
    if (near) skipped.push_back(x);
    else kept.push_back(x), kept_coords.push_back(c);
  }
  *distinct = kept.size();
  for (size_t i = 0; kept.size() < want && i < skipped.size(); ++i) kept.push_back(skipped[i]);
  return kept;
}

// Every `stride`-th sample of each experiment.
std::vector<Prepared> subsample(const std::vector<Prepared>& data, size_t stride) {
  stride = std::max<size_t>(1, stride);
  std::vector<Prepared> sub;
  for (const auto& d : data) {
    Prepared s;
    s.name = d.name;
    for (size_t i = 0; i < d.size(); i += stride) s.push_back(d, i);
    sub.push_back(std::move(s));
  }
  return sub;
}

// The coarse evaluation on the fit's own residual blocks (CPU), for layouts
// the sweep engine cannot take (asymmetric, per-experiment): the project's
// scrambled Sobol' points over the box, on a subsample of ~4000 samples.
template <class M>
std::vector<std::vector<double>> residual_search(Layout& L, const FitData& D, const std::vector<int>& free,
                                                 const std::vector<BoxAxis>& box, int points, size_t block,
                                                 const SampleLoss& loss, std::uint64_t seed, size_t keep) {
  const std::vector<Prepared> sub = subsample(D.data, static_cast<size_t>(D.n) / 4000);
  auto coarse = build_problem<M>(L, sub, D.train, block, loss, 1, false);  // costs only
  std::vector<double> saved;
  for (const auto& p : L.params) saved.push_back(p.value);
  std::vector<std::pair<double, std::vector<double>>> scored;
  for (int i = 0; i < points; ++i) {
    for (size_t f = 0; f < free.size(); ++f) {
      const double t = sweep::sobol_unit(static_cast<std::uint64_t>(i), static_cast<int>(f), seed);
      L.params[free[f]].value =
          box[f].log ? box[f].lo * std::pow(box[f].hi / box[f].lo, t) : box[f].lo + (box[f].hi - box[f].lo) * t;
    }
    set_internal_from_values(L);
    double cost = kNaN;
    if (coarse->Evaluate(ceres::Problem::EvaluateOptions(), &cost, nullptr, nullptr, nullptr) && std::isfinite(cost)) {
      std::vector<double> v;
      for (const auto& p : L.params) v.push_back(p.value);
      scored.emplace_back(cost, std::move(v));
    }
  }
  for (size_t i = 0; i < L.params.size(); ++i) L.params[i].value = saved[i];
  set_internal_from_values(L);
  return best_points(std::move(scored), keep);
}

// `guess_after` (multistart.hpp): how many candidates are refined before the
// guess in automatic mode.
template <class M>
std::vector<std::vector<double>> start_points(const ModelInfo& model, Layout& L, const FitData& D,
                                              const std::vector<int>& free, const FitOptions& o, size_t block,
                                              const SampleLoss& loss, FitSummary& S, int* guess_after) {
  *guess_after = 0;
  std::vector<double> guess;
  for (const auto& p : L.params) guess.push_back(p.value);
  std::vector<std::vector<double>> starts = {guess};
  const int k = static_cast<int>(free.size());
  const int wanted = (o.starts > 0 ? o.starts : o.max_starts) - 1;
  if (k == 0 || wanted <= 0) return starts;
  const std::vector<BoxAxis> box = search_box(model, L, free, D);
  const int points = o.coarse_points > 0 ? o.coarse_points : std::max(1024, 512 * k);
  // A pool larger than needed, so distinct basins can be picked from it.
  const size_t pool = static_cast<size_t>(std::min(points, 4 * wanted));
  // Shapes ranked with their levels solved come first: each is the best fit
  // its shape allows (projected_search.hpp); the design over every parameter
  // fills the rest.
  std::vector<std::vector<double>> ranked =
      projected_search<M>(model, L, D.data, D.train, free, box, std::min(points, 1024), o.seed, pool,
                          o.num_threads > 0 ? o.num_threads : job_threads());
  size_t distinct = 0;
  std::vector<std::vector<double>> picked =
      distinct_points(ranked, guess, free, box, static_cast<size_t>(wanted), &distinct);
  const bool projected = !ranked.empty();
  if (projected) S.search_device = "levels projected";
  // The design is ranked only where the projected points hold too few
  // distinct ones (distinct_points takes them first, so the picks with it
  // would be these): on the CPU it costs more than the projection.
  if (distinct < static_cast<size_t>(wanted)) {
    std::vector<std::vector<double>> design;
    std::string device;
    bool seeded = false;
    if (sweep_can_seed(L)) {
      // The sweep engine (GPU when usable) ranks a Sobol' design by RMSE.
      try {
        design = sweep_starts(model, L, D.data, D.train, box, static_cast<int>(pool), points, o.seed, &device);
        seeded = true;
      } catch (const std::exception& err) {  // the search is an aid: fall back, say so
        S.warnings.push_back(std::string("the sweep engine could not run the coarse search (") + err.what() +
                             "); it ran on the fit's residuals instead");
      }
    }
    if (!seeded) {
      design = residual_search<M>(L, D, free, box, points, block, loss, o.seed, pool);
      device = "cpu (fit residuals, Sobol')";
    }
    S.search_device = projected ? device + " + levels projected" : device;
    ranked.insert(ranked.end(), std::make_move_iterator(design.begin()), std::make_move_iterator(design.end()));
    picked = distinct_points(ranked, guess, free, box, static_cast<size_t>(wanted), &distinct);
  }
  if (projected) {
    // The guess is refined after those of the two best projected points
    // that fit the search's samples better than it does: where they agree,
    // the search ends without the guess's walk from a worse basin.
    const SearchSample sub = search_sample(D.data, D.train);
    const double at_guess = sample_ssr<M>(sub, L, guess);
    while (*guess_after < std::min(2, static_cast<int>(picked.size())) &&
           sample_ssr<M>(sub, L, picked[*guess_after]) < at_guess)
      ++*guess_after;
  }
  for (auto& x : picked) starts.push_back(std::move(x));
  return starts;
}

// ---------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------
// Phase: covariance. J^T J of the free parameters' internal coordinates at
// the solution (P x P; ceres::Covariance would factorise the whole N x P
// Jacobian), what it determines, and the covariance of the external values.
struct Uncertainty {
  Identifiability id;
  double s2 = kNaN;       // residual variance SSR / (n - k)
  Eigen::MatrixXd cov_x;  // external values, NaN for the undetermined
};

// J^T J of the free parameters from the solver's last Jacobian, when that was
// taken at this very point over exactly the free parameters (the solution's,
// usually: CompressedCost::last_jacobian): the sums below, row by row in the
// same order as over a new evaluation's matrix, so the same bits, without a
// Jacobian pass over the samples. False when it was not.
bool solver_jtj(const ceres::Problem& P, const Layout& L, const std::vector<int>& free, Eigen::MatrixXd& JtJ) {
  std::vector<double*> blocks;
  const CompressedCost* cost = compressed_cost(P, &blocks);
  if (!cost) return false;
  std::vector<bool> active(blocks.size(), false);
  std::vector<int> col;  // position in `free` of each active block, in the cost's order
  for (size_t g = 0; g < blocks.size(); ++g)
    for (size_t f = 0; f < free.size(); ++f)
      if (blocks[g] == &L.params[free[f]].u) active[g] = true, col.push_back(static_cast<int>(f));
  std::vector<std::vector<double>> J;
  if (col.size() != free.size() || !cost->last_jacobian(blocks.data(), active, &J)) return false;
  const int k = static_cast<int>(col.size());
  for (size_t r = 0; r < J[0].size(); ++r)
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b) JtJ(col[a], col[b]) += J[a][r] * J[b][r];
  return true;
}

Uncertainty uncertainty(ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D,
                        const ceres::Solver::Options& so, double cost) {
  const int k = static_cast<int>(free.size());
  Uncertainty U;
  U.cov_x = Eigen::MatrixXd::Constant(k, k, kNaN);
  if (k == 0) return U;
  Eigen::MatrixXd JtJ = Eigen::MatrixXd::Zero(k, k);
  if (!solver_jtj(P, L, free, JtJ)) {
    std::vector<double*> blocks;
    for (int i : free) blocks.push_back(&L.params[i].u);
    ceres::Problem::EvaluateOptions eo;
    eo.parameter_blocks = blocks;
    eo.num_threads = so.num_threads;
    ceres::CRSMatrix J;
    double c = 0;
    P.Evaluate(eo, &c, nullptr, nullptr, &J);
    for (int r = 0; r < J.num_rows; ++r)
      for (int a = J.rows[r]; a < J.rows[r + 1]; ++a)
        for (int b = J.rows[r]; b < J.rows[r + 1]; ++b) JtJ(J.cols[a], J.cols[b]) += J.values[a] * J.values[b];
  }
  // A parameter whose change by its own size (a factor e for log ones) moves
  // the force by less than kNegligibleEffect of its RMS has no effect: its
  // column is rounding (c_v when K_brk is 1 to rounding), and scaling it to
  // unit length would make it look determined.
  for (int f = 0; f < k; ++f) {
    const FitParam& p = L.params[free[f]];
    double size = 1.0;
    if (p.transform == Transform::kIdentity)
      size = std::max(std::abs(p.value), p.model_index >= 0 ? std::abs(L.model_defaults[p.model_index]) : 0.0);
    else if (p.transform == Transform::kExcess) size = std::max(std::abs(p.u), std::abs(L.params[p.excess_base].value));
    const double effect = std::sqrt(std::max(0.0, JtJ(f, f)) / static_cast<double>(D.n)) * size;
    if (!(effect > kNegligibleEffect * D.scale.force_rms)) {
      JtJ.row(f).setZero();
      JtJ.col(f).setZero();
    }
  }
  U.id = analyse_identifiability(JtJ);
  U.s2 = 2.0 * cost / static_cast<double>(std::max<long>(1, D.n - k));
  const Eigen::MatrixXd G = external_jacobian(L, free);
  // Entries that involve an undetermined parameter are not a variance: NaN.
  U.cov_x = U.s2 * G * U.id.inverse * G.transpose();
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      bool ok = true;
      for (int c2 = 0; c2 < k; ++c2)
        if ((G(i, c2) != 0 && !U.id.determined[c2]) || (G(j, c2) != 0 && !U.id.determined[c2])) ok = false;
      if (!ok) U.cov_x(i, j) = kNaN;
    }
  return U;
}

// The SSR a noiseless fit may reach and still count as exact: the fit's own
// (times 100), or rounding (an effect of 1e-9 of the force's RMS).
double exact_ssr(double ssr_min, const FitData& D) {
  return std::max(100.0 * ssr_min, static_cast<double>(D.n) * std::pow(kNegligibleEffect * D.scale.force_rms, 2));
}

// Whether the residuals are above the floor of a noiseless fit: intervals and
// profiles are for noisy data; a noiseless fit's are exact enough as Wald's.
bool is_noisy(const Uncertainty& U, const FitData& D) { return U.s2 > std::pow(kRelativeFloor * D.scale.force_rms, 2); }

// ---------------------------------------------------------------------------
// Phase: intervals. Wald intervals from the covariance; profile-likelihood
// intervals where the Wald interval cannot be trusted: at a bound, or where
// the cost along the interval's direction is far from quadratic (the SSR at
// the Wald end points differs from z^2 s^2 by more than these factors).
constexpr double kQuadraticLow = 0.7, kQuadraticHigh = 1.4;

// The SSR at the two end points of free parameters' Wald intervals along
// their least-squares paths. On the first request, the end points of every
// determined free parameter are evaluated together, in one pass over the
// samples (CompressedCost::ssr_at: the same bits as evaluate_ssr at each
// point), from the point the layout holds then (the optimum; the profiles
// restore it exactly); point by point through evaluate_ssr otherwise.
class WaldEnds {
 public:
  WaldEnds(ceres::Problem& P, Layout& L, const std::vector<int>& free, const Uncertainty& U)
      : P_(P), L_(L), free_(free), U_(U) {}

  std::array<double, 2> ssr(int f) {
    if (ssr_.empty()) {
      std::vector<int> fs;
      for (int j = 0; j < static_cast<int>(free_.size()); ++j)
        if (U_.id.determined[j] || j == f) fs.push_back(j);
      evaluate(fs);
    }
    if (ssr_.count(f) == 0) evaluate({f});
    return ssr_[f];
  }

 private:
  void evaluate(const std::vector<int>& fs) {
    std::vector<double*> blocks;
    const CompressedCost* cost = compressed_cost(P_, &blocks);
    const int k = static_cast<int>(free_.size());
    const Eigen::MatrixXd& S = U_.id.inverse;
    std::vector<double> u0;
    for (const auto& p : L_.params) u0.push_back(p.u);
    std::vector<std::vector<double>> points;
    for (int f : fs) {
      const double t = kZ975 * std::sqrt(U_.s2 * S(f, f));
      for (int side : {-1, 1}) {
        // Along the least-squares path of f: undetermined parameters move with
        // it (their share of the pseudo-inverse), as a profile would move them.
        for (int j = 0; j < k; ++j) L_.params[free_[j]].u = u0[free_[j]] + side * t * S(j, f) / S(f, f);
        if (cost) {
          points.emplace_back();
          for (const double* b : blocks) points.back().push_back(*b);
        } else {
          ssr_[f][side > 0] = evaluate_ssr(P_);
        }
      }
    }
    for (size_t i = 0; i < L_.params.size(); ++i) L_.params[i].u = u0[i];
    if (!cost) return;
    const std::vector<double> ssr = cost->ssr_at(points);
    for (size_t i = 0; i < fs.size(); ++i) ssr_[fs[i]] = {ssr[2 * i], ssr[2 * i + 1]};
  }

  ceres::Problem& P_;
  Layout& L_;
  const std::vector<int>& free_;
  const Uncertainty& U_;
  std::map<int, std::array<double, 2>> ssr_;
};

// Whether the cost rises as a quadratic would over the Wald interval of free
// parameter f: the SSR at the two end points of its least-squares path.
bool cost_is_quadratic(WaldEnds& ends, const Uncertainty& U, int f, double ssr_min) {
  bool quadratic = true;
  for (const double ssr : ends.ssr(f)) {
    const double rise = (ssr - ssr_min) / (kZ975 * kZ975 * U.s2);
    quadratic = quadratic && rise >= kQuadraticLow && rise <= kQuadraticHigh;
  }
  return quadratic;
}

// One warning for every profile that found a lower cost (`names`, the lowest
// `least`), where the two costs differ in the printed rmse; `significant`:
// below the optimum by more than z^2 s^2 (the fit continues from there while
// FitOptions::max_profile_restarts allows). It never advises the automatic
// search where that already ran.
void lower_cost_warning(FitSummary& S, const FitData& D, const FitOptions& o, const std::string& names, double least,
                        double ssr_min, bool significant) {
  if (names.empty()) return;
  const std::string found = fmt(std::sqrt(least / static_cast<double>(D.n)));
  const std::string at = fmt(std::sqrt(ssr_min / static_cast<double>(D.n)));
  if (found == at) return;
  std::string w =
      "holding " + names + " elsewhere, the fit found a lower cost (rmse " + found + " N against " + at + " N)";
  if (significant) w += ": the solution is not the global optimum";
  else w += ", within the noise of this optimum: the estimates are kept";
  if (o.starts > 0) w += "; the automatic search (--starts 0) may reach a lower cost";
  S.warnings.push_back(w);
}

// `lower`: set to the internal coordinates of the lowest cost a profile found
// significantly below the optimum's (left empty when none did).
void parameter_estimates(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D,
                         const Uncertainty& U, const ceres::Solver::Options& so, const FitOptions& o,
                         std::vector<double>& lower) {
  lower.clear();
  double lowest = kInf;
  // The profiles that found a lower cost than the optimum's by more than one
  // noise variance (a unit of the likelihood ratio; less is rounding and
  // tolerances, e.g. rmse 0.08425 against 0.08425), and the lowest they found.
  std::string lower_names;
  double least_seen = kInf;
  const double ssr_min = 2.0 * S.cost;
  const bool noisy = is_noisy(U, D);
  WaldEnds wald_ends(P, L, free, U);
  // Noiseless fits get no profile; a parameter at a bound is checked instead
  // for a manifold of exact fits running off the bound (K_brk = 1 with
  // c_v = 0, F_brk = F_C where no sample is slow enough to see the peak):
  // every parameter that moves along it is not determined.
  std::vector<bool> flat(L.params.size(), false);
  if (!noisy) {
    // As exact as the fit itself (or rounding): a compensation that only
    // approaches the fit (c_v growing without bound to hide K_brk - 1) is not
    // a flat direction.
    const double ssr_exact = exact_ssr(ssr_min, D);
    // A breakaway level a hair above none (mu_s - mu_c = 6e-8 with its
    // Stribeck term acting at 5e-9 of the force) is none: it goes to its
    // bound when the fit stays exact there, and is probed as one at a bound.
    for (int g : free) {
      FitParam& p = L.params[g];
      double none;
      if (!breakaway_level(p, &none) || p.u == none) continue;
      const double u = p.u;
      p.u = none;
      if (evaluate_ssr(P) <= ssr_exact) set_values_from_internal(L);
      else p.u = u;
    }
    for (int g : free) {
      const FitParam& p = L.params[g];
      const double tol = 1e-9 * std::max(1.0, std::abs(p.value));
      const bool at_bound = (std::isfinite(p.lo) && p.value - p.lo <= tol) ||
                            (std::isfinite(p.hi) && p.hi - p.value <= tol) ||
                            (p.transform == Transform::kExcess && p.u <= tol);
      if (!at_bound || flat[g]) continue;
      // The Stribeck term may not hide below the slowest sample when the log
      // has a slow range; a log without one cannot tell a breakaway below
      // its slowest sample from none, and the probe may hide it there.
      const std::vector<int> moved = flat_off_bound(P, L, g, free, ssr_exact, D.vslow, D.vfast, D.lacks_slow, so);
      std::string names;
      for (int m : moved) flat[m] = true, names += (names.empty() ? "" : ", ") + L.params[m].name;
      if (!moved.empty())
        S.warnings.push_back("the data cannot determine " + names + ": moving " + p.name +
                             " off its bound, they change together and the fit stays exact; they are reported as "
                             "not determined");
    }
  }
  for (size_t i = 0; i < L.params.size(); ++i) {
    const FitParam& p = L.params[i];
    ParameterEstimate pe = estimate_of(p);
    const auto it = std::find(free.begin(), free.end(), static_cast<int>(i));
    if (p.fixed || it == free.end()) {
      S.parameters.push_back(pe);
      continue;
    }
    const int f = static_cast<int>(it - free.begin());
    const double tol = 1e-9 * std::max(1.0, std::abs(p.value));
    pe.at_bound = (std::isfinite(p.lo) && p.value - p.lo <= tol) || (std::isfinite(p.hi) && p.hi - p.value <= tol) ||
                  (p.transform == Transform::kExcess && p.value - L.params[p.excess_base].value <= tol);
    pe.determined = U.id.determined[f] && !flat[i];
    const double var = U.cov_x(f, f);
    if (!pe.determined || !std::isfinite(var) || var < 0) {
      S.parameters.push_back(pe);
      continue;
    }
    pe.std_error = std::sqrt(var);
    const double su = std::sqrt(U.s2 * U.id.inverse(f, f));  // standard error of u
    pe.interval = "wald";
    if (p.transform == Transform::kLog) {  // interval of exp(u): stays positive
      pe.ci95_lo = p.value * std::exp(-kZ975 * su);
      pe.ci95_hi = p.value * std::exp(kZ975 * su);
    } else {
      pe.ci95_lo = p.value - kZ975 * pe.std_error;
      pe.ci95_hi = p.value + kZ975 * pe.std_error;
    }
    interval_in_range(pe, p, L);  // the profile below, where one runs, replaces it
    if (noisy && (pe.at_bound || !cost_is_quadratic(wald_ends, U, f, ssr_min))) {
      const ProfileInterval pr = profile_interval(P, L, static_cast<int>(i), ssr_min, U.s2, su, so);
      auto to_external = [&](double u) {
        if (!std::isfinite(u)) return u;
        switch (p.transform) {
          case Transform::kLog: return std::exp(u);
          case Transform::kExcess: return L.params[p.excess_base].value + u;
          default: return u;
        }
      };
      pe.interval = "profile";
      // Worth continuing from when significantly lower: the optimum lies
      // outside the 95 % region of that point (a lower cost within noise,
      // e.g. along c_v -> 0 with K_brk mimicking a viscous slope, is not).
      if (ssr_min - pr.least_ssr > kZ975 * kZ975 * U.s2 && pr.least_ssr < lowest) {
        lowest = pr.least_ssr;
        lower = pr.least_u;
      }
      if (ssr_min - pr.least_ssr > U.s2) {
        lower_names += (lower_names.empty() ? "" : ", ") + p.name;
        least_seen = std::min(least_seen, pr.least_ssr);
      }
      pe.ci95_lo = p.transform == Transform::kLog && !std::isfinite(pr.lo) ? 0.0 : to_external(pr.lo);
      pe.ci95_hi = to_external(pr.hi);
      // A profile that never rises enough on either side: the data bound it nowhere.
      if (!std::isfinite(pr.lo) && !std::isfinite(pr.hi)) {
        pe.determined = false;
        pe.interval = "none";
        pe.std_error = pe.ci95_lo = pe.ci95_hi = kNaN;
      }
    }
    S.parameters.push_back(pe);
  }
  lower_cost_warning(S, D, o, lower_names, least_seen, ssr_min, !lower.empty());
  for (int i : free) S.free_names.push_back(L.params[i].name);
  const int k = static_cast<int>(free.size());
  S.correlation.assign(k, std::vector<double>(k, kNaN));
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) S.correlation[a][b] = U.cov_x(a, b) / std::sqrt(U.cov_x(a, a) * U.cov_x(b, b));
}

// ---------------------------------------------------------------------------
// Phase: warnings, in plain language.
void fit_warnings(FitSummary& S, const Layout& L, const std::vector<int>& free, const FitData& D, const Uncertainty& U,
                  const SearchResult& R, const FitOptions& o) {
  const std::string slow = fmt(D.vslow);
  auto low_speed_hint = [&](bool low) {
    return low && D.lacks_slow ? "; the log has no samples below |v| = " + slow +
                                     " m/s, and breakaway/Stribeck parameters only act at lower speeds"
                               : std::string();
  };
  auto is_low_speed = [&](int f) { return L.params[free[f]].low_speed; };
  // A parameter is named as not determined once: the off-bound check of the
  // intervals phase ("the data cannot determine K_brk, c_v: moving K_brk
  // off its bound ...") names some before the checks below would again.
  std::set<std::string> named;
  const std::string cannot = "the data cannot determine ";
  for (const auto& w : S.warnings) {
    const size_t end = w.find(':');
    if (w.compare(0, cannot.size(), cannot) != 0 || end == std::string::npos) continue;
    std::stringstream list(w.substr(cannot.size(), end - cannot.size()));
    for (std::string n; std::getline(list, n, ',');) named.insert(n.substr(n.find_first_not_of(' ')));
  }
  for (const auto& group : U.id.flat_groups) {
    std::string names;
    bool low = false, new_name = false;
    for (int f : group) {
      names += (names.empty() ? "" : ", ") + L.params[free[f]].name;
      low = low || is_low_speed(f);
      new_name = new_name || !named.count(L.params[free[f]].name);
    }
    if (!new_name) continue;
    S.warnings.push_back("the data cannot determine " + names +
                         (group.size() == 1 ? " (it has no effect on the fit at the solution)"
                                            : " (changing them together does not change the fit)") +
                         low_speed_hint(low) + "; it is reported as not determined; fix it with --fix or add data");
  }
  const bool undetermined = std::any_of(S.parameters.begin(), S.parameters.end(),
                                        [](const ParameterEstimate& p) { return !p.fixed && !p.determined; });
  if (undetermined && S.status == FitStatus::kConverged) S.status = FitStatus::kSingular;
  if (S.status == FitStatus::kMaxIterations)
    S.warnings.push_back("not converged: the solver stopped after " + std::to_string(o.max_iterations) +
                         " iterations; the estimates are not final");
  if (S.status == FitStatus::kFailed) S.warnings.push_back("the solver failed: " + S.solver_message);
  if (o.starts == 0 && free.size() > 0 && !R.settled)
    S.warnings.push_back("the global search did not settle: " + std::to_string(R.runs) + " starts, " +
                         std::to_string(R.at_best) +
                         " reached the best cost; the optimum may not be global (try --starts N with a larger N, "
                         "or --bounds)");
  for (int a = 0; a < static_cast<int>(free.size()); ++a) {
    const ParameterEstimate& pe = S.param(S.free_names[a]);
    if (!pe.determined) {
      if (U.id.determined[a] && !named.count(pe.name))  // determined locally, but the profile is flat everywhere
        S.warnings.push_back(pe.name + " is not determined: the cost stays within the 95 % level over its whole range" +
                             low_speed_hint(is_low_speed(a)));
      continue;
    }
    if (pe.at_bound)
      S.warnings.push_back(pe.name + " = " + fmt(pe.value) + " is at its bound" +
                           (pe.interval == "profile" ? "; its interval is the one-sided profile-likelihood interval"
                                                     : "; its interval is one-sided, from the bound"));
    else if (std::isfinite(pe.std_error) && pe.std_error > o.max_relative_std_error * std::abs(pe.value))
      S.warnings.push_back(pe.name + " is poorly determined: " + fmt(pe.value) + " +/- " + fmt(pe.std_error) + " (" +
                           fmt(100.0 * pe.std_error / std::abs(pe.value)) + " %)" + low_speed_hint(is_low_speed(a)));
    for (int b = a + 1; b < static_cast<int>(free.size()); ++b)
      if (std::abs(S.correlation[a][b]) > o.max_abs_correlation)
        S.warnings.push_back(S.free_names[a] + " and " + S.free_names[b] + " cannot be separated (correlation " +
                             fmt(S.correlation[a][b]) + ")" + low_speed_hint(is_low_speed(a) || is_low_speed(b)));
  }
  // (Not for a fit exact to rounding: the "residuals" are then rounding errors.)
  const bool exact = S.rmse <= kRelativeFloor * D.scale.force_rms;
  if (std::abs(S.autocorrelation_lag1) > 0.9 && S.status == FitStatus::kConverged && !exact)
    S.warnings.push_back("the residuals are strongly autocorrelated (lag-1 " + fmt(S.autocorrelation_lag1) +
                         "): the model misses a systematic effect and the standard errors are optimistic");
  else if (!R.noise_floor && !exact && S.autocorrelation_lag1 > 0.5)
    S.warnings.push_back("the residual (rmse " + fmt(S.rmse) + " N) is " +
                         fmt(S.rmse / std::max(D.scale.noise, 1e-300)) + " times the noise estimated from the data (" +
                         fmt(D.scale.noise) +
                         " N) and autocorrelated: the model misses an effect, or the optimum is not global");
}

// Canonical values of what the data do not determine. An undetermined
// parameter is wherever its flat direction left it, and the law carries it
// beyond the data: K_brk = 415 with c_v = 801 fitted a stroke none of whose
// samples is slow enough to see the Stribeck term, and predicted a 6.5 kN
// breakaway at v = 0 wherever the reported law was evaluated or exported.
// So each undetermined breakaway level goes to none (a ratio at its lower
// bound, a level at the Coulomb level), then each undetermined Stribeck
// velocity (rate) into the data, at the slowest moving sample; by roles,
// never by names. A move stays only where the SSR stays the fit's (to
// rounding): on the data the law is the one fitted. Returns whether a value
// moved; the caller computes the quality again.
bool canonical_values(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D) {
  auto estimate = [&](int i) -> ParameterEstimate* {
    for (auto& pe : S.parameters)
      if (pe.name == L.params[i].name) return &pe;
    return nullptr;
  };
  const double ssr0 = evaluate_ssr(P);
  if (!std::isfinite(ssr0)) return false;
  const double allow =
      ssr0 * (1 + 1e-9) + static_cast<double>(D.n) * std::pow(kNegligibleEffect * D.scale.force_rms, 2);
  bool moved = false;
  auto try_at = [&](int i, double u) {
    FitParam& p = L.params[i];
    const double before = p.u;
    if (u == before) return;
    p.u = u;
    if (evaluate_ssr(P) <= allow) moved = true;
    else p.u = before;
  };
  for (int pass = 0; pass < 2; ++pass)
    for (int i : free) {
      const ParameterEstimate* pe = estimate(i);
      if (!pe || pe->determined) continue;
      const FitParam& p = L.params[i];
      double none;
      if (pass == 0 && breakaway_level(p, &none)) try_at(i, none);
      const bool velocity = p.role == ParamRole::kStribeckVelocity, rate = p.role == ParamRole::kStribeckRate;
      if (pass == 1 && (velocity || rate) && p.transform != Transform::kExcess && D.vslow > 0 &&
          std::isfinite(D.vslow)) {
        const double x = std::min(std::max(velocity ? D.vslow : 1.0 / D.vslow, p.lo), p.hi);
        if (x > 0 || p.transform != Transform::kLog) try_at(i, p.transform == Transform::kLog ? std::log(x) : x);
      }
    }
  if (!moved) return false;
  set_values_from_internal(L);
  for (int i : free)
    if (ParameterEstimate* pe = estimate(i); pe && !pe->determined) {
      const FitParam& p = L.params[i];
      const double tol = 1e-9 * std::max(1.0, std::abs(p.value));
      pe->value = p.value;
      pe->at_bound = (std::isfinite(p.lo) && p.value - p.lo <= tol) || (std::isfinite(p.hi) && p.hi - p.value <= tol) ||
                     (p.transform == Transform::kExcess && p.u <= tol);
    }
  return true;
}

// Canonical values (canonical_values), with the quality computed again at
// them (quality() fills the fit-quality fields and per-experiment signals).
template <class Quality>
void canonical_form(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D,
                    Quality&& quality) {
  if (!canonical_values(S, P, L, free, D)) return;
  S.experiments.clear();
  quality();
}

// Each warning once: the phases that run again after a restart, and the
// quality phase per experiment, may add the same sentence twice.
void unique_warnings(FitSummary& S) {
  std::vector<std::string> kept;
  for (auto& w : S.warnings)
    if (std::find(kept.begin(), kept.end(), w) == kept.end()) kept.push_back(std::move(w));
  S.warnings = std::move(kept);
}

// ---------------------------------------------------------------------------
// Few filtered samples. Parallel filtering leaves out the samples whose
// filter support reaches a reversal or an end, and keeps every D-th of the
// rest: a short stroke with many reversals can keep a few dozen of 800. Under
// about ten kept samples per free parameter the estimates rest on too few
// points; a higher cut-off (a shorter support, a smaller D) keeps more, as
// long as the motion's band stays below it (docs/identification.md).
constexpr long kKeptPerParameter = 10;

void few_filtered_samples(FitSummary& S, const std::vector<Experiment>& experiments, const ModelInfo& model,
                          const FitOptions& o, const FitData& D, int k) {
  const long want = kKeptPerParameter * k;
  double used = 0, rate = kInf;
  long reversal = 0, ends = 0;
  for (int e : D.train) {
    const FilterReport& f = D.data[e].filter;
    if (!f.filtered) continue;
    used = std::max(used, f.cutoff_hz);
    rate = std::min(rate, f.rate_hz);
    reversal += f.near_reversal;
    ends += f.near_end;
  }
  if (!(used > 0) || D.n >= want) return;
  // The kept samples at a trial cut-off, as the fit would prepare them.
  auto kept_at = [&](double cutoff) {
    FitOptions t = o;
    t.cutoff_hz = cutoff;
    long n = 0;
    for (int e : D.train) try {
        n += static_cast<long>(prepare_data({experiments[e]}, model, t)[0].size());
      } catch (const InputError&) {  // nothing left at this cut-off
      }
    return n;
  };
  double best_cutoff = 0;
  long best = D.n;
  for (double c = used * std::sqrt(2.0); c < 0.45 * rate; c *= std::sqrt(2.0)) {
    const long n = kept_at(std::round(c * 100) / 100);
    if (n > best) best = n, best_cutoff = std::round(c * 100) / 100;
    if (n >= want) break;
  }
  std::string w = "parallel filtering kept only " + std::to_string(D.n) + " samples for " + std::to_string(k) +
                  " free parameters (fewer than " + std::to_string(kKeptPerParameter) + " each; at cut-off " +
                  fmt(used) + " Hz, " + std::to_string(reversal) + " left out near velocity reversals, " +
                  std::to_string(ends) + " near the ends): ";
  if (best_cutoff > 0)
    w += "--cutoff " + fmt(best_cutoff) + " keeps " + std::to_string(best) +
         " (if the motion's band lies below it; compare the estimates at both)";
  else
    w += "no cut-off below the Nyquist frequency keeps more; fit unfiltered with --no-parallel-filter, or record "
         "longer strokes";
  S.warnings.push_back(w);
}

// ---------------------------------------------------------------------------
// Missing terms (missing_terms.hpp): the force-balance term the user left
// out, scored against the residual of every training sample.
template <class M>
void missing_terms(FitSummary& S, const Layout& L, const FitData& D, const FitOptions& o, const ModelInfo& model) {
  MissingTermGram gram;
  for (int e : D.train) {
    const std::vector<double>& kept = S.experiments[e].residual;
    gram.add(D.data[e], acceleration_of(D.data[e], o), kept.empty() ? raw_residuals<M>(L, D.data[e], e) : kept);
  }
  gram.advise(S, o, model.needs(kChannelNormalForce), D.scale.force_rms, D.scale.noise);
}

// Whether a converged fit stops well above the noise estimated from the data
// (half as much again: the estimate itself is uncertain).
bool misfit(const FitSummary& S, const FitData& D, const SearchResult& R) {
  const bool exact = S.rmse <= kRelativeFloor * D.scale.force_rms;
  return !exact && !R.noise_floor && S.rmse > 1.5 * D.scale.noise &&
         (S.status == FitStatus::kConverged || S.status == FitStatus::kSingular);
}

// Adds a later solve's iterations and time to the summary's.
void count_solve(FitSummary& S, const ceres::Solver::Summary& sum) {
  S.iterations += static_cast<int>(sum.iterations.size());
  S.solver_seconds += sum.total_time_in_seconds;
}

// Phase: fixed parameters. A misfit far above the noise is often a parameter
// held at a default that does not suit this rig (the linear zone v_th of a
// cylinder, a smoothing width): each parameter fixed by default (not by
// --fix) is freed alone from the optimum, and one that lowers the SSR by
// more than z^2 sigma^2 and the rmse by a fifth is named, with the value it
// goes to. The reported fit is unchanged; the optimum is restored.
void check_fixed_parameters(FitSummary& S, ceres::Problem& P, Layout& L, const FitData& D,
                            const ceres::Solver::Options& so, const FitOptions& o) {
  std::vector<double> at_optimum;
  for (const auto& q : L.params) at_optimum.push_back(q.u);
  auto user_fixed = [&](const std::string& base) {
    return std::any_of(o.fix.begin(), o.fix.end(),
                       [&](const std::string& f) { return f.compare(0, f.find('='), base) == 0; });
  };
  const double z2s2 = kZ975 * kZ975 * D.scale.noise * D.scale.noise;
  std::string free_list = ",";  // the model parameters estimated now, for the hint
  for (const auto& q : L.params)
    if (!q.fixed && q.model_index >= 0 && free_list.find("," + q.base + ",") == std::string::npos)
      free_list += q.base + ",";
  for (auto& p : L.params) {
    if (!p.fixed || p.model_index < 0 || !P.HasParameterBlock(&p.u) || user_fixed(p.base)) continue;
    P.SetParameterBlockVariable(&p.u);
    bound(P, p);
    ceres::Solver::Options quiet = so;
    quiet.callbacks.clear();
    ceres::Solver::Summary sum;
    ceres::Solve(quiet, &P, &sum);
    count_solve(S, sum);
    set_values_from_internal(L);
    const double freed = p.value, cost = sum.final_cost;
    const double rmse = S.rmse * std::sqrt(std::max(cost, 0.0) / S.cost);
    if (sum.IsSolutionUsable() && 2 * (S.cost - cost) > z2s2 && rmse < 0.8 * S.rmse) {
      std::string with = free_list;
      if (with.find("," + p.base + ",") == std::string::npos) with += p.base + ",";
      S.warnings.push_back(p.name + " is held at " + fmt(S.param(p.name).value) + " " + p.unit +
                           "; freed, it goes to " + fmt(freed) + " " + p.unit + " and the rmse falls from " +
                           fmt(S.rmse) + " to " + fmt(rmse) + " N: estimate it too (--free " +
                           with.substr(1, with.size() - 2) + ")");
    }
    for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = at_optimum[i];
    P.SetParameterBlockConstant(&p.u);
    set_values_from_internal(L);
  }
}

FitSummary failed_fit(FitSummary S, const Layout& L, const FitOptions& o) {
  // No start could be evaluated, and the user chose values: theirs are what
  // the model cannot take (--init F_pr=1e308 overflows the force at every
  // sample), not the data; a summary of a fit that never started ("failed,
  // 0 samples") would hide it.
  std::string given;
  for (const auto& [flag, list] : {std::make_pair("--init ", &o.initial), std::make_pair("--fix ", &o.fix)})
    for (const std::string& a : *list)
      if (a.find('=') != std::string::npos) given += (given.empty() ? "" : ", ") + (flag + a);
  if (!given.empty())
    throw InputError(given + ": the model's force is not finite at the start this gives (no start of the fit " +
                     "could be evaluated); give values on the scale of the data");
  S.status = FitStatus::kFailed;
  S.solver_message = "no start gave a usable solution";
  S.rmse = S.r_squared = S.max_abs_error = S.aic = S.bic = kNaN;
  S.warnings.push_back("the fit failed: the model could not be evaluated at any start (non-finite force)");
  for (const auto& p : L.params) {
    ParameterEstimate pe = estimate_of(p);
    pe.determined = p.fixed;
    S.parameters.push_back(pe);
  }
  return S;
}

// ---------------------------------------------------------------------------
// Phase: polish. The best solution of a search on a subsample refined on every
// sample; each iteration is reported (phase "polish", iteration, cost).

void polish(ceres::Problem& problem, const Layout& L, ceres::Solver::Options so, const Phases& phases,
            SearchResult& R) {
  if (!R.usable) return;
  FitProgress start;
  start.phase = "polish";
  ProgressCallback cb(phases, start);
  so.callbacks.push_back(&cb);
  ceres::Solver::Summary polish;
  ceres::Solve(so, &problem, &polish);
  R.iterations += static_cast<int>(polish.iterations.size());
  R.solver_seconds += polish.total_time_in_seconds;
  R.usable = polish.IsSolutionUsable() && std::isfinite(polish.final_cost);
  R.best = polish;
  R.best_u.clear();
  for (const auto& q : L.params) R.best_u.push_back(q.u);
}

// The free parameters that have a block in the problem (held-out
// experiments cannot determine their own per-experiment unknowns); refuses
// fewer samples than that.
std::vector<int> free_in_problem(const ceres::Problem& problem, Layout& L, long n) {
  std::vector<int> free;
  for (int i : L.free_indices())
    if (problem.HasParameterBlock(&L.params[i].u)) free.push_back(i);
  if (n <= static_cast<long>(free.size()))
    throw InputError("too few samples: " + std::to_string(n) + " samples for " + std::to_string(free.size()) +
                     " free parameters");
  return free;
}

// The solver options of a static fit: bounds are enforced by clamping the
// step (ParameterBlock::Plus); Ceres' extra projected line search would cost
// a second Jacobian per iteration.
ceres::Solver::Options fit_solver_options(const FitOptions& o, int threads) {
  ceres::Solver::Options so = solver_options(o, threads);
  so.max_num_line_search_step_size_iterations = 0;
  // Ceres sees one residual block (the compressed cost, which runs its own
  // threads over the sample blocks) and a k x k system: its threads would
  // only be started and joined, at every evaluation.
  so.num_threads = 1;
  return so;
}

// The fit's status from the solver's termination.
FitStatus status_of(const ceres::Solver::Summary& sum) {
  return sum.termination_type == ceres::CONVERGENCE      ? FitStatus::kConverged
         : sum.termination_type == ceres::NO_CONVERGENCE ? FitStatus::kMaxIterations
                                                         : FitStatus::kFailed;
}

// The search's outcome into the summary and the layout's values; false when
// no start gave a usable solution.
bool take_search_result(FitSummary& S, Layout& L, const SearchResult& R) {
  S.starts = R.runs;
  S.starts_at_best = R.at_best;
  S.best_start = R.best_index;
  S.iterations = R.iterations;
  S.solver_seconds = R.solver_seconds;
  if (!R.usable) return false;
  set_values_from_internal(L);
  S.cost = R.best.final_cost;
  S.solver_message = R.best.message;
  S.status = status_of(R.best);
  return true;
}

// The fit continues from the layout's internal coordinates, the solution of
// `sum`: it becomes the search's best, and what the estimates phases wrote
// for the point before (parameters, correlations, their warnings) goes.
void continue_from(FitSummary& S, Layout& L, SearchResult& R, const ceres::Solver::Summary& sum,
                   size_t warnings_before) {
  R.best = sum;
  R.best_u.clear();
  for (const auto& q : L.params) R.best_u.push_back(q.u);
  set_values_from_internal(L);
  S.cost = sum.final_cost;
  S.solver_message = sum.message;
  S.status = status_of(sum);
  S.warnings.resize(warnings_before);
  S.experiments.clear();
  S.parameters.clear();
  S.free_names.clear();
  S.correlation.clear();
}

// Whether a free Stribeck term acts as a constant over the data: its
// velocity scale above a thousand times the fastest |v| (its rate below a
// thousandth of the inverse), with a free breakaway level.
bool breakaway_is_constant(const Layout& L, const std::vector<int>& free, double vfast) {
  if (!(vfast > 0) || !std::isfinite(vfast)) return false;
  bool level = false, constant = false;
  for (int i : free) {
    const FitParam& p = L.params[i];
    double none;
    level = level || breakaway_level(p, &none);
    if (p.role == ParamRole::kStribeckVelocity) constant = constant || p.value > 1e3 * vfast;
    if (p.role == ParamRole::kStribeckRate) constant = constant || p.value * vfast < 1e-3;
  }
  return level && constant;
}

// Whether the data leave the breakaway open: a flat direction of the fit
// runs through breakaway or Stribeck parameters and parameters of other
// roles, or through a breakaway level above none, or a breakaway or Stribeck parameter's standard error exceeds its
// value (a narrow band of speeds, where a Stribeck term drifts towards a huge
// level hidden far below: R_brk 1.9e10 +/- 1.4e12 at v_brk 0.012 m/s in a log
// at 0.099-0.105 m/s).
bool breakaway_confounds(const Uncertainty& U, const Layout& L, const std::vector<int>& free) {
  for (const auto& group : U.id.flat_groups) {
    bool low = false, other = false, level = false;
    for (int j : group) {
      const FitParam& p = L.params[free[j]];
      (p.low_speed ? low : other) = true;
      // A breakaway level above none that the data leave open (K_brk = 415
      // traded against c_v = 801 where no sample is slow enough to see the
      // peak: a 6.5 kN breakaway that nothing measured).
      double none;
      level = level || (breakaway_level(p, &none) && p.u != none);
    }
    if ((low && other) || level) return true;
  }
  for (size_t f = 0; f < free.size(); ++f) {
    const FitParam& p = L.params[free[f]];
    if (!p.low_speed || !U.id.determined[f]) continue;
    const double var = U.cov_x(static_cast<long>(f), static_cast<long>(f));
    if (std::isfinite(var) && var >= 0 && std::sqrt(var) > std::abs(p.value)) return true;
  }
  return false;
}

// Whether the fit's cost, where the compressed cost predicted evaluations
// (a law linear in its free parameters), is the SSR the quality phase found
// by evaluating the law (to rounding: predictions follow the anchor's bits,
// quality M::force's). Where it is not, every later evaluation is a pass.
bool predictions_hold(const ceres::Problem& P, double quality_ssr, double cost, const FitData& D) {
  std::vector<double*> blocks;
  const CompressedCost* c = compressed_cost(P, &blocks);
  return !c || c->confirm(2.0 * cost, quality_ssr,
                          static_cast<double>(D.n) * std::pow(kNegligibleEffect * D.scale.force_rms, 2));
}

// Quality, covariance and intervals (quality() fills the fit-quality fields),
// with the restarts from a lower cost a profile finds; returns the
// uncertainty at the final optimum.
template <class Quality>
Uncertainty estimates_with_restarts(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free,
                                    const FitData& D, const ceres::Solver::Options& so, SearchResult& R, Phases& phases,
                                    const FitOptions& o, Quality&& quality) {
  // A profile that finds a lower cost (holding one parameter elsewhere let
  // the others leave the basin) is a better start than any the search had:
  // the fit continues from it and these phases run again, at most
  // FitOptions::max_profile_restarts times.
  const size_t warnings_before = S.warnings.size();
  Uncertainty U;
  for (int restart = 0;; ++restart) {
    phases.begin("quality");
    const double ssr = quality();
    if (!predictions_hold(P, ssr, S.cost, D)) {
      // A law not linear in a level after all: solved again from here with
      // a pass per evaluation.
      phases.begin("solve without predictions");
      ceres::Solver::Summary again;
      ceres::Solve(so, &P, &again);
      count_solve(S, again);
      if (again.IsSolutionUsable()) continue_from(S, L, R, again, warnings_before);
      else set_values_from_internal(L);
      phases.begin("quality");
      quality();
    }

    phases.begin("covariance");
    U = uncertainty(P, L, free, D, so, S.cost);

    phases.begin("intervals");
    std::vector<double> lower;
    parameter_estimates(S, P, L, free, D, U, so, o, lower);
    if (lower.empty() || restart >= o.max_profile_restarts) break;

    phases.begin("restart from a profile");
    std::vector<double> at_optimum;
    for (const auto& q : L.params) at_optimum.push_back(q.u);
    for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = lower[i];
    ceres::Solver::Summary again;
    ceres::Solve(so, &P, &again);
    count_solve(S, again);
    if (!again.IsSolutionUsable() || !(again.final_cost < S.cost * (1 - 1e-9))) {
      for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = at_optimum[i];
      set_values_from_internal(L);
      break;  // keeps the intervals and warnings of the optimum above
    }
    continue_from(S, L, R, again, warnings_before);
    ++S.profile_restarts;
  }

  return U;
}

// The estimates phases (estimates_with_restarts), and once more from the
// law without a breakaway where a flat direction runs through breakaway or
// Stribeck parameters and others (R_brk and v_brk with F_pr and f_cfr where
// every sample is faster than the breakaway): that law fits within the noise
// and determines those terms (docs/identification.md, "A breakaway no sample
// sees").
template <class Quality>
Uncertainty estimates(FitSummary& S, ceres::Problem& P, Layout& L, const std::vector<int>& free, const FitData& D,
                      const ceres::Solver::Options& so, SearchResult& R, Phases& phases, const FitOptions& o,
                      Quality&& quality) {
  const size_t warnings_before = S.warnings.size();
  Uncertainty U = estimates_with_restarts(S, P, L, free, D, so, R, phases, o, quality);
  const bool noisy = is_noisy(U, D);
  // A noiseless fit whose Stribeck term is a constant over the data (its
  // velocity scale far above the fastest sample: c_v -> 0) is the law without
  // a breakaway with the levels scaled; it is reported in that form when the
  // form fits exactly (docs/identification.md, "Noiseless fits at a bound").
  if (noisy ? !breakaway_confounds(U, L, free) : !breakaway_is_constant(L, free, D.vfast)) return U;
  phases.begin("hidden breakaway");
  // A log without a slow range cannot tell a breakaway hidden below its
  // slowest sample from none: the Stribeck velocity goes three decades below
  // it, and the breakaway level is then not determined. In a log with a slow
  // range the convention is that a breakaway does not hide below the data:
  // the velocity goes to the slowest sample, where the level's interval
  // says how large a breakaway the slow samples still allow.
  const double hide_at = D.lacks_slow ? 1e-3 * D.vslow : D.vslow;
  const double allow = noisy ? 2.0 * S.cost + kZ975 * kZ975 * U.s2 : exact_ssr(2.0 * S.cost, D);
  const auto hidden = hide_breakaway(P, L, free, hide_at, allow, so);
  if (!hidden) return U;
  count_solve(S, *hidden);
  continue_from(S, L, R, *hidden, warnings_before);
  U = estimates_with_restarts(S, P, L, free, D, so, R, phases, o, quality);
  if (!noisy)
    S.warnings.push_back(
        "the breakaway term was a constant over the data (its Stribeck velocity far above the "
        "fastest sample, |v| = " +
        fmt(D.vfast) + "): the fit reports the same law without a breakaway, the levels scaled");
  else
    S.warnings.push_back(
        "no breakaway is seen in the data: the fit reports the law without one (breakaway at the Coulomb level" +
        std::string(D.lacks_slow ? "), which fits as well as one hidden below the slowest sample, |v| = "
                                 : ", Stribeck velocity at the slowest sample, |v| = ") +
        fmt(D.vslow) + (D.lacks_slow ? "" : ")"));
  return U;
}

// ---------------------------------------------------------------------------
// A static fit, phase by phase.
template <class M>
FitSummary run_fit(const ModelInfo& model, const std::vector<Experiment>& experiments, const FitOptions& o) {
  FitSummary S;
  S.model = model.id;
  Phases phases(S, o);

  phases.begin("validate options");
  validate_options(o);

  phases.begin("check data");
  FitData D = check_data(experiments, model, o, S);

  phases.begin("layout");
  Layout L = make_layout(model, o, D.data);
  const SampleLoss loss = parse_loss(o.loss);
  const size_t block = static_cast<size_t>(std::max(16, o.block_size));
  const int threads = o.num_threads > 0 ? o.num_threads : job_threads();
  auto problem = build_problem<M>(L, D.data, D.train, block, loss, threads);
  const std::vector<int> free = free_in_problem(*problem, L, D.n);
  const int k = static_cast<int>(free.size());
  const ceres::Solver::Options so = fit_solver_options(o, threads);

  phases.begin("start points");
  int guess_after = 0;
  const auto candidates = start_points<M>(model, L, D, free, o, block, loss, S, &guess_after);

  phases.begin("multistart");
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
    polish(*problem, L, so, phases, R);
  } else {
    const ProblemFactory more = [&](Layout& Lw) { return build_problem<M>(Lw, D.data, D.train, block, loss, 1); };
    R = multistart(*problem, L, candidates, o, so, D.scale, phases, guess_after, more, threads);
  }
  if (!take_search_result(S, L, R)) {
    phases.end();
    FitSummary F = failed_fit(std::move(S), L, o);
    F.seconds = phases.total();
    return F;
  }

  const Uncertainty U =
      estimates(S, *problem, L, free, D, so, R, phases, o, [&] { return fit_quality<M>(S, L, D, *problem, o, k); });

  phases.begin("warnings");
  // (Static laws only: a dynamic model's steady-state stage hands its
  // values on to the dynamic stages, which report for themselves.)
  if (!model.dynamic) canonical_form(S, *problem, L, free, D, [&] { return fit_quality<M>(S, L, D, *problem, o, k); });
  fit_warnings(S, L, free, D, U, R, o);
  if (!model.dynamic) missing_terms<M>(S, L, D, o, model);
  if (!model.dynamic) few_filtered_samples(S, experiments, model, o, D, k);
  if (misfit(S, D, R)) {
    phases.begin("fixed parameters");
    check_fixed_parameters(S, *problem, L, D, so, o);
  }
  unique_warnings(S);
  S.converged = S.status == FitStatus::kConverged;
  phases.end();
  S.seconds = phases.total();
  return S;
}

// ---------------------------------------------------------------------------
// Streamed fits (stream_fit.hpp): the same phases, with the log read chunk by
// chunk on every pass over all samples.

// The problem over every sample, streamed: per chunk, the blocks of `block`
// samples (chunks are whole numbers of blocks, so the blocks are those of
// build_problem), evaluated with threads over blocks and dropped.
template <class M>
std::unique_ptr<ceres::Problem> build_streamed_problem(Layout& L, const PreparedStream& st,
                                                       const std::vector<int>& exps, size_t block,
                                                       const SampleLoss& loss, int threads) {
  std::vector<int> pos(L.params.size(), -1), used;
  auto specs = std::make_shared<std::vector<BlockSpec>>(st.experiments());
  auto locals = std::make_shared<std::vector<std::vector<int>>>(st.experiments());
  for (int e : exps) {
    (*specs)[e] = spec_for(L, e, M::kNumParams);
    for (int g : (*specs)[e].global)
      if (pos[g] < 0) pos[g] = static_cast<int>(used.size()), used.push_back(g);
    for (int g : (*specs)[e].global) (*locals)[e].push_back(pos[g]);
  }
  const Layout* layout = &L;
  const PreparedStream* stream = &st;
  BlockSource source = [layout, stream, exps, block, loss, specs,
                        locals](const std::function<void(const BlockChunk&)>& use) {
    std::vector<std::unique_ptr<ceres::CostFunction>> costs;
    BlockChunk c;
    stream->for_each(exps, [&](int e, size_t, const Prepared& chunk) {
      costs.clear();
      c.blocks.clear();
      c.params.clear();
      for (size_t k = 0; k < chunk.size(); k += block) {
        costs.emplace_back(make_cost<M>(*layout, (*specs)[e], &chunk, k, std::min(chunk.size(), k + block), loss));
        c.blocks.push_back(costs.back().get());
        c.params.push_back(&(*locals)[e]);
      }
      use(c);
    });
  };
  auto P = std::make_unique<ceres::Problem>();
  std::vector<double*> blocks;
  for (int g : used) blocks.push_back(&L.params[g].u);
  auto* cost = new CompressedCost(std::move(source), static_cast<int>(used.size()), threads, true);
  cost->set_affine(affine_params(L, used, loss));
  P->AddResidualBlock(cost, nullptr, blocks);
  constrain(*P, L);
  return P;
}

// The residuals (measured - fitted, no robust loss) of the streamed
// experiments chunk by chunk: use(e, first row, chunk, residuals).
template <class M, class Use>
void for_streamed_residuals(const Layout& L, const PreparedStream& st, const std::vector<int>& exps, bool prefetch,
                            Use&& use) {
  std::vector<double> r;
  std::vector<BlockSpec> specs(st.experiments());
  std::vector<std::vector<const double*>> ptrs(st.experiments());
  for (int e : exps) {
    specs[e] = spec_for(L, e, M::kNumParams);
    for (int g : specs[e].global) ptrs[e].push_back(&L.params[g].u);
  }
  st.for_each(
      exps,
      [&](int e, size_t begin, const Prepared& c) {
        std::unique_ptr<BlockCost<M>> cost(make_cost<M>(L, specs[e], &c, 0, c.size(), SampleLoss{}));
        r.assign(c.size(), kNaN);
        cost->Evaluate(ptrs[e].data(), r.data(), nullptr);
        use(e, begin, c, r);
      },
      prefetch);
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

template <class M>
FitSummary run_streamed(const ModelInfo& model, const PreparedStream& st, const FitOptions& o,
                        const StreamOptions& sopt) {
  FitSummary S;
  S.model = model.id;
  Phases phases(S, o);

  phases.begin("validate options");
  validate_options(o);
  if (!o.validate.empty()) throw InputError("--validate: not available for a streamed fit (use --stream never)");
  if (sopt.search_samples < 1) throw InputError("StreamOptions::search_samples must be >= 1");

  phases.begin("check data");
  std::vector<int> all(st.experiments());
  for (int e = 0; e < st.experiments(); ++e) all[e] = e;
  StreamScan sc = scan_stream(st, all, sopt.search_samples);
  // D: the statistics of every sample (no data held); Dsub: the subsample
  // the layout, the start points and the search work on.
  FitData D, Dsub;
  Dsub.data = std::move(sc.sample);
  Dsub.train = all;
  if (sc.whole) {
    check_samples(Dsub, o, S);  // every sample: fit()'s own checks
    D.n = Dsub.n;
    D.vslow = Dsub.vslow;
    D.vfast = Dsub.vfast;
    D.lacks_slow = Dsub.lacks_slow;
    D.scale = Dsub.scale;
  } else {
    motion_checks(o, sc.npos, sc.nneg, sc.vmin, sc.vmax, S);
    D.n = sc.n;
    D.vslow = sc.vslow;
    D.vfast = std::max(std::abs(sc.vmin), std::abs(sc.vmax));
    D.lacks_slow = D.vslow > 0.1 * sc.v_median;
    D.scale.samples = D.n;
    D.scale.force_rms = std::sqrt(sc.ysq / static_cast<double>(D.n));
    D.scale.noise = sc.noise;
    S.noise_estimate = D.scale.noise;
    for (int e : all) Dsub.n += static_cast<long>(Dsub.data[e].size());
    Dsub.vslow = D.vslow;
    Dsub.vfast = D.vfast;
    Dsub.lacks_slow = D.lacks_slow;
    Dsub.scale = D.scale;
    Dsub.scale.samples = Dsub.n;
  }
  D.train = all;

  phases.begin("layout");
  Layout L = make_layout(model, o, Dsub.data);
  const SampleLoss loss = parse_loss(o.loss);
  const size_t block = static_cast<size_t>(std::max(16, o.block_size));
  const int threads = o.num_threads > 0 ? o.num_threads : job_threads();
  auto problem = build_streamed_problem<M>(L, st, all, block, loss, threads);
  const std::vector<int> free = free_in_problem(*problem, L, D.n);
  const int k = static_cast<int>(free.size());
  const ceres::Solver::Options so = fit_solver_options(o, threads);

  phases.begin("start points");
  int guess_after = 0;
  const auto candidates = start_points<M>(model, L, Dsub, free, o, block, loss, S, &guess_after);

  phases.begin("multistart");
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
    polish(*problem, L, so, phases, R);
  } else {
    R = multistart(*problem, L, candidates, o, so, D.scale, phases, guess_after);
  }
  if (!take_search_result(S, L, R)) {
    phases.end();
    FitSummary F = failed_fit(std::move(S), L, o);
    F.seconds = phases.total();
    return F;
  }

  const Uncertainty U = estimates(S, *problem, L, free, D, so, R, phases, o,
                                  [&] { return streamed_quality<M>(S, L, st, all, sc.fsum, D.n, k); });

  phases.begin("warnings");
  canonical_form(S, *problem, L, free, D, [&] { return streamed_quality<M>(S, L, st, all, sc.fsum, D.n, k); });
  fit_warnings(S, L, free, D, U, R, o);
  if (MissingTermGram::wanted(S, D.scale.force_rms, D.scale.noise)) {
    // The log's acceleration where it has one (a streamed fit derives none).
    MissingTermGram gram;
    for_streamed_residuals<M>(
        L, st, all, true, [&](int, size_t, const Prepared& c, const std::vector<double>& r) { gram.add(c, c.acc, r); });
    gram.advise(S, o, model.needs(kChannelNormalForce), D.scale.force_rms, D.scale.noise);
  }
  unique_warnings(S);
  S.converged = S.status == FitStatus::kConverged;
  if (o.keep_signals && sopt.signals) {
    phases.begin("signals");
    streamed_signals<M>(L, st, all, sopt);
  }
  phases.end();
  S.seconds = phases.total();
  return S;
}

}  // namespace

void detail::set_fit_quality(FitSummary& S, long n, int k, double ssr, double sst, double maxe, double ac) {
  S.samples = n;
  S.free_parameters = k;
  S.rmse = std::sqrt(ssr / n);
  S.r_squared = sst > 0 ? 1.0 - ssr / sst : kNaN;
  S.max_abs_error = maxe;
  S.autocorrelation_lag1 = ssr > 0 ? ac / ssr : 0.0;
  const double ll = n * std::log(std::max(ssr, 1e-300) / n);
  S.aic = ll + 2.0 * k;
  S.bic = ll + k * std::log(static_cast<double>(n));
}

template <class F>
FitSummary detail::fit_steady_state(const ModelInfo& model, const std::vector<Experiment>& steady,
                                    const FitOptions& o) {
  return run_fit<SteadyState<F>>(model, steady, o);
}
template FitSummary detail::fit_steady_state<LuGreFit>(const ModelInfo&, const std::vector<Experiment>&,
                                                       const FitOptions&);
template FitSummary detail::fit_steady_state<TwentySimLuGreFit>(const ModelInfo&, const std::vector<Experiment>&,
                                                                const FitOptions&);
template FitSummary detail::fit_steady_state<DahlFit>(const ModelInfo&, const std::vector<Experiment>&,
                                                      const FitOptions&);

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
FitSummary fit_dynamic(const std::vector<Experiment>& experiments, const ModelInfo& model, const FitOptions& o) {
  FitOptions with_signals = o;
  with_signals.keep_signals = true;
  FitSummary S = fit_two_stage(experiments, model, with_signals);
  if (!o.keep_signals)
    for (auto& e : S.experiments) e.fitted.clear(), e.residual.clear();
  return S;
}

FitSummary fit_model(const std::vector<Experiment>& experiments, const std::string& model_id, const FitOptions& o) {
  const ModelInfo& model = require_model(model_id);
  if (has_two_stage_fit(model_id) && !o.asymmetric) return fit_dynamic(experiments, model, o);
  if (model.dynamic)
    throw InputError("model " + model_id + " is dynamic; with --asymmetric identification fits the static models only");
  FitSummary S;
  visit_model(model_id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    if constexpr (!M::kDynamic) S = run_fit<M>(model, experiments, o);
  });
  if (o.asymmetric) {
    FitOptions sym = o;
    sym.asymmetric = false;
    sym.keep_signals = false;
    const FitSummary s = fit_model(experiments, model_id, sym);  // only its rmse and count: no unit mapping
    AsymmetryTest& t = S.asymmetry;
    S.has_asymmetry_test = true;
    t.rmse_symmetric = s.rmse;
    t.dof = S.free_parameters - s.free_parameters;
    t.statistic = std::max(0.0, S.samples * std::log((s.rmse * s.rmse) / (S.rmse * S.rmse)));
    t.p_value = t.dof > 0 ? chi2_sf(t.statistic, t.dof) : 1.0;
    t.significant = t.p_value < 0.05;
  }
  return S;
}

}  // namespace

FitSummary fit(const std::vector<Experiment>& experiments, const std::string& model_id, const FitOptions& o) {
  const bool rotational = rotational_log(experiments, require_model(model_id));
  FitSummary S = fit_model(experiments, model_id, o);
  if (rotational) rotational_summary(S, require_model(model_id));
  return S;
}

void check_fit_options(const std::string& model_id, const FitOptions& o) {
  const ModelInfo& model = require_model(model_id);
  validate_options(o);
  parse_loss(o.loss);
  detail::parse_user_options(model, o);
}

std::vector<FitSummary> compare(const std::vector<Experiment>& experiments, const std::vector<std::string>& models,
                                const FitOptions& o) {
  std::vector<FitSummary> out;
  for (const auto& m : models) out.push_back(fit(experiments, m, o));
  std::stable_sort(out.begin(), out.end(), [](const FitSummary& a, const FitSummary& b) { return a.aic < b.aic; });
  return out;
}

std::string streaming_unsupported(const std::string& model_id, const FitOptions& o) {
  const ModelInfo& model = require_model(model_id);
  if (model.dynamic) return "model " + model_id + " is dynamic (its state needs every sample in order)";
  if (!o.validate.empty()) return "--validate holds experiments out";
  return "";
}

FitSummary fit_streamed(const std::vector<LogStream>& logs, const std::string& model_id, const FitOptions& o,
                        const StreamOptions& stream) {
  const ModelInfo& model = require_model(model_id);
  if (const std::string why = streaming_unsupported(model_id, o); !why.empty())
    throw InputError("a streamed fit is not available: " + why + "; fit in memory (--stream never)");
  const bool rotational = rotational_log(logs, model);
  const size_t block = static_cast<size_t>(std::max(16, o.block_size));
  const size_t chunk = (std::max<size_t>(stream.chunk_rows, 1) + block - 1) / block * block;
  const PreparedStream st(logs, model, o, chunk);
  FitSummary S;
  visit_model(model_id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    if constexpr (!M::kDynamic) S = run_streamed<M>(model, st, o, stream);
  });
  if (o.asymmetric) {
    FitOptions sym = o;
    sym.asymmetric = false;
    sym.keep_signals = false;
    const FitSummary s = fit_streamed(logs, model_id, sym, stream);
    AsymmetryTest& t = S.asymmetry;
    S.has_asymmetry_test = true;
    t.rmse_symmetric = s.rmse;
    t.dof = S.free_parameters - s.free_parameters;
    t.statistic = std::max(0.0, S.samples * std::log((s.rmse * s.rmse) / (S.rmse * S.rmse)));
    t.p_value = t.dof > 0 ? chi2_sf(t.statistic, t.dof) : 1.0;
    t.significant = t.p_value < 0.05;
  }
  if (rotational) rotational_summary(S, model);
  return S;
}

}  // namespace stribeck::ident
