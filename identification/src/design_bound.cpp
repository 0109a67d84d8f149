// The best any test of a rig's duration can do (design_bound.hpp): for a
// static law M(w) = sum_j w_j g_j g_j^T over the points j = (v, p) of a
// grid, w the shares of the test's time, and the worst relative variance
// max_i [M(w)^-1]_ii is convex in w. Its minimum over the shares the rig
// allows (share_cap above every speed) is found as max_u min_w phi_u(w),
// phi_u = sum_i u_i [M^-1]_ii: for fixed u by Frank-Wolfe (the allowed
// measure phi_u decreases fastest towards, a linear program solved greedily
// since the caps are nested) with the vertices re-weighted by the
// multiplicative algorithm of L-optimal designs; u by the matrix game over
// the variances of the measures found (Kelley's cutting planes on the
// concave min_w phi_u); then polished alike on a grid ten times finer, where
// the certificate is taken (the peer's grids): for any u and allowed w',
// max_i f_i(w*) >= sum_i u_i (f_i(w) + grad f_i(w).(w' - w)) by convexity,
// the best u by column generation (bench/peers/design_bound.py does the
// same with SciPy's LP and SLSQP).
#include "design_bound.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>

#include "stribeck/workloads/params.hpp"

namespace stribeck::ident::detail {
namespace {

// The optimisation's grid: speeds log-spaced over five decades below v_max
// (the peer's); the certificate's is kFiner times finer and holds it.
constexpr int kSpeeds = 200, kFiner = 10;
// Stop when the measure's worst relative variance is within this of the
// optimisation's lower bound (the certificate is computed afterwards).
constexpr double kGap = 1e-4;
constexpr int kOuter = 80, kRounds = 100, kReweights = 50, kColumns = 200;
// A measure exceeds the caps when it puts more time than this above them:
// less is within what plateau_test leaves out (shares under 0.1 %).
constexpr double kCapSlack = 1e-3;

struct Support {
  std::vector<MeasurePoint> pts;  // grouped by speed, fastest first: each speed's pressures, both signs
  std::vector<int> speed_of;      // the speed index of each point
  std::vector<double> cap;        // share_cap of each speed; the slowest's unbounded (the total is 1)
  Eigen::MatrixXd G;              // relative gradients times sqrt(N)/sigma: M(w) = G^T diag(w) G
  Eigen::VectorXd crit;           // 1 for a parameter of the criterion, 0 for the offset
};

Support make_support(const DesignRequest& r, const Prediction& at, const std::vector<double>& pressures, int speeds) {
  Support s;
  for (int k = 0; k < speeds; ++k) {
    const double v = log_speed(r.rig.v_max, k, speeds);
    s.cap.push_back(k + 1 < speeds ? share_cap(r.rig, v) : HUGE_VAL);
    for (double p : pressures)
      for (double sign : {1.0, -1.0}) {
        s.pts.push_back({sign * v, p, 0.0});
        s.speed_of.push_back(k);
      }
  }
  // Samples: at most floor(T rate) + 1 per experiment.
  const double n = std::floor(r.rig.duration * r.rig.rate_hz) + r.rig.max_experiments;
  s.G = relative_gradients(r, at, s.pts) * (std::sqrt(n) / r.rig.force_noise);
  s.crit.resize(static_cast<Eigen::Index>(at.parameters.size()));
  for (size_t i = 0; i < at.parameters.size(); ++i)
    s.crit(static_cast<Eigen::Index>(i)) = at.parameters[i].name != "offset";
  return s;
}

Eigen::MatrixXd inverse_information(const Support& s, const Eigen::VectorXd& w) {
  const Eigen::MatrixXd M = s.G.transpose() * w.asDiagonal() * s.G;
  return M.ldlt().solve(Eigen::MatrixXd::Identity(M.rows(), M.cols()));
}

// The worst relative variance of the criterion's parameters.
double worst(const Support& s, const Eigen::VectorXd& f) { return (f.array() * s.crit.array()).maxCoeff(); }

// argmin of d.w over the allowed measures: per speed its point of least d,
// then the speeds cheapest first, each given as much as every cap above it
// leaves (optimal: the caps are nested).
Eigen::VectorXd vertex(const Support& s, const Eigen::VectorXd& d) {
  const size_t n = s.cap.size();
  std::vector<int> best(n, -1);
  for (size_t j = 0; j < s.pts.size(); ++j) {
    const size_t k = static_cast<size_t>(s.speed_of[j]);
    if (best[k] < 0 || d(static_cast<Eigen::Index>(j)) < d(best[k])) best[k] = static_cast<int>(j);
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return d(best[a]) < d(best[b]); });
  std::vector<double> room = s.cap;
  Eigen::VectorXd w = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(s.pts.size()));
  double left = 1;
  std::ptrdiff_t full = -1;  // a cap whose room is spent: no speed at or above it takes more
  for (size_t k : order) {
    if (static_cast<std::ptrdiff_t>(k) <= full) continue;
    const auto tight = std::min_element(room.begin() + static_cast<std::ptrdiff_t>(k), room.end());
    const double put = std::min(left, *tight);
    full = std::max(full, tight - room.begin());  // spent now, or already
    if (put <= 0) continue;
    w(best[k]) = put;
    for (size_t q = k; q < n; ++q) room[q] -= put;
    if ((left -= put) <= 0) break;
  }
  return w;
}

