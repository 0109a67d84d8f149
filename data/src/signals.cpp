#include "stribeck/data/signals.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "stribeck/data/error.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data {
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
    throw InputError("derivative filter order " + std::to_string(order) + " is outside 1.." +
                     std::to_string(kMaxOrder));
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
    if (hi > (1 << 20))
      throw InputError("derivative cut-off " + format_number(cutoff_hz) + " Hz is too low for the sample rate");
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {  // the cut-off falls as the window grows
    const int mid = lo + (hi - lo) / 2;
    (sg_cutoff_fraction(mid, order) > phi ? lo : hi) = mid;
  }
  return std::abs(sg_cutoff_fraction(lo, order) - phi) <= std::abs(sg_cutoff_fraction(hi, order) - phi) ? lo : hi;
}

std::vector<double> sg_derivative(const std::vector<double>& t, const std::vector<double>& x, int deriv, int M,
                                  int order) {
  check_order(order);
  if (deriv < 0 || deriv > order)
    throw InputError("derivative of order " + std::to_string(deriv) + " needs a fit of at least that order");
  const size_t n = x.size();
  if (t.size() != n) throw InputError("sg_derivative: time and signal differ in length");
  const size_t W = std::min(n, 2 * static_cast<size_t>(M) + 1);
  const int p = order + 1;
  if (W < static_cast<size_t>(p))
    throw InputError("cannot differentiate: " + std::to_string(n) + " samples, the fit needs at least " +
                     std::to_string(p));
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
    e.attributes["derived_" + ch] =
        std::string(method) + " from " + (ch == "acceleration" && velocity_measured ? "velocity" : "position");
    s.derived.push_back(ch);
  }
  return s;
}

namespace {

double blackman_weight(double u) {
  u = std::abs(u);
  if (u >= 1.0) return 0.0;
  return 0.42 + 0.5 * std::cos(kPi * u) + 0.08 * std::cos(2.0 * kPi * u);
}

// True when t is uniform to 1e-6 of its mean step (then L is one FIR kernel).
bool uniform_time(const std::vector<double>& t, double& h) {
  const size_t n = t.size();
  h = (t.back() - t.front()) / static_cast<double>(n - 1);
  for (size_t k = 0; k < n; ++k)
    if (std::abs(t[k] - t.front() - static_cast<double>(k) * h) > 1e-6 * h) return false;
  return true;
}

}  // namespace

