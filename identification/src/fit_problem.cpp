// The blocks of a static fit's problem (fit_problem.hpp).
#include "fit_problem.hpp"

#include <string>

#include "stribeck/data/error.hpp"

namespace stribeck::ident::detail {

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
    throw data::InputError("too many free parameters for one experiment (" + std::to_string(nfree) + ", at most " +
                           std::to_string(kMaxBlockParams) + ")");
  return b;
}

std::vector<AffineParam> affine_params(const Layout& L, const std::vector<int>& used, const SampleLoss& loss) {
  std::vector<AffineParam> a(used.size());
  for (size_t i = 0; i < used.size(); ++i) {
    const FitParam& p = L.params[used[i]];
    a[i].level = !loss.rho && p.model_index >= 0 && linear_role(p.role);
    a[i].transform = p.transform;
    if (p.transform == Transform::kExcess)
      a[i].base = static_cast<int>(std::find(used.begin(), used.end(), p.excess_base) - used.begin());
  }
  return a;
}

}  // namespace stribeck::ident::detail
