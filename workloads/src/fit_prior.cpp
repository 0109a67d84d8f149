// A fit's covariance as a multivariate normal in internal coordinates, or its
// intervals as split normals in a Gaussian copula (fit_prior.hpp).
#include "stribeck/workloads/fit_prior.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "stribeck/data/error.hpp"
#include "stribeck/kernels/normal_quantiles.hpp"
#include "stribeck/kernels/sweep/space.hpp"

namespace stribeck::workloads {
namespace {

using Matrix = std::vector<std::vector<long double>>;

// Lower Cholesky factor of a symmetric matrix; false when it is not
// positive definite.
bool cholesky(const Matrix& a, Matrix& l) {
  const size_t n = a.size();
  l.assign(n, std::vector<long double>(n, 0.0L));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j <= i; ++j) {
      long double x = a[i][j];
      for (size_t k = 0; k < j; ++k) x -= l[i][k] * l[j][k];
      if (i == j) {
        if (!(x > 0)) return false;
        l[i][i] = std::sqrt(x);
      } else {
        l[i][j] = x / l[j][j];
      }
    }
  return true;
}

// Inverse by Gauss-Jordan elimination with partial pivoting (k <= 16).
bool invert(Matrix a, Matrix& inv) {
  const size_t n = a.size();
  inv.assign(n, std::vector<long double>(n, 0.0L));
  for (size_t i = 0; i < n; ++i) inv[i][i] = 1;
  for (size_t c = 0; c < n; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    if (!(std::fabs(a[p][c]) > 0)) return false;
    std::swap(a[p], a[c]);
    std::swap(inv[p], inv[c]);
    const long double d = a[c][c];
    for (size_t k = 0; k < n; ++k) a[c][k] /= d, inv[c][k] /= d;
    for (size_t r = 0; r < n; ++r)
      if (r != c && a[r][c] != 0) {
        const long double f = a[r][c];
        for (size_t k = 0; k < n; ++k) a[r][k] -= f * a[c][k], inv[r][k] -= f * inv[c][k];
      }
  }
  return true;
}

// An interval end on a bound of the parameter (the fit's own tolerance).
bool on_bound(double end, double bound) {
  return std::isfinite(bound) && std::abs(end - bound) <= 1e-9 * std::max(1.0, std::abs(bound));
}

// FitDraw::kProfileIntervals: each free parameter's split normal from its
// 95 % interval in internal coordinates (u = x - shift, or log x), coupled
// by the correlation of C_u, so that symmetric intervals give the covariance
// draw. A profile interval is the fit's (an excess's profile is computed in
// the excess with the base at its estimate, which u_of undoes exactly); a
// Wald one is the covariance's own (a Wald interval is symmetric in u for
// log and identity, while an excess's ci95 is of its external value, whose
// spread includes its base's). An end on the parameter's bound holds the
// draws there (docs/dynamics.md, "Drawn from the intervals").
void add_interval_draw(FitPrior& p, const nlohmann::json& params, const Matrix& cu, const std::vector<double>& shift,
                       const std::vector<double>& bound_lo, const std::vector<double>& bound_hi,
                       const std::string& at) {
  const size_t k = p.names.size();
  auto fail = [&](const std::string& what) { return data::InputError(at + ": " + what); };
  auto u_of = [&](size_t a, double v) {
    if (p.transform[a] == sweep::kJointLog) return v > 0 ? std::log(v) : -HUGE_VAL;
    return v - shift[a];
  };
  const std::string instead = ": fix it in the fit, or draw from the covariance (from_fit_draw = \"covariance\")";
  Matrix r(k, std::vector<long double>(k, 0.0L)), l;
  for (size_t a = 0; a < k; ++a)
    for (size_t b = 0; b < k; ++b) r[a][b] = a == b ? 1.0L : cu[a][b] / std::sqrt(cu[a][a] * cu[b][b]);
  if (!cholesky(r, l))
    throw fail("the fit's correlation is not positive definite (parameters that cannot be separated: fix one)");
  for (size_t a = 0; a < k; ++a)
    for (size_t b = 0; b <= a; ++b) p.chol[a * k + b] = static_cast<double>(l[a][b]);
  p.scale_lo.assign(k, 0.0);
  p.scale_hi.assign(k, 0.0);
  p.lo.assign(k, -HUGE_VAL);
  p.hi.assign(k, HUGE_VAL);
  for (size_t a = 0; a < k; ++a) {
    const std::string& name = p.names[a];
    const auto& e = params.at(name);
    const std::string kind =
        e.contains("interval") && e["interval"].is_string() ? e["interval"].get<std::string>() : "";
    if (kind.empty() || !e.contains("ci95") || !e["ci95"].is_array() || e["ci95"].size() != 2)
      throw fail("parameter " + name +
                 " has no 95 % interval (ci95 and interval, written by identify --json): fit again, or draw from "
                 "the covariance (from_fit_draw = \"covariance\")");
    const auto& ci = e["ci95"];
    const double lo = ci[0].is_number() ? ci[0].get<double>() : -HUGE_VAL;  // null: unbounded
    const double hi = ci[1].is_number() ? ci[1].get<double>() : HUGE_VAL;
    if (kind == "profile") {
      const double ulo = u_of(a, lo), uhi = u_of(a, hi);
      if (!std::isfinite(ulo))
        throw fail("the profile interval of " + name + " is unbounded below (the data do not bound it)" + instead);
      if (!std::isfinite(uhi))
        throw fail("the profile interval of " + name + " is unbounded above (the data do not bound it)" + instead);
      if (!(ulo <= p.mean[a] && p.mean[a] <= uhi))
        throw fail("the 95 % interval of " + name + " does not contain its value");
      p.scale_lo[a] = (p.mean[a] - ulo) / math::kZ975;
      p.scale_hi[a] = (uhi - p.mean[a]) / math::kZ975;
    } else if (kind == "wald" || kind == "one-sided") {
      p.scale_lo[a] = p.scale_hi[a] = static_cast<double>(std::sqrt(cu[a][a]));
    } else {
      throw fail("parameter " + name + " has an interval of unknown kind \"" + kind + "\"");
    }
    if (on_bound(lo, bound_lo[a])) p.lo[a] = u_of(a, bound_lo[a]);
    if (on_bound(hi, bound_hi[a])) p.hi[a] = u_of(a, bound_hi[a]);
  }
}

}  // namespace