// The gradient in w of phi_u: -sum_i u_i (g_j^T M^-1 e_i)^2.
Eigen::VectorXd descent(const Support& s, const Eigen::MatrixXd& Minv, const Eigen::VectorXd& u) {
  const Eigen::MatrixXd a = s.G * Minv;
  return -(a.array().square().matrix() * u);
}

// The measures found so far, their information and weights.
struct Hull {
  std::vector<Eigen::VectorXd> V;
  std::vector<Eigen::MatrixXd> M;
  std::vector<double> lam;
  void add(const Support& s, Eigen::VectorXd w, double weight) {
    for (double& l : lam) l *= 1 - weight;
    M.push_back(s.G.transpose() * w.asDiagonal() * s.G);
    V.push_back(std::move(w));
    lam.push_back(weight);
  }
};

// The multiplicative algorithm of L-optimal designs for phi_u over the
// hull's weights: lam_m <- lam_m sqrt(tr(A M_m) / phi), A = M^-1 U M^-1.
void reweight(Hull& h, const Eigen::VectorXd& u) {
  for (int it = 0; it < kReweights; ++it) {
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(h.M[0].rows(), h.M[0].cols());
    for (size_t m = 0; m < h.M.size(); ++m) M += h.lam[m] * h.M[m];
    const Eigen::MatrixXd Mi = M.ldlt().solve(Eigen::MatrixXd::Identity(M.rows(), M.cols()));
    const Eigen::MatrixXd A = Mi * u.asDiagonal() * Mi;
    std::vector<double> d(h.M.size());
    double phi = 0, sum = 0;
    for (size_t m = 0; m < h.M.size(); ++m) phi += h.lam[m] * (d[m] = A.cwiseProduct(h.M[m]).sum());
    if (!(phi > 0)) return;
    for (size_t m = 0; m < h.M.size(); ++m) sum += (h.lam[m] *= std::sqrt(d[m] / phi));
    for (double& l : h.lam) l /= sum;
  }
}

struct Step {
  Eigen::VectorXd w, f;
  double lower = 0;  // a lower bound on min_w phi_u, so on the optimum
};

// min_w phi_u(w) by fully corrective Frank-Wolfe, from the hull's measures.
Step minimise_weighted(const Support& s, const Eigen::VectorXd& u, Hull& h) {
  Step out;
  for (int round = 0; round < kRounds; ++round) {
    reweight(h, u);
    out.w = Eigen::VectorXd::Zero(s.G.rows());
    for (size_t m = 0; m < h.V.size(); ++m) out.w += h.lam[m] * h.V[m];
    const Eigen::MatrixXd Mi = inverse_information(s, out.w);
    out.f = Mi.diagonal();
    const Eigen::VectorXd d = descent(s, Mi, u);
    Eigen::VectorXd to = vertex(s, d);
    const double gap = d.dot(out.w - to), phi = u.dot(out.f);
    out.lower = phi - gap;
    if (gap <= 1e-6 * phi) break;
    Hull kept;  // the vertices the weights left out are dropped
    for (size_t m = 0; m < h.V.size(); ++m)
      if (h.lam[m] > 1e-12) kept.V.push_back(h.V[m]), kept.M.push_back(h.M[m]), kept.lam.push_back(h.lam[m]);
    h = std::move(kept);
    h.add(s, std::move(to), 0.1);
  }
  return out;
}

