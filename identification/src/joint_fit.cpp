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
#include "gms_elements.hpp"
#include "multistart.hpp"
#include "noise.hpp"
#include "noise.hpp"
#include "solver_options.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/threads.hpp"
#include "stribeck/kernels/sweep/space.hpp"

namespace stribeck::ident::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Starts of the joint stage when --starts is 0 (automatic): the two-stage
// result and three more.
constexpr int kAutoStarts = 4;
// Free unknowns one experiment depends on: gms4's 14 model parameters + the
// offset (LuGre's 6 + offset take the 8-lane Jets, fewer the 4-lane ones).
constexpr int kMaxLanes = 16;

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
    throw data::InputError("too many free parameters for one experiment of a dynamic fit (" +
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
    if (w_.blocks.size() <= 8) return run<ceres::Jet<double, 8>>(u, r, jac);
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
    typename M::template State<T> st = start_of<F>(c, v0);
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

// Runs f(0) ... f(n-1) on up to `threads` threads (inline for one).
void parallel_for(long n, int threads, const std::function<void(long)>& f) {
  threads = static_cast<int>(std::max(1L, std::min<long>(threads, n)));
  if (threads == 1) {
    for (long i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<long> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (long i; (i = next++) < n;) f(i);
    });
  for (auto& th : pool) th.join();
}

// Drawn points screened per refinement a round wants.
constexpr int kScreenPerStart = 32;
// In the box's unit coordinates (each free unknown's drawn range mapped to
// [0, 1], the largest difference over the unknowns): screened points closer
// than kApart to one already picked are refined only when too few lie apart;
// two refinements whose solutions lie within kAgree are the same optimum.
constexpr double kApart = 0.1;
constexpr double kAgree = 0.01;

// The range the joint stage's starts are drawn from: per free unknown an
// interval of its internal coordinate, drawn uniformly, or of the log of it
// (`log_draw`: a nonnegative quantity over decades, e.g. sigma1 or the
// excess F_s - F_C).
struct Box {
  std::vector<int> free;  // Layout indices
  std::vector<double> lo, hi, blo, bhi;
  std::vector<char> log_draw;
  double coord(int f, double u) const { return log_draw[f] ? std::log(std::max(u, 1e-300)) : u; }
  // Drawn point i (Owen-scrambled Sobol'), the fixed unknowns as in u0.
  std::vector<double> point(const std::vector<double>& u0, long i, std::uint64_t seed) const {
    std::vector<double> u = u0;
    for (size_t f = 0; f < free.size(); ++f) {
      const double w = sweep::sobol_unit(static_cast<std::uint64_t>(i), static_cast<int>(f), seed);
      const double c = lo[f] + (hi[f] - lo[f]) * w;
      u[free[f]] = std::min(std::max(log_draw[f] ? std::exp(c) : c, blo[f]), bhi[f]);
    }
    return u;
  }
  double distance(const std::vector<double>& a, const std::vector<double>& b) const {
    double d = 0;
    for (size_t f = 0; f < free.size(); ++f) {
      const int f_ = static_cast<int>(f);
      const double w = hi[f] > lo[f] ? hi[f] - lo[f] : 1.0;
      d = std::max(d, std::abs(coord(f_, a[free[f]]) - coord(f_, b[free[f]])) / w);
    }
    return d;
  }
};

// q-quantile of xs (xs reordered).
double quantile(std::vector<double>& xs, double q) {
  if (xs.empty()) return kNaN;
  const size_t i = std::min(xs.size() - 1, static_cast<size_t>(q * static_cast<double>(xs.size())));
  std::nth_element(xs.begin(), xs.begin() + static_cast<long>(i), xs.end());
  return xs[i];
}

// The data's scales for the model's documented ranges: force levels from
// the force's range (half the 1 ... 99 % spread; per newton of the median
// normal force for 20-sim LuGre), velocities from the moving samples'
// speeds, stiffness from the presliding slopes (after each velocity
// reversal, the force change over the distance slid until the force has
// moved by half a level: between sigma0 and 2 sigma0 for LuGre, whose
// deflection starts at -z_ss and changes at twice the speed).
template <class F>
Box draw_box(const ModelInfo& model, const Layout& L, const std::vector<int>& free, const std::vector<Prepared>& data,
             const std::vector<std::vector<double>>& times, const std::vector<int>& train) {
  std::vector<double> f, speeds, fn, slopes;
  for (int e : train) {
    const Prepared& d = data[e];
    f.insert(f.end(), d.force.begin(), d.force.end());
    for (size_t i = 0; i < d.size(); ++i) {
      if (d.v[i] != 0) speeds.push_back(std::abs(d.v[i]));
      if (d.fn[i] != 0) fn.push_back(std::abs(d.fn[i]));
    }
  }
  const double level_force = 0.5 * (quantile(f, 0.99) - quantile(f, 0.01));
  const double vmax = speeds.empty() ? 1.0 : *std::max_element(speeds.begin(), speeds.end());
  const double vslow = speeds.empty() ? 1e-3 : quantile(speeds, 0.05);
  const double per = F::kPerNewton && !fn.empty() ? 1.0 / quantile(fn, 0.5) : 1.0;
  const double level = std::max(level_force, 1e-12) * per;
  for (int e : train) {
    const Prepared& d = data[e];
    const std::vector<double>& t = times[e];
    for (size_t k = 1; k + 1 < d.size(); ++k) {
      if (!(d.v[k - 1] * d.v[k] < 0 || (d.v[k - 1] == 0 && d.v[k] != 0))) continue;
      double x = 0;
      for (size_t j = k + 1; j < d.size() && d.v[j] * d.v[k] > 0; ++j) {
        x += 0.5 * (std::abs(d.v[j]) + std::abs(d.v[j - 1])) * (t[j] - t[j - 1]);
        if (std::abs(d.y[j] - d.y[k - 1]) >= 0.5 * level_force) {
          if (x > 0) slopes.push_back(std::abs(d.y[j] - d.y[k - 1]) / x * per);
          break;
        }
      }
    }
  }
  Box B;
  B.free = free;
  for (int g : free) {
    const FitParam& p = L.params[g];
    double blo, bhi;
    internal_bounds(p, blo, bhi);
    double lo = 0, hi = 0;
    bool log_draw = false;
    // Internal coordinates: the log of a log-parameterised value, the
    // excess over its base, the value itself otherwise.
    auto ext_range = [&](double a, double b) {
      lo = std::log(a), hi = std::log(b);
      log_draw = p.transform != Transform::kLog;
    };
    const double stiff = slopes.empty() ? std::exp(p.u) : quantile(slopes, 0.5);
    switch (p.role) {
      case ParamRole::kCoulomb: ext_range(0.01 * level, level); break;
      case ParamRole::kBreakaway: ext_range(1e-3 * level, level); break;
      case ParamRole::kStribeckVelocity: ext_range(0.5 * vslow, 2.0 * vmax); break;
      case ParamRole::kViscous: lo = 0.0, hi = 2.0 * level / vmax; break;
      case ParamRole::kBristleStiffness: ext_range(stiff / 100, stiff * 100); break;
      case ParamRole::kBristleDamping: ext_range(stiff * 1e-5, stiff); break;  // time constants 10 us ... 1 s
      case ParamRole::kShape: ext_range(0.3, 3.5); break;
      default:
        if (p.model_index < 0) {  // an offset: half a level either way
          lo = p.u - 0.5 * level_force, hi = p.u + 0.5 * level_force;
        } else if (p.role == ParamRole::kElementFraction && p.transform == Transform::kLog) {
          // GMS: a tenth of the two-stage share up to a tenth of what it
          // leaves the elements after it: not on the bound 1, where an
          // element takes all that is left and the next one dies.
          lo = p.u - std::log(10.0), hi = std::log(1.0 - (1.0 - std::exp(p.u)) / 10.0);
        } else if (p.transform == Transform::kLog) {
          lo = p.u - std::log(10.0), hi = p.u + std::log(10.0);
        } else {
          double span = std::abs(p.u);
          if (!(span > 0)) span = std::abs(model.params[p.model_index].default_value);
          if (!(span > 0)) span = 1.0;
          lo = p.u - 2.0 * span, hi = p.u + 2.0 * span;
        }
    }
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi >= lo))
      lo = hi = log_draw ? std::log(std::max(p.u, 1e-300)) : p.u;
    B.lo.push_back(lo);
    B.hi.push_back(hi);
    B.blo.push_back(blo);
    B.bhi.push_back(bhi);
    B.log_draw.push_back(log_draw);
  }
  return B;
}

