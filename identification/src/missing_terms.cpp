#include "missing_terms.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "multistart.hpp"
#include "stribeck/data/signals.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum Column { kFnSign, kSign, kOne, kAcc, kPa, kPbNeg };

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

struct Term {
  std::string name;  // "offset", "inertia", "pressure", "normal force"
  std::vector<int> columns;
};

}  // namespace

MissingTermGram::MissingTermGram() {
  G_.setZero();
  std::fill(lo_, lo_ + 3, kInf);
  std::fill(hi_, hi_ + 3, -kInf);
}

void MissingTermGram::add(double v, double fn, double pa, double pb, double acc, double r) {
  if (!std::isfinite(r)) return;
  const double s = v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
  if (!std::isfinite(acc)) acc_ = false, acc = 0.0;
  const double x[kColumns + 1] = {fn * s, s, 1.0, acc, pa, -pb, r};
  for (int a = 0; a <= kColumns; ++a)
    for (int b = 0; b <= a; ++b) G_(a, b) += x[a] * x[b];
  const double q[3] = {fn, pa, pb};
  for (int i = 0; i < 3; ++i) lo_[i] = std::min(lo_[i], q[i]), hi_[i] = std::max(hi_[i], q[i]);
  ++n_;
}

void MissingTermGram::add(const Prepared& d, const std::vector<double>& acc, const std::vector<double>& r) {
  for (size_t i = 0; i < d.size(); ++i) add(d.v[i], d.fn[i], d.pa[i], d.pb[i], acc.empty() ? kNaN : acc[i], r[i]);
}

bool MissingTermGram::wanted(const FitSummary& S, double force_rms, double noise) {
  const bool exact = S.rmse <= kRelativeFloor * force_rms;
  const bool poor = S.r_squared < 0.9;
  const bool structured = S.autocorrelation_lag1 > 0.5 && S.rmse > 1.5 * noise;
  return !exact && (poor || structured) && std::isfinite(S.rmse);
}

