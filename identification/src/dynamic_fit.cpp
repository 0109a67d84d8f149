// The fit of LuGre, Dahl and 20-sim LuGre (docs/identification.md, "Dynamic
// models"): two stages give the start, the joint stage (joint_fit.cpp) the
// result.
//
// Stage 1: the static part (LuGre: F_C, F_s, v_s, sigma2; 20-sim LuGre: the
// same as coefficients of the normal force; Dahl: F_C; and the offset) from the samples whose state has settled, fitted to the model's
// steady_force by the static machinery. At constant v the state relaxes
// towards its steady state with the distance slid (LuGre's bristle as
// exp(-x / z_ss); Dahl's force as Dahl::travel), and after a reversal it
// starts up to twice the steady value away, so a sample is settled once it
// has slid the model's settle_travel since the last velocity reversal (or
// since the start of the experiment, whose state is unknown): the transient
// is then below 0.07 % of the steady force. When fewer than a fifth of the
// moving samples settle (fast sines, short strokes, presliding), stage 1 uses
// every moving sample: it only has to give the joint stage a start.
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
//
// Joint stage: every free parameter by simulation error over every sample,
// from the two-stage result and starts drawn across the model's ranges,
// until the best two agree; the summary (estimates, intervals, correlations,
// warnings, quality) is its. Each stage is a timed phase of the fit.
#include "dynamic_fit.hpp"

#include <ceres/ceres.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <type_traits>

#include "fit_solve.hpp"
#include "gms_elements.hpp"
#include "joint_fit.hpp"
#include "missing_terms.hpp"
#include "problem.hpp"
#include "solver_options.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::ident::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kMaxPasses = 4;         // of both stages (see the settle rule)
constexpr long kStartSamples = 4096;  // most samples stage 1 fits (thinned evenly)

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