// Cost of the training experiments at internal coordinates u (one per
// Layout parameter), by plain simulation.
template <class F>
class SimulationCost {
 public:
  SimulationCost(const Layout& L, const std::vector<Prepared>& data, const std::vector<std::vector<double>>& times,
                 const std::vector<int>& train) {
    for (int e : train) costs_.emplace_back(new JointCost<F>(&data[e], &times[e], wire(L, e, F::Model::kNumParams)));
  }
  double operator()(const std::vector<double>& u) const {
    double c = 0;
    for (const auto& cf : costs_) {
      std::vector<const double*> ptr;
      for (int g : cf->wiring().blocks) ptr.push_back(&u[g]);
      std::vector<double> r(static_cast<size_t>(cf->num_residuals()));
      if (!cf->Evaluate(ptr.data(), r.data(), nullptr)) return kInf;
      for (double x : r) c += x * x;
    }
    return std::isfinite(c) ? 0.5 * c : kInf;
  }

 private:
  std::vector<std::unique_ptr<JointCost<F>>> costs_;
};

// Adds to `starts`, up to `want`, the best of kScreenPerStart drawn points
// per start wanted (points drawn + 0, 1, ...; *drawn advanced), screened by
// their simulation cost alone in parallel: first those apart from the
// starts already there (so a round does not refine one basin four times),
// then the rest. With `base` (and `redrawn` not empty), only the unknowns
// `redrawn` are drawn, the others are base's.
template <class F>
void add_screened_starts(const Box& box, const SimulationCost<F>& cost_at, const std::vector<double>& u0, int want,
                         int threads, std::uint64_t seed, long& drawn, std::vector<std::vector<double>>& starts,
                         const std::vector<double>* base, const std::vector<int>& redrawn) {
  const long m = static_cast<long>(kScreenPerStart) * want;
  std::vector<std::vector<double>> pts(m);
  std::vector<double> cost(m, kInf);
  for (long i = 0; i < m; ++i) pts[i] = box.point(u0, drawn + i, seed);
  if (base && !redrawn.empty())
    for (long i = 0; i < m; ++i) {
      std::vector<double> q = *base;
      for (int g : redrawn) q[g] = pts[i][g];
      pts[i] = std::move(q);
    }
  drawn += m;
  parallel_for(m, threads, [&](long i) { cost[i] = cost_at(pts[i]); });
  std::vector<long> idx(m);
  for (long i = 0; i < m; ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](long x, long y) { return cost[x] < cost[y]; });
  for (int pass = 0; pass < 2 && static_cast<int>(starts.size()) < want; ++pass)
    for (long i : idx) {
      if (static_cast<int>(starts.size()) >= want || !std::isfinite(cost[i])) break;
      const bool apart = std::none_of(starts.begin(), starts.end(),
                                      [&](const std::vector<double>& q) { return box.distance(q, pts[i]) < kApart; });
      if ((pass == 0) == apart && std::find(starts.begin(), starts.end(), pts[i]) == starts.end())
        starts.push_back(pts[i]);
    }
}

