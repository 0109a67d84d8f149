// Solving a fit: Ceres problem assembly, global search over starts,
// covariance, fit quality and warnings.
#include "stribeck/identification/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <numeric>
#include <random>
#include <thread>

#include "block_cost.hpp"
#include "problem.hpp"
#include "dynamic_fit.hpp"
#include "solver_options.hpp"
#include "sweep_starts.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/host/params.hpp"
#include "stribeck/host/threads.hpp"

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

template <class M>
BlockCost<M>* make_cost(const Layout& L, const BlockSpec& b, const Prepared* d, size_t begin, size_t end,
                        const SampleLoss& loss) {
  std::array<std::array<int, M::kNumParams>, 2> map;
  for (int j = 0; j < M::kNumParams; ++j)
    for (int s = 0; s < 2; ++s) map[s][j] = b.map[j][s];
  return new BlockCost<M>(d, begin, end, b.locals, map, b.mass, b.offset, L.asymmetric, loss);
}

template <class M>
std::unique_ptr<ceres::Problem> build_problem(Layout& L, const std::vector<Prepared>& data,
                                              const std::vector<int>& exps, size_t block, const SampleLoss& loss) {
  auto P = std::make_unique<ceres::Problem>();
  for (int e : exps) {
    const BlockSpec b = spec_for(L, e, M::kNumParams);
    std::vector<double*> blocks;
    for (int g : b.global) blocks.push_back(&L.params[g].u);
    for (size_t k = 0; k < data[e].size(); k += block)
      P->AddResidualBlock(make_cost<M>(L, b, &data[e], k, std::min(data[e].size(), k + block), loss), nullptr,
                          blocks);
  }
  for (auto& p : L.params) {
    if (!P->HasParameterBlock(&p.u)) continue;
    if (p.fixed) {
      P->SetParameterBlockConstant(&p.u);
      continue;
    }
    double lo = -kInf, hi = kInf;
    switch (p.transform) {
      case Transform::kIdentity: lo = p.lo; hi = p.hi; break;
      case Transform::kLog:
        if (p.lo > 0) lo = std::log(p.lo);
        if (std::isfinite(p.hi)) hi = std::log(p.hi);
        break;
      case Transform::kExcess: lo = 0.0; break;
    }
    if (std::isfinite(lo)) P->SetParameterLowerBound(&p.u, 0, lo);
    if (std::isfinite(hi)) P->SetParameterUpperBound(&p.u, 0, hi);
  }
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

// Randomly shifted Halton point `i` in [0,1)^dim.
std::vector<double> halton(long i, const std::vector<double>& shift) {
  static const int primes[] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53,
                               59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131};
  std::vector<double> x(shift.size());
  for (size_t d = 0; d < shift.size(); ++d) {
    const int b = primes[d % 32];
    double f = 1.0, r = 0.0;
    for (long n = i + 1; n > 0; n /= b) {
      f /= b;
      r += f * (n % b);
    }
    x[d] = std::fmod(r + shift[d], 1.0);
  }
  return x;
}

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