struct Game {
  Eigen::VectorXd u, x;  // the row player's weights, the columns' mixture
  double value = 0;      // max_u min_m u.C(:, m)
};

// The matrix game C (k x m, the row player maximising) as the LP
// max 1^T y s.t. A y <= 1, y >= 0, A = C shifted and scaled to >= 1: a
// dense tableau, Bland's rule; the rows' weights are its duals.
Game solve_game(const Eigen::MatrixXd& C) {
  const Eigen::Index k = C.rows(), m = C.cols(), W = m + k + 1;
  const double lo = C.minCoeff(), span = std::max(C.maxCoeff() - lo, 1e-300);
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(k + 1, W);
  T.topLeftCorner(k, m) = ((C.array() - lo) / span + 1).matrix();
  T.block(0, m, k, k).setIdentity();
  T.col(W - 1).head(k).setOnes();
  T.row(k).head(m).setConstant(-1);
  std::vector<Eigen::Index> basis(static_cast<size_t>(k));
  std::iota(basis.begin(), basis.end(), m);
  for (int it = 0; it < 100 * static_cast<int>(W); ++it) {
    Eigen::Index e = -1, l = -1;
    for (Eigen::Index j = 0; j + 1 < W && e < 0; ++j)
      if (T(k, j) < -1e-12) e = j;
    if (e < 0) break;
    double best = HUGE_VAL;
    for (Eigen::Index i = 0; i < k; ++i)
      if (T(i, e) > 1e-12) {
        const double ratio = T(i, W - 1) / T(i, e);
        if (l < 0 || ratio < best || (ratio == best && basis[i] < basis[l])) best = ratio, l = i;
      }
    if (l < 0) break;
    T.row(l) /= T(l, e);
    for (Eigen::Index i = 0; i <= k; ++i)
      if (i != l) T.row(i) -= T(i, e) * T.row(l);
    basis[static_cast<size_t>(l)] = e;
  }
  Game g;
  const double total = T(k, W - 1);
  g.u = T.row(k).segment(m, k).transpose().cwiseMax(0.0) / total;
  g.u /= g.u.sum();
  g.x = Eigen::VectorXd::Zero(m);
  for (Eigen::Index i = 0; i < k; ++i)
    if (basis[i] < m) g.x(basis[i]) = T(i, W - 1) / total;
  g.x /= g.x.sum();
  g.value = (1 / total - 1) * span + lo;
  return g;
}

// The criterion's entries of f.
Eigen::VectorXd criterion_rows(const Support& s, const Eigen::VectorXd& f) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(s.crit.sum()));
  for (Eigen::Index i = 0, j = 0; i < f.size(); ++i)
    if (s.crit(i) > 0) out(j++) = f(i);
  return out;
}

Eigen::VectorXd full_weights(const Support& s, const Eigen::VectorXd& uc) {
  Eigen::VectorXd u = Eigen::VectorXd::Zero(s.crit.size());
  for (Eigen::Index i = 0, j = 0; i < u.size(); ++i)
    if (s.crit(i) > 0) u(i) = uc(j++);
  return u;
}

struct Optimum {
  Eigen::VectorXd w, u;
  double worst = HUGE_VAL;
};

// The time spread evenly over the speeds as far as the caps allow (the
// share above speed k min(cap_k, (k + 1)/n); both nondecreasing in k): every
// speed the stroke lets a test reach gets some.
Eigen::VectorXd even_measure(const Support& s) {
  const size_t n = s.cap.size(), per = s.pts.size() / n;
  Eigen::VectorXd w(static_cast<Eigen::Index>(s.pts.size()));
  double above = 0;
  for (size_t k = 0; k < n; ++k) {
    const double X = k + 1 < n ? std::min(s.cap[k], (k + 1.0) / n) : 1.0;
    for (size_t j = 0; j < per; ++j) w(static_cast<Eigen::Index>(k * per + j)) = (X - above) / per;
    above = X;
  }
  return w;
}