// 2 -> "2nd", 3 -> "3rd", 11 -> "11th", 21 -> "21st".
std::string ordinal(long n) {
  const long tens = n % 100, ones = n % 10;
  const char* suffix = tens >= 11 && tens <= 13 ? "th" : ones == 1 ? "st" : ones == 2 ? "nd" : ones == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
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
    typename M::template State<T> st = start_of<F>(c, v0);
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

// The value NAME=VALUE in `specs` gives the parameter: any value in its
// range (sigma1 = 0 included: LuGre without bristle damping), which
// FitOptions::IsValid has checked for --fix and --init.
bool named_value(const std::vector<std::string>& specs, const ParamInfo& info, double& value) {
  for (const auto& s : specs) {
    const size_t eq = s.find('=');
    if (eq != std::string::npos && s.substr(0, eq) == info.name) return parse_double(s.substr(eq + 1), value);
  }
  return false;
}

// Stage 2's log coordinate of a dynamic parameter. A value on a closed
// lower bound of 0 (sigma1 = 0) has none: it enters as 1e-12 of the model's
// default (LuGre: 3e-10 N/(m/s), a damping force below 1e-9 N at 1 m/s);
// the joint stage, not log-parameterised there, holds or starts it at 0.
constexpr double kZeroNudge = 1e-12;
double log_coordinate(double value, const ParamInfo& info) {
  return std::log(value > 0 ? value : kZeroNudge * info.default_value);
}

// Both stages for model F::Model.
// The first two stages of a dynamic fit (two_stage): stage 1, the static law
// on the steady-state samples; stage 2, the two dynamic parameters by
// simulation with the static part held. The members are two_stage's
// variables (references), which the stages read and leave their results in.
template <class F>
struct StartStages {
  using M = typename F::Model;
  const std::vector<data::Experiment>& experiments;
  const ModelInfo& model;
  const FitOptions& o;
  const std::vector<Prepared>& data;
  const std::vector<std::vector<double>>& times;
  const std::vector<std::vector<double>>& x;
  const std::vector<int>& train;
  const std::string (&dyn)[2];
  const bool (&dyn_fixed)[2];
  double (&dyn_value)[2];
  const double d_zero, settle0;
  Phases& phases;
  double& settle;
  FitSummary& S;
  double (&u)[2];
  ceres::Solver::Summary& sum2;
  std::vector<Trace>& traces;
  std::vector<std::unique_ptr<TraceCost<F>>>& costs;  // for evaluation; the problem owns its own
  double (&statics)[M::kNumParams];
  long &n_steady, &n_settled, &n_slow_settled;
  double& fallback_travel;
  bool& all_samples;
  long& stride;  // stage 1 fits every stride-th of its samples
  int& iterations;
  double& solver_seconds;

  // Both stages; `fallback` picks stage 1's samples when too few settle
  // (1: every moving sample, 2: those that slid at least the median travel
  // since their reversal). Returns the training cost of the simulated force
  // at the stage-2 solution.
  double run(int fallback) {
    settle = settle0;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      // Stage 1 on the settled samples, or (`fallback`) on moving samples when
      // few settle (short strokes, fast sines: the joint stage below does not
      // need settled samples, only a start).
      stage1(stage1_samples(fallback));
      stage2(pass);

      // Run again while the settled-sample rule was too loose for the found
      // dynamic parameters (LuGre: once at most; Dahl with alpha > 1, whose
      // settle travel grows steeply with alpha, until alpha settles too).
      double found[M::kNumParams];
      std::copy(statics, statics + M::kNumParams, found);
      found[F::kDyn[0]] = std::exp(u[0]);
      found[F::kDyn[1]] = std::exp(u[1]);
      const double need = F::settle_travel(found);
      if (!all_samples && pass + 1 < kMaxPasses && need > 1.05 * settle) settle = need;
      else break;
    }
    double c = 0;
    for (int e : train)
      for (double r : costs[e]->force(std::exp(u[0]), std::exp(u[1]))) c += r * r;
    return std::isfinite(c) ? c : kInf;
  }

  // Stage 1's samples: the settled ones, or (`fallback`) moving ones.
  std::vector<std::vector<char>> stage1_samples(int fallback) {
    std::vector<std::vector<char>> keeps(data.size());
    n_settled = 0;
    long n_moving = 0;
    for (size_t e = 0; e < data.size(); ++e) {
      const size_t n = experiments[e].size();
      std::vector<char>& keep = keeps[e];
      keep.assign(n, 0);
      // Settled: slid >= settle since the reversal, and |v| within 2 % over the
      // last relaxation length (settle / kSettleLengths), so the bristle does not lag a
      // changing z_ss(v) (bias below ~0.01 (F_s-F_C) in the Stribeck range).
      // The velocity one relaxation length back is interpolated between the
      // samples around it: when a sample interval slides many relaxation
      // lengths (fast motion), the state follows z_ss(v) within the interval
      // and the sample is settled however much v changed since the last one.
      const double relax = settle / kSettleLengths;
      size_t j = 0;
      for (size_t k = 0; k < n; ++k) {
        if (x[e][k] == 0.0 || x[e][k] < x[e][j]) j = k;
        while (j + 1 < k && x[e][k] - x[e][j + 1] >= relax) ++j;
        const double v = data[e].v[k];
        double v_back = data[e].v[j];
        if (j + 1 <= k && x[e][j + 1] > x[e][j])
          v_back +=
              (data[e].v[j + 1] - data[e].v[j]) * std::min(1.0, (x[e][k] - relax - x[e][j]) / (x[e][j + 1] - x[e][j]));
        keep[k] =
            v != 0.0 && x[e][k] >= settle && x[e][k] - x[e][j] >= relax && std::abs(v_back - v) <= 0.02 * std::abs(v);
      }
      if (!std::count(o.validate.begin(), o.validate.end(), data[e].name)) {
        n_settled += std::count(keep.begin(), keep.end(), 1);
        n_moving += std::count_if(data[e].v.begin(), data[e].v.end(), [](double v) { return v != 0.0; });
      }
    }
    // Too few settled samples, or none in the slow quarter of the log's
    // speeds (where the Stribeck curve bends): every moving sample instead.
    std::vector<double> speeds;
    for (int e : train)
      for (double v : data[e].v)
        if (v != 0.0) speeds.push_back(std::abs(v));
    double q25 = 0.0;
    if (!speeds.empty()) {
      std::nth_element(speeds.begin(), speeds.begin() + speeds.size() / 4, speeds.end());
      q25 = speeds[speeds.size() / 4];
    }
    n_slow_settled = 0;
    for (int e : train)
      for (size_t k = 0; k < keeps[e].size(); ++k) n_slow_settled += keeps[e][k] && std::abs(data[e].v[k]) <= q25;
    all_samples = n_settled < std::max<long>(50, n_moving / 5) || n_slow_settled < std::max<long>(10, n_settled / 20);
    fallback_travel = 0.0;
    if (all_samples && fallback == 2) {
      // The moving samples that slid at least the median travel since their
      // reversal: the most settled half, at every speed (the ends of strokes
      // decelerate through the Stribeck region).
      std::vector<double> travels;
      for (int e : train)
        for (size_t k = 0; k < x[e].size(); ++k)
          if (data[e].v[k] != 0.0) travels.push_back(x[e][k]);
      std::nth_element(travels.begin(), travels.begin() + travels.size() / 2, travels.end());
      fallback_travel = travels.empty() ? 0.0 : travels[travels.size() / 2];
      for (size_t e = 0; e < data.size(); ++e)
        for (size_t k = 0; k < keeps[e].size(); ++k) keeps[e][k] = data[e].v[k] != 0.0 && x[e][k] >= fallback_travel;
    } else if (all_samples) {
      for (size_t e = 0; e < data.size(); ++e)
        for (size_t k = 0; k < keeps[e].size(); ++k) keeps[e][k] = data[e].v[k] != 0.0;
    }
    if (n_moving == 0)
      throw data::InputError("no motion: the velocity is zero in every sample of the fitted experiments");
    return keeps;
  }

  // Stage 1: the static law fitted to the chosen samples.
  void stage1(const std::vector<std::vector<char>>& keeps) {
    // Stage 1 only starts the joint stage, and the static fit's cost
    // (its profile intervals above all) grows with the samples: every
    // stride-th of the chosen samples, at most about kStartSamples.
    long chosen = 0;
    for (const auto& keep : keeps) chosen += std::count(keep.begin(), keep.end(), 1);
    stride = std::max(1L, (chosen + kStartSamples - 1) / kStartSamples);
    std::vector<data::Experiment> steady;
    n_steady = 0;
    for (size_t e = 0; e < data.size(); ++e) {
      data::Experiment s;
      s.name = experiments[e].name;
      s.source = experiments[e].source;
      s.units = experiments[e].units;
      s.attributes = experiments[e].attributes;
      const size_t n = experiments[e].size();
      std::vector<char> keep = keeps[e];
      long seen = 0;
      for (char& c : keep)
        if (c) c = seen++ % stride == 0;
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
      if (!std::count(o.validate.begin(), o.validate.end(), s.name))
        n_steady += std::count(keeps[e].begin(), keeps[e].end(), 1);
      steady.push_back(std::move(s));
    }
    FitOptions o1 = o;
    o1.starts = 1;
    // The static law fitted to dynamic data is a start for the joint stage,
    // not a model of the data: a lower cost a profile finds there (the
    // static law bending to the bristle dynamics) is no better a start.
    o1.max_profile_restarts = 0;
    o1.keep_signals = false;
    o1.validate.clear();
    for (const auto& v : o.validate)
      if (std::any_of(steady.begin(), steady.end(), [&](const data::Experiment& s) { return s.name == v; }))
        o1.validate.push_back(v);
    for (int i = 0; i < 2; ++i) {
      o1.free.erase(std::remove(o1.free.begin(), o1.free.end(), dyn[i]), o1.free.end());
      if (!named_value(o.fix, model.params[F::kDyn[i]], dyn_value[i]))  // any value: F_ss does not depend on them
        o1.fix.push_back(
            dyn[i] + "=" +
            fmt(std::isfinite(dyn_value[i]) ? dyn_value[i] : model.params[model.param_index(dyn[i])].default_value));
    }
    o1.progress = nullptr;  // this fit's progress is the dynamic fit's "steady-state stage"
    // A failure of this stage names it and the user's values that act on it:
    // not the fixes above, nor the user's dynamic values (F_ss ignores them).
    FitOptions user = o;
    for (auto* list : {&user.fix, &user.initial})
      list->erase(std::remove_if(list->begin(), list->end(),
                                 [&](const std::string& a) {
                                   return a.rfind(dyn[0] + "=", 0) == 0 || a.rfind(dyn[1] + "=", 0) == 0;
                                 }),
                  list->end());
    phases.begin("steady-state stage");
    S = fit_steady_state<F>(model, steady, o1, FitOrigin{"the steady-state stage of the " + model.id + " fit", &user});
    iterations += S.iterations;
    solver_seconds += S.solver_seconds;
    for (int j = 0; j < M::kNumParams; ++j) statics[j] = S.param(model.params[j].name).value;
  }

  // Stage 2: the dynamic parameters by simulation.
  void stage2(int pass) {
    phases.begin("dynamic stage");
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
    const double s0g = std::isfinite(dyn_value[0])           ? dyn_value[0]
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
      u[0] = log_coordinate(b0, model.params[F::kDyn[0]]);
      u[1] = log_coordinate(b1, model.params[F::kDyn[1]]);
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
  }

  // The joint stage's start: the layout at the two-stage result.
  Layout joint_start() const {
    Layout L = make_layout(model, o, data);
    for (auto& p : L.params) {
      if (p.fixed) continue;
      if (p.model_index >= 0) {
        p.value = p.model_index == F::kDyn[0]   ? std::exp(u[0])
                  : p.model_index == F::kDyn[1] ? std::exp(u[1])
                                                : statics[p.model_index];
      } else if (p.base == "offset") {
        for (const auto& q : S.parameters)
          if (q.name == p.name) p.value = q.value;
      }
      const double lo = p.transform == Transform::kLog && !(p.lo > 0) ? 0.0 : p.lo;
      p.value = std::min(std::max(p.value, lo), p.hi);
      if (p.transform == Transform::kLog && !(p.value > 0)) p.value = model.params[p.model_index].default_value;
    }
    // A start in a degenerate Stribeck corner traps the joint stage: with
    // F_s = F_C, v_s has no effect, and with v_s outside the log's speeds,
    // F_s - F_C has none (stage 1 ends there when its samples barely reach the
    // Stribeck region). Then the breakaway/Stribeck parameters start from the
    // data-driven guesses instead (make_layout's; F_s at least 1.1 F_C).
    {
      std::vector<double> speeds;
      for (int e : train)
        for (double v : data[e].v)
          if (v != 0.0) speeds.push_back(std::abs(v));
      std::sort(speeds.begin(), speeds.end());
      const double q05 = speeds[speeds.size() / 20], q95 = speeds[speeds.size() - 1 - speeds.size() / 20];
      bool degenerate = false;
      for (const auto& p : L.params) {
        if (p.fixed || !p.low_speed) continue;
        if (p.transform == Transform::kExcess &&
            p.value - L.params[p.excess_base].value <= 1e-3 * std::abs(L.params[p.excess_base].value))
          degenerate = true;
        if (p.transform == Transform::kLog && p.unit == "m/s" && !(p.value >= q05 && p.value <= q95)) degenerate = true;
      }
      if (degenerate) {
        const Layout G = make_layout(model, o, data);  // the data-driven guesses
        for (size_t i = 0; i < L.params.size(); ++i)
          if (!L.params[i].fixed && L.params[i].low_speed) L.params[i].value = G.params[i].value;
        for (auto& p : L.params)
          if (!p.fixed && p.low_speed && p.transform == Transform::kExcess)
            p.value = std::max(p.value, 1.1 * L.params[p.excess_base].value);
      }
    }
    // Dahl's alpha: exactly 1 selects Dahl::travel's exponential form, which
    // carries no derivative in alpha; a start far outside 0.2 ... 5 comes from
    // a stage 2 on a poor static part.
    if constexpr (std::is_same<F, DahlFit>::value)
      for (auto& p : L.params)
        if (!p.fixed && p.model_index == Dahl::alpha)
          p.value = p.value == 1.0 ? 1.0 + 1e-6 : std::min(5.0, std::max(0.2, p.value));
    for (auto& p : L.params)
      if (p.transform == Transform::kExcess) p.value = std::max(p.value, L.params[p.excess_base].value);
    return L;
  }

  // The note that says how the start was found and what the joint stage did.
  // split: the joint stage's starts split from the fit of one element
  // fewer (GMS), whose rmse is fewer_rmse.
  std::string note(const FitSummary& R, const JointResult& J, int split, double fewer_rmse) const {
    const std::string pair = dyn[0] + " and " + dyn[1];
    const std::string first =
        std::string("two-stage ") + F::kTitle + " fit as the start (the static part from the steady-state curve on " +
        (all_samples
             ? (fallback_travel > 0 ? "the " + std::to_string(n_steady) + " moving samples that slid >= " +
                                          fmt(fallback_travel) + " m (the median) since the last reversal"
                                    : "all " + std::to_string(n_steady) + " moving samples") +
                   ", since only " + std::to_string(n_settled) + " had settled (slid >= " + fmt(settle) +
                   " m since the last reversal), " + std::to_string(n_slow_settled) + " of them in the slowest quarter"
             : std::to_string(n_steady) + " settled samples, slid >= " + fmt(settle) + " m since the last reversal") +
        (stride > 1 ? ", every " + ordinal(stride) + " of them fitted" : std::string()) + "; " + pair +
        " by simulating the state with the static part held), then the joint stage: every parameter by "
        "simulation error over all " +
        std::to_string(R.samples) + " samples, " + std::to_string(R.starts) + " start(s)" +
        (split > 0 ? " (" + std::to_string(split) + " of them the fit of one element fewer, rmse " + fmt(fewer_rmse) +
                         ", with an element split in two)"
                   : std::string()) +
        ", " + std::to_string(J.at_best) + " reaching the best cost" +
        (o.starts == 0 ? " in " + std::to_string(J.rounds) + " round(s)" + (J.settled ? ", the best two agreeing" : "")
                       : std::string()) +
        "; standard errors, intervals and correlations are the joint problem's";
    return first;
  }
};