template <class M>
FitSummary run_fit(const ModelInfo& model, const std::vector<Experiment>& experiments, const FitOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  FitSummary S;
  S.model = model.id;
  std::vector<Prepared> data = prepare_data(experiments, model, o);
  const int ne = static_cast<int>(data.size());

  // Training and validation experiments.
  std::vector<int> train, held;
  for (const auto& v : o.validate)
    if (std::none_of(data.begin(), data.end(), [&](const Prepared& d) { return d.name == v; }))
      throw InputError("--validate: no experiment named '" + v + "'");
  for (int e = 0; e < ne; ++e)
    (std::count(o.validate.begin(), o.validate.end(), data[e].name) ? held : train).push_back(e);
  if (train.empty()) throw InputError("--validate holds out every experiment; nothing is left to fit");
  if (o.starts < 1) throw InputError("--starts must be >= 1");
  if (o.coarse_points < 1) throw InputError("--coarse-points must be >= 1");
  if (o.max_iterations < 1) throw InputError("--max-iterations must be >= 1");
  if (!std::isfinite(o.area_a) || !std::isfinite(o.area_b)) throw InputError("--area-a/--area-b must be finite");

  // Data checks: what cannot work is an error, what is weak is a warning.
  long n = 0, npos = 0, nneg = 0;
  double vmin = kInf, vmax = -kInf, vslow = kInf;
  for (int e : train)
    for (size_t k = 0; k < data[e].size(); ++k) {
      const double v = data[e].v[k];
      ++n;
      npos += v > 0;
      nneg += v < 0;
      vmin = std::min(vmin, v);
      vmax = std::max(vmax, v);
      if (v != 0) vslow = std::min(vslow, std::abs(v));
    }
  if (npos + nneg == 0)
    throw InputError("no motion: the velocity is zero in every sample of the fitted experiments");
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

  Layout L = make_layout(model, o, data);
  // Held-out experiments cannot determine their own per-experiment unknowns.
  const SampleLoss loss = parse_loss(o.loss);
  const size_t block = static_cast<size_t>(std::max(16, o.block_size));
  auto problem = build_problem<M>(L, data, train, block, loss);
  std::vector<int> free;
  for (int i : L.free_indices())
    if (problem->HasParameterBlock(&L.params[i].u)) free.push_back(i);
  const int k = static_cast<int>(free.size());
  if (n <= k)
    throw InputError("too few samples: " + std::to_string(n) + " samples for " + std::to_string(k) +
                     " free parameters");

  ceres::Solver::Options so =
      solver_options(o, job_threads());
  // Bounds are enforced by clamping the step (ParameterBlock::Plus); Ceres'
  // extra projected line search would cost a second Jacobian per iteration.
  so.max_num_line_search_step_size_iterations = 0;

  // Starts: the data-driven guess, then the best points of a coarse
  // evaluation over the box (on a subsample of at most ~4000 samples).
  std::vector<std::vector<double>> starts;
  auto values = [&] {
    std::vector<double> v;
    for (const auto& p : L.params) v.push_back(p.value);
    return v;
  };
  starts.push_back(values());
  if (o.starts > 1 && k > 0) {
    // The box: finite bounds where given, else around the guess.
    double fstd = 0, fmean = 0;
    for (int e : train)
      for (double f : data[e].force) fmean += f;
    fmean /= n;
    for (int e : train)
      for (double f : data[e].force) fstd += (f - fmean) * (f - fmean);
    fstd = std::sqrt(fstd / n);
    std::vector<BoxAxis> box(k);
    for (int f = 0; f < k; ++f) {
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
    bool seeded = false;
    if (sweep_can_seed(L)) {
      // The sweep engine (GPU when usable) ranks a Sobol' design by RMSE.
      try {
        for (auto& st : sweep_starts(model, L, data, train, box, o.starts - 1, std::max(1, o.coarse_points),
                                     o.seed, &S.search_device))
          starts.push_back(std::move(st));
        seeded = true;
      } catch (const std::exception& err) {  // the search is an aid: fall back, say so
        S.warnings.push_back(std::string("the sweep engine could not run the coarse search (") + err.what() +
                             "); it ran on the fit's residuals instead");
      }
    }
    if (!seeded) {
      // Asymmetric or per-experiment layouts: the same search on the fit's own
      // residual blocks (CPU), shifted Halton points over the box.
      std::vector<Prepared> sub = data;
      const size_t stride = std::max<size_t>(1, n / 4000);
      for (auto& d : sub) {
        Prepared s;
        s.name = d.name;
        for (size_t i = 0; i < d.size(); i += stride) {
          s.v.push_back(d.v[i]);
          s.pa.push_back(d.pa[i]);
          s.pb.push_back(d.pb[i]);
          s.fn.push_back(d.fn[i]);
          s.force.push_back(d.force[i]);
          s.y.push_back(d.y[i]);
          if (!d.acc.empty()) s.acc.push_back(d.acc[i]);
        }
        d = std::move(s);
      }
      auto coarse = build_problem<M>(L, sub, train, block, loss);
      std::mt19937_64 rng(o.seed);
      std::uniform_real_distribution<double> U(0.0, 1.0);
      std::vector<double> shift(k);
      for (auto& s : shift) s = U(rng);
      std::vector<std::pair<double, std::vector<double>>> scored;
      for (int i = 0; i < std::max(1, o.coarse_points); ++i) {
        const auto h = halton(i, shift);
        for (int f = 0; f < k; ++f)
          L.params[free[f]].value = box[f].log ? box[f].lo * std::pow(box[f].hi / box[f].lo, h[f])
                                               : box[f].lo + (box[f].hi - box[f].lo) * h[f];
        set_internal_from_values(L);
        double cost = kNaN;
        if (coarse->Evaluate(ceres::Problem::EvaluateOptions(), &cost, nullptr, nullptr, nullptr) &&
            std::isfinite(cost))
          scored.emplace_back(cost, values());
      }
      std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t i = 0; i < scored.size() && static_cast<int>(starts.size()) < o.starts; ++i)
        starts.push_back(scored[i].second);
      S.search_device = "cpu (fit residuals, Halton)";
    }
  }

  ceres::Solver::Summary best;
  std::vector<double> best_u;
  double best_cost = kInf;
  for (size_t s = 0; s < starts.size(); ++s) {
    for (size_t i = 0; i < L.params.size(); ++i) L.params[i].value = starts[s][i];
    set_internal_from_values(L);
    ceres::Solver::Summary sum;
    ceres::Solve(so, problem.get(), &sum);
    S.iterations += static_cast<int>(sum.iterations.size());
    S.solver_seconds += sum.total_time_in_seconds;
    if (sum.IsSolutionUsable() && sum.final_cost < best_cost) {
      best_cost = sum.final_cost;
      best = sum;
      best_u.clear();
      for (const auto& p : L.params) best_u.push_back(p.u);
      S.best_start = static_cast<int>(s);
    }
  }
  S.starts = static_cast<int>(starts.size());
  if (best_u.empty()) {
    S.status = FitStatus::kFailed;
    S.solver_message = "no start gave a usable solution";
    S.warnings.push_back("the fit failed: the model could not be evaluated at any start (non-finite force)");
    for (const auto& p : L.params) {
      ParameterEstimate pe;
      pe.name = p.name;
      pe.unit = p.unit;
      pe.value = p.value;
      pe.fixed = p.fixed;
      S.parameters.push_back(pe);
    }
    return S;
  }
  for (size_t i = 0; i < L.params.size(); ++i) L.params[i].u = best_u[i];
  set_values_from_internal(L);
  S.cost = best.final_cost;
  S.solver_message = best.message;
  S.status = best.termination_type == ceres::CONVERGENCE ? FitStatus::kConverged
             : best.termination_type == ceres::NO_CONVERGENCE ? FitStatus::kMaxIterations
                                                               : FitStatus::kFailed;

  // Fit quality on the raw residuals.
  double ssr = 0, sst = 0, fsum = 0, maxe = 0, ac_num = 0;
  for (int e = 0; e < ne; ++e) {
    ExperimentFit ef;
    ef.name = data[e].name;
    ef.samples = static_cast<long>(data[e].size());
    ef.held_out = std::count(held.begin(), held.end(), e) != 0;
    std::vector<double> r;
    bool determinable = true;
    for (int g : spec_for(L, e, M::kNumParams).global)
      if (!problem->HasParameterBlock(&L.params[g].u) && !L.params[g].fixed) determinable = false;
    if (determinable) r = raw_residuals<M>(L, data[e], e);
    else {
      S.warnings.push_back("held-out experiment '" + data[e].name +
                           "' has per-experiment parameters the fit cannot estimate; it is not validated");
      r.assign(data[e].size(), kNaN);
    }
    double se = 0;
    for (size_t i = 0; i < r.size(); ++i) se += r[i] * r[i];
    ef.rmse = std::sqrt(se / r.size());
    if (!ef.held_out) {
      ssr += se;
      for (size_t i = 0; i < r.size(); ++i) {
        fsum += data[e].force[i];
        maxe = std::max(maxe, std::abs(r[i]));
        if (i) ac_num += r[i] * r[i - 1];
      }
    }
    if (o.keep_signals) {
      ef.fitted.resize(r.size());
      for (size_t i = 0; i < r.size(); ++i) ef.fitted[i] = data[e].force[i] - r[i];
      ef.residual = std::move(r);
    }
    S.experiments.push_back(std::move(ef));
  }
  const double fmean = fsum / n;
  for (int e : train)
    for (double f : data[e].force) sst += (f - fmean) * (f - fmean);
  set_fit_quality(S, n, k, ssr, sst, maxe, ac_num);
  if (!held.empty()) {
    double sv = 0;
    long nv = 0;
    for (int e : held)
      for (double r : S.experiments[e].residual.empty() ? raw_residuals<M>(L, data[e], e)
                                                        : S.experiments[e].residual)
        sv += r * r, ++nv;
    S.validation_rmse = std::sqrt(sv / nv);
  }

  // Uncertainty: covariance of the internal coordinates (Ceres), scaled by
  // the residual variance and mapped to the reported values.
  Eigen::MatrixXd cov_x = Eigen::MatrixXd::Constant(k, k, kNaN);
  std::vector<double> log_var(L.params.size(), kNaN);  // variance of u for log-parameterised ones
  bool singular = false;
  std::vector<std::string> undetermined;
  if (k > 0) {
    std::vector<double*> blocks;
    for (int i : free) blocks.push_back(&L.params[i].u);
    // Rank of the Jacobian, scaled to unit columns, for plain-language causes.
    ceres::Problem::EvaluateOptions eo;
    eo.parameter_blocks = blocks;
    eo.num_threads = so.num_threads;
    ceres::CRSMatrix J;
    double c = 0;
    problem->Evaluate(eo, &c, nullptr, nullptr, &J);
    Eigen::MatrixXd JtJ = Eigen::MatrixXd::Zero(k, k);
    for (int r = 0; r < J.num_rows; ++r)
      for (int a = J.rows[r]; a < J.rows[r + 1]; ++a)
        for (int b = J.rows[r]; b < J.rows[r + 1]; ++b) JtJ(J.cols[a], J.cols[b]) += J.values[a] * J.values[b];
    Eigen::VectorXd d(k);
    for (int i = 0; i < k; ++i) {
      d(i) = JtJ(i, i) > 0 ? 1.0 / std::sqrt(JtJ(i, i)) : 0.0;
      if (JtJ(i, i) <= 0) {
        singular = true;
        undetermined.push_back(L.params[free[i]].name);
      }
    }
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(d.asDiagonal() * JtJ * d.asDiagonal());
    const Eigen::VectorXd ev = es.eigenvalues();
    for (int i = 0; i < k; ++i) {
      if (ev(i) > 1e-10 * ev(k - 1) || d.isZero()) continue;
      singular = true;
      std::string names;
      for (int j = 0; j < k; ++j)
        if (std::abs(es.eigenvectors()(j, i)) > 0.2 && d(j) > 0) names += (names.empty() ? "" : ", ") + L.params[free[j]].name;
      if (!names.empty()) undetermined.push_back(names);
    }
    // Covariance of the internal coordinates: (J^T J)^-1 from the scaled
    // eigendecomposition above. This is what ceres::Covariance's DENSE_SVD
    // computes, but that factorises the whole N x P Jacobian, which on 1e5
    // samples costs more than the fit; J^T J is P x P and needed for the
    // rank diagnosis anyway. Only computed for a regular problem.
    if (!singular) {
      const Eigen::VectorXd inv = ev.cwiseInverse();
      const Eigen::MatrixXd cov_u =
          d.asDiagonal() * es.eigenvectors() * inv.asDiagonal() * es.eigenvectors().transpose() * d.asDiagonal();
      const double sigma2 = 2.0 * S.cost / std::max<long>(1, n - k);
      // G = d(external)/d(internal) over the free parameters.
      Eigen::MatrixXd G = Eigen::MatrixXd::Zero(k, k);
      std::function<void(int, int, double)> add = [&](int row, int g, double w) {
        const FitParam& p = L.params[g];
        if (p.fixed) return;
        const int col = static_cast<int>(std::find(free.begin(), free.end(), g) - free.begin());
        if (p.transform == Transform::kLog) G(row, col) += w * p.value;
        else G(row, col) += w;
        if (p.transform == Transform::kExcess) add(row, p.excess_base, w);
      };
      for (int i = 0; i < k; ++i) add(i, free[i], 1.0);
      cov_x = sigma2 * G * cov_u * G.transpose();
      for (int i = 0; i < k; ++i) log_var[free[i]] = sigma2 * cov_u(i, i);
    }
  }

  // Parameters, intervals, correlations.
  for (size_t i = 0; i < L.params.size(); ++i) {
    const FitParam& p = L.params[i];
    ParameterEstimate pe;
    pe.name = p.name;
    pe.unit = p.unit;
    pe.value = p.value;
    pe.fixed = p.fixed;
    const auto it = std::find(free.begin(), free.end(), static_cast<int>(i));
    if (!p.fixed && it != free.end()) {
      const int f = static_cast<int>(it - free.begin());
      const double var = cov_x(f, f);
      if (std::isfinite(var) && var >= 0) {
        pe.std_error = std::sqrt(var);
        if (p.transform == Transform::kLog) {  // interval of exp(u): stays positive
          const double su = std::sqrt(std::max(0.0, log_var[i]));
          pe.ci95_lo = p.value * std::exp(-1.959963984540054 * su);
          pe.ci95_hi = p.value * std::exp(1.959963984540054 * su);
        } else {
          pe.ci95_lo = p.value - 1.959963984540054 * pe.std_error;
          pe.ci95_hi = p.value + 1.959963984540054 * pe.std_error;
        }
      }
      const double tol = 1e-9 * std::max(1.0, std::abs(p.value));
      pe.at_bound = (std::isfinite(p.lo) && p.value - p.lo <= tol) || (std::isfinite(p.hi) && p.hi - p.value <= tol) ||
                    (p.transform == Transform::kExcess && p.value - L.params[p.excess_base].value <= tol);
    }
    S.parameters.push_back(pe);
  }
  for (int i : free) S.free_names.push_back(L.params[i].name);
  S.correlation.assign(k, std::vector<double>(k, kNaN));
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j)
      S.correlation[i][j] = cov_x(i, j) / std::sqrt(cov_x(i, i) * cov_x(j, j));

  // Warnings in plain language.
  // The low-speed hint applies when the log lacks the slow range relative to
  // its own speeds: its slowest moving sample is above a tenth of the median.
  std::vector<double> speeds;
  for (int e : train)
    for (double v : data[e].v)
      if (v != 0) speeds.push_back(std::abs(v));
  std::nth_element(speeds.begin(), speeds.begin() + speeds.size() / 2, speeds.end());
  const bool lacks_slow = !speeds.empty() && vslow > 0.1 * speeds[speeds.size() / 2];
  const std::string slow = fmt(vslow);
  auto low_speed_hint = [&](bool low) {
    return low && lacks_slow ? "; the log has no samples below |v| = " + slow +
                     " m/s, and breakaway/Stribeck parameters only act at lower speeds"
               : std::string();
  };
  if (singular) {
    S.status = S.status == FitStatus::kConverged ? FitStatus::kSingular : S.status;
    for (const auto& u : undetermined) {
      bool low = false;
      for (int i : free)
        if (L.params[i].low_speed && u.find(L.params[i].name) != std::string::npos) low = true;
      S.warnings.push_back("the data cannot determine " + u +
                           " (singular problem: changing them together does not change the fit)" +
                           low_speed_hint(low) + "; fix some with --fix or add data");
    }
  }
  if (S.status == FitStatus::kMaxIterations)
    S.warnings.push_back("not converged: the solver stopped after " + std::to_string(o.max_iterations) +
                         " iterations; the estimates are not final");
  if (S.status == FitStatus::kFailed)
    S.warnings.push_back("the solver failed: " + best.message);
  for (int a = 0; a < k; ++a) {
    const ParameterEstimate& pe =
        *std::find_if(S.parameters.begin(), S.parameters.end(),
                      [&](const ParameterEstimate& q) { return q.name == S.free_names[a]; });
    if (pe.at_bound)
      S.warnings.push_back(pe.name + " = " + fmt(pe.value) +
                           " is at its bound; its standard error and interval are not meaningful");
    else if (std::isfinite(pe.std_error) && pe.std_error > o.max_relative_std_error * std::abs(pe.value))
      S.warnings.push_back(pe.name + " is poorly determined: " + fmt(pe.value) + " +/- " + fmt(pe.std_error) +
                           " (" + fmt(100.0 * pe.std_error / std::abs(pe.value)) + " %)" +
                           low_speed_hint(L.params[free[a]].low_speed));
    for (int b = a + 1; b < k; ++b)
      if (std::abs(S.correlation[a][b]) > o.max_abs_correlation)
        S.warnings.push_back(S.free_names[a] + " and " + S.free_names[b] +
                             " cannot be separated (correlation " + fmt(S.correlation[a][b]) + ")" +
                             low_speed_hint(L.params[free[a]].low_speed || L.params[free[b]].low_speed));
  }
  if (std::abs(S.autocorrelation_lag1) > 0.9 && S.status == FitStatus::kConverged)
    S.warnings.push_back("the residuals are strongly autocorrelated (lag-1 " + fmt(S.autocorrelation_lag1) +
                         "): the model misses a systematic effect and the standard errors are optimistic");
  S.converged = S.status == FitStatus::kConverged;
  S.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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

FitSummary fit(const std::vector<Experiment>& experiments, const std::string& model_id, const FitOptions& o) {
  const ModelInfo& model = require_model(model_id);
  if (has_two_stage_fit(model_id) && !o.asymmetric) return fit_two_stage(experiments, model, o);
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
    const FitSummary s = fit(experiments, model_id, sym);
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

std::vector<FitSummary> compare(const std::vector<Experiment>& experiments, const std::vector<std::string>& models,
                                const FitOptions& o) {
  std::vector<FitSummary> out;
  for (const auto& m : models) out.push_back(fit(experiments, m, o));
  std::stable_sort(out.begin(), out.end(), [](const FitSummary& a, const FitSummary& b) { return a.aic < b.aic; });
  return out;
}

}  // namespace stribeck::ident