// The free parameters that have a block in the joint problem (held-out
// experiments cannot determine their own offsets), with the training
// samples in *n; refuses no more samples than free parameters.
template <class F>
std::vector<int> joint_free(Layout& L, const std::vector<Prepared>& data, const std::vector<std::vector<double>>& times,
                            const std::vector<int>& train, long* n_out) {
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
    throw data::InputError("too few samples: " + std::to_string(n) + " samples for " + std::to_string(k) +
                           " free parameters");
  *n_out = n;
  return free;
}

// The scale of the search's agreement rule (multistart.hpp): the training
// samples, their noise and force RMS.
SearchScale joint_scale(const std::vector<Prepared>& data, const std::vector<int>& train, long n) {
  double frms = 0;
  for (int e : train)
    for (double f : data[e].force) frms += f * f;
  SearchScale scale;
  scale.samples = n;
  scale.noise = noise_estimate(data, train);
  scale.force_rms = std::sqrt(frms / static_cast<double>(std::max<long>(1, n)));
  return scale;
}

// The options of each refinement of the joint stage.
ceres::Solver::Options joint_solver_options(const FitOptions& o) {
  ceres::Solver::Options so = solver_options(o, 1);
  so.num_threads = 1;
  // Correlated parameters (F_C, sigma2, F_s, v_s) make long curved valleys
  // in which Levenberg-Marquardt steps, and the cost decrease per step, get
  // small well before the minimum: both tests are tightened 1e4-fold (the
  // iterations are cheap). The cost is only piecewise smooth in v_s (the
  // bristle sub-step count depends on it), so minima found from different
  // starts can still differ in the 7th digit (bench/peers/check_lugre_fit_peer.sh).
  so.parameter_tolerance = std::min(o.parameter_tolerance, 1e-14);
  so.function_tolerance = std::min(o.function_tolerance, 1e-14);
  return so;
}

