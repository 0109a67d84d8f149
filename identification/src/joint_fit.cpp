// The joint stage of a dynamic fit (joint_fit.hpp; docs/identification.md,
// "Dynamic models"): every free parameter by simulation error over every
// sample, from the two-stage result and more starts.
#include "joint_fit.hpp"

#include <ceres/ceres.h>

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <memory>
#include <thread>
#include <type_traits>

#include "covariance.hpp"
#include "dynamic_fit.hpp"
#include "fit_helpers.hpp"
#include "noise.hpp"
#include "solver_options.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/host/threads.hpp"
#include "stribeck/kernels/sweep/space.hpp"

namespace stribeck::ident::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Starts of the joint stage when --starts is 0 (automatic): the two-stage
// result and three more.
constexpr int kAutoStarts = 4;
constexpr int kMaxLanes = 8;  // free unknowns one experiment depends on (6 model parameters + offset)

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

// Where one unknown an experiment depends on comes from: a free parameter
// block (its internal coordinate through the transform) or a constant.
struct Source {
  int block = -1;  // parameter block, -1: constant `value`
  Transform transform = Transform::kIdentity;
  int base = -1;       // kExcess: the Source this one exceeds (listed before it)
  double value = 0.0;  // the constant's external value
};

// Experiment e's unknowns: the free ones in block order, how each model
// parameter and the offset are made of them.
struct Wiring {
  std::vector<int> blocks;  // Layout indices of the free unknowns, in block order
  std::vector<Source> src;
  std::vector<int> param;  // Source of model parameter j
  int offset = -1;         // Source of the offset, -1: none
};

Wiring wire(const Layout& L, int e, int nparams) {
  Wiring w;
  std::vector<int> used;
  std::function<int(int)> add = [&](int g) {
    const auto it = std::find(used.begin(), used.end(), g);
    if (it != used.end()) return static_cast<int>(it - used.begin());
    const FitParam& p = L.params[g];
    Source s;
    s.transform = p.fixed ? Transform::kIdentity : p.transform;
    s.value = p.value;
    if (s.transform == Transform::kExcess) s.base = add(p.excess_base);
    if (!p.fixed) {
      s.block = static_cast<int>(w.blocks.size());
      w.blocks.push_back(g);
    }
    used.push_back(g);
    w.src.push_back(s);
    return static_cast<int>(used.size()) - 1;
  };
  for (int j = 0; j < nparams; ++j) w.param.push_back(add(L.model_map[e][0][j]));
  if (L.offset[e] >= 0) w.offset = add(L.offset[e]);
  if (static_cast<int>(w.blocks.size()) > kMaxLanes)
    throw InputError("too many free parameters for one experiment of a dynamic fit (" +
                     std::to_string(w.blocks.size()) + ", at most " + std::to_string(kMaxLanes) + ")");
  return w;
}

// Simulation error of one experiment: r_k = y_k - offset - F_k, F_k the
// kernels' M::step along the experiment from the steady state at the first
// sample (F::start_state), on Jets with one lane per free unknown.
template <class F>
class JointCost final : public ceres::CostFunction {
  using M = typename F::Model;

 public:
  JointCost(const Prepared* d, const std::vector<double>* t, Wiring w) : d_(d), t_(t), w_(std::move(w)) {
    set_num_residuals(static_cast<int>(d->size()));
    for (size_t b = 0; b < w_.blocks.size(); ++b) mutable_parameter_block_sizes()->push_back(1);
  }
  bool Evaluate(double const* const* u, double* r, double** jac) const override {
    bool any = false;
    for (size_t b = 0; jac && b < w_.blocks.size(); ++b) any |= jac[b] != nullptr;
    if (!any) return run<double>(u, r, nullptr);
    if (w_.blocks.size() <= 4) return run<ceres::Jet<double, 4>>(u, r, jac);
    return run<ceres::Jet<double, kMaxLanes>>(u, r, jac);
  }
  const Wiring& wiring() const { return w_; }

