// The two-stage fit of LuGre, Dahl and 20-sim LuGre (docs/identification.md,
// "Dynamic models").
//
// Stage 1: the static part (LuGre: F_C, F_s, v_s, sigma2; 20-sim LuGre: the
// same as coefficients of the normal force; Dahl: F_C; and the offset) from the samples whose state has settled, fitted to the model's
// steady_force by the static machinery. At constant v the state relaxes
// towards its steady state with the distance slid (LuGre's bristle as
// exp(-x / z_ss); Dahl's force as Dahl::travel), and after a reversal it
// starts up to twice the steady value away, so a sample is settled once it
// has slid the model's settle_travel since the last velocity reversal (or
// since the start of the experiment, whose state is unknown): the transient
// is then below 0.07 % of the steady force.
// sigma0 is not known before stage 2, so the first pass takes the distance
// from the data: after a reversal the force crosses zero when the state
// does, at ln 2 relaxation lengths for an exponential approach, so 8 of them
// are ~11.5 x the median zero-crossing travel. When stage 2 then finds a
// longer settle_travel, both stages run again with it (up to 4 passes).
//
// Stage 2: the two dynamic parameters (LuGre's: sigma0, sigma1; Dahl: sigma0,
// alpha) with the static part held, one residual block per experiment that
// integrates the kernels' trace step (M::step, on ceres::Jet) along the
// experiment in time order from the steady state at the first sample; both
// are log-parameterised (positive at every step).
#include "dynamic_fit.hpp"

#include <ceres/ceres.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <type_traits>

#include "problem.hpp"
#include "solver_options.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::ident::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kZ95 = 1.959963984540054;
constexpr int kMaxPasses = 4;  // of both stages (see the settle rule)

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

// One experiment, simulated: measured force minus known terms (y), velocity
// and time; the static part and offset are held.
struct Trace {
  const Prepared* d = nullptr;
  std::vector<double> t;
  double offset = 0.0;
};

template <class F>
class TraceCost : public ceres::CostFunction {
  using M = typename F::Model;

 public:
  TraceCost(const Trace* tr, const double* statics) : tr_(tr) {
    std::copy(statics, statics + M::kNumParams, p_);
    set_num_residuals(static_cast<int>(tr->d->size()));
    mutable_parameter_block_sizes()->push_back(1);  // log of the first dynamic parameter
    mutable_parameter_block_sizes()->push_back(1);  // log of the second
  }
  bool Evaluate(double const* const* u, double* r, double** jac) const override {
    if (jac && (jac[0] || jac[1])) return run<ceres::Jet<double, 2>>(u, r, jac);
    return run<double>(u, r, nullptr);
  }
  // Modelled force (with offset) per sample at external dynamic parameters.
  std::vector<double> force(double d0, double d1) const {
    const double u0 = std::log(d0), u1 = std::log(d1);
    const double* u[2] = {&u0, &u1};
    std::vector<double> r(tr_->d->size());
    run<double>(u, r.data(), nullptr);
    for (size_t k = 0; k < r.size(); ++k) r[k] = tr_->d->y[k] - r[k];
    return r;
  }

 private:
  template <class T>
  bool run(double const* const* u, double* res, double** jac) const {
    constexpr bool kJet = !std::is_same<T, double>::value;
    T x[2] = {T(u[0][0]), T(u[1][0])};
    if constexpr (kJet) {
      x[0].v[0] = 1.0;
      x[1].v[1] = 1.0;
    }
    T p[M::kNumParams];
    for (int j = 0; j < M::kNumParams; ++j) p[j] = T(p_[j]);
    p[F::kDyn[0]] = math::exp(x[0]);
    p[F::kDyn[1]] = math::exp(x[1]);
    const auto c = M::prepare(p);
    const Prepared& d = *tr_->d;
    const T v0(d.v[0]);
    typename M::template State<T> st{F::start_state(c, v0), v0};
    for (size_t k = 0; k < d.size(); ++k) {
      const Sample<T> s{T(d.v[k]), T(d.pa[k]), T(d.pb[k]), T(d.fn[k])};
      const T f = M::step(c, s, st, T(k ? tr_->t[k] - tr_->t[k - 1] : 0.0));
      if constexpr (kJet) {
        res[k] = d.y[k] - tr_->offset - f.a;
        for (int i = 0; i < 2; ++i)
          if (jac[i]) {
            jac[i][k] = -f.v[i];
            if (!std::isfinite(jac[i][k])) return false;
          }
      } else {
        res[k] = d.y[k] - tr_->offset - f;
      }
      if (!std::isfinite(res[k])) return false;
    }
    return true;
  }
  const Trace* tr_;
  double p_[M::kNumParams];
};