// min_w max_i f_i(w) on the support, from the measure `start` and the
// parameter weights u0.
Optimum optimise(const Support& s, const Eigen::VectorXd& start, const Eigen::VectorXd& u0) {
  Hull h;
  h.add(s, start, 1.0);
  Optimum best;
  best.u = u0;
  std::vector<Eigen::VectorXd> found;
  Eigen::MatrixXd cols(static_cast<Eigen::Index>(s.crit.sum()), 0);
  double lower = 0;
  auto consider = [&](const Eigen::VectorXd& w, const Eigen::VectorXd& f) {
    if (worst(s, f) < best.worst) best.worst = worst(s, f), best.w = w;
  };
  Eigen::VectorXd u = best.u;
  for (int outer = 0; outer < kOuter; ++outer) {
    const Step st = minimise_weighted(s, u, h);
    lower = std::max(lower, st.lower);
    consider(st.w, st.f);
    found.push_back(st.w);
    cols.conservativeResize(Eigen::NoChange, cols.cols() + 1);
    cols.col(cols.cols() - 1) = criterion_rows(s, st.f);
    const Game g = solve_game(cols);
    u = full_weights(s, g.u);
    best.u = u;
    Eigen::VectorXd mix = Eigen::VectorXd::Zero(st.w.size());
    for (size_t m = 0; m < found.size(); ++m) mix += g.x(static_cast<Eigen::Index>(m)) * found[m];
    consider(mix, inverse_information(s, mix).diagonal());
    if (best.worst - lower <= kGap * best.worst) break;
  }
  return best;
}

// The certified lower bound on the optimum over the allowed measures of
// `fine`, from the measure w and first weights u.
double certify(const Support& s, const Eigen::VectorXd& w, const Eigen::VectorXd& u0) {
  const Eigen::MatrixXd Mi = inverse_information(s, w);
  const Eigen::VectorXd f = criterion_rows(s, Mi.diagonal());
  const Eigen::MatrixXd a = s.G * Mi;
  Eigen::MatrixXd grads(f.size(), s.G.rows());  // d f_i / d w_j of the criterion's parameters
  for (Eigen::Index i = 0, r = 0; i < s.crit.size(); ++i)
    if (s.crit(i) > 0) grads.row(r++) = -a.col(i).array().square().matrix().transpose();
  const Eigen::VectorXd gw = grads * w;
  auto column = [&](const Eigen::VectorXd& uc) {
    return Eigen::VectorXd(f + grads * vertex(s, grads.transpose() * uc) - gw);
  };
  Eigen::VectorXd uc = criterion_rows(s, u0);
  Eigen::MatrixXd cols = column(uc);
  double best = uc.dot(cols.col(0));
  for (int round = 0; round < kColumns; ++round) {
    const Game g = solve_game(cols);
    const Eigen::VectorXd c = column(g.u);
    best = std::max(best, g.u.dot(c));
    if (g.value - best <= 1e-9 * f.maxCoeff()) break;
    cols.conservativeResize(Eigen::NoChange, cols.cols() + 1);
    cols.col(cols.cols() - 1) = c;
  }
  return best;
}

// The support's pressures: the rig's levels; of a range its ends, which
// hold the information of every pressure between them where the law's
// gradient is affine in the pressure ((1-t) g0 g0^T + t g1 g1^T - g g^T =
// t(1-t)(g0-g1)(g0-g1)^T >= 0), checked at the quarters; none otherwise.
std::vector<double> support_pressures(const DesignRequest& r, const Prediction& at, bool pressure) {
  if (!pressure) return {0.0};
  if (!r.rig.pressure_range) return r.rig.pressure_levels;
  const double lo = r.rig.pressure_min, hi = r.rig.pressure_max;
  std::vector<MeasurePoint> pts;
  for (int k = 0; k < kSpeeds; ++k)
    for (double t : {0.0, 0.25, 0.5, 0.75, 1.0})
      pts.push_back({log_speed(r.rig.v_max, k, kSpeeds), lo + t * (hi - lo), 0.0});
  const Eigen::MatrixXd G = relative_gradients(r, at, pts);
  const double tol = 1e-6 * std::max(G.cwiseAbs().maxCoeff(), 1e-300);
  for (Eigen::Index j = 0; j < G.rows(); j += 5)
    for (int q = 1; q < 4; ++q)
      if ((G.row(j + q) - (1 - 0.25 * q) * G.row(j) - 0.25 * q * G.row(j + 4)).cwiseAbs().maxCoeff() > tol) return {};
  return {lo, hi};
}