 private:
  template <class T>
  bool run(double const* const* u, double* res, double** jac) const {
    constexpr bool kJet = !std::is_same<T, double>::value;
    std::vector<T> ext(w_.src.size());
    for (size_t i = 0; i < w_.src.size(); ++i) {
      const Source& s = w_.src[i];
      if (s.block < 0) {
        ext[i] = T(s.value);
        continue;
      }
      T x(u[s.block][0]);
      if constexpr (kJet) x.v[s.block] = 1.0;
      switch (s.transform) {
        case Transform::kLog: ext[i] = math::exp(x); break;
        case Transform::kExcess: ext[i] = ext[s.base] + x; break;
        default: ext[i] = x;
      }
    }
    T p[M::kNumParams];
    for (int j = 0; j < M::kNumParams; ++j) p[j] = ext[w_.param[j]];
    const T off = w_.offset >= 0 ? ext[w_.offset] : T(0.0);
    const auto c = M::prepare(p);
    const Prepared& d = *d_;
    const std::vector<double>& t = *t_;
    const T v0(d.v[0]);
    typename M::template State<T> st{F::start_state(c, v0), v0};
    for (size_t k = 0; k < d.size(); ++k) {
      const Sample<T> s{T(d.v[k]), T(d.pa[k]), T(d.pb[k]), T(d.fn[k])};
      const T f = M::step(c, s, st, T(k ? t[k] - t[k - 1] : 0.0)) + off;
      if constexpr (kJet) {
        res[k] = d.y[k] - f.a;
        for (size_t b = 0; b < w_.blocks.size(); ++b)
          if (jac[b]) {
            jac[b][k] = -f.v[b];
            if (!std::isfinite(jac[b][k])) return false;
          }
      } else {
        res[k] = d.y[k] - f;
      }
      if (!std::isfinite(res[k])) return false;
    }
    return true;
  }
  const Prepared* d_;
  const std::vector<double>* t_;
  Wiring w_;
};

template <class F>
std::unique_ptr<ceres::Problem> build_problem(Layout& L, const std::vector<Prepared>& data,
                                              const std::vector<std::vector<double>>& times,
                                              const std::vector<int>& exps) {
  using M = typename F::Model;
  auto P = std::make_unique<ceres::Problem>();
  for (int e : exps) {
    Wiring w = wire(L, e, M::kNumParams);
    if (w.blocks.empty()) continue;
    std::vector<double*> blocks;
    for (int g : w.blocks) blocks.push_back(&L.params[g].u);
    P->AddResidualBlock(new JointCost<F>(&data[e], &times[e], std::move(w)), nullptr, blocks);
  }
  constrain(*P, L);
  return P;
}

// Residuals (measured - simulated) of experiment e at the layout's current
// internal coordinates; NaN where the simulation is not finite.
template <class F>
std::vector<double> residuals(const Layout& L, const Prepared& d, const std::vector<double>& t, int e) {
  using M = typename F::Model;
  JointCost<F> cost(&d, &t, wire(L, e, M::kNumParams));
  std::vector<const double*> u;
  for (int g : cost.wiring().blocks) u.push_back(&L.params[g].u);
  std::vector<double> r(d.size(), kNaN);
  if (!cost.Evaluate(u.data(), r.data(), nullptr)) std::fill(r.begin(), r.end(), kNaN);
  return r;
}

struct StartResult {
  std::vector<double> u;
  double cost = kInf;
  bool usable = false;
  ceres::Solver::Summary summary;
};

}  // namespace