// A joint stage no start could simulate: every parameter at its start.
void joint_failed(FitSummary& S, Layout& L) {
  S.status = FitStatus::kFailed;
  S.solver_message = "no start gave a usable solution";
  S.warnings.push_back("the joint stage failed: the model could not be simulated from any start (non-finite force)");
  set_values_from_internal(L);
  for (const auto& p : L.params) {
    ParameterEstimate pe = estimate_of(p);
    S.parameters.push_back(pe);
  }
}

// The best refinement's parameters into the layout, its cost and status
// into the summary.
void take_best(FitSummary& S, Layout& L, const StartResult& B) {
  for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = B.u[i];
  set_values_from_internal(L);
  S.cost = B.cost;
  S.solver_message = B.summary.message;
  S.status = B.summary.termination_type == ceres::CONVERGENCE      ? FitStatus::kConverged
             : B.summary.termination_type == ceres::NO_CONVERGENCE ? FitStatus::kMaxIterations
                                                                   : FitStatus::kFailed;
}

// Phase "quality": over every training sample; held-out experiments
// validated. Returns the SSR of the training samples.
template <class F>
double joint_quality(FitSummary& S, const Layout& L, const std::vector<Prepared>& data,
                     const std::vector<std::vector<double>>& times, const std::vector<int>& train, const FitOptions& o,
                     long n, int k) {
  const int ne = static_cast<int>(data.size());
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
  if (train.size() < data.size()) S.validation_rmse = nv ? std::sqrt(sv / static_cast<double>(nv)) : kNaN;
  return ssr;
}

// J_u^T J_u of the free unknowns `free` over the samples of `train`, from
// one Jacobian evaluation of the joint problem at L's internal coordinates;
// false where the simulation is not finite.
template <class F>
bool joint_jtj(Layout& L, const std::vector<Prepared>& data, const std::vector<std::vector<double>>& times,
               const std::vector<int>& train, const std::vector<int>& free, int threads, Eigen::MatrixXd& JtJ) {
  auto P = build_problem<F>(L, data, times, train);
  JtJ = Eigen::MatrixXd::Zero(static_cast<int>(free.size()), static_cast<int>(free.size()));
  return add_evaluated_jtj(*P, L, free, threads, JtJ);
}