template <class F>
FitSummary two_stage(const std::vector<data::Experiment>& experiments, const ModelInfo& model, const FitOptions& o);

// gmsN, N >= 3: the fit of N - 1 elements on the same data (its rmse in
// *rmse), each of its elements split in two, as more starts of the joint
// stage (gms_elements.hpp): a search over N elements from drawn fractions
// ends where an element died, at a fit of N - 1 elements. None where the
// user names a fraction (its index is another element there) or holds
// them, where the budget of refinements (--starts, --max-starts) is below
// one round (two starts from a fit of two rounds cut short are worse than
// two from the search), or where the fewer elements' fit fails. At most
// the budget less the two-stage start.
template <class F>
std::vector<std::vector<double>> fewer_element_starts(const std::vector<data::Experiment>& experiments,
                                                      const FitOptions& o, const Layout& L, Phases& phases,
                                                      double* rmse) {
  constexpr int N = GmsElementCount<F>::value;
  if constexpr (N < 3) {
    return {};
  } else {
    const GmsFractionIndices f = gms_fraction_indices(L, N);
    const int budget = o.starts > 0 ? o.starts : o.max_starts, round = std::max(1, o.starts_per_round);
    if (f.kf.empty() || budget < round || names_gms_fraction(o)) return {};
    FitOptions sub = o;
    sub.progress = nullptr;
    sub.keep_signals = false;
    // Two rounds: it only has to put the joint stage's starts in the basin
    // of the right static part (a full search of its rugged cost seldom
    // settles and took three quarters of the gms3 fit's time).
    sub.max_starts = std::min(o.max_starts, 2 * round);
    phases.begin(std::string("fit of ") + Gms<N - 1>::kId);
    try {
      const FitSummary fewer = two_stage<GmsFit<N - 1>>(experiments, *find_model(Gms<N - 1>::kId), sub);
      if (fewer.status == FitStatus::kFailed) return {};
      *rmse = fewer.rmse;
      std::vector<std::vector<double>> starts = gms_split_starts(L, f, fewer);
      if (static_cast<int>(starts.size()) >= budget) starts.resize(budget - 1);
      return starts;
    } catch (const data::InputError&) {
      return {};  // a stage of its fit failed: the search goes on without it
    }
  }
}

