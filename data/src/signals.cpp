#include "stribeck/data/signals.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "stribeck/data/error.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck {
namespace {

constexpr int kMaxOrder = 6;
constexpr double kPi = 3.14159265358979323846;

// Solves the (p x p) symmetric system S a = r in place by Gaussian
// elimination with partial pivoting; false if singular.
bool solve(double S[kMaxOrder + 1][kMaxOrder + 1], double r[kMaxOrder + 1], int p) {
  for (int c = 0; c < p; ++c) {
    int piv = c;
    for (int k = c + 1; k < p; ++k)
      if (std::abs(S[k][c]) > std::abs(S[piv][c])) piv = k;
    if (S[piv][c] == 0.0) return false;
    if (piv != c) {
      for (int k = 0; k < p; ++k) std::swap(S[c][k], S[piv][k]);
      std::swap(r[c], r[piv]);
    }
    for (int k = c + 1; k < p; ++k) {
      const double f = S[k][c] / S[c][c];
      for (int m = c; m < p; ++m) S[k][m] -= f * S[c][m];
      r[k] -= f * r[c];
    }
  }
  for (int c = p - 1; c >= 0; --c) {
    for (int k = c + 1; k < p; ++k) r[c] -= S[c][k] * r[k];
    r[c] /= S[c][c];
  }
  return true;
}

// Coefficients of the uniform SG smoother (value at the centre) of
// half-width M: c_k for k = 0..M (symmetric).
std::vector<double> smoother_coefficients(int M, int order) {
  const int p = order + 1;
  double S[kMaxOrder + 1][kMaxOrder + 1] = {};
  for (int k = -M; k <= M; ++k) {
    const double tau = static_cast<double>(k) / M;
    double pw[2 * kMaxOrder + 1];
    pw[0] = 1;
    for (int j = 1; j <= 2 * order; ++j) pw[j] = pw[j - 1] * tau;
    for (int a = 0; a < p; ++a)
      for (int b = 0; b < p; ++b) S[a][b] += pw[a + b];
  }
  // Row 0 of S^-1: solve S y = e0; then c_k = sum_j y_j tau_k^j.
  double y[kMaxOrder + 1] = {1};
  solve(S, y, p);
  std::vector<double> c(static_cast<size_t>(M) + 1);
  for (int k = 0; k <= M; ++k) {
    const double tau = static_cast<double>(k) / M;
    double s = 0, pw = 1;
    for (int j = 0; j < p; ++j, pw *= tau) s += y[j] * pw;
    c[static_cast<size_t>(k)] = s;
  }
  return c;
}

double response(const std::vector<double>& c, double f) {
  double h = c[0];
  for (size_t k = 1; k < c.size(); ++k) h += 2.0 * c[k] * std::cos(2.0 * kPi * f * static_cast<double>(k));
  return h;
}

void check_order(int order) {
  if (order < 1 || order > kMaxOrder)
    throw InputError("derivative filter order " + std::to_string(order) + " is outside 1.." + std::to_string(kMaxOrder));
}

}  // namespace