template <class F>
JointResult joint_stage(const ModelInfo& model, const FitOptions& o, const std::vector<Prepared>& data,
                        const std::vector<std::vector<double>>& times, const std::vector<int>& train, Layout L) {
  JointResult R;
  FitSummary& S = R.S;
  S.model = model.id;
  const int ne = static_cast<int>(data.size());
  set_internal_from_values(L);
  std::vector<int> free;
  {
    auto probe = build_problem<F>(L, data, times, train);
    for (int i : L.free_indices())
      if (probe->HasParameterBlock(&L.params[i].u)) free.push_back(i);
  }
  const int k = static_cast<int>(free.size());
  long n = 0;
  for (int e : train) n += static_cast<long>(data[e].size());
  if (n <= k)
    throw InputError("too few samples: " + std::to_string(n) + " samples for " + std::to_string(k) +
                     " free parameters");

  // Cost of the training experiments at internal coordinates u (one per
  // Layout parameter), by plain simulation.
  std::vector<std::unique_ptr<JointCost<F>>> costs;
  for (int e : train) costs.emplace_back(new JointCost<F>(&data[e], &times[e], wire(L, e, F::Model::kNumParams)));
  auto cost_at = [&](const std::vector<double>& u) {
    double c = 0;
    for (const auto& cf : costs) {
      std::vector<const double*> ptr;
      for (int g : cf->wiring().blocks) ptr.push_back(&u[g]);
      std::vector<double> r(static_cast<size_t>(cf->num_residuals()));
      if (!cf->Evaluate(ptr.data(), r.data(), nullptr)) return kInf;
      for (double x : r) c += x * x;
    }
    return std::isfinite(c) ? 0.5 * c : kInf;
  };

  // Starts: the two-stage result, then the best of 8 shifted-Halton points
  // per further start in a box around it (internal coordinates): log
  // parameters a factor 10 either way, excesses 0 ... 2 x + half their base,
  // others +- 2 |x| (|default| at 0, the force's spread for offsets),
  // within the bounds.
  std::vector<double> u0;
  for (const auto& p : L.params) u0.push_back(p.u);
  std::vector<std::vector<double>> starts = {u0};
  // Automatic (--starts 0): kAutoStarts starts of this stage; N: exactly N.
  const int nstarts = o.starts > 0 ? o.starts : kAutoStarts;
  if (nstarts > 1 && k > 0) {
    double fmean = 0, fstd = 0;
    for (int e : train)
      for (double f : data[e].force) fmean += f;
    fmean /= static_cast<double>(n);
    for (int e : train)
      for (double f : data[e].force) fstd += (f - fmean) * (f - fmean);
    fstd = std::sqrt(fstd / static_cast<double>(n));
    std::vector<double> lo(k), hi(k);
    for (int f = 0; f < k; ++f) {
      const FitParam& p = L.params[free[f]];
      double blo, bhi;
      internal_bounds(p, blo, bhi);
      switch (p.transform) {
        case Transform::kLog:
          lo[f] = p.u - std::log(10.0);
          hi[f] = p.u + std::log(10.0);
          break;
        case Transform::kExcess:
          lo[f] = 0.0;
          hi[f] = 2.0 * p.u + 0.5 * std::abs(L.params[p.excess_base].value);
          break;
        default: {
          double span = std::abs(p.u);
          if (!(span > 0)) span = p.model_index >= 0 ? std::abs(model.params[p.model_index].default_value) : fstd;
          if (!(span > 0)) span = 1.0;
          lo[f] = p.u - 2.0 * span;
          hi[f] = p.u + 2.0 * span;
        }
      }
      lo[f] = std::max(lo[f], blo);
      hi[f] = std::min(hi[f], bhi);
      if (!(hi[f] > lo[f])) hi[f] = lo[f];
    }
    std::vector<std::pair<double, std::vector<double>>> scored;
    const long candidates = 8L * (nstarts - 1);
    for (long i = 0; i < candidates; ++i) {
      std::vector<double> u = u0;
      for (int f = 0; f < k; ++f)
        u[free[f]] = lo[f] + (hi[f] - lo[f]) * sweep::sobol_unit(static_cast<std::uint64_t>(i), f, o.seed);
      const double c = cost_at(u);
      if (std::isfinite(c)) scored.emplace_back(c, std::move(u));
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < scored.size() && static_cast<int>(starts.size()) < nstarts; ++i)
      starts.push_back(std::move(scored[i].second));
  }

  // Refine every start, in parallel (each its own problem).
  const int threads =
      std::max(1, std::min<int>(o.num_threads > 0 ? o.num_threads : job_threads(), static_cast<int>(starts.size())));
  std::vector<StartResult> results(starts.size());
  std::atomic<size_t> next{0};
  auto worker = [&](int ceres_threads) {
    ceres::Solver::Options so = solver_options(o, ceres_threads);
    so.num_threads = ceres_threads;
    // Correlated parameters (F_C, sigma2, F_s, v_s) make long curved valleys
    // in which Levenberg-Marquardt steps, and the cost decrease per step, get
    // small well before the minimum: both tests are tightened 1e4-fold (the
    // iterations are cheap). The cost is only piecewise smooth in v_s (the
    // bristle sub-step count depends on it), so minima found from different
    // starts can still differ in the 7th digit (bench/peers/check_lugre_fit_peer.sh).
    so.parameter_tolerance = std::min(o.parameter_tolerance, 1e-14);
    so.function_tolerance = std::min(o.function_tolerance, 1e-14);
    for (size_t s; (s = next++) < starts.size();) {
      Layout Ls = L;
      for (size_t i = 0; i < Ls.params.size(); ++i) Ls.params[i].u = starts[s][i];
      StartResult& r = results[s];
      if (k == 0) {
        r.u = starts[s];
        r.cost = cost_at(r.u);
        r.usable = std::isfinite(r.cost);
        r.summary.termination_type = ceres::CONVERGENCE;
        continue;
      }
      auto P = build_problem<F>(Ls, data, times, train);
      ceres::Solve(so, P.get(), &r.summary);
      for (const auto& p : Ls.params) r.u.push_back(p.u);
      r.usable = r.summary.IsSolutionUsable() && std::isfinite(r.summary.final_cost);
      r.cost = r.usable ? r.summary.final_cost : kInf;
    }
  };
  if (threads == 1) {
    worker(o.num_threads > 0 ? o.num_threads : job_threads());
  } else {
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) pool.emplace_back(worker, 1);
    for (auto& th : pool) th.join();
  }
  S.starts = static_cast<int>(starts.size());
  int best = -1;
  for (size_t s = 0; s < results.size(); ++s) {
    S.iterations += static_cast<int>(results[s].summary.iterations.size());
    S.solver_seconds += results[s].summary.total_time_in_seconds;
    if (results[s].usable && (best < 0 || results[s].cost < results[best].cost)) best = static_cast<int>(s);
  }
  if (best < 0) {
    S.status = FitStatus::kFailed;
    S.solver_message = "no start gave a usable solution";
    S.warnings.push_back("the joint stage failed: the model could not be simulated from any start (non-finite force)");
    set_values_from_internal(L);
    for (const auto& p : L.params) {
      ParameterEstimate pe = estimate_of(p);
      S.parameters.push_back(pe);
    }
    return R;
  }
  const StartResult& B = results[best];
  S.best_start = best;
  for (const auto& r : results)
    if (r.usable && r.cost <= B.cost * (1.0 + 1e-6) + 1e-300) ++R.at_best;
  S.starts_at_best = R.at_best;  // the header's count, the note's and the JSON's
  for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = B.u[i];
  set_values_from_internal(L);
  S.cost = B.cost;
  S.solver_message = B.summary.message;
  S.status = B.summary.termination_type == ceres::CONVERGENCE      ? FitStatus::kConverged
             : B.summary.termination_type == ceres::NO_CONVERGENCE ? FitStatus::kMaxIterations
                                                                   : FitStatus::kFailed;

  // Quality over every training sample; held-out experiments validated.
  double ssr = 0, sst = 0, fsum = 0, maxe = 0, ac = 0, sv = 0;
  long nv = 0;
  for (int e = 0; e < ne; ++e) {
    const bool held = std::find(train.begin(), train.end(), e) == train.end();
    ExperimentFit ef;
    ef.name = data[e].name;
    ef.samples = static_cast<long>(data[e].size());
    ef.held_out = held;
    bool determinable = true;
    if (held && L.offset[e] >= 0 && !L.params[L.offset[e]].fixed &&
        std::none_of(train.begin(), train.end(), [&](int t) { return L.offset[t] == L.offset[e]; }))
      determinable = false;
    std::vector<double> r;
    if (determinable) r = residuals<F>(L, data[e], times[e], e);
    else {
      S.warnings.push_back("held-out experiment '" + data[e].name +
                           "' has its own offset, which the fit cannot estimate; it is not validated");
      r.assign(data[e].size(), kNaN);
    }
    double se = 0;
    for (double x : r) se += x * x;
    ef.rmse = std::sqrt(se / static_cast<double>(r.size()));
    if (!held) {
      ssr += se;
      for (size_t i = 0; i < r.size(); ++i) {
        fsum += data[e].force[i];
        maxe = std::max(maxe, std::abs(r[i]));
        if (i) ac += r[i] * r[i - 1];
      }
    } else if (determinable) {
      sv += se;
      nv += static_cast<long>(r.size());
    }
    if (o.keep_signals) {
      ef.fitted.resize(r.size());
      for (size_t i = 0; i < r.size(); ++i) ef.fitted[i] = data[e].force[i] - r[i];
      ef.residual = std::move(r);
    }
    S.experiments.push_back(std::move(ef));
  }
  const double fmean = fsum / static_cast<double>(n);
  for (int e : train)
    for (double f : data[e].force) sst += (f - fmean) * (f - fmean);
  set_fit_quality(S, n, k, ssr, sst, maxe, ac);
  S.noise_estimate = noise_estimate(data, train);
  if (train.size() < data.size()) S.validation_rmse = nv ? std::sqrt(sv / static_cast<double>(nv)) : kNaN;

  // Uncertainty of the joint problem: sigma^2 (J^T J)^-1 at the solution,
  // J the Jacobian of the simulated force over every training sample.
  Covariance C;
  C.cov_x = Eigen::MatrixXd::Constant(k, k, kNaN);
  C.var_u.assign(k, kNaN);
  if (k > 0) {
    auto P = build_problem<F>(L, data, times, train);
    ceres::Problem::EvaluateOptions eo;
    for (int i : free) eo.parameter_blocks.push_back(&L.params[i].u);
    eo.num_threads = o.num_threads > 0 ? o.num_threads : job_threads();
    ceres::CRSMatrix J;
    double c = 0;
    Eigen::MatrixXd JtJ = Eigen::MatrixXd::Zero(k, k);
    if (P->Evaluate(eo, &c, nullptr, nullptr, &J)) {
      for (int r = 0; r < J.num_rows; ++r)
        for (int a = J.rows[r]; a < J.rows[r + 1]; ++a)
          for (int b = J.rows[r]; b < J.rows[r + 1]; ++b) JtJ(J.cols[a], J.cols[b]) += J.values[a] * J.values[b];
      C = covariance_from_jtj(L, free, JtJ, ssr / static_cast<double>(std::max<long>(1, n - k)));
    } else {
      C.singular = true;
    }
  }

  // Parameters, intervals, correlations.
  for (size_t i = 0; i < L.params.size(); ++i) {
    const FitParam& p = L.params[i];
    ParameterEstimate pe = estimate_of(p);
    const auto it = std::find(free.begin(), free.end(), static_cast<int>(i));
    if (!p.fixed && it != free.end()) {
      const int f = static_cast<int>(it - free.begin());
      const double var = C.cov_x(f, f);
      // No Jacobian (the simulation failed there): nothing is known to be determined.
      pe.determined = !C.determined.empty() && C.determined[f];
      if (pe.determined && std::isfinite(var) && var >= 0) {
        pe.std_error = std::sqrt(var);
        pe.interval = "wald";
        if (p.transform == Transform::kLog) {  // interval of exp(u): stays positive
          const double su = std::sqrt(std::max(0.0, C.var_u[f]));
          pe.ci95_lo = p.value * std::exp(-kZ975 * su);
          pe.ci95_hi = p.value * std::exp(kZ975 * su);
        } else {
          pe.ci95_lo = p.value - kZ975 * pe.std_error;
          pe.ci95_hi = p.value + kZ975 * pe.std_error;
        }
      }
      const double tol = 1e-9 * std::max(1.0, std::abs(p.value));
      pe.at_bound = (std::isfinite(p.lo) && p.value - p.lo <= tol) || (std::isfinite(p.hi) && p.hi - p.value <= tol) ||
                    (p.transform == Transform::kExcess && p.value - L.params[p.excess_base].value <= tol);
      interval_in_range(pe, p, L);
    }
    S.parameters.push_back(pe);
  }
  for (int i : free) S.free_names.push_back(L.params[i].name);
  S.correlation.assign(k, std::vector<double>(k, kNaN));
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) S.correlation[a][b] = C.cov_x(a, b) / std::sqrt(C.cov_x(a, a) * C.cov_x(b, b));

  // Warnings of the joint problem. The low-speed hint quotes the slowest
  // moving sample of the samples fitted (all of them).
  double vslow = kInf;
  std::vector<double> speeds;
  for (int e : train)
    for (double v : data[e].v)
      if (v != 0) {
        speeds.push_back(std::abs(v));
        vslow = std::min(vslow, std::abs(v));
      }
  bool lacks_slow = false;
  if (!speeds.empty()) {
    std::nth_element(speeds.begin(), speeds.begin() + speeds.size() / 2, speeds.end());
    lacks_slow = vslow > 0.1 * speeds[speeds.size() / 2];
  }
  auto low_speed_hint = [&](bool low) {
    return low && lacks_slow
               ? "; none of the " + std::to_string(n) + " samples fitted moves slower than |v| = " + fmt(vslow) +
                     " m/s, and Stribeck parameters only act at lower speeds"
               : std::string();
  };
  if (C.singular) {
    if (S.status == FitStatus::kConverged) S.status = FitStatus::kSingular;
    for (const auto& u : C.undetermined) {
      bool low = false;
      for (int i : free)
        if (L.params[i].low_speed && u.find(L.params[i].name) != std::string::npos) low = true;
      S.warnings.push_back("the data cannot determine " + u +
                           " (singular joint problem: changing them together does not change the simulated force)" +
                           low_speed_hint(low) + "; fix some with --fix or add data");
    }
  }
  if (S.status == FitStatus::kMaxIterations)
    S.warnings.push_back("not converged: the joint stage stopped after " + std::to_string(o.max_iterations) +
                         " iterations; the estimates are not final");
  if (S.status == FitStatus::kFailed) S.warnings.push_back("the solver failed: " + B.summary.message);
  for (int a = 0; a < k; ++a) {
    const ParameterEstimate& pe = *std::find_if(S.parameters.begin(), S.parameters.end(),
                                                [&](const ParameterEstimate& q) { return q.name == S.free_names[a]; });
    if (pe.at_bound && pe.determined)
      S.warnings.push_back(pe.name + " = " + fmt(pe.value) +
                           " is at its bound; its interval is one-sided, from the bound");
    else if (std::isfinite(pe.std_error) && pe.std_error > o.max_relative_std_error * std::abs(pe.value))
      S.warnings.push_back(pe.name + " is poorly determined: " + fmt(pe.value) + " +/- " + fmt(pe.std_error) + " (" +
                           fmt(100.0 * pe.std_error / std::abs(pe.value)) + " %)" +
                           low_speed_hint(L.params[free[a]].low_speed));
    for (int b = a + 1; b < k; ++b)
      if (std::abs(S.correlation[a][b]) > o.max_abs_correlation)
        S.warnings.push_back(S.free_names[a] + " and " + S.free_names[b] + " cannot be separated (correlation " +
                             fmt(S.correlation[a][b]) + ")" +
                             low_speed_hint(L.params[free[a]].low_speed || L.params[free[b]].low_speed));
  }
  if (std::abs(S.autocorrelation_lag1) > 0.9 && S.status == FitStatus::kConverged)
    S.warnings.push_back("the residuals are strongly autocorrelated (lag-1 " + fmt(S.autocorrelation_lag1) +
                         "): the model misses a systematic effect and the standard errors are optimistic");
  S.converged = S.status == FitStatus::kConverged;
  S.search_device = S.starts > 1 ? "cpu (joint simulation cost, shifted Halton)" : "";
  return R;
}

template JointResult joint_stage<LuGreFit>(const ModelInfo&, const FitOptions&, const std::vector<Prepared>&,
                                           const std::vector<std::vector<double>>&, const std::vector<int>&, Layout);
template JointResult joint_stage<TwentySimLuGreFit>(const ModelInfo&, const FitOptions&, const std::vector<Prepared>&,
                                                    const std::vector<std::vector<double>>&, const std::vector<int>&,
                                                    Layout);
template JointResult joint_stage<DahlFit>(const ModelInfo&, const FitOptions&, const std::vector<Prepared>&,
                                          const std::vector<std::vector<double>>&, const std::vector<int>&, Layout);

}  // namespace stribeck::ident::detail