// Phase "covariance": Uncertainty of the joint problem: sigma^2 (J^T J)^-1 at the solution,
// J the Jacobian of the simulated force over every training sample.
template <class F>
Covariance joint_covariance(Layout& L, const std::vector<Prepared>& data, const std::vector<std::vector<double>>& times,
                            const std::vector<int>& train, const std::vector<int>& free, const FitOptions& o,
                            double ssr, long n) {
  const int k = static_cast<int>(free.size());
  Covariance C;
  C.cov_x = Eigen::MatrixXd::Constant(k, k, kNaN);
  C.var_u.assign(k, kNaN);
  if (k > 0) {
    Eigen::MatrixXd JtJ;
    if (joint_jtj<F>(L, data, times, train, free, o.num_threads > 0 ? o.num_threads : workloads::job_threads(), JtJ)) {
      C = covariance_from_jtj(L, free, JtJ, ssr / static_cast<double>(std::max<long>(1, n - k)));
    } else {
      C.singular = true;
    }
  }
  return C;
}

// Phase "intervals": parameters, intervals, correlations.
void joint_estimates(FitSummary& S, const Layout& L, const std::vector<int>& free, const Covariance& C) {
  const int k = static_cast<int>(free.size());
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
  for (int i : free) {
    S.free_names.push_back(L.params[i].name);
    S.free_transforms.push_back(transform_text(L, i));
  }
  S.correlation.assign(k, std::vector<double>(k, kNaN));
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) S.correlation[a][b] = C.cov_x(a, b) / std::sqrt(C.cov_x(a, a) * C.cov_x(b, b));
}

// Why the automatic search did not settle, as its warning.
std::string unsettled_warning(const FitSummary& S, const Layout& L, const std::vector<int>& free,
                              const std::vector<StartResult>& results, const std::vector<int>& order,
                              const StartResult& B, const Box& box, const SearchScale& scale, const FitOptions& o,
                              long n, int rounds, int per_round) {
  auto rmse = [&](double c) { return fmt(std::sqrt(2.0 * c / static_cast<double>(n))); };
  std::string why = results.size() < 2 ? "one refinement cannot agree with another" : "no second refinement was usable";
  if (order.size() >= 2) {
    const StartResult& B2 = results[order[1]];
    if (!same_optimum(B.cost, B2.cost, o.agree_tolerance, scale)) {
      why = "the best two reached different costs (rmse " + rmse(B.cost) + " and " + rmse(B2.cost) + ")";
    } else if (box.distance(B.u, B2.u) > kAgree) {
      Layout L2 = L;
      for (size_t i = 0; i < L2.params.size(); ++i) L2.params[i].u = B2.u[i];
      set_values_from_internal(L2);
      std::string where;
      for (int i : free)
        where += (where.empty() ? "" : ", ") + L.params[i].name + " " + fmt(L.params[i].value) + " and " +
                 fmt(L2.params[i].value);
      why = "the best two reached the same cost at different parameters (" + where + ")";
    } else {
      why = "the best rmse " + rmse(B.cost) + " is above " + fmt(kNoiseFactor) + " times the noise estimate " +
            fmt(scale.noise) + " and fewer than " + std::to_string(kRoundsAboveNoise * per_round) + " starts ran";
    }
  }
  return "the search did not settle: " + std::to_string(S.starts) + " joint-stage start(s) in " +
         std::to_string(rounds) + " round(s) (budget --max-starts " + std::to_string(o.max_starts) + "): " + why +
         "; the optimum may not be global (raise --max-starts)";
}

// Phase "warnings" of the joint problem; `unsettled` (empty when it did)
// after the solver's own.
void joint_warnings(FitSummary& S, const Layout& L, const std::vector<int>& free, const Covariance& C,
                    const std::vector<Prepared>& data, const std::vector<int>& train, const FitOptions& o, long n,
                    const std::string& solver_message, const std::string& unsettled) {
  const int k = static_cast<int>(free.size());
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
  if (S.status == FitStatus::kFailed) S.warnings.push_back("the solver failed: " + solver_message);
  if (!unsettled.empty()) S.warnings.push_back(unsettled);
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
}

}  // namespace