double sg_cutoff_fraction(int M, int order) {
  check_order(order);
  const auto c = smoother_coefficients(M, order);
  const double target = 1.0 / std::sqrt(2.0);
  const double step = 0.005 / (M + 1);
  double lo = 0, hi = step;
  while (hi < 0.5 && response(c, hi) > target) {
    lo = hi;
    hi += step;
  }
  if (hi >= 0.5) return 0.5;
  for (int it = 0; it < 50; ++it) {
    const double mid = 0.5 * (lo + hi);
    (response(c, mid) > target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

int sg_half_width(double cutoff_hz, double rate_hz, int order) {
  check_order(order);
  if (!(cutoff_hz > 0) || !(rate_hz > 0)) throw InputError("derivative cut-off and sample rate must be positive");
  const double phi = cutoff_hz / rate_hz;
  int lo = order / 2 + 1;
  if (sg_cutoff_fraction(lo, order) <= phi) return lo;
  int hi = 2 * lo;  // bracket by doubling: the cut-off falls roughly as 1/M
  while (sg_cutoff_fraction(hi, order) > phi) {
    if (hi > (1 << 20)) throw InputError("derivative cut-off " + format_number(cutoff_hz) + " Hz is too low for the sample rate");
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {  // the cut-off falls as the window grows
    const int mid = lo + (hi - lo) / 2;
    (sg_cutoff_fraction(mid, order) > phi ? lo : hi) = mid;
  }
  return std::abs(sg_cutoff_fraction(lo, order) - phi) <= std::abs(sg_cutoff_fraction(hi, order) - phi) ? lo : hi;
}

std::vector<double> sg_derivative(const std::vector<double>& t, const std::vector<double>& x, int deriv,
                                  int M, int order) {
  check_order(order);
  if (deriv < 0 || deriv > order) throw InputError("derivative of order " + std::to_string(deriv) + " needs a fit of at least that order");
  const size_t n = x.size();
  if (t.size() != n) throw InputError("sg_derivative: time and signal differ in length");
  const size_t W = std::min(n, 2 * static_cast<size_t>(M) + 1);
  const int p = order + 1;
  if (W < static_cast<size_t>(p))
    throw InputError("cannot differentiate: " + std::to_string(n) + " samples, the fit needs at least " + std::to_string(p));
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t lo = std::min(i >= static_cast<size_t>(M) ? i - M : 0, n - W);
    const double h = std::max(std::abs(t[lo] - t[i]), std::abs(t[lo + W - 1] - t[i]));
    double S[kMaxOrder + 1][kMaxOrder + 1] = {};
    double r[kMaxOrder + 1] = {};
    for (size_t k = lo; k < lo + W; ++k) {
      const double tau = (t[k] - t[i]) / h;
      double pw[2 * kMaxOrder + 1];
      pw[0] = 1;
      for (int j = 1; j <= 2 * order; ++j) pw[j] = pw[j - 1] * tau;
      for (int a = 0; a < p; ++a) {
        r[a] += pw[a] * x[k];
        for (int b = 0; b < p; ++b) S[a][b] += pw[a + b];
      }
    }
    if (!solve(S, r, p)) throw InputError("cannot differentiate: repeated time stamps near index " + std::to_string(i));
    out[i] = deriv == 0 ? r[0] : deriv == 1 ? r[1] / h : 2.0 * r[2] / (h * h);
    if (deriv > 2) {
      double f = 1;
      for (int j = 2; j <= deriv; ++j) f *= j;
      out[i] = f * r[deriv] / std::pow(h, deriv);
    }
  }
  return out;
}

DeriveSummary derive_channels(Experiment& e, const std::vector<std::string>& channels, const DeriveOptions& o) {
  const std::string where = e.source + ": experiment '" + e.name + "'";
  DeriveSummary s;
  if (channels.empty()) return s;
  if (!e.has("time")) throw InputError(where + ": cannot derive " + channels.front() + " without a 'time' channel");
  const auto& t = e.channels.at("time");
  const size_t n = t.size();
  if (n < static_cast<size_t>(o.order) + 2)
    throw InputError(where + ": too few samples (" + std::to_string(n) + ") to derive " + channels.front());
  s.rate_hz = static_cast<double>(n - 1) / (t.back() - t.front());
  s.cutoff_hz = o.cutoff_hz > 0 ? o.cutoff_hz : s.rate_hz / 20.0;
  if (s.cutoff_hz >= s.rate_hz / 2)
    throw InputError(where + ": derivative cut-off " + format_number(s.cutoff_hz) +
                     " Hz is not below the Nyquist frequency " + format_number(s.rate_hz / 2) + " Hz");
  s.half_width = std::min(sg_half_width(s.cutoff_hz, s.rate_hz, o.order), static_cast<int>((n - 1) / 2));
  const bool rotational = e.attributes.count("motion") && e.attributes.at("motion") == "rotational";
  char method[160];
  std::snprintf(method, sizeof method, "savitzky-golay order %d, half-width %d samples, cutoff %s Hz", o.order,
                s.half_width, format_number(s.cutoff_hz).c_str());
  const bool velocity_measured = e.has("velocity");
  for (const auto& ch : channels) {
    if (ch != "velocity" && ch != "acceleration")
      throw InputError("--derive: cannot derive '" + ch + "' (choose velocity, acceleration)");
    if (e.has(ch)) throw InputError(where + ": already has a '" + ch + "' channel; not overwriting measured data");
    std::vector<double> d;
    if (ch == "velocity" || !velocity_measured) {
      if (!e.has("position")) throw InputError(where + ": cannot derive " + ch + ": no 'position' channel");
      d = sg_derivative(t, e.channels.at("position"), ch == "velocity" ? 1 : 2, s.half_width, o.order);
    } else {
      d = sg_derivative(t, e.channels.at("velocity"), 1, s.half_width, o.order);
    }
    e.channels[ch] = std::move(d);
    e.units[ch] = ch == "velocity" ? (rotational ? "rad/s" : "m/s") : (rotational ? "rad/s^2" : "m/s^2");
    e.attributes["derived_" + ch] = std::string(method) + " from " +
                                    (ch == "acceleration" && velocity_measured ? "velocity" : "position");
    s.derived.push_back(ch);
  }
  return s;
}

void resample_uniform(Experiment& e, double dt) {
  const std::string where = e.source + ": experiment '" + e.name + "'";
  if (!e.has("time")) throw InputError(where + ": cannot resample without a 'time' channel");
  const std::vector<double> t = e.channels.at("time");
  const size_t n = t.size();
  if (n < 2) throw InputError(where + ": cannot resample fewer than 2 samples");
  if (dt <= 0) {
    std::vector<double> steps(n - 1);
    for (size_t i = 1; i < n; ++i) steps[i - 1] = t[i] - t[i - 1];
    std::nth_element(steps.begin(), steps.begin() + static_cast<long>(steps.size() / 2), steps.end());
    dt = steps[steps.size() / 2];
  }
  const double span = t.back() - t.front();
  if (!(dt > 0) || span / dt > 1e9) throw InputError(where + ": resampling step " + format_number(dt) + " s is not usable");
  const size_t m = static_cast<size_t>(std::floor(span / dt * (1 + 1e-12))) + 1;
  std::vector<double> tn(m);
  for (size_t k = 0; k < m; ++k) tn[k] = t.front() + dt * static_cast<double>(k);
  for (auto& [name, v] : e.channels) {
    if (name == "time") continue;
    std::vector<double> out(m);
    size_t j = 0;
    for (size_t k = 0; k < m; ++k) {
      while (j + 2 < n && t[j + 1] <= tn[k]) ++j;
      const double w = std::clamp((tn[k] - t[j]) / (t[j + 1] - t[j]), 0.0, 1.0);
      out[k] = v[j] + w * (v[j + 1] - v[j]);
    }
    v = std::move(out);
  }
  e.channels["time"] = std::move(tn);
  e.attributes["resampled"] = "linear interpolation, step " + format_number(dt) + " s";
}

std::vector<size_t> find_reversals(const std::vector<double>& v, double deadband) {
  std::vector<size_t> out;
  int dir = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const int s = v[i] > deadband ? 1 : v[i] < -deadband ? -1 : 0;
    if (s == 0) continue;
    if (dir != 0 && s != dir) out.push_back(i);
    dir = s;
  }
  return out;
}

std::vector<Plateau> find_plateaus(const std::vector<double>& t, const std::vector<double>& v,
                                   const std::vector<double>& f, const PlateauOptions& o) {
  if (t.size() != v.size() || f.size() != v.size()) throw InputError("find_plateaus: channels differ in length");
  std::vector<Plateau> out;
  const size_t n = v.size();
  size_t i = 0;
  while (i < n) {
    double sum = v[i];
    size_t j = i + 1;
    while (j < n) {
      const double mean = sum / static_cast<double>(j - i);
      if (std::abs(v[j] - mean) > std::max(o.rel_tolerance * std::abs(mean), o.abs_tolerance)) break;
      sum += v[j++];
    }
    const double mean = sum / static_cast<double>(j - i);
    if (std::abs(mean) > o.abs_tolerance && t[j - 1] - t[i] >= o.min_duration) {
      Plateau p;
      p.begin = i;
      p.end = j;
      p.duration = t[j - 1] - t[i];
      p.direction = mean > 0 ? 1 : -1;
      const size_t s = i + static_cast<size_t>(o.settle_fraction * static_cast<double>(j - i));
      double sv = 0, sf = 0, sff = 0;
      for (size_t k = s; k < j; ++k) {
        sv += v[k];
        sf += f[k];
      }
      const double m = static_cast<double>(j - s);
      p.velocity = sv / m;
      p.force = sf / m;
      for (size_t k = s; k < j; ++k) sff += (f[k] - p.force) * (f[k] - p.force);
      p.force_std = m > 1 ? std::sqrt(sff / (m - 1)) : 0.0;
      out.push_back(p);
    }
    i = j;
  }
  return out;
}

}  // namespace stribeck
