// The elements of a generalized Maxwell-slip fit: their order and the starts
// split from a fit of one element fewer (gms_elements.hpp).
#include "gms_elements.hpp"

#include <algorithm>
#include <cmath>

#include "stribeck/kernels/models/gms.hpp"

namespace stribeck::ident::detail {
namespace {

// Break displacement over s(v) / sigma0 (the sort key); a dead element last.
double break_share(const GmsElement& e) { return e.kappa > 0 ? e.alpha / e.kappa : kInf; }

bool by_break(const GmsElement& a, const GmsElement& b) { return break_share(a) < break_share(b); }

// The smallest share an element of a fit of fewer elements keeps when it is
// split from: a dead one (share 0) is revived at it.
constexpr double kMinShare = 1e-3;
// Each half of a split element lies this factor from its break displacement.
constexpr double kSplit = 2.0;

}  // namespace

std::vector<GmsElement> gms_elements(const std::vector<double>& kf, const std::vector<double>& af) {
  std::vector<GmsElement> el(kf.size() + 1);
  double k_left = 1.0, a_left = 1.0;
  for (size_t i = 0; i < kf.size(); ++i) {
    el[i] = {k_left * kf[i], a_left * af[i]};
    k_left *= 1.0 - kf[i];
    a_left *= 1.0 - af[i];
  }
  el.back() = {k_left, a_left};
  return el;
}

void gms_fractions(const std::vector<GmsElement>& el, std::vector<double>* kf, std::vector<double>* af) {
  kf->assign(el.size() - 1, 0.0);
  af->assign(el.size() - 1, 0.0);
  // What the elements from i on share, summed from the end (not 1 minus the
  // shares before: a small last element keeps its digits).
  double k_left = 0.0, a_left = 0.0;
  std::vector<double> ks(el.size()), as(el.size());
  for (size_t i = el.size(); i-- > 0;) {
    k_left += el[i].kappa;
    a_left += el[i].alpha;
    ks[i] = k_left;
    as[i] = a_left;
  }
  for (size_t i = 0; i + 1 < el.size(); ++i) {
    (*kf)[i] = el[i].kappa / ks[i];
    (*af)[i] = el[i].alpha / as[i];
  }
}

GmsFractionIndices gms_fraction_indices(const Layout& L, int n) {
  GmsFractionIndices f;
  if (n < 2 || L.asymmetric || L.model_map.empty()) return f;
  for (int j = 0; j < 2 * (n - 1); ++j) {
    const int m = Gms1::kFirstFraction + j;  // kf_1 .. kf_{n-1}, then af_1 .. af_{n-1}
    const int g = L.model_map[0][0][m];
    for (const auto& map : L.model_map)
      if (map[0][m] != g || (!map[1].empty() && map[1][m] != g)) return {};
    const FitParam& p = L.params[g];
    if (p.fixed || p.transform != Transform::kLog || p.lo > 0.0 || p.hi < 1.0) return {};
    (j < n - 1 ? f.kf : f.af).push_back(g);
  }
  return f;
}

void order_gms_elements(const GmsFractionIndices& f, std::vector<double>& u) {
  if (f.kf.empty()) return;
  std::vector<double> kf, af;
  for (size_t j = 0; j < f.kf.size(); ++j) {
    kf.push_back(std::exp(u[f.kf[j]]));
    af.push_back(std::exp(u[f.af[j]]));
  }
  std::vector<GmsElement> el = gms_elements(kf, af);
  for (const GmsElement& e : el)
    if (!(e.kappa > 0 && e.alpha > 0)) return;
  if (std::is_sorted(el.begin(), el.end(), by_break)) return;  // already: not a digit changes
  std::stable_sort(el.begin(), el.end(), by_break);
  gms_fractions(el, &kf, &af);
  for (size_t j = 0; j < f.kf.size(); ++j) {
    u[f.kf[j]] = std::log(kf[j]);
    u[f.af[j]] = std::log(af[j]);
  }
}

std::vector<std::vector<double>> gms_split_starts(const Layout& L, const GmsFractionIndices& f,
                                                  const FitSummary& fewer) {
  const int n = static_cast<int>(f.kf.size()) + 1;
  if (n < 2) return {};
  auto value_of = [&](const std::string& name) {
    for (const ParameterEstimate& p : fewer.parameters)
      if (p.name == name) return p.value;
    return std::nan("");
  };
  std::vector<double> kf, af;
  for (int j = 0; j + 2 < n; ++j) {
    kf.push_back(value_of("kf_" + std::to_string(j + 1)));
    af.push_back(value_of("af_" + std::to_string(j + 1)));
  }
  std::vector<GmsElement> base = gms_elements(kf, af);
  double ksum = 0, asum = 0;
  for (GmsElement& e : base) {
    if (!std::isfinite(e.kappa) || !std::isfinite(e.alpha)) return {};
    e.kappa = std::max(e.kappa, kMinShare);
    e.alpha = std::max(e.alpha, kMinShare);
    ksum += e.kappa;
    asum += e.alpha;
  }
  std::vector<std::vector<double>> starts;
  for (size_t j = 0; j < base.size(); ++j) {
    // Halves at kSplit times and 1/kSplit of the element's break
    // displacement whose stiffness and level add up to the element's:
    // kappa/(1+r), r kappa/(1+r) and r alpha/(1+r), alpha/(1+r).
    std::vector<GmsElement> el;
    for (size_t i = 0; i < base.size(); ++i) {
      const GmsElement e{base[i].kappa / ksum, base[i].alpha / asum};
      if (i != j) {
        el.push_back(e);
        continue;
      }
      el.push_back({e.kappa / (1 + kSplit), kSplit * e.alpha / (1 + kSplit)});
      el.push_back({kSplit * e.kappa / (1 + kSplit), e.alpha / (1 + kSplit)});
    }
    std::stable_sort(el.begin(), el.end(), by_break);
    std::vector<double> skf, saf;
    gms_fractions(el, &skf, &saf);
    Layout S = L;
    for (size_t i = 0; i < S.params.size(); ++i) {
      FitParam& p = S.params[i];
      if (p.fixed) continue;
      const auto k = std::find(f.kf.begin(), f.kf.end(), static_cast<int>(i));
      const auto a = std::find(f.af.begin(), f.af.end(), static_cast<int>(i));
      double v = k != f.kf.end() ? skf[k - f.kf.begin()] : a != f.af.end() ? saf[a - f.af.begin()] : value_of(p.name);
      if (!std::isfinite(v) || (p.transform == Transform::kLog && !(v > 0))) continue;  // kept at L's
      p.value = std::min(std::max(v, p.lo), p.hi);
    }
    for (FitParam& p : S.params)
      if (p.transform == Transform::kExcess) p.value = std::max(p.value, S.params[p.excess_base].value);
    set_internal_from_values(S);
    std::vector<double> u;
    for (const FitParam& p : S.params) u.push_back(p.u);
    starts.push_back(std::move(u));
  }
  return starts;
}

bool names_gms_fraction(const FitOptions& o) {
  for (const auto* list : {&o.free, &o.fix, &o.initial, &o.bounds, &o.per_experiment})
    for (const std::string& s : *list)
      for (size_t at = 0; at + 3 <= s.size(); ++at)
        if ((at == 0 || s[at - 1] == ',') && (s.compare(at, 3, "kf_") == 0 || s.compare(at, 3, "af_") == 0))
          return true;
  return false;
}

}  // namespace stribeck::ident::detail