template <class F>
JointResult joint_stage(const ModelInfo& model, const FitOptions& o, const std::vector<Prepared>& data,
                        const std::vector<std::vector<double>>& times, const std::vector<int>& train, Layout L,
                        const std::vector<std::vector<double>>& more_starts, Phases& phases) {
  JointResult R;
  FitSummary& S = R.S;
  S.model = model.id;
  set_internal_from_values(L);
  long n = 0;
  const std::vector<int> free = joint_free<F>(L, data, times, train, &n);
  const int k = static_cast<int>(free.size());

  const SimulationCost<F> cost_at(L, data, times, train);

  // The search: rounds of refinements from starts drawn across the whole
  // range (draw_box), screened by one plain simulation each, until the best
  // two refinements agree (the shared StartAgreement rule on their costs,
  // multistart.hpp, and the same parameters within kAgree) or the budget
  // (--max-starts) is spent. An explicit --starts N refines the two-stage
  // start and the N - 1 best screened points, once.
  std::vector<double> u0;
  for (const auto& p : L.params) u0.push_back(p.u);
  const bool automatic = o.starts == 0;
  const int budget = automatic ? std::max(1, o.max_starts) : o.starts;
  const int per_round = automatic ? std::max(1, std::min(o.starts_per_round, budget)) : budget;
  const int threads_max = std::max(1, o.num_threads > 0 ? o.num_threads : workloads::job_threads());
  const Box box = draw_box<F>(model, L, free, data, times, train);
  const SearchScale scale = joint_scale(data, train, n);
  S.noise_estimate = scale.noise;  // the search's noise floor, reported

  const ceres::Solver::Options so = joint_solver_options(o);
  const GmsFractionIndices elements = gms_fraction_indices(L, GmsElementCount<F>::value);
  auto refine = [&](const std::vector<double>& start, StartResult& r) {
    if (k == 0) {
      r.u = start;
      r.cost = cost_at(r.u);
      r.usable = std::isfinite(r.cost);
      r.summary.termination_type = ceres::CONVERGENCE;
      return;
    }
    Layout Ls = L;
    for (size_t i = 0; i < Ls.params.size(); ++i) Ls.params[i].u = start[i];
    auto P = build_problem<F>(Ls, data, times, train);
    ceres::Solve(so, P.get(), &r.summary);
    for (const auto& p : Ls.params) r.u.push_back(p.u);
    order_gms_elements(elements, r.u);  // one optimum, one order of its elements
    r.usable = r.summary.IsSolutionUsable() && std::isfinite(r.summary.final_cost);
    r.cost = r.usable ? r.summary.final_cost : kInf;
  };

  std::vector<StartResult> results;
  std::vector<int> order;  // usable results, lowest cost first
  StartAgreement agreement(o.agree_tolerance, scale, kRoundsAboveNoise * per_round);
  bool settled = false;
  int rounds = 0;
  long drawn = 0;
  while (static_cast<int>(results.size()) < budget && !settled) {
    const int want = std::min(per_round, budget - static_cast<int>(results.size()));
    std::vector<std::vector<double>> starts;
    if (results.empty()) {  // the two-stage start first, then the caller's (GMS: split elements)
      starts.push_back(u0);
      for (const auto& u : more_starts)
        if (static_cast<int>(starts.size()) < budget) starts.push_back(u);
    }
    // GMS: every other round redraws only the elements of the best
    // refinement so far (its statics held), gms_elements.hpp.
    if (static_cast<int>(starts.size()) < want && k > 0)
      add_screened_starts(box, cost_at, u0, want, threads_max, o.seed, drawn, starts,
                          rounds % 2 == 1 && !order.empty() ? &results[order[0]].u : nullptr, elements.all());
    if (starts.empty()) break;  // nothing finite to refine
    const size_t first = results.size();
    results.resize(first + starts.size());
    parallel_for(static_cast<long>(starts.size()), std::min<int>(threads_max, static_cast<int>(starts.size())),
                 [&](long i) { refine(starts[i], results[first + i]); });
    ++rounds;
    order.clear();
    for (size_t r = 0; r < results.size(); ++r)
      if (results[r].usable) order.push_back(static_cast<int>(r));
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return results[x].cost < results[y].cost; });
    for (size_t r = first; r < results.size(); ++r) {
      FitProgress pr;
      pr.phase = "joint stage";
      pr.start = static_cast<int>(r) + 1;
      pr.starts = static_cast<int>(results.size());
      pr.iteration = static_cast<int>(results[r].summary.iterations.size());
      pr.cost = results[r].cost;
      pr.best_cost = order.empty() ? kInf : results[order[0]].cost;
      phases.report(pr);
    }
    for (size_t r = first; r < results.size(); ++r) agreement.add(results[r].cost);
    // The shared rule on the costs (multistart.hpp), and the best two at
    // the same parameters.
    settled =
        agreement.settled() && order.size() >= 2 && box.distance(results[order[0]].u, results[order[1]].u) <= kAgree;
    if (!automatic) break;
  }
  S.starts = static_cast<int>(results.size());
  for (const auto& r : results) {
    S.iterations += static_cast<int>(r.summary.iterations.size());
    S.solver_seconds += r.summary.total_time_in_seconds;
  }
  const int best = order.empty() ? -1 : order[0];
  if (best < 0) {
    joint_failed(S, L);
    return R;
  }
  const StartResult& B = results[best];
  S.best_start = best;
  R.at_best = agreement.at_best();
  R.settled = settled;
  R.rounds = rounds;
  S.starts_at_best = R.at_best;  // the header's count, the note's and the JSON's
  take_best(S, L, B);

  phases.begin("quality");
  const double ssr = joint_quality<F>(S, L, data, times, train, o, n, k);

  phases.begin("covariance");
  const Covariance C = joint_covariance<F>(L, data, times, train, free, o, ssr, n);

  phases.begin("intervals");
  joint_estimates(S, L, free, C);

  phases.begin("warnings");
  const std::string unsettled = automatic && k > 0 && !settled ? unsettled_warning(S, L, free, results, order, B, box,
                                                                                   scale, o, n, rounds, per_round)
                                                               : std::string();
  joint_warnings(S, L, free, C, data, train, o, n, B.summary.message, unsettled);
  S.converged = S.status == FitStatus::kConverged;
  S.search_device = S.starts > 1 ? "cpu (joint simulation cost, Sobol' over the data's ranges)" : "";
  return R;
}

