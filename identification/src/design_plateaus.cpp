// The `levels` candidate of `stribeck design` (design_plateaus.hpp): the
// optimal time shares over (speed, pressure) of a static law, and the
// plateau test that realises them.
#include "design_plateaus.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>

#include "design_support.hpp"
#include "stribeck/workloads/params.hpp"

namespace stribeck::ident::detail {
namespace {

// The support's speeds (log_speed).
constexpr int kSpeeds = 120;
// A pass of one plateau uses at most this share of the stroke.
constexpr double kPassStroke = 0.9;
// Saddle-point iterations: outer updates of the parameter weights u, each
// after inner multiplicative steps of the shares for that u.
constexpr int kOuter = 300, kInner = 10;
// Shares below this are left out of the test (a ramp each for nearly nothing).
constexpr double kLeastShare = 1e-3;

double longest_pass(const DesignRequest& r, double v) { return kPassStroke * (r.rig.stroke - v * v / r.rig.a_max) / v; }

std::vector<double> support_pressures(const DesignRequest& r, bool pressure) {
  if (!pressure) return {0.0};
  if (!r.rig.pressure_range) return r.rig.pressure_levels;
  std::vector<double> p;
  for (int i = 0; i < 5; ++i) p.push_back(r.rig.pressure_min + 0.25 * i * (r.rig.pressure_max - r.rig.pressure_min));
  return p;
}

// The shares w minimising max_i [M(w)^-1]_ii over the parameters of
// weight > 0, M(w) = sum_j w_j g_j g_j^T (rows of G): for fixed weights u the
// multiplicative algorithm of L-optimal designs, w_j <- w_j sqrt(d_j / phi)
// with d_j = g_j^T M^-1 U M^-1 g_j and phi = sum_j w_j d_j = tr(U M^-1); u
// moved towards the parameters at the worst, u_i <- u_i (f_i / max f)^4.
Eigen::VectorXd saddle(const Eigen::MatrixXd& G, const Eigen::VectorXd& weight) {
  const Eigen::Index n = G.rows();
  Eigen::VectorXd w = Eigen::VectorXd::Constant(n, 1.0 / static_cast<double>(n));
  Eigen::VectorXd u = weight / weight.sum();
  auto inverse = [&](const Eigen::VectorXd& s) {
    const Eigen::MatrixXd M = G.transpose() * s.asDiagonal() * G;
    return Eigen::MatrixXd(M.ldlt().solve(Eigen::MatrixXd::Identity(M.rows(), M.cols())));
  };
  for (int outer = 0; outer < kOuter; ++outer) {
    for (int inner = 0; inner < kInner; ++inner) {
      const Eigen::MatrixXd A = G * inverse(w);
      const Eigen::VectorXd d = A.array().square().matrix() * u;
      w = (w.array() * (d.array() / w.dot(d)).sqrt()).matrix();
      w /= w.sum();
    }
    const Eigen::VectorXd f = inverse(w).diagonal();
    const double worst = (f.array() * (weight.array() > 0).cast<double>()).maxCoeff();
    u = (u.array() * (f.array() / worst).min(1.0).pow(4.0)).matrix();  // the offset's u stays 0
    u /= u.sum();
  }
  return w;
}

}  // namespace

std::vector<MeasurePoint> optimal_measure(const DesignRequest& r, const Prediction& at) {
  const ModelInfo& m = workloads::require_model(r.model);
  if (m.dynamic) return {};
  const size_t k = at.parameters.size();
  Eigen::VectorXd weight(k);
  for (size_t i = 0; i < k; ++i) {
    const auto& q = at.parameters[i];
    if (q.name != "offset" && m.param_index(q.name) < 0) return {};  // another nuisance (a mass): not a static sample's
    weight(i) = q.name != "offset" ? 1.0 : 0.0;
  }
  if (weight.sum() == 0) return {};
  const bool pressure = reads_pressure(m);
  std::vector<MeasurePoint> pts;
  for (double p : support_pressures(r, pressure))
    for (int j = 0; j < kSpeeds; ++j) {
      const double v = log_speed(r.rig.v_max, j, kSpeeds);
      if (longest_pass(r, v) > 0) pts.push_back({v, p, 0.0});
    }
  const Eigen::MatrixXd G = relative_gradients(r, at, pts);
  // A support that cannot determine every parameter (one pressure for a
  // pressure term) gives no measure.
  if (Eigen::FullPivLU<Eigen::MatrixXd>(G.transpose() * G).rank() < static_cast<Eigen::Index>(k)) return {};
  const Eigen::VectorXd w = saddle(G, weight);
  for (size_t j = 0; j < pts.size(); ++j) pts[j].share = w(static_cast<Eigen::Index>(j));
  return pts;
}

std::vector<workloads::DesignedExperiment> plateau_test(const DesignRequest& r, std::vector<MeasurePoint> m) {
  m.erase(std::remove_if(m.begin(), m.end(), [](const MeasurePoint& s) { return s.share < kLeastShare; }), m.end());
  // The pressures of most time, one experiment each.
  std::map<double, double> by_pressure;
  for (const auto& s : m) by_pressure[s.p] += s.share;
  std::vector<std::pair<double, double>> ps(by_pressure.begin(), by_pressure.end());
  std::stable_sort(ps.begin(), ps.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  ps.resize(std::min(ps.size(), static_cast<size_t>(std::max(1, r.experiments))));
  std::sort(ps.begin(), ps.end());
  double total = 0;
  for (const auto& p : ps) total += p.second;
  const ModelInfo& model = workloads::require_model(r.model);
  const bool pressure = reads_pressure(model);
  const double a = r.rig.a_max, T = r.rig.duration;
  std::vector<workloads::DesignedExperiment> out;
  double used = 0;
  for (size_t e = 0; e < ps.size(); ++e) {
    std::vector<MeasurePoint> pts;
    for (const auto& s : m)
      if (s.p == ps[e].first) pts.push_back(s);
    std::sort(pts.begin(), pts.end(), [](const MeasurePoint& x, const MeasurePoint& y) { return x.v > y.v; });
    workloads::DesignedExperiment x;
    std::vector<double> shares;
    // The passes of each speed for `fill` of its share of the time; the
    // ramps' time.
    auto schedule = [&](double fill) {
      x.levels.clear();
      shares.clear();
      for (const auto& s : pts) {
        const double planned = fill * s.share / total * T;
        const int passes = std::max(2, 2 * static_cast<int>(std::ceil(planned / (2 * longest_pass(r, s.v)))));
        for (int i = 0; i < passes; ++i) {
          x.levels.push_back(i % 2 ? -s.v : s.v);
          shares.push_back(s.share / passes);
        }
      }
      double ramps = 0, last = 0;
      for (double v : x.levels) ramps += std::abs(v - last) / a, last = v;
      return ramps + std::abs(last) / a;
    };
    x.duration = e + 1 == ps.size() ? T - used : T * ps[e].second / total;
    used += x.duration;
    double ramps = schedule(1.0);
    // Where the stroke is short, the ramps between the passes can take the
    // whole test: then each speed gets the passes of the time they leave,
    // D / (D + R) of its share (its holds still within a pass, the ramps
    // about that fraction of R).
    if (!(x.duration > ramps)) ramps = schedule(x.duration / (x.duration + ramps));
    if (!(x.duration > ramps)) return {};
    for (double s : shares) x.holds.push_back(s / ps[e].second * (x.duration - ramps));
    x.name = "e" + std::to_string(e + 1);
    x.profile = "levels";
    x.rate_hz = r.rig.rate_hz;
    x.v_max = pts.front().v;
    x.has_pressure = pressure;
    x.pressure_a = ps[e].first;
    x.pressure_b = r.rig.pressure_b;
    x.ramp_accel = a;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace stribeck::ident::detail