// Distance slid since the last velocity reversal (or the start) per sample.
std::vector<double> travel(const Prepared& d, const std::vector<double>& t) {
  std::vector<double> x(d.size(), 0.0);
  int last = 0;  // sign of the last non-zero velocity
  for (size_t k = 0; k < d.size(); ++k) {
    const int s = d.v[k] > 0 ? 1 : d.v[k] < 0 ? -1 : 0;
    double prev = k ? x[k - 1] + 0.5 * (std::abs(d.v[k]) + std::abs(d.v[k - 1])) * (t[k] - t[k - 1]) : 0.0;
    if (s != 0 && last != 0 && s != last) prev = 0.0;
    if (s != 0) last = s;
    x[k] = prev;
  }
  return x;
}

// Median travel from a reversal to the force's zero crossing (NaN: none).
double median_zero_crossing_travel(const std::vector<Prepared>& data, const std::vector<std::vector<double>>& x) {
  std::vector<double> d;
  for (size_t e = 0; e < data.size(); ++e) {
    bool armed = false;
    for (size_t k = 1; k < data[e].size(); ++k) {
      const double v = data[e].v[k];
      if (v == 0) continue;
      if (x[e][k] == 0.0 || (x[e][k] < x[e][k - 1])) armed = true;  // a reversal just happened
      if (armed && (v > 0 ? data[e].y[k] >= 0 : data[e].y[k] <= 0)) {
        d.push_back(x[e][k]);
        armed = false;
      }
    }
  }
  if (d.empty()) return kNaN;
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  return d[d.size() / 2];
}

bool named_value(const std::vector<std::string>& specs, const std::string& name, double& value) {
  for (const auto& s : specs) {
    const size_t eq = s.find('=');
    if (eq != std::string::npos && s.substr(0, eq) == name) {
      if (!parse_double(s.substr(eq + 1), value) || !(value > 0))
        throw InputError("'" + s + "': " + name + " must be a positive number");
      return true;
    }
  }
  return false;
}

