#include "stribeck/identification/signals.hpp"

#include <algorithm>
#include <cmath>

#include "stribeck/data/error.hpp"

namespace stribeck::ident {

void differentiate(const std::vector<double>& t, const std::vector<double>& x, int half_width,
                   std::vector<double>* dx, std::vector<double>* ddx) {
  const long n = static_cast<long>(t.size());
  if (static_cast<long>(x.size()) != n) throw InputError("differentiate: time and signal differ in length");
  for (long i = 1; i < n; ++i)
    if (!(t[i] > t[i - 1]))
      throw InputError("time is not strictly increasing at sample " + std::to_string(i));
  if (dx) dx->assign(n, 0.0);
  if (ddx) ddx->assign(n, 0.0);
  if (n < 3) return;
  const long h = std::max(1, half_width);
  for (long i = 0; i < n; ++i) {
    long lo = std::max(0L, i - h), hi = std::min(n - 1, i + h);
    while (hi - lo < 2) (lo > 0) ? --lo : ++hi;
    // Normal equations of x ~ c0 + c1*s + c2*s^2, s = (t - t_i) / scale.
    const double scale = std::max(t[hi] - t[i], t[i] - t[lo]);
    double S[5] = {0, 0, 0, 0, 0}, B[3] = {0, 0, 0};
    for (long j = lo; j <= hi; ++j) {
      const double s = (t[j] - t[i]) / scale;
      double p = 1.0;
      for (int k = 0; k < 5; ++k) {
        if (k < 3) B[k] += p * x[j];
        S[k] += p;
        p *= s;
      }
    }
    // Solve the symmetric 3x3 system [S0 S1 S2; S1 S2 S3; S2 S3 S4] c = B by Cramer's rule.
    const double a = S[0], b = S[1], c = S[2], d = S[3], e = S[4];
    const double det = a * (c * e - d * d) - b * (b * e - d * c) + c * (b * d - c * c);
    const double c1 = (a * (B[1] * e - d * B[2]) - B[0] * (b * e - d * c) + c * (b * B[2] - B[1] * c)) / det;
    const double c2 = (a * (c * B[2] - B[1] * d) - b * (b * B[2] - B[1] * c) + B[0] * (b * d - c * c)) / det;
    if (dx) (*dx)[i] = c1 / scale;
    if (ddx) (*ddx)[i] = 2.0 * c2 / (scale * scale);
  }
}

std::vector<double> velocity_of(const Experiment& e, int half_width) {
  if (e.has("velocity")) return e.channel("velocity");
  if (e.has("position") && e.has("time")) {
    std::vector<double> v;
    try {
      differentiate(e.channel("time"), e.channel("position"), half_width, &v, nullptr);
    } catch (const InputError& err) {
      throw InputError(e.source + ": experiment '" + e.name + "': " + err.what());
    }
    return v;
  }
  throw InputError(e.source + ": experiment '" + e.name +
                   "' has neither a 'velocity' channel nor 'position' and 'time' to derive it from");
}

std::vector<double> acceleration_of(const Experiment& e, int half_width) {
  if (e.has("acceleration")) return e.channel("acceleration");
  if (!e.has("time"))
    throw InputError(e.source + ": experiment '" + e.name +
                     "' has no 'acceleration' channel and no 'time' to derive it from");
  std::vector<double> a;
  try {
    if (e.has("velocity"))
      differentiate(e.channel("time"), e.channel("velocity"), half_width, &a, nullptr);
    else if (e.has("position"))
      differentiate(e.channel("time"), e.channel("position"), half_width, nullptr, &a);
    else
      throw InputError("no 'velocity' or 'position' channel to derive acceleration from");
  } catch (const InputError& err) {
    throw InputError(e.source + ": experiment '" + e.name + "': " + err.what());
  }
  return a;
}

}  // namespace stribeck::ident