const char* fit_draw_name(FitDraw d) { return d == FitDraw::kProfileIntervals ? "profile-intervals" : "covariance"; }

bool parse_fit_draw(const std::string& name, FitDraw& out) {
  for (FitDraw d : {FitDraw::kCovariance, FitDraw::kProfileIntervals})
    if (name == fit_draw_name(d)) {
      out = d;
      return true;
    }
  return false;
}

std::vector<double> FitPrior::joint_list() const {
  std::vector<double> v(mean);
  v.insert(v.end(), chol.begin(), chol.end());
  if (draw == FitDraw::kProfileIntervals)
    for (const std::vector<double>* part : {&scale_lo, &scale_hi, &lo, &hi})
      v.insert(v.end(), part->begin(), part->end());
  return v;
}

FitPrior read_fit_prior(const std::string& path, const ModelInfo& m, const std::string& where, FitDraw draw) {
  const std::string at = where + " \"" + path + "\"";
  std::ifstream in(path);
  if (!in) throw data::InputError(at + ": cannot open the fit (identify --json output)");
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ss.str());
  } catch (const std::exception&) {
    throw data::InputError(at + ": not JSON (expected the output of stribeck identify --json)");
  }
  auto fail = [&](const std::string& what) -> data::InputError { return data::InputError(at + ": " + what); };
  if (!j.is_object() || !j.contains("model") || !j.contains("parameters") || !j.contains("correlation"))
    throw fail("not a fit (expected the output of stribeck identify --json: model, parameters, correlation)");
  if (!j["model"].is_string() || j["model"].get<std::string>() != m.id)
    throw fail("a fit of " + j["model"].dump() + ", not of " + m.id + " ([friction] model)");
  const auto& corr = j["correlation"];
  if (!corr.contains("transforms"))
    throw fail(
        "has no correlation.transforms (written by stribeck 0.1 identify --json since the ensembles drawn "
        "from fits; fit again)");
  FitPrior p;
  p.file = path;
  p.draw = draw;
  const auto& params = j["parameters"];
  for (const auto& [name, e] : params.items()) {
    const int i = m.param_index(name);
    if (i < 0) throw fail("parameter " + name + " is not a parameter of " + m.id);
    const auto& v = e.at("value");
    if (!v.is_number()) throw fail("parameter " + name + " has no value");
    p.values.emplace_back(i, v.get<double>());
    if (e.value("fixed", false)) p.fixed.push_back(name);
  }
  p.names = corr.at("parameters").get<std::vector<std::string>>();
  const auto transforms = corr.at("transforms").get<std::vector<std::string>>();
  const auto& matrix = corr.at("matrix");
  const size_t k = p.names.size();
  if (k == 0) throw fail("has no free parameters: nothing to draw");
  if (k > static_cast<size_t>(sweep::kMaxParams)) throw fail("has more than 16 free parameters");
  if (transforms.size() != k || !matrix.is_array() || matrix.size() != k)
    throw fail("correlation.parameters, .transforms and .matrix differ in size");
  auto index = [&](const std::string& n) {
    for (size_t a = 0; a < k; ++a)
      if (p.names[a] == n) return static_cast<int>(a);
    return -1;
  };
  std::vector<double> x(k), se(k);
  for (size_t a = 0; a < k; ++a) {
    const auto& e = params.at(p.names[a]);
    x[a] = e.at("value").get<double>();
    if (!e.at("std_error").is_number() || !(e.at("std_error").get<double>() > 0))
      throw fail("parameter " + p.names[a] +
                 " has no standard error (the data do not determine it): fix it in the fit (identify --fix " +
                 p.names[a] + "=VALUE) to draw the others");
    se[a] = e.at("std_error").get<double>();
  }
  // Internal coordinates u and the Jacobian G = dx/du (x = external values).
  Matrix g(k, std::vector<long double>(k, 0.0L));
  p.transform.assign(k, sweep::kJointIdentity);
  p.base.assign(k, -1);
  p.mean.assign(k, 0.0);
  // The external range at the estimate (an excess's lower bound is its
  // base's value), and an excess's base value (u = x - shift).
  std::vector<double> shift(k, 0.0), bound_lo(k), bound_hi(k);
  for (size_t a = 0; a < k; ++a) {
    const std::string& t = transforms[a];
    const int mi = m.param_index(p.names[a]);
    if (mi < 0) throw fail("parameter " + p.names[a] + " is not a parameter of " + m.id);
    bound_lo[a] = m.params[mi].lo;
    bound_hi[a] = m.params[mi].hi;
    if (t == "identity") {
      p.mean[a] = x[a];
      g[a][a] = 1;
    } else if (t == "log") {
      if (!(x[a] > 0)) throw fail("parameter " + p.names[a] + " is drawn in log but its value is not > 0");
      p.transform[a] = sweep::kJointLog;
      p.mean[a] = std::log(x[a]);
      g[a][a] = x[a];
    } else if (t.rfind("excess:", 0) == 0) {
      const std::string base = t.substr(7);
      const int b = index(base);
      double xb = 0;
      if (b >= 0) {
        xb = x[b];
      } else if (params.contains(base) && params[base].at("value").is_number()) {
        xb = params[base]["value"].get<double>();  // a fixed base: an identity around it
      } else {
        throw fail("parameter " + p.names[a] + " is an excess over " + base + ", which the fit does not give");
      }
      p.mean[a] = x[a] - xb;
      g[a][a] = 1;
      bound_lo[a] = std::max(bound_lo[a], xb);
      if (b >= 0) {
        p.transform[a] = sweep::kJointExcess;
        p.base[a] = b;
        shift[a] = xb;
      } else {
        p.mean[a] = x[a];  // drawn as identity: base fixed
      }
    } else {
      throw fail("unknown transform \"" + t + "\" of parameter " + p.names[a]);
    }
  }
  // An excess's x moves with its base's: dx_a/du = e_a + dx_b/du (bases come
  // first in a fit's layout, but any order is resolved by repeating).
  for (size_t pass = 0; pass < k; ++pass)
    for (size_t a = 0; a < k; ++a)
      if (p.base[a] >= 0)
        for (size_t c = 0; c < k; ++c) g[a][c] = (c == a ? 1.0L : 0.0L) + g[p.base[a]][c];
  Matrix cx(k, std::vector<long double>(k, 0.0L));
  for (size_t a = 0; a < k; ++a) {
    if (!matrix[a].is_array() || matrix[a].size() != k) throw fail("correlation.matrix is not square");
    for (size_t b = 0; b < k; ++b) {
      const auto& r = matrix[a][b];
      if (!r.is_number()) throw fail("correlation of " + p.names[a] + " and " + p.names[b] + " is not a number");
      cx[a][b] = static_cast<long double>(r.get<double>()) * se[a] * se[b];
    }
  }
  Matrix gi, cu(k, std::vector<long double>(k, 0.0L)), tmp(k, std::vector<long double>(k, 0.0L)), l;
  if (!invert(g, gi)) throw fail("the internal coordinates are singular at the estimate");
  for (size_t a = 0; a < k; ++a)
    for (size_t b = 0; b < k; ++b)
      for (size_t c = 0; c < k; ++c) tmp[a][b] += gi[a][c] * cx[c][b];
  for (size_t a = 0; a < k; ++a)
    for (size_t b = 0; b < k; ++b)
      for (size_t c = 0; c < k; ++c) cu[a][b] += tmp[a][c] * gi[b][c];
  for (size_t a = 0; a < k; ++a)
    for (size_t b = 0; b < a; ++b) cu[a][b] = cu[b][a] = 0.5L * (cu[a][b] + cu[b][a]);
  if (!cholesky(cu, l))
    throw fail("the fit's covariance is not positive definite (parameters that cannot be separated: fix one)");
  p.chol.assign(k * k, 0.0);
  for (size_t a = 0; a < k; ++a)
    for (size_t b = 0; b <= a; ++b) p.chol[a * k + b] = static_cast<double>(l[a][b]);
  if (draw == FitDraw::kProfileIntervals) add_interval_draw(p, params, cu, shift, bound_lo, bound_hi, at);
  return p;
}

}  // namespace stribeck::workloads