template <class F>
FitSummary two_stage(const std::vector<data::Experiment>& experiments, const ModelInfo& model, const FitOptions& o) {
  using M = typename F::Model;
  const auto t0 = std::chrono::steady_clock::now();
  // The phases of the fit driver (phases.hpp), timed into the summary and
  // announced as progress as static fits' are.
  FitSummary timing;
  Phases phases(timing, o);
  phases.begin("start");
  const std::string id = model.id;
  std::vector<Prepared> data = prepare_data(experiments, model, o);
  std::vector<std::vector<double>> times, x;
  for (size_t e = 0; e < data.size(); ++e) {
    const std::vector<double>& t = simulation_times(experiments[e], experiments[e].source, id);
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
    dyn_fixed[i] = named_value(o.fix, model.params[F::kDyn[i]], dyn_value[i]);
    if (!dyn_fixed[i]) named_value(o.initial, model.params[F::kDyn[i]], dyn_value[i]);
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
  long n_steady = 0, n_settled = 0, n_slow_settled = 0;
  double fallback_travel = 0.0;
  bool all_samples = false;
  long stride = 1;  // stage 1 fits every stride-th of its samples
  int iterations = 0;
  double solver_seconds = 0.0;
  const double settle0 = settle;
  StartStages<F> stages{experiments,
                        model,
                        o,
                        data,
                        times,
                        x,
                        train,
                        dyn,
                        dyn_fixed,
                        dyn_value,
                        d_zero,
                        settle0,
                        phases,
                        settle,
                        S,
                        u,
                        sum2,
                        traces,
                        costs,
                        statics,
                        n_steady,
                        n_settled,
                        n_slow_settled,
                        fallback_travel,
                        all_samples,
                        stride,
                        iterations,
                        solver_seconds};
  // When few samples settle, the start is the better (lower simulation
  // cost) of the two fallbacks.
  const double cost1 = stages.run(1);
  if (all_samples) {
    const FitSummary S1 = S;
    double statics1[M::kNumParams];
    std::copy(statics, statics + M::kNumParams, statics1);
    const double u1[2] = {u[0], u[1]};
    const long n_steady1 = n_steady, stride1 = stride;
    const double cost2 = stages.run(2);
    if (!(cost2 < cost1)) {
      S = S1;
      std::copy(statics1, statics1 + M::kNumParams, statics);
      u[0] = u1[0];
      u[1] = u1[1];
      n_steady = n_steady1;
      stride = stride1;
      fallback_travel = 0.0;
    }
  }

  // The joint stage: every free parameter by simulation error over every
  // sample, from the two-stage result (start 0) and starts drawn across
  // the model's ranges (joint_fit.cpp).
  phases.begin("start");
  Layout L = stages.joint_start();
  double fewer_rmse = kNaN;
  const std::vector<std::vector<double>> split = fewer_element_starts<F>(experiments, o, L, phases, &fewer_rmse);
  phases.begin("joint stage");
  JointResult J = joint_stage<F>(model, o, data, times, train, std::move(L), split, phases);
  FitSummary& R = J.S;
  R.iterations += iterations;
  R.solver_seconds += solver_seconds;
  R.warnings.insert(R.warnings.begin(), stages.note(R, J, static_cast<int>(split.size()), fewer_rmse));
  if (!o.loss.empty())
    R.warnings.push_back("--loss applies to the static start only; the joint stage is plain least squares");
  // The missing-term check on the joint stage's residuals over every
  // training sample (the caller asks for the signals). No inertia term is
  // offered: a dynamic fit does not take --inertia yet.
  if (o.keep_signals) {
    MissingTermGram gram;
    double ysq = 0.0;
    long n = 0;
    for (size_t e = 0; e < data.size() && e < R.experiments.size(); ++e) {
      if (R.experiments[e].held_out || R.experiments[e].residual.size() != data[e].size()) continue;
      gram.add(data[e], {}, R.experiments[e].residual);
      for (double y : data[e].y) ysq += y * y, ++n;
    }
    gram.advise(R, o, model.needs(kChannelNormalForce), n ? std::sqrt(ysq / static_cast<double>(n)) : 0.0,
                R.noise_estimate);
  }
  phases.end();
  R.phase_seconds = timing.phase_seconds;
  R.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return R;
}

}  // namespace

bool has_two_stage_fit(const std::string& id) {
  return visit_two_stage_fit(id, [](auto) {});
}

const std::vector<double>& simulation_times(const data::Experiment& ex, const std::string& where,
                                            const std::string& model_id) {
  if (!ex.has("time"))
    throw data::InputError(where + ": experiment '" + ex.name + "' has no time channel; " + model_id +
                           " is fitted by simulating its state in time");
  const auto& t = ex.channel("time");
  for (size_t k = 1; k < t.size(); ++k)
    if (!(t[k] > t[k - 1]))
      throw data::InputError(where + ": experiment '" + ex.name + "', channel 'time', sample " + std::to_string(k) +
                             ": time must increase strictly");
  return t;
}

FitSummary fit_two_stage(const std::vector<data::Experiment>& experiments, const ModelInfo& model,
                         const FitOptions& o) {
  FitSummary S;
  if (!visit_two_stage_fit(model.id,
                           [&](auto kind) { S = two_stage<typename decltype(kind)::type>(experiments, model, o); }))
    S = two_stage<LuGreFit>(experiments, model, o);
  return S;
}

}  // namespace stribeck::ident::detail