// Why no bound is computed for the request, or "".
std::string why_not(const Prediction& at, const ModelInfo& m) {
  if (m.dynamic)
    return "a law with memory's information is not a sum of per-sample terms of (speed, pressure), so the best test "
           "has no convex form";
  if (m.needs(kChannelNormalForce)) return "the law reads the normal force, which the rig does not set";
  for (const auto& q : at.parameters)
    if (q.name != "offset" && m.param_index(q.name) < 0)
      return "the fit has a nuisance (" + q.name + ") other than an offset";
  if (at.parameters.empty()) return "the fit has no free parameter";
  return "";
}

}  // namespace

double share_cap(const workloads::RigLimits& rig, double v0) {
  const double room = rig.stroke - v0 * v0 / rig.a_max;
  if (!(room > 0)) return 0.0;
  const double hi = room / v0, lo = 2 * v0 / rig.a_max;
  return hi / (hi + lo);
}

bool exceeds_caps(const workloads::RigLimits& rig, const std::vector<MeasurePoint>& m) {
  for (const auto& s : m) {
    double above = 0;
    for (const auto& t : m)
      if (std::abs(t.v) >= std::abs(s.v)) above += t.share;
    if (above > share_cap(rig, std::abs(s.v)) + kCapSlack) return true;
  }
  return false;
}

BoundSolution solve_bound(const DesignRequest& r, const Prediction& at) {
  const auto start = std::chrono::steady_clock::now();
  const ModelInfo& m = workloads::require_model(r.model);
  BoundSolution out;
  out.bound.why_not = why_not(at, m);
  if (!out.bound.why_not.empty()) return out;
  const std::vector<double> pressures = support_pressures(r, at, reads_pressure(m));
  if (pressures.empty()) {
    out.bound.why_not = "the law is not affine in the pressure over the rig's range";
    return out;
  }
  const Support coarse = make_support(r, at, pressures, kSpeeds);
  const Eigen::MatrixXd M0 = coarse.G.transpose() * even_measure(coarse).asDiagonal() * coarse.G;
  if (Eigen::FullPivLU<Eigen::MatrixXd>(M0).rank() < coarse.G.cols()) {
    out.bound.why_not = "no test of the rig's speeds and pressures determines every free parameter";
    return out;
  }
  const Optimum rough = optimise(coarse, even_measure(coarse), coarse.crit / coarse.crit.sum());
  const Support fine = make_support(r, at, pressures, kFiner * (kSpeeds - 1) + 1);
  // The coarse speed k is the fine speed kFiner k, with the same points.
  const Eigen::Index per = static_cast<Eigen::Index>(coarse.pts.size() / coarse.cap.size());
  Eigen::VectorXd w = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(fine.pts.size()));
  for (Eigen::Index j = 0; j < rough.w.size(); ++j) w((j / per) * kFiner * per + j % per) = rough.w(j);
  // Polished on the fine grid: where the stroke binds, the best speeds lie
  // between the coarse grid's.
  const Optimum best = optimise(fine, w, rough.u);
  out.bound.computed = true;
  out.bound.worst_rse = std::sqrt(std::max(certify(fine, best.w, best.u), 0.0));
  out.bound.measure_rse = std::sqrt(best.worst);
  out.bound.grid_speeds = static_cast<int>(fine.cap.size());
  std::map<std::pair<double, double>, double> folded;  // (|v|, p): +v and -v together
  for (Eigen::Index j = 0; j < best.w.size(); ++j)
    if (best.w(j) > 0) folded[{std::abs(fine.pts[j].v), fine.pts[j].p}] += best.w(j);
  for (const auto& [vp, share] : folded) out.measure.push_back({vp.first, vp.second, share});
  out.bound.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace stribeck::ident::detail

namespace stribeck::ident {

DesignBound design_bound(const DesignRequest& r, const Prediction& at) { return detail::solve_bound(r, at).bound; }

}  // namespace stribeck::ident