template <class F>
bool joint_information(Layout& L, const std::vector<Prepared>& data, const std::vector<std::vector<double>>& times,
                       const std::vector<int>& train, int threads, std::vector<int>* free, Eigen::MatrixXd* jtj) {
  long n = 0;
  *free = joint_free<F>(L, data, times, train, &n);
  return joint_jtj<F>(L, data, times, train, *free, threads, *jtj);
}

// The joint stage and its information for every model fitted by simulation
// error (visit_two_stage_fit's list, dynamic_fit.hpp).
#define STRIBECK_JOINT_FIT_INSTANCES(F)                                                                              \
  template JointResult joint_stage<F>(const ModelInfo&, const FitOptions&, const std::vector<Prepared>&,             \
                                      const std::vector<std::vector<double>>&, const std::vector<int>&, Layout,      \
                                      const std::vector<std::vector<double>>&, Phases&);                             \
  template bool joint_information<F>(Layout&, const std::vector<Prepared>&, const std::vector<std::vector<double>>&, \
                                     const std::vector<int>&, int, std::vector<int>*, Eigen::MatrixXd*);
STRIBECK_JOINT_FIT_INSTANCES(LuGreFit)
STRIBECK_JOINT_FIT_INSTANCES(TwentySimLuGreFit)
STRIBECK_JOINT_FIT_INSTANCES(ElastoPlasticFit)
STRIBECK_JOINT_FIT_INSTANCES(GmsFit<1>)
STRIBECK_JOINT_FIT_INSTANCES(GmsFit<2>)
STRIBECK_JOINT_FIT_INSTANCES(GmsFit<3>)
STRIBECK_JOINT_FIT_INSTANCES(GmsFit<4>)
STRIBECK_JOINT_FIT_INSTANCES(DahlFit)
#undef STRIBECK_JOINT_FIT_INSTANCES

}  // namespace stribeck::ident::detail