double blackman_cutoff_hz(double T, double rate) {
  if (!(T > 0) || !(rate > 0)) throw InputError("parallel filter: half-width and sample rate must be positive");
  const long K = static_cast<long>(std::floor(T * rate));
  std::vector<double> w(static_cast<size_t>(K) + 1);
  double sum = 0;
  for (long k = 0; k <= K; ++k) {
    w[static_cast<size_t>(k)] = blackman_weight(static_cast<double>(k) / (rate * T));
    sum += (k ? 2.0 : 1.0) * w[static_cast<size_t>(k)];
  }
  auto H = [&](double f) {
    double h = w[0];
    for (long k = 1; k <= K; ++k)
      h += 2.0 * w[static_cast<size_t>(k)] * std::cos(2.0 * kPi * f * static_cast<double>(k) / rate);
    return h / sum;
  };
  const double target = 1.0 / std::sqrt(2.0), nyq = 0.5 * rate;
  const double step = std::min(0.01 / T, 0.01 * nyq);
  double lo = 0, hi = step;
  while (hi < nyq && H(hi) > target) {
    lo = hi;
    hi += step;
  }
  if (hi >= nyq) {
    if (H(nyq) > target) return nyq;
    hi = nyq;
  }
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    (H(mid) > target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double blackman_half_width(double cutoff_hz, double rate) {
  if (!(cutoff_hz > 0) || !(rate > 0)) throw InputError("parallel filter: cut-off and sample rate must be positive");
  if (cutoff_hz >= 0.5 * rate)
    throw InputError("parallel filter: cut-off " + format_number(cutoff_hz) +
                     " Hz is not below the Nyquist frequency " + format_number(0.5 * rate) + " Hz");
  // The cut-off falls as the kernel widens (~0.41 / T); bisect on T.
  double lo = 1.0 / rate, hi = 4.0 * 0.41 / cutoff_hz;
  while (blackman_cutoff_hz(hi, rate) > cutoff_hz) hi *= 2;
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    (blackman_cutoff_hz(mid, rate) > cutoff_hz ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::vector<double> blackman_smooth(const std::vector<double>& t, const std::vector<double>& x, double T,
                                    const std::vector<size_t>* at) {
  const size_t n = x.size();
  if (t.size() != n) throw InputError("blackman_smooth: time and signal differ in length");
  const size_t m = at ? at->size() : n;
  std::vector<double> out(m);
  if (n == 0) return out;
  double h = 0;
  const bool uniform = n > 1 && uniform_time(t, h);
  std::vector<double> table;
  long K = 0;
  if (uniform) {
    K = static_cast<long>(std::floor(T / h));
    for (long k = 0; k <= K; ++k) table.push_back(blackman_weight(static_cast<double>(k) * h / T));
  }
  for (size_t j = 0; j < m; ++j) {
    const size_t i = at ? (*at)[j] : j;
    double s = 0, ws = 0;
    if (uniform) {
      const long a = std::max(0L, static_cast<long>(i) - K),
                 b = std::min(static_cast<long>(n) - 1, static_cast<long>(i) + K);
      for (long k = a; k <= b; ++k) {
        const double w = table[static_cast<size_t>(std::labs(k - static_cast<long>(i)))];
        s += w * x[static_cast<size_t>(k)];
        ws += w;
      }
    } else {
      const size_t a = static_cast<size_t>(std::upper_bound(t.begin(), t.end(), t[i] - T) - t.begin());
      const size_t b = static_cast<size_t>(std::lower_bound(t.begin(), t.end(), t[i] + T) - t.begin());
      for (size_t k = a; k < b; ++k) {
        const double w = blackman_weight((t[k] - t[i]) / T);
        s += w * x[k];
        ws += w;
      }
    }
    out[j] = ws > 0 ? s / ws : x[i];
  }
  return out;
}

Experiment parallel_filter(const Experiment& e, const std::vector<std::string>& derive, const ParallelFilterOptions& o,
                           ParallelFilterSummary* summary) {
  const std::string where = e.source + ": experiment '" + e.name + "'";
  ParallelFilterSummary s;
  if (!e.has("time"))
    throw InputError(where + ": cannot filter or derive " +
                     (derive.empty() ? std::string("channels") : derive.front()) + " without a 'time' channel");
  const auto& t = e.channels.at("time");
  const size_t n = t.size();
  if (n < 5) throw InputError(where + ": too few samples (" + std::to_string(n) + ") to filter and differentiate");
  for (size_t k = 0; k < n; ++k)
    if (!std::isfinite(t[k]) || (k && !(t[k] > t[k - 1])))
      throw InputError(where + ", channel 'time', sample " + std::to_string(k) +
                       ": time must be finite and increase strictly");
  if (o.decimation < 0) throw InputError("--decimate must be >= 0 (0: automatic)");
  double h_mean = 0;
  if (!uniform_time(t, h_mean)) {
    // Smoothing at jittered time stamps would turn the jitter into position
    // errors after the filter, which differentiation then amplifies at every
    // frequency. Linear interpolation onto a uniform grid first is one more
    // linear operator applied alike to every channel, and its errors pass
    // through the filter before any derivative is taken.
    Experiment u = e;
    resample_uniform(u, h_mean);
    Experiment r = parallel_filter(u, derive, o, summary);
    r.attributes["parallel_filter"] += "; time stamps were not uniform: resampled linearly first";
    if (summary) {
      summary->method = r.attributes["parallel_filter"];
      summary->resampled = true;
      // The rows of the input nearest in time to the kept samples, so that
      // results line up with the log as it is stored.
      const auto& tk = r.channels.at("time");
      for (size_t j = 0; j < tk.size(); ++j) {
        const size_t b = static_cast<size_t>(std::lower_bound(t.begin(), t.end(), tk[j]) - t.begin());
        summary->rows[j] = b == 0 ? 0 : b == n ? n - 1 : (tk[j] - t[b - 1] <= t[b] - tk[j] ? b - 1 : b);
      }
    }
    return r;
  }
  s.samples_in = n;
  s.rate_hz = static_cast<double>(n - 1) / (t.back() - t.front());
  s.cutoff_hz = o.cutoff_hz > 0 ? o.cutoff_hz : s.rate_hz / 20.0;
  if (s.cutoff_hz >= s.rate_hz / 2)
    throw InputError(where + ": filter cut-off " + format_number(s.cutoff_hz) +
                     " Hz is not below the Nyquist frequency " + format_number(s.rate_hz / 2) + " Hz");
  s.half_width_s = blackman_half_width(s.cutoff_hz, s.rate_hz);
  s.decimation =
      o.decimation > 0 ? o.decimation : std::max(1, static_cast<int>(std::lround(1.25 * s.half_width_s * s.rate_hz)));
  const bool rotational = e.attributes.count("motion") && e.attributes.at("motion") == "rotational";
  const bool want_v = std::count(derive.begin(), derive.end(), "velocity") != 0;
  const bool want_a = std::count(derive.begin(), derive.end(), "acceleration") != 0;
  for (const auto& ch : derive) {
    if (ch != "velocity" && ch != "acceleration")
      throw InputError("--derive: cannot derive '" + ch + "' (choose velocity, acceleration)");
    if (e.has(ch)) throw InputError(where + ": already has a '" + ch + "' channel; not overwriting measured data");
  }
  const bool velocity_measured = e.has("velocity");
  if ((want_v || (want_a && !velocity_measured)) && !e.has("position"))
    throw InputError(where + ": cannot derive " + (want_v ? "velocity" : "acceleration") + ": no 'position' channel");
  if (!want_v && !velocity_measured && !e.has("position"))
    throw InputError(where + ": no velocity or position channel");

  // The filtered kinematics at every sample (the reversals are found on them).
  std::vector<double> vel, acc;
  std::vector<double> base;  // filtered position (or measured velocity) at every sample
  const std::string from = velocity_measured ? "velocity" : "position";
  base = blackman_smooth(t, e.channels.at(from), s.half_width_s);
  if (velocity_measured) {
    vel = base;
    if (want_a) acc = sg_derivative(t, base, 1, 2, 4);
  } else {
    vel = sg_derivative(t, base, 1, 2, 4);
    if (want_a) acc = sg_derivative(t, base, 2, 2, 4);
  }

  // Kept samples: the decimation grid, away from the ends and from every
  // velocity reversal by the kernel's support plus the stencil. Reversals are
  // found on a velocity filtered 4x wider in band (support T/4), which still
  // shows a brief reversal that L smooths away (the true velocity dipping
  // through zero and back within the support, where L sign(v) != sign(L v)).
  const double margin = s.half_width_s + 2.5 / s.rate_hz;
  std::vector<double> vm;
  {
    const double Tm = std::max(0.25 * s.half_width_s, 2.0 / s.rate_hz);
    const std::vector<double> bm = blackman_smooth(t, e.channels.at(from), Tm);
    vm = velocity_measured ? bm : sg_derivative(t, bm, 1, 2, 4);
  }
  std::vector<size_t> seg_begin(n), seg_end(n);  // runs of one strict velocity sign
  for (size_t k = 0; k < n; ++k) {
    const bool same = k && vm[k] != 0 && (vm[k] > 0) == (vm[k - 1] > 0) && vm[k - 1] != 0;
    seg_begin[k] = same ? seg_begin[k - 1] : k;
  }
  for (size_t k = n; k-- > 0;) {
    const bool same = k + 1 < n && vm[k] != 0 && (vm[k] > 0) == (vm[k + 1] > 0) && vm[k + 1] != 0;
    seg_end[k] = same ? seg_end[k + 1] : k;
  }
  std::vector<size_t> kept;
  for (size_t i = 0; i < n; i += static_cast<size_t>(s.decimation)) {
    const bool inside = t[i] - t.front() >= margin && t.back() - t[i] >= margin;
    const bool one_sign = vel[i] != 0 && vm[i] != 0 && (vm[i] > 0) == (vel[i] > 0) &&
                          (seg_begin[i] == 0 || t[i] - t[seg_begin[i]] >= margin) &&
                          (seg_end[i] == n - 1 || t[seg_end[i]] - t[i] >= margin);
    if (inside && one_sign) kept.push_back(i);
    else ++(inside ? s.near_reversal : s.near_end);
  }
  s.samples_out = kept.size();
  s.rows = kept;
  char method[200], width[32];
  std::snprintf(width, sizeof width, "%.4g", s.half_width_s);
  std::snprintf(method, sizeof method,
                "parallel filter: zero-phase Blackman low-pass, cutoff %s Hz (half-width %s s), decimation %d, "
                "%zu of %zu samples kept",
                format_number(s.cutoff_hz).c_str(), width, s.decimation, s.samples_out, s.samples_in);
  s.method = method;
  if (kept.empty())
    throw InputError(where + ": parallel filtering at cut-off " + format_number(s.cutoff_hz) +
                     " Hz leaves no sample to fit (the filter's support, +/-" + std::string(width) +
                     " s, reaches a velocity reversal or an end of the log at every sample); raise --cutoff, or fit "
                     "unfiltered with --no-parallel-filter");

  Experiment out;
  out.name = e.name;
  out.source = e.source;
  out.units = e.units;
  out.attributes = e.attributes;
  auto pick = [&](const std::vector<double>& x) {
    std::vector<double> y(kept.size());
    for (size_t j = 0; j < kept.size(); ++j) y[j] = x[kept[j]];
    return y;
  };
  for (const auto& [name, x] : e.channels) {
    if (x.size() != n) continue;
    if (name == "time") out.channels[name] = pick(x);
    else if (name == from) out.channels[name] = pick(base);
    else out.channels[name] = blackman_smooth(t, x, s.half_width_s, &kept);
  }
  auto add = [&](const std::string& ch, const std::vector<double>& x, const std::string& src) {
    out.channels[ch] = pick(x);
    out.units[ch] = ch == "velocity" ? (rotational ? "rad/s" : "m/s") : (rotational ? "rad/s^2" : "m/s^2");
    out.attributes["derived_" + ch] = "5-point central difference of the filtered " + src + " (" + s.method + ")";
    s.derived.push_back(ch);
  };
  if (want_v) add("velocity", vel, "position");
  if (want_a) add("acceleration", acc, from);
  out.attributes["parallel_filter"] = s.method;
  if (summary) *summary = s;
  return out;
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
  if (!(dt > 0) || span / dt > 1e9)
    throw InputError(where + ": resampling step " + format_number(dt) + " s is not usable");
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

}  // namespace stribeck::data