void MissingTermGram::advise(FitSummary& S, const FitOptions& o, bool reads_fn, double force_rms, double noise) const {
  if (!wanted(S, force_rms, noise) || n_ == 0) return;
  std::vector<Term> terms;
  // A Coulomb level proportional to a normal force that varies: F_n sgn(v)
  // with sgn(v) (the law's own level, so only the part that follows F_n scores).
  if (!reads_fn && hi_[0] > lo_[0]) terms.push_back({"normal force", {kFnSign, kSign}});
  if (!o.offset) terms.push_back({"offset", {kOne}});
  if (!o.inertia && acc_) terms.push_back({"inertia", {kAcc}});
  if (o.area_a == 0.0 && o.area_b == 0.0) {
    // p_a and -p_b, each where it varies (a constant is an offset).
    Term t{"pressure", {}};
    if (hi_[1] > lo_[1]) t.columns.push_back(kPa);
    if (hi_[2] > lo_[2]) t.columns.push_back(kPbNeg);
    if (!t.columns.empty()) terms.push_back(std::move(t));
  }
  if (terms.empty()) return;
  const Eigen::MatrixXd G = G_.selfadjointView<Eigen::Lower>();
  const double rr = G(kColumns, kColumns);
  // The share of r'r the regression of r on `cols` explains, and its coefficients.
  auto explained = [&](const std::vector<int>& cols, Eigen::VectorXd* coef) {
    const int k = static_cast<int>(cols.size());
    Eigen::MatrixXd XtX(k, k);
    Eigen::VectorXd Xtr(k);
    for (int a = 0; a < k; ++a) {
      Xtr(a) = G(cols[a], kColumns);
      for (int b = 0; b < k; ++b) XtX(a, b) = G(cols[a], cols[b]);
    }
    *coef = XtX.completeOrthogonalDecomposition().solve(Xtr);
    return rr > 0 ? Xtr.dot(*coef) / rr : 0.0;
  };
  auto columns_of = [&](const std::vector<int>& chosen) {
    std::vector<int> cols;
    for (int c : chosen) cols.insert(cols.end(), terms[c].columns.begin(), terms[c].columns.end());
    return cols;
  };
  std::vector<int> chosen;
  double share = 0.0;  // of r'r, by the chosen terms together
  for (;;) {
    int best = -1;
    double best_share = share;
    for (int t = 0; t < static_cast<int>(terms.size()); ++t) {
      if (std::count(chosen.begin(), chosen.end(), t)) continue;
      std::vector<int> cols = columns_of(chosen);
      cols.insert(cols.end(), terms[t].columns.begin(), terms[t].columns.end());
      Eigen::VectorXd coef;
      const double sh = explained(cols, &coef);
      if (sh > best_share) best = t, best_share = sh;
    }
    // More than half of what the terms chosen so far leave.
    if (best < 0 || best_share - share <= 0.5 * (1.0 - share)) break;
    chosen.push_back(best);
    share = best_share;
  }
  if (chosen.empty()) return;
  const std::vector<int> cols = columns_of(chosen);
  Eigen::VectorXd coef;
  explained(cols, &coef);
  size_t at = 0;
  for (int c : chosen) {
    // The share this term adds to those before it.
    const Term& t = terms[c];
    Eigen::VectorXd ignored;
    const std::vector<int> before(cols.begin(), cols.begin() + static_cast<long>(at));
    const std::vector<int> with(cols.begin(), cols.begin() + static_cast<long>(at + t.columns.size()));
    const double base = before.empty() ? 0.0 : explained(before, &ignored);
    const double adds = explained(with, &ignored) - base;
    const double* k = coef.data() + at;
    const std::string explains = " explains " + fmt(100.0 * adds / (1.0 - base)) +
                                 (at == 0 ? " % of it): " : " % of what the terms above leave): ");
    std::string w;
    if (t.name == "offset") {
      w = "the residual is a constant (an offset of " + fmt(k[0]) + " N" + explains + "add --offset";
    } else if (t.name == "inertia") {
      w = "the residual follows the acceleration (m*a with m = " + fmt(k[0]) + " kg" + explains + "add --inertia";
    } else if (t.name == "normal force") {
      std::string laws;
      for (const auto& m : all_models())
        if (m.needs(kChannelNormalForce)) laws += (laws.empty() ? "" : ", ") + m.id;
      w = "the residual follows the normal force (F_n*mu*sign(v) with mu = " + fmt(k[0]) + explains +
          "fit a law that reads normal_force (" + laws + ")";
    } else {
      std::string areas, flags;
      for (size_t j = 0; j < t.columns.size(); ++j) {
        const std::string side = t.columns[j] == kPa ? "a" : "b";
        areas += std::string(areas.empty() ? "" : ", ") + "A_" + side + " = " + fmt(k[j]) + " m^2";
        flags += std::string(flags.empty() ? "" : " ") + "--area-" + side + " " + fmt(k[j]);
      }
      w = "the residual follows the chamber pressures (A_a*p_a - A_b*p_b with " + areas + explains + "add " + flags;
    }
    S.warnings.push_back(w);
    at += t.columns.size();
  }
}

std::vector<double> acceleration_of(const Prepared& d, const FitOptions& o) {
  if (!d.acc.empty()) return d.acc;
  if (d.t.size() != d.size()) return {};
  data::Experiment x;
  x.name = d.name;
  x.source = "identify";
  x.channels["time"] = d.t;
  x.channels["velocity"] = d.v;
  data::DeriveOptions opt;
  opt.cutoff_hz = o.cutoff_hz;
  try {
    data::derive_channels(x, {"acceleration"}, opt);
  } catch (const std::exception&) {  // time not increasing, too few samples: no inertia term to offer
    return {};
  }
  return x.channel("acceleration");
}

}  // namespace stribeck::ident::detail