// Both stages for model F::Model.
template <class F>
FitSummary two_stage(const std::vector<Experiment>& experiments, const ModelInfo& model, const FitOptions& o) {
  using M = typename F::Model;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string id = model.id;
  if (o.inertia) throw InputError("--inertia is not supported for " + id + " yet (the state needs the velocity)");
  if (!o.per_experiment.empty()) throw InputError("--per-experiment is not supported for " + id + " yet");
  std::vector<Prepared> data = prepare_data(experiments, model, o);
  std::vector<std::vector<double>> times, x;
  for (size_t e = 0; e < data.size(); ++e) {
    const Experiment& ex = experiments[e];
    if (!ex.has("time"))
      throw InputError(ex.source + ": experiment '" + ex.name +
                       "' has no time channel; " + id + " is fitted by simulating its state in time");
    const auto& t = ex.channel("time");
    for (size_t k = 1; k < t.size(); ++k)
      if (!(t[k] > t[k - 1]))
        throw InputError(ex.source + ": experiment '" + ex.name + "', channel 'time', sample " + std::to_string(k) +
                         ": time must increase strictly");
    times.push_back(t);
    x.push_back(travel(data[e], t));
  }
  std::vector<int> train;
  for (size_t e = 0; e < data.size(); ++e)
    if (!std::count(o.validate.begin(), o.validate.end(), data[e].name)) train.push_back(static_cast<int>(e));

  // User-held and initial values of the dynamic parameters.
  const std::string dyn[2] = {model.params[F::kDyn[0]].name, model.params[F::kDyn[1]].name};
  bool dyn_fixed[2] = {false, false};
  double dyn_value[2] = {kNaN, kNaN};
  for (int i = 0; i < 2; ++i) {
    dyn_fixed[i] = named_value(o.fix, dyn[i], dyn_value[i]);
    if (!dyn_fixed[i]) named_value(o.initial, dyn[i], dyn_value[i]);
    if (!o.free.empty() && !dyn_fixed[i] && std::find(o.free.begin(), o.free.end(), dyn[i]) == o.free.end()) {
      dyn_fixed[i] = true;
      if (!std::isfinite(dyn_value[i])) dyn_value[i] = model.params[model.param_index(dyn[i])].default_value;
    }
  }

  const double d_zero = median_zero_crossing_travel(data, x);
  double settle = std::isfinite(d_zero) ? kSettleLengths / std::log(2.0) * d_zero : 0.0;
  FitSummary S;
  double u[2] = {0.0, 0.0};
  ceres::Solver::Summary sum2;
  std::vector<Trace> traces;
  std::vector<std::unique_ptr<TraceCost<F>>> costs;  // for evaluation; the problem owns its own
  double statics[M::kNumParams];
  long n_steady = 0;
  int iterations = 0;
  double solver_seconds = 0.0;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    // Stage 1 on the settled samples.
    std::vector<Experiment> steady;
    n_steady = 0;
    for (size_t e = 0; e < data.size(); ++e) {
      Experiment s;
      s.name = experiments[e].name;
      s.source = experiments[e].source;
      s.units = experiments[e].units;
      s.attributes = experiments[e].attributes;
      const size_t n = experiments[e].size();
      std::vector<char> keep(n);
      // Settled: slid >= settle since the reversal, and |v| within 2 % over the
      // last relaxation length (settle / kSettleLengths), so the bristle does not lag a
      // changing z_ss(v) (bias below ~0.01 (F_s-F_C) in the Stribeck range).
      size_t j = 0;
      for (size_t k = 0; k < n; ++k) {
        if (x[e][k] == 0.0 || x[e][k] < x[e][j]) j = k;
        while (j + 1 < k && x[e][k] - x[e][j + 1] >= settle / kSettleLengths) ++j;
        const double v = data[e].v[k];
        keep[k] = v != 0.0 && x[e][k] >= settle && x[e][k] - x[e][j] >= settle / kSettleLengths &&
                  std::abs(data[e].v[j] - v) <= 0.02 * std::abs(v);
      }
      const long m = std::count(keep.begin(), keep.end(), 1);
      if (m == 0) continue;
      for (const auto& [name, ch] : experiments[e].channels) {
        if (ch.size() != n) continue;
        auto& out = s.channels[name];
        for (size_t k = 0; k < n; ++k)
          if (keep[k]) out.push_back(ch[k]);
      }
      if (!experiments[e].has("velocity")) s.channels["velocity"] = {};
      if (!experiments[e].has("velocity"))
        for (size_t k = 0; k < n; ++k)
          if (keep[k]) s.channels["velocity"].push_back(data[e].v[k]);
      if (!std::count(o.validate.begin(), o.validate.end(), s.name)) n_steady += m;
      steady.push_back(std::move(s));
    }
    if (n_steady == 0)
      throw InputError(id + ": no settled samples (travel since the last reversal >= " + fmt(settle) +
                       " m) to fit the static part; the log needs longer strokes");
    FitOptions o1 = o;
    o1.starts = 1;
    o1.keep_signals = false;
    o1.validate.clear();
    for (const auto& v : o.validate)
      if (std::any_of(steady.begin(), steady.end(), [&](const Experiment& s) { return s.name == v; }))
        o1.validate.push_back(v);
    for (int i = 0; i < 2; ++i) {
      o1.free.erase(std::remove(o1.free.begin(), o1.free.end(), dyn[i]), o1.free.end());
      if (!named_value(o.fix, dyn[i], dyn_value[i]))  // any positive value: F_ss does not depend on them
        o1.fix.push_back(dyn[i] + "=" + fmt(std::isfinite(dyn_value[i]) ? dyn_value[i]
                                                            : model.params[model.param_index(dyn[i])].default_value));
    }
    S = fit_steady_state<F>(model, steady, o1);
    iterations += S.iterations;
    solver_seconds += S.solver_seconds;
    for (int j = 0; j < M::kNumParams; ++j) statics[j] = S.param(model.params[j].name).value;

    // Stage 2: the dynamic parameters by simulation.
    traces.assign(data.size(), Trace{});
    for (size_t e = 0; e < data.size(); ++e) {
      traces[e].d = &data[e];
      traces[e].t = times[e];
      for (const auto& p : S.parameters)
        if (p.name == "offset" || p.name == "offset@" + data[e].name) traces[e].offset = p.value;
    }
    costs.clear();
    for (size_t e = 0; e < data.size(); ++e) costs.emplace_back(new TraceCost<F>(&traces[e], statics));
    auto train_cost = [&](double s0, double s1) {
      double c = 0;
      for (int e : train)
        for (double r : costs[e]->force(s0, s1)) c += r * r;
      return std::isfinite(c) ? c : kInf;
    };
    // Start: the best of a coarse grid around the data's stiffness
    // (level ln2 / zero-crossing travel) and the model's grid of the second
    // parameter (LuGre: bristle time constants sigma1/sigma0 from 1 us to
    // 1 s; Dahl: alpha from 0.5 to 3).
    const double s0g = std::isfinite(dyn_value[0]) ? dyn_value[0]
                       : std::isfinite(d_zero) && d_zero > 0 ? F::level(statics) * std::log(2.0) / d_zero
                                                             : model.params[F::kDyn[0]].default_value;
    double best = kInf, b0 = s0g, b1 = std::isfinite(dyn_value[1]) ? dyn_value[1] : F::second_default(s0g);
    if (pass == 0 || !std::isfinite(u[0])) {
      for (double f0 : {0.25, 0.5, 1.0, 2.0, 4.0}) {
        if (dyn_fixed[0] && f0 != 1.0) continue;
        const double s0 = s0g * f0;
        for (double s1 : dyn_fixed[1] ? std::vector<double>{dyn_value[1]} : F::second_starts(s0)) {
          const double c = train_cost(s0, s1);
          if (c < best) best = c, b0 = s0, b1 = s1;
        }
      }
      u[0] = std::log(b0);
      u[1] = std::log(b1);
    }
    ceres::Problem P;
    for (int e : train) P.AddResidualBlock(new TraceCost<F>(&traces[e], statics), nullptr, &u[0], &u[1]);
    for (int i = 0; i < 2; ++i)
      if (dyn_fixed[i]) P.SetParameterBlockConstant(&u[i]);
    const ceres::Solver::Options so = solver_options(o, 1);
    if (!dyn_fixed[0] || !dyn_fixed[1]) ceres::Solve(so, &P, &sum2);
    else sum2.termination_type = ceres::CONVERGENCE;
    iterations += static_cast<int>(sum2.iterations.size());
    solver_seconds += sum2.total_time_in_seconds;

    // Run again while the settled-sample rule was too loose for the found
    // dynamic parameters (LuGre: once at most; Dahl with alpha > 1, whose
    // settle travel grows steeply with alpha, until alpha settles too).
    double found[M::kNumParams];
    std::copy(statics, statics + M::kNumParams, found);
    found[F::kDyn[0]] = std::exp(u[0]);
    found[F::kDyn[1]] = std::exp(u[1]);
    const double need = F::settle_travel(found);
    if (pass + 1 < kMaxPasses && need > 1.05 * settle) settle = need;
    else break;
  }

  // Stage-2 covariance: (J^T J)^-1 of the two log parameters, scaled by the
  // residual variance of the whole traces.
  const double s0 = std::exp(u[0]), s1 = std::exp(u[1]);
  long n = 0;
  double ssr = 0, sst = 0, fsum = 0, maxe = 0, ac = 0;
  S.experiments.clear();
  std::vector<double> Jr[2];
  for (size_t e = 0; e < data.size(); ++e) {
    const bool held = std::count(o.validate.begin(), o.validate.end(), data[e].name) != 0;
    ExperimentFit ef;
    ef.name = data[e].name;
    ef.samples = static_cast<long>(data[e].size());
    ef.held_out = held;
    std::vector<double> r(data[e].size());
    std::vector<double> j0(r.size()), j1(r.size());
    const double* up[2] = {&u[0], &u[1]};
    double* jac[2] = {j0.data(), j1.data()};
    if (!costs[e]->Evaluate(up, r.data(), jac)) std::fill(r.begin(), r.end(), kNaN);
    double se = 0;
    for (size_t k = 0; k < r.size(); ++k) se += r[k] * r[k];
    ef.rmse = std::sqrt(se / r.size());
    if (!held) {
      n += static_cast<long>(r.size());
      ssr += se;
      for (size_t k = 0; k < r.size(); ++k) {
        fsum += data[e].force[k];
        maxe = std::max(maxe, std::abs(r[k]));
        if (k) ac += r[k] * r[k - 1];
      }
      Jr[0].insert(Jr[0].end(), j0.begin(), j0.end());
      Jr[1].insert(Jr[1].end(), j1.begin(), j1.end());
    }
    if (o.keep_signals) {
      ef.fitted.resize(r.size());
      for (size_t k = 0; k < r.size(); ++k) ef.fitted[k] = data[e].force[k] - r[k];
      ef.residual = std::move(r);
    }
    S.experiments.push_back(std::move(ef));
  }
  for (int e : train)
    for (double f : data[e].force) sst += (f - fsum / n) * (f - fsum / n);
  if (!o.validate.empty()) {
    double sv = 0;
    long nv = 0;
    for (const auto& ef : S.experiments)
      if (ef.held_out) sv += ef.rmse * ef.rmse * ef.samples, nv += ef.samples;
    S.validation_rmse = nv ? std::sqrt(sv / nv) : kNaN;
  }
  std::vector<int> free2;
  for (int i = 0; i < 2; ++i)
    if (!dyn_fixed[i]) free2.push_back(i);
  const int k1 = S.free_parameters, k2 = static_cast<int>(free2.size()), k = k1 + k2;
  double JtJ[2][2] = {{0, 0}, {0, 0}};
  for (size_t r = 0; r < Jr[0].size(); ++r)
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) JtJ[a][b] += Jr[a][r] * Jr[b][r];
  const double s2 = ssr / std::max<long>(1, n - k);
  double cov[2][2] = {{kNaN, kNaN}, {kNaN, kNaN}};
  bool singular2 = false;
  if (k2 == 2) {
    const double det = JtJ[0][0] * JtJ[1][1] - JtJ[0][1] * JtJ[1][0];
    singular2 = !(det > 1e-12 * JtJ[0][0] * JtJ[1][1]);
    if (!singular2) {
      cov[0][0] = s2 * JtJ[1][1] / det;
      cov[1][1] = s2 * JtJ[0][0] / det;
      cov[0][1] = cov[1][0] = -s2 * JtJ[0][1] / det;
    }
  } else if (k2 == 1) {
    const int i = free2[0];
    singular2 = !(JtJ[i][i] > 0);
    if (!singular2) cov[i][i] = s2 / JtJ[i][i];
  }

  // Parameters: stage 1 as fitted, the dynamic ones from stage 2.
  const double val[2] = {s0, s1};
  for (int i = 0; i < 2; ++i) {
    for (auto& p : S.parameters)
      if (p.name == dyn[i]) {
        p.value = val[i];
        p.fixed = dyn_fixed[i];
        p.at_bound = false;
        p.std_error = p.ci95_lo = p.ci95_hi = kNaN;
        if (!dyn_fixed[i] && std::isfinite(cov[i][i])) {
          const double su = std::sqrt(cov[i][i]);
          p.std_error = val[i] * su;  // delta method through x = exp(u)
          p.ci95_lo = val[i] * std::exp(-kZ95 * su);
          p.ci95_hi = val[i] * std::exp(kZ95 * su);
        }
      }
  }
  // Correlations: within each stage; across stages unknown (NaN).
  std::vector<std::string> names = S.free_names;
  for (int i : free2) names.push_back(dyn[i]);
  std::vector<std::vector<double>> corr(k, std::vector<double>(k, kNaN));
  for (int a = 0; a < k1; ++a)
    for (int b = 0; b < k1; ++b) corr[a][b] = S.correlation[a][b];
  for (int a = 0; a < k2; ++a)
    for (int b = 0; b < k2; ++b)
      corr[k1 + a][k1 + b] = cov[free2[a]][free2[b]] / std::sqrt(cov[free2[a]][free2[a]] * cov[free2[b]][free2[b]]);
  S.free_names = names;
  S.correlation = corr;

  S.cost = 0.5 * ssr;
  set_fit_quality(S, n, k, ssr, sst, maxe, ac);
  S.iterations = iterations;
  S.solver_seconds = solver_seconds;
  if (S.status == FitStatus::kConverged) {
    S.status = sum2.termination_type == ceres::CONVERGENCE   ? (singular2 ? FitStatus::kSingular : FitStatus::kConverged)
               : sum2.termination_type == ceres::NO_CONVERGENCE ? FitStatus::kMaxIterations
                                                                 : FitStatus::kFailed;
    S.solver_message = sum2.message;
  }
  S.converged = S.status == FitStatus::kConverged;
  const std::string pair = dyn[0] + " and " + dyn[1];
  S.warnings.insert(S.warnings.begin(),
                    std::string("two-stage ") + F::kTitle + " fit: the static part from the steady-state curve on " +
                        std::to_string(n_steady) + " settled samples (slid >= " + fmt(settle) +
                        " m since the last reversal), its standard errors from that stage; " + pair +
                        " by simulating the state with the static part held, their standard errors from that "
                        "stage (neither includes the other stage's uncertainty)");
  if (singular2) S.warnings.push_back("the data cannot determine " + pair + " (singular stage 2); the log "
                                      "needs velocity reversals with presliding");
  for (int i : free2)
    if (std::isfinite(cov[i][i]) && val[i] * std::sqrt(cov[i][i]) > o.max_relative_std_error * val[i])
      S.warnings.push_back(dyn[i] + " is poorly determined: " + fmt(val[i]) + " +/- " +
                           fmt(val[i] * std::sqrt(cov[i][i])));
  if (o.starts > 1)
    S.warnings.push_back("--starts: " + id + "'s stages start from data-driven guesses and a grid over " + dyn[0] +
                         ", " + dyn[1] + "; the global search is not run");
  if (!o.loss.empty())
    S.warnings.push_back("--loss applies to the static stage only; " + dyn[0] + ", " + dyn[1] +
                         " are fitted by plain least squares");
  if (sum2.termination_type == ceres::NO_CONVERGENCE)
    S.warnings.push_back("not converged: stage 2 stopped after " + std::to_string(o.max_iterations) + " iterations");
  S.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return S;
}

}  // namespace

bool has_two_stage_fit(const std::string& id) {
  return id == LuGre::kId || id == Dahl::kId || id == TwentySimLuGre::kId;
}

FitSummary fit_two_stage(const std::vector<Experiment>& experiments, const ModelInfo& model, const FitOptions& o) {
  if (model.id == Dahl::kId) return two_stage<DahlFit>(experiments, model, o);
  if (model.id == TwentySimLuGre::kId) return two_stage<TwentySimLuGreFit>(experiments, model, o);
  return two_stage<LuGreFit>(experiments, model, o);
}

}  // namespace stribeck::ident::detail
